"""Who hears how a `record` / `replay` command goes: one interface, a presenter per front end.

`trailblaze.engine.commands` runs the commands and tells a `Progress` what happened, in order, as
data: which trail starts, each step as it ends, a retry, what became of the trail file, the reports
written, the run's totals and verdict. It prints nothing itself. The CLI's presenter
(`trailblaze.cli.console.ConsoleProgress`) turns these into the terminal's lines; `Quiet` (the default)
drops them, for a caller that reads the results (the exit code, run.json) instead. The step engine's
own bookkeeping goes to a `RunObserver` (`trailblaze.output.observer`); this interface sits one level
up, at the command's trails (docs/adr/0060-console-out-of-the-engine.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, UsageTotals

__all__ = ["Progress", "Quiet", "RecordTotals"]


@dataclass(frozen=True)
class RecordTotals:
    """What a `record` command did over all its trails."""

    trails: int
    passed: int
    steps: int
    unproven: int
    """Trails whose new recordings the proof replay did not verify."""
    usage: UsageTotals
    root: Path


class Progress(Protocol):
    """What the `record` / `replay` commands report, in the order it happens."""

    def nothing_to_record(self, text: str) -> None:
        """`record`: a trail with no step to solve is left as it is (`text` says so)."""

    def ported(self, text: str) -> None:
        """`port`: how many steps of the run were ported, and how many are left for record."""

    def installed(self, path: str, app_id: str, *, reinstall: bool) -> None:
        """`--install`: the app at `path` went on the device, before the first trail."""

    def trail_started(self, file: Path, device: str, note: str | None, resumed: str | None = None) -> None:
        """A trail starts on `device` (`note`: its config.note; `resumed`: `record --resume`'s draft)."""

    def step_done(self, record: StepRecord) -> None:
        """A step of the trail ended."""

    def proof_step_done(self, record: StepRecord) -> None:
        """A step of the proof replay ended (the first one of a trail starts the proof replay)."""

    def summarised(self, line: str) -> None:
        """`record`: what the trail recorded and whether the proof replay verified it
        (`recorded 5 steps · verified by replay in 3.1 s`); before `recorded`."""

    def retrying(self, attempt: int, retries: int) -> None:
        """Attempt `attempt - 1` failed; the trail runs again from a clean launch."""

    def trail_lost(self, message: str) -> None:
        """The device or the model endpoint failed during the trail (the message says how)."""

    def record_stopped(self, not_changed: str) -> None:
        """`record`: an error or Ctrl-C stopped the trail; `not_changed` says what became of the file."""

    def recorded(
        self, file: Path, record: TrailRecord, root: Path, summary: str | None, not_changed: str | None
    ) -> None:
        """`record`: the trail ended (`summary`: what the proof replay made of the new recordings;
        `not_changed`: why the file was left as it was)."""

    def replayed(self, file: Path, record: TrailRecord, root: Path) -> None:
        """`replay`: the trail ended, its retries included."""

    def interrupted(self, root: Path, report: Path | None) -> None:
        """Ctrl-C: what ran so far is in `root` (and the HTML report at `report`)."""

    def junit_written(self, path: Path) -> None:
        """The JUnit file was written."""

    def results_written(self, label: str, path: Path) -> None:
        """Another result file or folder was written: `allure` (the --allure-dir folder) or `ctrf`."""

    def results_not_stored(self, warning: str) -> None:
        """The run could not be added to the results store (`warning`: one line, redacted); the run goes on."""

    def report_written(self, page: Path, pictures: Path | None) -> None:
        """The HTML report was written (`pictures`: the folder of its screenshots, beside it)."""

    def empty_shard(self, shard: str, root: Path) -> None:
        """`replay --shard`: no trail falls in this shard."""

    def replay_totals(self, run: RunRecord, root: Path) -> None:
        """`replay`: every trail ran; their records are in `root` (read them one at a time)."""

    def record_totals(self, totals: RecordTotals) -> None:
        """`record`: every trail ran."""

    def verdict(self, lines: list[str]) -> None:
        """`replay`: why the run fails or passes under the CI policy (redacted already)."""


class Quiet:
    """A `Progress` that says nothing: the caller reads the exit code and the run directory."""

    def nothing_to_record(self, text: str) -> None:
        return None

    def ported(self, text: str) -> None:
        return None

    def installed(self, path: str, app_id: str, *, reinstall: bool) -> None:
        return None

    def trail_started(self, file: Path, device: str, note: str | None, resumed: str | None = None) -> None:
        return None

    def step_done(self, record: StepRecord) -> None:
        return None

    def proof_step_done(self, record: StepRecord) -> None:
        return None

    def summarised(self, line: str) -> None:
        return None

    def retrying(self, attempt: int, retries: int) -> None:
        return None

    def trail_lost(self, message: str) -> None:
        return None

    def record_stopped(self, not_changed: str) -> None:
        return None

    def recorded(
        self, file: Path, record: TrailRecord, root: Path, summary: str | None, not_changed: str | None
    ) -> None:
        return None

    def replayed(self, file: Path, record: TrailRecord, root: Path) -> None:
        return None

    def interrupted(self, root: Path, report: Path | None) -> None:
        return None

    def junit_written(self, path: Path) -> None:
        return None

    def results_written(self, label: str, path: Path) -> None:
        return None

    def results_not_stored(self, warning: str) -> None:
        return None

    def report_written(self, page: Path, pictures: Path | None) -> None:
        return None

    def empty_shard(self, shard: str, root: Path) -> None:
        return None

    def replay_totals(self, run: RunRecord, root: Path) -> None:
        return None

    def record_totals(self, totals: RecordTotals) -> None:
        return None

    def verdict(self, lines: list[str]) -> None:
        return None
