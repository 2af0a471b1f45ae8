"""What a run reports: one interface, `RunEvents`, that every listener of a run implements.

A run tells its listeners what happens, in order and as data, and prints or keeps nothing itself:

- the agent (`trailblaze.agent.loop`): every LLM call and every tool the model ran, as it happens;
- the step engine (`trailblaze.engine.steps`): trails begin and end, their steps start and finish,
  the recorded tools that ran, what a solver (the agent, or `trailblaze port`'s) made of a step;
- the `record` / `replay` commands (`trailblaze.engine.commands`): which trail starts, each step as it
  ends, a retry, what became of the trail file, the reports written, the totals and the verdict.

A listener subclasses `RunEvents`, whose events do nothing, and overrides what it needs: the run
directory (`trailblaze.output.rundir.RunDir`) writes run.json, transcripts and screenshots;
`MemoryRecorder` (`trailblaze.output.observer`) fills the same records in memory for a run without a
run directory (pytest, MCP, `replay_trail(..., rundir=None)`); the CLI's presenter
(`trailblaze.cli.console.ConsoleProgress`) prints the terminal's lines. The engine holds two of them:
the run's bookkeeper, told first, and the command's presenter, which then prints what was recorded
(docs/adr/0080-one-event-seam.md, docs/adr/0060-console-out-of-the-engine.md).

The events carry what a step solver returns (`trailblaze.output.step_result`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMRequest, LLMResponse
    from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, UsageTotals
    from trailblaze.output.step_result import StepResult, ToolRun
    from trailblaze.tools.execute import ToolResult
    from trailblaze.tools.memory import Memory
    from trailblaze.trail.model import ToolCall

__all__ = ["Quiet", "RecordTotals", "RunEvents"]


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


class RunEvents(Protocol):
    """Everything a run reports, in the order it happens. A sub-trail (`runTrail`) begins and ends
    inside its calling step.

    Every event does nothing here: a listener subclasses `RunEvents` and overrides the events it
    needs (mypy checks its overrides against these). `Quiet` is the listener that needs none."""

    # --- the agent ---------------------------------------------------------------------------------
    def on_llm_call(self, request: LLMRequest, response: LLMResponse, image: bytes | None) -> None:
        """The agent made one LLM call (`image`: the screenshot it sent, None with screenshots off)."""
        return None

    def on_tool(self, run: ToolRun) -> None:
        """One LLM-facing call ran (it may have run a recorded-form tool)."""
        return None

    # --- the step engine's bookkeeping ---------------------------------------------------------------
    keep_trace: bool = False
    """Keep a failed trail's browser trace although the run has secrets (`--trace`)."""

    def begin_trail(
        self,
        record: TrailRecord,
        memory: Memory,
        *,
        proof_of: TrailRecord | None = None,
        within: StepRecord | None = None,
    ) -> None:
        """`record` starts: a trail of the run, the proof replay of `proof_of`, or a sub-trail of the
        step `within`."""
        return None

    def end_trail(
        self, record: TrailRecord, error: str | None, started: float, *, memory: Memory, sub: bool
    ) -> None:
        """`record` ended with `record.status` and `error`; the calling trail is current again."""
        return None

    def resume_trail(self, record: TrailRecord) -> None:
        """`record` is the current trail again (after its proof replay)."""
        return None

    def start_step(self, record: StepRecord, session: DeviceSession | None) -> StepRecord:
        """A step of the current trail starts (`session` None: it does not run, e.g. skipped)."""
        return record

    def finish_step(self, session: DeviceSession | None, started: float) -> None:
        """The current step finished."""
        return None

    def add_replayed(
        self, call: ToolCall, result: ToolResult, duration_ms: float, *, auto: bool = False
    ) -> None:
        """A recorded tool ran (`auto`: one the engine added, e.g. hideKeyboard)."""
        return None

    def step_solved(self, record: StepRecord, result: StepResult, *, healing: bool) -> None:
        """A solver finished the current step (its LLM calls and tools are in `result`; the agent's
        were told one by one as well, through `on_llm_call` and `on_tool`)."""
        return None

    def mark_recorded(self) -> None:
        """The current step's agent tools were written into the trail."""
        return None

    def trail_folder(self, record: TrailRecord) -> Path | None:
        """Where `record`'s files go (trail.diff, trace.zip), or None: no files."""
        return None

    # --- the record / replay commands ----------------------------------------------------------------
    def nothing_to_record(self, text: str) -> None:
        """`record`: a trail with no step to solve is left as it is (`text` says so)."""
        return None

    def ported(self, text: str) -> None:
        """`port`: how many steps of the run were ported, and how many are left for record."""
        return None

    def installed(self, path: str, app_id: str, *, reinstall: bool) -> None:
        """`--install`: the app at `path` went on the device, before the first trail."""
        return None

    def trail_started(self, file: Path, device: str, note: str | None, resumed: str | None = None) -> None:
        """A trail starts on `device` (`note`: its config.note; `resumed`: `record --resume`'s draft)."""
        return None

    def step_done(self, record: StepRecord) -> None:
        """A step of the trail ended."""
        return None

    def proof_step_done(self, record: StepRecord) -> None:
        """A step of the proof replay ended (the first one of a trail starts the proof replay)."""
        return None

    def summarised(self, line: str) -> None:
        """`record`: what the trail recorded and whether the proof replay verified it
        (`recorded 5 steps · verified by replay in 3.1 s`); before `recorded`."""
        return None

    def retrying(self, attempt: int, retries: int) -> None:
        """Attempt `attempt - 1` failed; the trail runs again from a clean launch."""
        return None

    def trail_lost(self, message: str) -> None:
        """The device or the model endpoint failed during the trail (the message says how)."""
        return None

    def record_stopped(self, not_changed: str) -> None:
        """`record`: an error or Ctrl-C stopped the trail; `not_changed` says what became of the file."""
        return None

    def recorded(
        self, file: Path, record: TrailRecord, root: Path, summary: str | None, not_changed: str | None
    ) -> None:
        """`record`: the trail ended (`summary`: what the proof replay made of the new recordings;
        `not_changed`: why the file was left as it was)."""
        return None

    def replayed(self, file: Path, record: TrailRecord, root: Path) -> None:
        """`replay`: the trail ended, its retries included."""
        return None

    def interrupted(self, root: Path, report: Path | None) -> None:
        """Ctrl-C: what ran so far is in `root` (and the HTML report at `report`)."""
        return None

    def junit_written(self, path: Path) -> None:
        """The JUnit file was written."""
        return None

    def results_written(self, label: str, path: Path) -> None:
        """Another result file or folder was written: `allure` (the --allure-dir folder) or `ctrf`."""
        return None

    def results_not_stored(self, warning: str) -> None:
        """The run could not be added to the results store (`warning`: one line, redacted); the run goes on."""
        return None

    def report_written(self, page: Path, pictures: Path | None) -> None:
        """The HTML report was written (`pictures`: the folder of its screenshots, beside it)."""
        return None

    def empty_shard(self, shard: str, root: Path) -> None:
        """`replay --shard`: no trail falls in this shard."""
        return None

    def replay_totals(self, run: RunRecord, root: Path) -> None:
        """`replay`: every trail ran; their records are in `root` (read them one at a time)."""
        return None

    def record_totals(self, totals: RecordTotals) -> None:
        """`record`: every trail ran."""
        return None

    def verdict(self, lines: list[str]) -> None:
        """`replay`: why the run fails or passes under the CI policy (redacted already)."""
        return None


class Quiet(RunEvents):
    """The listener that ignores every event: the caller reads the exit code and the run directory."""
