"""The terminal's `trailblaze record` / `trailblaze replay`: a run's listener that prints with rich.

`trailblaze.engine.commands` runs the commands and tells `ConsoleProgress` what happened; this module
alone decides how it looks: a heading per trail, a line per step, the proof replay under its own
heading, the diff of a written recording, the totals table, the verdict. The console is not scrubbed
as a whole: a secret equal to one of its own words (`status`) would point out which word is secret.
Every value from a trail, the device or a run log goes in through `_escape`, which redacts it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.output.ci_policy import is_flaky
from trailblaze.output.events import RunEvents
from trailblaze.output.runlog import (
    RunRecord,
    StepRecord,
    TrailRecord,
    UsageTotals,
    iter_trails,
    usage_cost_text,
)
from trailblaze.trail.discovery import recordings_file

if TYPE_CHECKING:
    from rich.console import Console

    from trailblaze.output.events import RecordTotals

__all__ = ["ConsoleProgress", "step_line"]

_MARKS = {
    "passed": "[green]✓[/]",
    "passed-ai": "[green]✓[/]",
    "passed-with-self-heal": "[yellow]✓[/]",
    "failed": "[red]✗[/]",
    "skipped": "[dim]-[/]",
}
_STYLES = {"passed": "green", "passed-ai": "green", "passed-with-self-heal": "yellow", "skipped": "dim"}

def _models(usage: UsageTotals) -> str:
    """` (openai:gpt-4.1)`: who answered, and how often with text instead of a tool call."""
    said = [", ".join(_escape(m) for m in usage.models)] if usage.models else []
    if usage.text_answers:
        said.append(f"{usage.text_answers} answered with text instead of a tool call")
    return f" ({'; '.join(said)})" if said else ""



class ConsoleProgress(RunEvents):
    """The CLI's listener of the commands' events (`RunEvents`): each printed to standard output as it
    happens."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console if console is not None else _console()
        self._proof_started = False

    def nothing_to_record(self, text: str) -> None:
        self.console.print(_escape(text))

    def ported(self, text: str) -> None:
        self.console.print(f"[bold]{_escape(text)}[/]")

    def installed(self, path: str, app_id: str, *, reinstall: bool) -> None:
        self.console.print(f"[dim]{'re' if reinstall else ''}installed {_escape(app_id)} from {_escape(path)}[/]")

    def trail_started(self, file: Path, device: str, note: str | None, resumed: str | None = None) -> None:
        self._proof_started = False
        self.console.print(f"[bold]{_escape(str(file))}[/] on {_escape(device)}")
        if note:
            self.console.print(f"  [dim]note: {_escape(note)}[/]")
        if resumed:
            self.console.print(f"  [dim]{_escape(resumed)}[/]")

    def step_done(self, record: StepRecord) -> None:
        self.console.print(step_line(record))

    def proof_step_done(self, record: StepRecord) -> None:
        if not self._proof_started:
            self._proof_started = True
            self.console.print("  [bold]proof replay[/] (relaunched, recordings only, no LLM):")
        self.console.print("  " + step_line(record))

    def summarised(self, line: str) -> None:
        return None  # `recorded` prints it, after the trail's totals

    def retrying(self, attempt: int, retries: int) -> None:
        self.console.print(
            f"  [yellow]attempt {attempt - 1} failed; retry {attempt - 1} of {retries} from the start "
            "on a clean launch[/]"
        )

    def trail_lost(self, message: str) -> None:
        self.console.print(f"  [red]{_escape(message)}[/]")

    def record_stopped(self, not_changed: str) -> None:
        self.console.print(f"  [yellow]{_escape(not_changed)}[/]")

    def recorded(
        self, file: Path, record: TrailRecord, root: Path, summary: str | None, not_changed: str | None
    ) -> None:
        if record.error:
            self.console.print(f"  [red]{_escape(record.error)}[/]")
            self._device_log(record, root)
        self._recording(file, record, summary)
        if not_changed is not None:
            self.console.print(f"  [yellow]{_escape(not_changed)}[/]")

    def replayed(self, file: Path, record: TrailRecord, root: Path) -> None:
        console = self.console
        if record.status == "skipped":
            console.print(f"  [dim]{_escape(record.error or 'skipped')}[/]")
        elif record.error:
            console.print(f"  [red]{_escape(record.error)}[/]")
            self._device_log(record, root)
        if record.heal_diff:
            console.print(f"  [bold]{_escape(str(recordings_file(file)))} was updated:[/]")
            console.print(_diff_markup(record.heal_diff))
        self._outcome(record)

    def interrupted(self, root: Path, report: Path | None) -> None:
        """After Ctrl-C: where what ran so far is kept (run.json is complete, the step that ran is marked)."""
        html = f"report {_escape(str(report))}" if report else f"report: trailblaze report {_escape(str(root))}"
        self.console.print(f"[yellow]interrupted (Ctrl-C)[/] — run directory {_escape(str(root))}; {html}")

    def junit_written(self, path: Path) -> None:
        self.console.print(f"junit:  {_escape(str(path))}")

    def results_written(self, label: str, path: Path) -> None:
        self.console.print(f"{label + ':':<7} {_escape(str(path))}")

    def results_not_stored(self, warning: str) -> None:
        import click

        click.echo(warning, err=True)  # stderr: a CI log shows it, a piped summary is not changed

    def report_written(self, page: Path, pictures: Path | None) -> None:
        beside = f" (screenshots in {_escape(str(pictures))}/)" if pictures is not None else ""
        self.console.print(f"report: {_escape(str(page))}{beside}")

    def empty_shard(self, shard: str, root: Path) -> None:
        self.console.print(f"shard {shard}: no trail falls in this shard — run directory {_escape(str(root))}")

    def replay_totals(self, run: RunRecord, root: Path) -> None:
        _summary(self.console, run, root)

    def record_totals(self, totals: RecordTotals) -> None:
        usage, n = totals.usage, totals.trails
        tokens = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
        self.console.print(
            f"{n} trail{'s' * (n != 1)}, {totals.passed}/{totals.steps} steps passed, "
            + (f"{totals.unproven} not verified by the proof replay, " if totals.unproven else "")
            + f"{usage.llm_calls} LLM calls{_models(usage)}, {tokens:,} input + {usage.output_tokens:,} output tokens, "
            f"{usage_cost_text(usage, lambda usd: f'${usd:.4f}')} — run directory {_escape(str(totals.root))}"
        )

    def verdict(self, lines: list[str]) -> None:
        for line in lines:  # their values are redacted already, their labels are the program's
            self.console.print(_markup(line))

    # --- the parts ---------------------------------------------------------------------------------
    def _recording(self, file: Path, record: TrailRecord, summary: str | None) -> None:
        """What record did to the file: the verification line, then the diff (as --self-heal prints it)."""
        console = self.console
        if record.verification is None or not summary:
            return
        style = {"verified": "green", "skipped": "yellow"}.get(record.verification, "red")
        console.print(f"  [{style}]{_escape(summary)}[/]")
        if not record.heal_diff:
            return
        if record.verification == "failed":
            where = f" (kept as {_escape(record.directory)}/recording.diff in the run directory)" if record.directory else ""
            console.print(f"  [bold]{_escape(str(recordings_file(file)))} not changed; the rejected recording{where}:[/]")
        else:
            console.print(f"  [bold]{_escape(str(recordings_file(file)))} was updated:[/]")
        console.print(_diff_markup(record.heal_diff))

    def _outcome(self, record: TrailRecord) -> None:
        """A late pass and a quarantined failure, said under the trail as it ends."""
        console = self.console
        if is_flaky(record):
            n = len(record.attempts) + 1
            console.print(f"  [yellow]flaky: passed on attempt {n} of {n}[/]")
        elif record.attempts:
            n = len(record.attempts) + 1
            console.print(f"  [red]failed all {n} attempts[/]")
        if record.quarantine and not record.status.startswith("passed") and record.status != "skipped":
            console.print(
                f"  [yellow]quarantined ({_escape(record.quarantine)}): this failure does not fail the run[/]"
            )

    def _device_log(self, record: TrailRecord, root: Path) -> None:
        """The failed step's app log (its last lines), under the error."""
        from trailblaze.output.report import device_log_tail

        step = next((s for s in record.steps if s.status == "failed"), None)
        if step is not None:
            for line in device_log_tail(step, root):
                self.console.print(f"[dim]{_escape(line)}[/]")


def _summary(console: Console, run: RunRecord, root: Path) -> None:
    from rich.table import Table

    table = Table(title="trailblaze replay", title_justify="left", show_edge=False, pad_edge=False)
    for name, justify in (("trail", "left"), ("status", "left"), ("steps", "right"), ("healed", "right"),
                          ("AI", "right"), ("LLM calls", "right"), ("time", "right")):  # fmt: skip
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    counts: dict[str, int] = {}
    quarantined = n = 0
    for trail in iter_trails(root, run):  # one at a time: the run directory let go of them
        n += 1
        counted = "flaky" if is_flaky(trail) else trail.status
        counts[counted] = counts.get(counted, 0) + 1
        quarantined += bool(trail.quarantine)
        steps = trail.steps
        passed = sum(s.status.startswith("passed") for s in steps)
        style = _STYLES.get(trail.status, "red")
        status = f"[{style}]{trail.status}[/]"
        if is_flaky(trail):
            status = f"[yellow]flaky[/] ({len(trail.attempts) + 1} attempts)"
        elif trail.attempts:
            status += f" ({len(trail.attempts) + 1} attempts)"
        if trail.quarantine:
            status += " [yellow]quarantined[/]"
        table.add_row(
            _escape(trail.id or Path(trail.path).name),
            status,
            f"{passed}/{len(steps)}",
            str(sum(s.status == "passed-with-self-heal" for s in steps)),
            str(sum(s.status == "passed-ai" for s in steps)),
            str(trail.usage.llm_calls),
            f"{trail.duration_ms / 1000:.1f} s",
        )
    console.print(table)
    parts = ", ".join(f"{count} {status}" for status, count in counts.items())
    parts += f" ({quarantined} quarantined)" if quarantined else ""
    usage = run.usage
    llm = (
        f" — {usage.llm_calls} LLM calls{_models(usage)}, {usage_cost_text(usage, lambda usd: f'${usd:.4f}')}"
        if usage.llm_calls
        else ""
    )
    console.print(f"{n} trail{'s' * (n != 1)}: {parts}{llm} — run directory {_escape(str(root))}")


def _diff_markup(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        text = _escape(line)
        if line.startswith(("+++", "---")):
            out.append(f"[bold]{text}[/]")
        elif line.startswith("+"):
            out.append(f"[green]{text}[/]")
        elif line.startswith("-"):
            out.append(f"[red]{text}[/]")
        elif line.startswith("@@"):
            out.append(f"[cyan]{text}[/]")
        else:
            out.append(text)
    return "\n".join(out)



def _console() -> Console:
    import sys

    from rich.console import Console

    # The console is not scrubbed as a whole: a secret equal to one of its own words (`status`) would
    # point out which word is secret. Every value from a trail, the device or a run log goes in
    # through `_escape`, which redacts it; no `:name:` of it may become an emoji (`root:x:0:0`
    # printed as `root❌0:0`).
    return Console(file=sys.stdout, highlight=False, soft_wrap=True, emoji=False)



_INTERRUPTED = "interrupted (Ctrl-C)"


def step_line(rec: StepRecord) -> str:
    from trailblaze.common.redact import scrub

    number = "trailhead" if rec.index < 0 else f"{rec.index + 1:>2}"
    if rec.status == "skipped":
        what = "skipped"
    elif rec.mode == "replay":
        auto = [t.name for t in rec.tools if t.source == "auto"]  # the replayer's own calls
        n = len(rec.tools) - len(auto)
        what = f"replayed {n} tool{'s' * (n != 1)}" + (f" (+ {', '.join(auto)})" if auto else "")
    else:
        # an empty recording (`[]`) prints as `no-op`, the word users know from earlier releases
        what = {"noop": "no-op", "agent": "agent", "self-heal": "self-heal"}[rec.mode]
    if rec.recording_written:
        n = sum(t.recorded for t in rec.tools) or len(rec.tools)
        what = f"{'healed, ' if rec.mode == 'self-heal' else ''}recorded {n} tool{'s' * (n != 1)}"
    for sub in rec.subtrails:  # runTrail: which trail ran, and how far it got
        done = sum(s.status.startswith("passed") for s in sub.steps)
        what += f" (runTrail {_escape(Path(sub.path).name)}: {done}/{len(sub.steps)} steps passed)"
    calls = f", {rec.usage.llm_calls} LLM calls" if rec.usage.llm_calls else ""
    seconds = f"{rec.duration_ms / 1000:.1f} s"
    full = scrub(rec.text)  # before it is cut: a secret cut in two is no longer found
    text = full if len(full) <= 70 else full[:69] + "…"
    status: str = rec.status if rec.status not in ("passed", "skipped") else ""
    mark = _MARKS.get(rec.status, "?")
    if rec.status == "failed" and (rec.error or "").startswith(_INTERRUPTED):  # stopped, not broken
        status, mark = "interrupted", "[yellow]■[/]"
    label = f"{status}, " if status else ""
    return (
        f"  {mark} {number} {rec.kind:<6} {_markup(text)}  "
        f"[dim]{label}{what}{calls}, {seconds}[/]"
    )


def _escape(text: str) -> str:
    """Text from a trail, the device or a run log as rich markup: every registered secret redacted (in
    any spelling), control characters made visible."""
    from trailblaze.common.redact import scrub

    return _markup(scrub(text))


def _markup(text: str) -> str:
    """Text already redacted as rich markup (control characters made visible)."""
    from rich.markup import escape

    from trailblaze.common.printable import printable

    return escape(printable(text))
