"""Record mode for a whole trail: trailhead, then every step, saving recordings as it goes.

A step that already has a recording for this device is replayed through `run_recorded_tool` (no
LLM); with `rerecord`, or when it has none, or when it is `recordable: false`, the agent solves it.
After each step the agent solved, its recording is written under the device's platform family
(`android` / `ios`) with `Trail.set_recording` and saved atomically — other classifiers and the
rest of the file are untouched, and a failed or interrupted step writes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.agent import Agent, StepResult
from trailblaze.memory import Memory
from trailblaze.runlog import StepRecord, TrailRecord, UsageTotals
from trailblaze.trail import Trail, TrailStep, load_trail

if TYPE_CHECKING:
    from trailblaze.llm import LLMClient
    from trailblaze.rundir import RunDir
    from trailblaze.session import DeviceSession
    from trailblaze.trail import ToolCall

__all__ = ["RecordOptions", "build_memory", "record_trail"]


@dataclass(frozen=True)
class RecordOptions:
    """Knobs of a record run."""

    max_llm_calls: int = 50
    screenshots: bool = True
    rerecord: bool = False
    """Solve every step with the agent even when it has a recording for this device."""


def build_memory(
    trail: Trail,
    memory: Mapping[str, str] | None = None,
    args: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> Memory:
    """The run's variables: `config.memory` / `config.args` overridden by the command line."""
    config = trail.config
    base_memory = dict(config.memory or {}) if config else {}
    base_args = {k: str(v) for k, v in (config.args or {}).items()} if config else {}
    return Memory({**base_memory, **(memory or {})}, args={**base_args, **(args or {})}, secrets=secrets)


class _Recorder:
    def __init__(
        self,
        trail: Trail,
        session: DeviceSession,
        llm_factory: Callable[[], LLMClient],
        memory: Memory,
        options: RecordOptions,
        rundir: RunDir | None,
        on_step: Callable[[StepRecord], None] | None,
    ) -> None:
        self.trail, self.session, self.memory, self.options = trail, session, memory, options
        self.llm_factory, self.rundir, self.on_step = llm_factory, rundir, on_step
        self.family = session.info.platform
        self.classifier = session.info.classifier
        self._agent: Agent | None = None

    @property
    def agent(self) -> Agent:
        # Built on first use: a fully recorded trail never constructs an LLM client.
        if self._agent is None:
            self._agent = Agent(
                self.llm_factory(),
                self.session,
                self.memory,
                context=self.trail.config.context if self.trail.config else None,
                max_llm_calls=self.options.max_llm_calls,
                screenshots=self.options.screenshots,
                observer=self.rundir,
            )
        return self._agent

    def run(self, record: TrailRecord) -> None:
        steps: list[tuple[int, str, TrailStep | None]] = []
        if self.trail.trailhead is not None:
            steps.append((-1, self.trail.trailhead.text, None))
        steps += [(i, s.text, s) for i, s in enumerate(self.trail.steps)]
        failed = False
        for index, text, step in steps:
            kind = "trailhead" if step is None else step.kind
            step_record = StepRecord(index=index, kind=kind, text=self.memory.redact(text))
            if failed:
                step_record.status = "skipped"
                record.steps.append(step_record)
                continue
            self._run_one(step_record, step, record)
            failed = step_record.status == "failed"
        record.status = "failed" if failed else "passed"

    def _run_one(self, rec: StepRecord, step: TrailStep | None, record: TrailRecord) -> None:
        started = time.monotonic()
        if self.rundir is not None:
            self.rundir.start_step(rec, self.session)
        else:
            record.steps.append(rec)
        try:
            recorded = self._recorded_tools(step)
            if recorded is not None:
                rec.mode = "replay" if recorded else "noop"
                self._replay(rec, recorded)
            else:
                rec.mode = "agent"
                self._solve(rec, step)
        except KeyboardInterrupt:
            rec.status, rec.error = "failed", "interrupted (Ctrl-C); the trail file was not changed by this step"
            raise
        except Exception as exc:
            rec.status, rec.error = "failed", f"{type(exc).__name__}: {exc}"
            raise
        finally:
            if self.rundir is not None:
                self.rundir.finish_step(self.session, started)
            else:
                rec.duration_ms = (time.monotonic() - started) * 1000
            if self.on_step is not None:
                self.on_step(rec)

    def _recorded_tools(self, step: TrailStep | None) -> list[ToolCall] | None:
        if step is None:
            assert self.trail.trailhead is not None
            tool = self.trail.trailhead.recording_for(self.classifier)
            return None if tool is None or self.options.rerecord else [tool]
        if step.static:
            return step.recording_for(self.classifier) or []
        if not step.recordable or self.options.rerecord:
            return None
        return step.recording_for(self.classifier)

    def _replay(self, rec: StepRecord, tools: list[ToolCall]) -> None:
        from trailblaze.execute import run_recorded_tool

        for call in tools:
            t0 = time.monotonic()
            result = run_recorded_tool(self.session, call, self.memory)
            if self.rundir is not None:
                self.rundir.add_replayed(call, result, (time.monotonic() - t0) * 1000)
            if not result.ok:
                rec.status = "failed"
                rec.error = self.memory.redact(
                    f"{self._where(rec)}: recorded tool {call} failed: {result}; "
                    "run with --rerecord to record this step again"
                )
                return
        rec.status = "passed"

    def _solve(self, rec: StepRecord, step: TrailStep | None) -> None:
        verify = step is not None and step.kind == "verify"
        result: StepResult = self.agent.run_step(rec.text, verify=verify)
        if self.rundir is None:  # the run directory counts calls as they happen; else count here
            u = result.usage
            rec.usage = UsageTotals(
                llm_calls=result.llm_calls,
                input_tokens=u.input_tokens,
                output_tokens=u.output_tokens,
                cache_creation_input_tokens=u.cache_creation_input_tokens,
                cache_read_input_tokens=u.cache_read_input_tokens,
                cost_usd=result.cost_usd,
            )
        if result.status != "COMPLETED":
            rec.status = "failed"
            rec.error = self.memory.redact(f"{self._where(rec)}: {result.explanation}")
            return
        tools = result.recorded
        if step is not None and not step.recordable:
            rec.status = "passed-ai"
            return
        rec.status = "passed"
        if not tools:
            return  # never manufacture the `[]` (deliberate no-op) state
        if step is None:
            if len(tools) != 1:
                rec.error = f"the trailhead took {len(tools)} tools; a trailhead records exactly one, not saved"
                return
            self.trail.set_trailhead_recording(self.family, tools[0])
        else:
            self.trail.set_recording(rec.index, self.family, tools)
        self.trail.save()
        rec.recording_written = True
        if self.rundir is not None:
            self.rundir.mark_recorded()

    def _where(self, rec: StepRecord) -> str:
        name = Path(self.trail.path or "trail").name
        number = "trailhead" if rec.index < 0 else f"step {rec.index + 1}"
        return f"{name} {number} ({rec.text!r})"


def record_trail(
    path: str | Path,
    session: DeviceSession,
    llm_factory: Callable[[], LLMClient],
    *,
    memory: Mapping[str, str] | None = None,
    args: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
    options: RecordOptions = RecordOptions(),
    rundir: RunDir | None = None,
    on_step: Callable[[StepRecord], None] | None = None,
    device: str = "",
) -> TrailRecord:
    """Record one trail file on `session`: replay what is recorded, solve the rest, save as it goes.

    Returns:
        The trail's record (status `passed` or `failed`, every step with its status).

    Raises:
        TrailFileError / UsageError: the file does not load, or a template names an unknown variable.
        DeviceError / LLMError: infrastructure failed (the trail keeps every step saved before).
    """
    trail = load_trail(path)
    mem = build_memory(trail, memory, args, secrets)
    config = trail.config
    info = session.info
    record = TrailRecord(
        path=str(path),
        id=config.id if config else None,
        title=config.title if config else None,
        device=device,
        classifier=info.classifier,
        platform=info.platform,
        mode="record",
        started_at=_now(),
    )
    started = time.monotonic()
    if rundir is not None:
        rundir.memory = mem
        rundir.start_trail(record)
    recorder = _Recorder(trail, session, llm_factory, mem, options, rundir, on_step)
    error: str | None = None
    try:
        recorder.run(record)
    except BaseException as exc:
        record.status = "error"
        error = str(getattr(exc, "message", exc)) or type(exc).__name__
        raise
    finally:
        if record.status == "failed":
            error = next((s.error for s in record.steps if s.status == "failed"), None)
        if rundir is not None:
            rundir.finish_trail(record.status, error, started)
        else:
            record.error = error
            for step_record in record.steps:
                record.usage.add(step_record.usage)
            record.duration_ms = (time.monotonic() - started) * 1000
    return record


def _now() -> str:
    from trailblaze.rundir import now_iso

    return now_iso()


# --- the `trailblaze record` command ------------------------------------------------------------

_MARKS = {"passed": "[green]✓[/]", "passed-ai": "[green]✓[/]", "failed": "[red]✗[/]", "skipped": "[dim]-[/]"}


def run_record_command(
    paths: list[str],
    *,
    device: str,
    memory: Mapping[str, str],
    args: Mapping[str, str],
    secrets: Mapping[str, str],
    model: str | None,
    options: RecordOptions,
    run_dir: str | None,
    command: list[str],
) -> int:
    """`trailblaze record`: record every trail on one device, print progress and a summary.

    Returns:
        The exit code: 0 every trail passed, 1 a step failed.

    Raises:
        UsageError: no trail file found. Other `TrailblazeError`s propagate (exit 2 / 3).
    """
    from rich.console import Console

    from trailblaze.devices import open_device
    from trailblaze.errors import UsageError
    from trailblaze.rundir import RunDir, default_run_dir
    from trailblaze.trail import find_trail_files

    files, missing = find_trail_files(paths)
    if missing or not files:
        raise UsageError(f"no trail file at {', '.join(missing) or ', '.join(paths)}; pass *.trail.yaml files")
    for file in files:
        load_trail(file)  # every file must load before the device is touched
    console = Console(highlight=False, soft_wrap=True)
    llms: list[LLMClient] = []

    def llm_factory() -> LLMClient:
        from trailblaze.anthropic_llm import AnthropicLLM

        llms.append(AnthropicLLM(model))
        return llms[-1]

    root = Path(run_dir) if run_dir else default_run_dir()
    rundir = RunDir(root, Memory(secrets=secrets), command=command, device=device)
    failed = 0
    session = open_device(device)
    try:
        for file in files:
            console.print(f"[bold]{file}[/] on {device}")
            record = record_trail(
                file,
                session,
                llm_factory,
                memory=memory,
                args=args,
                secrets=secrets,
                options=options,
                rundir=rundir,
                on_step=lambda rec: console.print(_step_line(rec)),
                device=device,
            )
            failed += record.status != "passed"
            if record.error:
                console.print(f"  [red]{_escape(record.error)}[/]")
    finally:
        rundir.finish()
        session.close()
        for llm in llms:
            close = getattr(llm, "close", None)
            if callable(close):
                close()
    usage = rundir.run.usage
    steps = [s for t in rundir.run.trails for s in t.steps]
    passed = sum(s.status.startswith("passed") for s in steps)
    tokens = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    console.print(
        f"{len(files)} trail{'s' * (len(files) != 1)}, {passed}/{len(steps)} steps passed, "
        f"{usage.llm_calls} LLM calls, {tokens:,} input + {usage.output_tokens:,} output tokens, "
        f"${usage.cost_usd:.4f} — run directory {root}"
    )
    return 1 if failed else 0


def _step_line(rec: StepRecord) -> str:
    number = "trailhead" if rec.index < 0 else f"{rec.index + 1:>2}"
    what = {"replay": "replayed", "noop": "no-op", "agent": "agent"}[rec.mode] if rec.status != "skipped" else "skipped"
    if rec.recording_written:
        n = sum(t.recorded for t in rec.tools)
        what = f"recorded {n} tool{'s' * (n != 1)}"
    calls = f", {rec.usage.llm_calls} LLM calls" if rec.usage.llm_calls else ""
    seconds = f"{rec.duration_ms / 1000:.1f} s"
    text = rec.text if len(rec.text) <= 70 else rec.text[:69] + "…"
    return f"  {_MARKS.get(rec.status, '?')} {number} {rec.kind:<6} {_escape(text)}  [dim]{what}{calls}, {seconds}[/]"


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
