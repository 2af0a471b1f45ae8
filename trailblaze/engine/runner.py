"""Running whole trails: `record_trail`, and the `trailblaze record` / `trailblaze replay` commands.

Record and replay share one step engine (`trailblaze.engine.replay.StepEngine`). In record mode a step that
already has a recording for this device is replayed through `run_recorded_tool` (no LLM); with
`rerecord`, or when it has none, or when it is `recordable: false`, or when `steps` / `from_step`
choose it, the agent solves it. The recordings the agent makes go under the device's platform family
(`android` / `ios`) with `Trail.set_recording` in memory; when every step passed, the proof replay
(`trailblaze.engine.proof`) relaunches the trail and replays it from them with no LLM, and only then is the
file saved atomically — other classifiers and the rest of the file untouched. A failed, interrupted
or unproven record writes nothing. Replay (`replay_trail`, re-exported here) lives in
`trailblaze.engine.replay`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.common.flags import CLI, Flags
from trailblaze.engine.options import (
    DeviceChoice,
    ModelChoice,
    RecordOptions,
    RecordRun,
    ReplayRun,
    RunInputs,
)
from trailblaze.engine.policy import AgentSettings, RecordPolicy, RerecordPolicy
from trailblaze.engine.record_draft import not_changed_text, nothing_to_record, resumed_text
from trailblaze.engine.replay import ReplayOptions, build_memory, replay_trail
from trailblaze.engine.retries import clean_launch, run_with_retries
from trailblaze.engine.steps import StepEngine, run_engine, start_record
from trailblaze.output.ci_policy import is_flaky, verdict
from trailblaze.output.runlog import StepRecord, TrailRecord, UsageTotals, iter_trails, usage_cost_text
from trailblaze.tools.memory import Memory
from trailblaze.trail.discovery import recordings_file
from trailblaze.trail.model import Trail, load_trail
from trailblaze.trail.subtrail import SubTrails

if TYPE_CHECKING:
    from rich.console import Console

    from trailblaze.device.session import DeviceSession
    from trailblaze.engine.shard import Shard
    from trailblaze.errors import UsageError
    from trailblaze.llm.client import LLMAuthError, LLMClient
    from trailblaze.output.rundir import RunDir

__all__ = [
    "RecordOptions",
    "ReplayOptions",
    "build_memory",
    "record_trail",
    "replay_trail",
    "run_record_command",
    "run_replay_command",
]


_RECORD_DEFAULTS = RecordOptions()


def record_trail(
    path: str | Path,
    session: DeviceSession,
    llm_factory: Callable[[], LLMClient],
    *,
    memory: Mapping[str, str] | None = None,
    args: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
    options: RecordOptions = _RECORD_DEFAULTS,
    rundir: RunDir | None = None,
    on_step: Callable[[StepRecord], None] | None = None,
    device: str = "",
    on_summary: Callable[[str], None] | None = None,
    on_proof_step: Callable[[StepRecord], None] | None = None,
    flags: Flags = CLI,
) -> TrailRecord:
    """Record one trail file on `session`: replay what is recorded, solve the rest, prove, then save.

    Args:
        on_summary: Called with the line saying what was recorded and whether the proof replay
            verified it (`recorded 5 steps · verified by replay in 3.1 s`).
        on_proof_step: Called after every step of the proof replay.
        flags: How the calling front end spells the options its hints name (trailblaze.common.flags).

    Returns:
        The trail's record (status `passed` or `failed`, every step with its status; `verification`
        and `proof` when new recordings were made).

    Raises:
        TrailFileError / UsageError: the file does not load, a template names an unknown variable, or
            `steps` / `from_step` name no step that can be re-recorded.
        DeviceError / LLMError: infrastructure failed (the trail file is unchanged).
    """
    trail = load_trail(path)
    before = trail.source_text
    mem = build_memory(trail, memory, args, secrets, flags=flags)
    # recording only: a replay does not pay for importing the proof (and mutation) machinery
    from trailblaze.engine.proof import ProofOptions, chosen_steps, finish_recording
    from trailblaze.engine.record_draft import drop_draft, keep_draft, resume_draft

    if options.resume and (options.rerecord or options.steps or options.from_step is not None):
        from trailblaze.errors import UsageError

        raise UsageError("--resume continues a plain record from its draft; drop --rerecord / --step / --from")
    # the draft's steps replay like recorded ones: no model call for what an earlier record paid for
    resumed = resume_draft(trail, session.info.platform) if options.resume else []

    solve = chosen_steps(trail, session.info.platform, options.steps, options.from_step)
    if solve is not None and options.rerecord:
        from trailblaze.errors import UsageError

        raise UsageError("--rerecord re-solves every step; drop it to re-record only --step / --from")
    agent = AgentSettings(max_llm_calls=options.max_llm_calls, screenshots=options.screenshots, ask=options.ask)
    policy = RerecordPolicy(agent=agent) if options.rerecord else RecordPolicy(agent=agent, solve=solve)
    record = start_record(trail, str(path), session, "record", device)
    subtrails: SubTrails = {}  # runTrail's trails: their new recordings are written after the proof too
    engine = StepEngine(
        trail, session, mem, policy, llm_factory=llm_factory, observer=rundir, on_step=on_step, subtrails=subtrails
    )
    drafts = not options.rerecord and solve is None  # a draft holds what a plain record solved
    try:
        run_engine(trail, record, engine)
    except BaseException:  # the model endpoint, the device or Ctrl-C stopped it: keep what was paid for
        if drafts:
            keep_draft(trail, record, resumed)
            if rundir is not None:
                rundir.write()
        raise
    if record.status != "passed":
        if drafts:
            keep_draft(trail, record, resumed)
        return record
    line = finish_recording(
        trail,
        record,
        before,
        session,
        memory=lambda: build_memory(trail, memory, args, secrets, flags=flags),
        llm_factory=llm_factory,
        options=ProofOptions(verify=options.verify, keep_unverified=options.keep_unverified),
        rundir=rundir,
        device=device,
        on_step=on_proof_step,
        subtrails=subtrails,
        resumed=len(resumed),
    )
    if record.verification in ("verified", "skipped", "unverified") and trail.path is not None:
        drop_draft(trail.path)  # written: the draft is spent
    if line is not None and on_summary is not None:
        on_summary(line)
    return record


# --- the `trailblaze record` / `trailblaze replay` commands ---------------------------------------

_MARKS = {
    "passed": "[green]✓[/]",
    "passed-ai": "[green]✓[/]",
    "passed-with-self-heal": "[yellow]✓[/]",
    "failed": "[red]✗[/]",
    "skipped": "[dim]-[/]",
}
_STYLES = {"passed": "green", "passed-ai": "green", "passed-with-self-heal": "yellow", "skipped": "dim"}


class _LLMs:
    """The command's LLM factory: clients are built on first need (never for a recorded trail)."""

    def __init__(self, model: ModelChoice) -> None:
        self.model = model  # its None fields keep the adapters' defaults (30 s per attempt, 2 retries)
        self.clients: list[LLMClient] = []
        self._ready: LLMClient | None = None

    def __call__(self) -> LLMClient:
        from trailblaze.llm.models import build_llm, resolve_model

        if self._ready is not None:
            client, self._ready = self._ready, None
            return client
        m = self.model
        self.clients.append(build_llm(resolve_model(m.model), base_url=m.base_url, timeout=m.timeout, retries=m.retries))
        return self.clients[-1]

    def check(self, why: str, unrecorded: Callable[[LLMAuthError], UsageError] | None = None) -> None:
        """Builds the first client now: a missing API key fails before the device is touched.

        `unrecorded`: the agent is needed only because a step has no recording for the device, so no
        key configured is the trail's problem (exit 2, with how to record it), not the endpoint's.
        """
        from trailblaze.errors import LLMError
        from trailblaze.llm.client import LLMAuthError

        try:
            self._ready = self()
        except LLMAuthError as exc:
            if unrecorded is not None:
                raise unrecorded(exc) from None
            raise type(exc)(f"{why}, so the agent must run: {exc.message}") from exc
        except LLMError as exc:  # every LLMError subclass takes just the message
            raise type(exc)(f"{why}, so the agent must run: {exc.message}") from exc

    def close(self) -> None:
        for llm in self.clients:
            close = getattr(llm, "close", None)
            if callable(close):
                close()


def _trail_files(paths: Sequence[str], platform: str) -> list[Path]:
    from trailblaze.errors import UsageError
    from trailblaze.trail.model import find_trail_files

    # a folder trail (trail.yaml, android-phone.trail.yaml, …) runs the file for this platform
    files, missing = find_trail_files(list(paths), platform)
    if missing:
        raise UsageError(
            f"no trail file at {', '.join(missing)}: no such file or directory; check the path "
            "(pass *.trail.yaml files or folders holding them)"
        )
    if not files:
        raise UsageError(
            f"no trail file in {', '.join(paths)}: no *.trail.yaml, *.trail.md, trail.yaml or blaze.yaml below; "
            "pass trail files or the folder that holds them"
        )
    return files


def _preflight(trails: list[tuple[Path, Trail]], platform: str, inputs: RunInputs, *, tools: bool) -> None:
    """Everything that would stop the run for sure, found before the device is touched."""
    from trailblaze.engine.preflight import check_trails

    check_trails(
        trails, platform=platform, memory=inputs.memory, args=inputs.args, secrets=inputs.secrets, tools=tools,
        flags=inputs.flags,
    )  # fmt: skip


def _agent_needed(trails: list[tuple[Path, Trail]], platform: str) -> tuple[Path, str] | None:
    """The first trail with a step the agent must solve on `platform`, and why (`step 3 has no ios recording`)."""
    from trailblaze.engine.preflight import agent_step

    for file, trail in trails:
        why = agent_step(trail, platform)
        if why:
            return file, why
    return None


def _unrecorded_fix(
    needed: tuple[Path, str], device: DeviceChoice, flags: Flags
) -> Callable[[LLMAuthError], UsageError] | None:
    """How replay explains a step with no recording and no model: record it, or pass a key (None: the
    step is `recordable: false`, the agent's by design)."""
    from trailblaze.engine.no_model import no_model_error

    file, why = needed
    if not why.endswith(f"has no {device.platform} recording"):
        return None
    return partial(no_model_error, f"{file} {why}", str(file), device.text, flags=flags)


def _open_run_dir(run: ReplayRun | RecordRun) -> tuple[RunDir, bool]:
    """The run directory, and whether this run created it."""
    from trailblaze.errors import UsageError
    from trailblaze.output.rundir import RunDir, default_run_dir

    run_dir, device = run.output.run_dir, run.device
    try:
        root = Path(run_dir) if run_dir else default_run_dir()
        existed = root.exists()
        rundir = RunDir(
            root, Memory(secrets=run.inputs.secrets), command=run.command(), device=device.text,
            screenshots=run.output.screenshots,
        )  # fmt: skip
    except OSError as exc:
        where = run_dir if run_dir else "the default run directory under .trailblaze/runs"
        raise UsageError(
            f"cannot create {where} ({exc.strerror or exc}); pass --run-dir with a writable folder"
        ) from None
    rundir.device_logs = device.device_logs
    rundir.keep_trace = device.trace
    return rundir, not existed


def _open_session(device: DeviceChoice, rundir: RunDir, created: bool, llms: _LLMs) -> DeviceSession:
    """The device; when it cannot be opened nothing ran, so a run directory this run created goes."""
    try:
        return device.open()
    except BaseException:
        llms.close()
        if created:
            try:  # only the `running` run.json is in it: nothing ran
                (rundir.root / "run.json").unlink(missing_ok=True)
                rundir.root.rmdir()
            except OSError:
                pass
        raise


def _report_target(report: str) -> Path:
    target = Path(report)
    return target if target.suffix.lower() in (".html", ".htm") else target / "report.html"


def run_record_command(run: RecordRun) -> int:
    """`trailblaze record`: record every trail on one device, print progress and a summary.

    `run.device.element_timeout` bounds how long a selector is polled before its tool fails (None:
    5 s); `run.model.timeout` / `retries` bound each model call (None: 30 s, 2 retries);
    `run.record.ask` answers the agent's `askUser` questions (`--ask`; None: the tool is not offered);
    `run.output.screenshots` picks the run directory's screenshots (steps, failures, off).

    Returns:
        The exit code: 0 every trail passed, 1 a step failed.

    Raises:
        UsageError: no trail file found. Other `TrailblazeError`s propagate (exit 2 / 3).
    """
    device, inputs, options = run.device, run.inputs, run.record
    files = _trail_files(run.paths, device.platform)
    trails = [(file, load_trail(file)) for file in files]  # every file must load before the device is touched
    # no unknown-tool check: `record` reports a failing recorded tool with --rerecord as the fix
    _preflight(trails, device.platform, inputs, tools=False)
    why = _check_record_options(options, trails, device.platform)
    console = _console()
    resumed = _resume_drafts(trails, device.platform) if options.resume else {}
    if not why and not options.rerecord:  # a trail with nothing to solve is not recorded again
        todo = _to_record(trails, device, resumed)
        for file, _ in trails:
            if file not in todo:
                console.print(_escape(nothing_to_record(file, device.platform, device.text)))
        trails = [(file, trail) for file, trail in trails if file in todo]
        files = [file for file, _ in trails]
        if not files:
            return 0
    llms = _LLMs(run.model)
    if not why and not options.rerecord:
        needed = _agent_needed(trails, device.platform)
        why = f"{needed[0]} {needed[1]}" if needed else None
    why = why or ("--rerecord solves every step" if options.rerecord else None)
    if why:
        llms.check(why)
    rundir, created = _open_run_dir(run)
    root = rundir.root
    failed = 0
    session = _open_session(device, rundir, created, llms)
    interrupted = False
    try:
        _install(console, session, device.install, device.reinstall)
        notes = {file: trail.note for file, trail in trails}
        for file in files:
            console.print(f"[bold]{_escape(str(file))}[/] on {_escape(device.text)}")
            if notes.get(file):
                console.print(f"  [dim]note: {_escape(str(notes[file]))}[/]")
            if resumed.get(file):
                console.print(f"  [dim]{_escape(resumed_text(file, resumed[file]))}[/]")
            summary: list[str] = []
            try:
                record = record_trail(
                    file,
                    session,
                    llms,
                    memory=inputs.memory,
                    args=inputs.args,
                    secrets=inputs.secrets,
                    options=options,
                    rundir=rundir,
                    on_step=lambda rec: console.print(_step_line(rec)),
                    device=device.text,
                    on_summary=summary.append,
                    on_proof_step=_proof_printer(console),
                    flags=inputs.flags,
                )
            except BaseException:  # the error follows; first what became of the file and the paid steps
                this = rundir.run.trails[-1] if rundir.run.trails else None
                if this is not None and this.path == str(file):
                    console.print(f"  [yellow]{_escape(not_changed_text(file, this, device.text))}[/]")
                raise
            failed += record.status != "passed"
            if record.error:
                console.print(f"  [red]{_escape(record.error)}[/]")
                _print_device_log(console, record, root)
            _print_recording(console, file, record, summary)
            if record.status != "passed" and record.verification != "failed":  # a refused proof says so below
                console.print(f"  [yellow]{_escape(not_changed_text(file, record, device.text))}[/]")
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        rundir.finish(interrupted=interrupted)
        session.close()
        llms.close()
        if interrupted:
            _print_interrupted(console, root, None)
    usage = rundir.run.usage
    passed = steps = unproven = 0
    for trail in iter_trails(root, rundir.run):  # one at a time: the run directory let go of them
        steps += len(trail.steps)
        passed += sum(s.status.startswith("passed") for s in trail.steps)
        unproven += trail.verification in ("failed", "unverified")
    tokens = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens
    console.print(
        f"{len(files)} trail{'s' * (len(files) != 1)}, {passed}/{steps} steps passed, "
        + (f"{unproven} not verified by the proof replay, " if unproven else "")
        + f"{usage.llm_calls} LLM calls{_models(usage)}, {tokens:,} input + {usage.output_tokens:,} output tokens, "
        f"{usage_cost_text(usage, lambda usd: f'${usd:.4f}')} — run directory {_escape(str(root))}"
    )
    return 1 if failed else 0


def _models(usage: UsageTotals) -> str:
    """` (openai:gpt-4.1)`: who answered, and how often with text instead of a tool call."""
    said = [", ".join(_escape(m) for m in usage.models)] if usage.models else []
    if usage.text_answers:
        said.append(f"{usage.text_answers} answered with text instead of a tool call")
    return f" ({'; '.join(said)})" if said else ""


def _resume_drafts(trails: list[tuple[Path, Trail]], platform: str) -> dict[Path, list[int]]:
    """`--resume`: each trail's draft put back into the loaded trail (before the device: a draft that
    covers every step needs no model); at least one of the trails must have a draft."""
    from trailblaze.engine.record_draft import resume_draft

    resumed = {file: resume_draft(trail, platform, required=False) for file, trail in trails}
    if not any(resumed.values()):
        resume_draft(trails[0][1], platform)  # says there is no draft to resume
    return resumed


def _to_record(trails: list[tuple[Path, Trail]], device: DeviceChoice, resumed: Mapping[Path, list[int]]) -> set[Path]:
    """The trails a record has work on: a step the agent solves (there or in a `runTrail` trail), or a
    draft's recordings to prove."""
    from trailblaze.engine.preflight import agent_anywhere

    return {file for file, trail in trails if resumed.get(file) or agent_anywhere(trail, device.platform)}


def _check_record_options(options: RecordOptions, trails: list[tuple[Path, Trail]], platform: str) -> str | None:
    """Usage errors of --step / --from / --keep-unverified / --resume, before the device; why the agent must run."""
    from trailblaze.errors import UsageError

    if options.keep_unverified and not options.verify:
        raise UsageError("--keep-unverified keeps recordings the proof replay rejected; it needs the proof (drop --no-verify)")
    if options.resume and (options.rerecord or options.steps or options.from_step is not None):
        other = "--rerecord" if options.rerecord else "--step" if options.steps else "--from"
        raise UsageError(
            f"--resume continues a record from the steps its draft kept; {other} solves steps again: drop one of them"
        )
    if not options.steps and options.from_step is None:
        return None
    flags = "--step" if options.steps else "--from"
    if options.rerecord:
        raise UsageError(f"--rerecord re-solves every step; drop it to re-record only the {flags} steps")
    if len(trails) != 1:
        raise UsageError(f"{flags} picks steps of one trail; pass exactly one trail file (got {len(trails)})")
    file, trail = trails[0]
    from trailblaze.engine.proof import chosen_steps

    chosen = chosen_steps(trail, platform, options.steps, options.from_step)
    assert chosen is not None
    numbers = ", ".join(str(i + 1) for i in sorted(chosen))
    return f"{file}: {flags} re-solves step{'s' * (len(chosen) != 1)} {numbers}"


def _proof_printer(console: Console) -> Callable[[StepRecord], None]:
    """Prints the proof replay's steps under a heading of their own."""
    started: list[bool] = []

    def show(rec: StepRecord) -> None:
        if not started:
            started.append(True)
            console.print("  [bold]proof replay[/] (relaunched, recordings only, no LLM):")
        console.print("  " + _step_line(rec))

    return show


def _print_recording(console: Console, file: Path, record: TrailRecord, summary: list[str]) -> None:
    """What record did to the file: the verification line, then the diff (as --self-heal prints it)."""
    if record.verification is None or not summary:
        return
    style = {"verified": "green", "skipped": "yellow"}.get(record.verification, "red")
    console.print(f"  [{style}]{_escape(summary[0])}[/]")
    if not record.heal_diff:
        return
    if record.verification == "failed":
        where = f" (kept as {_escape(record.directory)}/recording.diff in the run directory)" if record.directory else ""
        console.print(f"  [bold]{_escape(str(recordings_file(file)))} not changed; the rejected recording{where}:[/]")
    else:
        console.print(f"  [bold]{_escape(str(recordings_file(file)))} was updated:[/]")
    console.print(_diff_markup(record.heal_diff))


def run_replay_command(run: ReplayRun) -> int:
    """`trailblaze replay`: replay every trail on one device; progress, summary, reports.

    `run.policy` holds the CI knobs (`trailblaze.output.ci_policy`): `--retries` re-runs a failed trail from
    a clean launch, `--fail-on-flaky` fails the build on a late pass, `--max-heals` bounds self-heal;
    a quarantined trail (`config.quarantine`) never fails it.

    `run.shard` keeps only this CI job's share of the trails (`trailblaze.engine.shard`), balanced by the
    `run.durations` of a previous run when given; an empty share still writes its (empty) reports.

    The run directory, the HTML report and the JUnit file are written even when a trail fails or
    the device dies mid-run.

    Returns:
        The exit code: 0 every trail passed (healed, AI and flaky passes included) or failed in
        quarantine, 1 a trail failed, a flaky trail with `fail_on_flaky`, or more heals than `max_heals`.

    Raises:
        UsageError: no trail file, a file that does not load, no trail with the tags (exit 2).
        DeviceError / LLMError: the device or the model endpoint failed (exit 3), after the reports.
    """
    from trailblaze.common.files import check_writable
    from trailblaze.errors import InfrastructureError, SessionLost, UsageError

    device, inputs, policy, shard = run.device, run.inputs, run.policy, run.shard
    junit, report = run.output.junit, run.output.report
    # all load before the device
    trails = [(file, load_trail(file)) for file in _trail_files(run.paths, device.platform)]
    if run.tags:
        wanted = set(run.tags)
        trails = [(f, t) for f, t in trails if wanted & set((t.config.tags if t.config else None) or [])]
        if not trails:
            raise UsageError(f"no trail is tagged {', '.join(run.tags)}; check --tags against config.tags")
    if shard is not None:
        trails = _shard_trails(trails, shard, run.durations)
    _preflight(trails, device.platform, inputs, tools=not run.replay.self_heal)
    if run.output.report_single_file and not report:
        raise UsageError("--report-single-file shapes the HTML report: add --report FILE.html")
    if report:
        check_writable(_report_target(report), "--report")
    if junit:
        check_writable(junit, "--junit")
    llms = _LLMs(run.model)
    needed = _agent_needed(trails, device.platform)
    if needed:
        llms.check(f"{needed[0]} {needed[1]}", _unrecorded_fix(needed, device, inputs.flags))
    checked = [(file, _digest(trail)) for file, trail in trails]
    del trails  # each is loaded again when its turn comes: a run of a thousand holds one at a time
    console = _console()
    rundir, created = _open_run_dir(run)
    root = rundir.root
    rundir.run.shard = str(shard) if shard is not None else None
    if not checked:  # more shards than trails: this job has nothing to do, and says so in its reports
        llms.close()
        rundir.finish()
        _write_reports(console, rundir, junit, report, single_file=run.output.report_single_file)
        console.print(f"shard {shard}: no trail falls in this shard — run directory {_escape(str(root))}")
        return 0
    broken: InfrastructureError | None = None
    wants_reports = bool(junit or report)
    try:
        session = _open_session(device, rundir, created and not wants_reports, llms)
    except InfrastructureError as exc:
        if wants_reports:  # CI reads these every time: each trail is an error naming the cause
            _never_started(rundir, checked, device, exc)
            _write_reports(console, rundir, junit, report, single_file=run.output.report_single_file)
        raise
    interrupted = False

    def replay_once(trail: Trail) -> TrailRecord:  # one attempt, from the trail's start
        return replay_trail(
            trail,
            session,
            options=run.replay,
            memory=build_memory(trail, inputs.memory, inputs.args, inputs.secrets, flags=inputs.flags),
            llm_factory=llms,
            rundir=rundir,
            device=device.text,
            on_step=lambda rec: console.print(_step_line(rec)),
        )

    try:
        _install(console, session, device.install, device.reinstall)
        for file, digest in checked:
            trail = _load_again(file, digest, device.platform, inputs, tools=not run.replay.self_heal)
            console.print(f"[bold]{_escape(str(file))}[/] on {_escape(device.text)}")
            if trail.note:
                console.print(f"  [dim]note: {_escape(trail.note)}[/]")
            try:
                record = run_with_retries(
                    partial(replay_once, trail),
                    retries=policy.retries,
                    rundir=rundir,
                    before_retry=_retry_printer(console, session, trail, policy.retries),
                )
            except SessionLost as exc:  # that trail errs; the next one opens a new remote session
                broken = exc
                console.print(f"  [red]{_escape(exc.message)}[/]")
                continue
            except InfrastructureError as exc:
                broken = exc
                console.print(f"  [red]{_escape(exc.message)}[/]")
                break
            if record.status == "skipped":
                console.print(f"  [dim]{_escape(record.error or 'skipped')}[/]")
            elif record.error:
                console.print(f"  [red]{_escape(record.error)}[/]")
                _print_device_log(console, record, root)
            if record.heal_diff:
                console.print(f"  [bold]{_escape(str(recordings_file(file)))} was updated:[/]")
                console.print(_diff_markup(record.heal_diff))
            _print_outcome(console, record)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        rundir.finish(interrupted=interrupted)
        try:
            session.close()
        finally:
            llms.close()
            _write_reports(console, rundir, junit, report, single_file=run.output.report_single_file)
            if interrupted:
                _print_interrupted(console, root, report)
    _summary(console, rundir, root)
    result = verdict(rundir.run, policy, root, trails=iter_trails(root, rundir.run))
    for line in result.lines:  # their values are redacted already, their labels are the program's
        console.print(_markup(line))
    if broken is not None:
        raise broken
    return result.code


def _retry_printer(
    console: Console, session: DeviceSession, trail: Trail, retries: int
) -> Callable[[int, TrailRecord], None]:
    """Says a failed attempt is retried, and stops the app so the retry launches it cold."""
    target = trail.config.target if trail.config else None

    def before(attempt: int, failed: TrailRecord) -> None:
        console.print(
            f"  [yellow]attempt {attempt - 1} failed; retry {attempt - 1} of {retries} from the start "
            "on a clean launch[/]"
        )
        clean_launch(session, target)

    return before


def _print_outcome(console: Console, record: TrailRecord) -> None:
    """A late pass and a quarantined failure, said under the trail as it ends."""
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


def _shard_trails(
    trails: list[tuple[Path, Trail]], shard: Shard, durations: Mapping[str, float] | None
) -> list[tuple[Path, Trail]]:
    import os

    from trailblaze.engine.shard import select_shard

    def key(entry: tuple[Path, Trail]) -> str:
        # every job must name a trail alike however its folder was spelled (`trails/`, `./trails`)
        return Path(os.path.relpath(entry[0].resolve())).as_posix()

    def aliases(entry: tuple[Path, Trail]) -> list[str]:
        config = entry[1].config
        return [str(entry[0]), *([config.id] if config is not None and config.id else [])]

    return select_shard(trails, shard, key, durations, aliases)


def _digest(trail: Trail) -> str:
    """What a trail's pre-flight checked, to tell whether the file changed before its turn."""
    import hashlib

    return hashlib.blake2b((trail.source_text or "").encode(), digest_size=16).hexdigest()


def _load_again(file: Path, checked: str, platform: str, inputs: RunInputs, *, tools: bool) -> Trail:
    """The trail file loaded again for its turn; checked again when it changed since the pre-flight."""
    trail = load_trail(file)
    if _digest(trail) != checked:
        _preflight([(file, trail)], platform, inputs, tools=tools)
    return trail


def _never_started(
    rundir: RunDir, checked: list[tuple[Path, str]], device: DeviceChoice, exc: BaseException
) -> None:
    """Record every trail as an `error` with the device's failure: the device never opened."""
    from trailblaze.errors import TrailblazeError
    from trailblaze.output.rundir import now_iso

    platform = device.spec.platform
    error = f"device {device.text} did not open, nothing ran: {getattr(exc, 'message', str(exc))}"
    for file, _ in checked:
        try:
            config = load_trail(file).config
        except TrailblazeError:  # changed since it was checked: its id and title are not known
            config = None
        rundir.run.trails.append(
            TrailRecord(
                path=str(file),
                id=config.id if config else None,
                title=config.title if config else None,
                device=device.text,
                platform=platform,
                status="error",
                error=rundir.memory.redact(error),
                started_at=now_iso(),
            )
        )
    rundir.finish()


def _print_interrupted(console: Console, root: Path, report: str | None) -> None:
    """After Ctrl-C: where what ran so far is kept (run.json is complete, the step that ran is marked)."""
    html = f"report {_escape(str(_report_target(report)))}" if report else f"report: trailblaze report {_escape(str(root))}"
    console.print(f"[yellow]interrupted (Ctrl-C)[/] — run directory {_escape(str(root))}; {html}")


def _write_reports(
    console: Console, rundir: RunDir, junit: str | None, report: str | None, *, single_file: bool = False
) -> None:
    """JUnit and the HTML report, from run.json one trail at a time (the run directory let go of them)."""
    from trailblaze.output.junit import write_junit
    from trailblaze.output.report import pictures_folder, write_html_report

    root = rundir.root
    if junit:
        written = write_junit(rundir.run, junit, run_dir=root, trails=iter_trails(root, rundir.run))
        console.print(f"junit:  {_escape(str(written))}")
    if report:
        page = write_html_report(root, _report_target(report), single_file=single_file)
        folder = pictures_folder(page)
        beside = f" (screenshots in {_escape(str(folder))}/)" if folder is not None else ""
        console.print(f"report: {_escape(str(page))}{beside}")


def _summary(console: Console, rundir: RunDir, root: Path) -> None:
    from rich.table import Table

    table = Table(title="trailblaze replay", title_justify="left", show_edge=False, pad_edge=False)
    for name, justify in (("trail", "left"), ("status", "left"), ("steps", "right"), ("healed", "right"),
                          ("AI", "right"), ("LLM calls", "right"), ("time", "right")):  # fmt: skip
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    counts: dict[str, int] = {}
    quarantined = n = 0
    for trail in iter_trails(root, rundir.run):  # one at a time: the run directory let go of them
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
    usage = rundir.run.usage
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


def _install(console: Console, session: DeviceSession, paths: Sequence[str], reinstall: bool) -> None:
    """`--install`: the apps go on the device before the first trail."""
    from trailblaze.device.install import install_apps

    for path, app_id in zip(paths, install_apps(session, paths, reinstall=reinstall), strict=True):
        console.print(f"[dim]{'re' if reinstall else ''}installed {_escape(app_id)} from {_escape(path)}[/]")


def _print_device_log(console: Console, record: TrailRecord, root: Path) -> None:
    """The failed step's app log (its last lines), under the error."""
    from trailblaze.output.report import device_log_tail

    step = next((s for s in record.steps if s.status == "failed"), None)
    if step is not None:
        for line in device_log_tail(step, root):
            console.print(f"[dim]{_escape(line)}[/]")


_INTERRUPTED = "interrupted (Ctrl-C)"


def _step_line(rec: StepRecord) -> str:
    from trailblaze.common.redact import scrub

    number = "trailhead" if rec.index < 0 else f"{rec.index + 1:>2}"
    if rec.status == "skipped":
        what = "skipped"
    elif rec.mode == "replay":
        auto = [t.name for t in rec.tools if t.source == "auto"]  # the replayer's own calls
        n = len(rec.tools) - len(auto)
        what = f"replayed {n} tool{'s' * (n != 1)}" + (f" (+ {', '.join(auto)})" if auto else "")
    else:
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
