"""The `trailblaze record` / `trailblaze replay` commands: every trail of a run on one device.

`run_record_command` and `run_replay_command` load and check every trail before the device, open the
run directory and the device, run the trails (`trailblaze.engine.record.record_trail`,
`trailblaze.engine.retries.replay_with_retries`, which pytest's `trail_runner.replay` shares), write the reports, and return the exit code. They print
nothing: what happens goes, as data, to the run's events (`trailblaze.output.events.RunEvents`), which
the CLI presents on the terminal (`trailblaze.cli.console`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.common.flags import Flags
from trailblaze.engine.options import (
    DeviceChoice,
    ModelChoice,
    RecordOptions,
    RecordRun,
    ReplayRun,
    RunInputs,
    RunOutput,
)
from trailblaze.engine.record import record_trail
from trailblaze.engine.record_draft import not_changed_text, nothing_to_record, resumed_text
from trailblaze.engine.retries import replay_with_retries
from trailblaze.output.ci_policy import verdict
from trailblaze.output.events import Quiet, RecordTotals, RunEvents
from trailblaze.output.runlog import StepRecord, TrailRecord, iter_trails
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import Trail, load_trail

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.engine.shard import Shard
    from trailblaze.errors import UsageError
    from trailblaze.llm.client import LLMAuthError, LLMClient
    from trailblaze.output.rundir import RunDir

__all__ = ["report_target", "run_record_command", "run_replay_command"]


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
        missing = self.missing_key(why)
        if missing is None:
            return
        if unrecorded is not None:
            raise unrecorded(missing) from None
        raise type(missing)(f"{why}, so the agent must run: {missing.message}") from missing

    def missing_key(self, why: str) -> LLMAuthError | None:
        """Builds the first client now; the error saying no model is configured, or None when one is."""
        from trailblaze.errors import LLMError
        from trailblaze.llm.client import LLMAuthError

        try:
            self._ready = self()
        except LLMAuthError as exc:
            return exc
        except LLMError as exc:  # every LLMError subclass takes just the message
            raise type(exc)(f"{why}, so the agent must run: {exc.message}") from exc
        return None

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


def _without_model(
    trails: list[tuple[Path, Trail]], device: DeviceChoice, flags: Flags, llms: _LLMs
) -> dict[Path, str]:
    """The trails a replay cannot run for want of a model, each with why: a step has no recording for
    the device and no model is configured. When some trails can run, those err and the others run;
    when none can, or the agent is needed by design (`recordable: false`), the run stops here."""
    from trailblaze.engine.no_model import no_model_error
    from trailblaze.engine.preflight import agent_step

    needing = [(file, why) for file, trail in trails if (why := agent_step(trail, device.platform))]
    if not needing:
        return {}
    first = f"{needing[0][0]} {needing[0][1]}"
    fixes = [_unrecorded_fix(need, device, flags) for need in needing]
    if len(needing) == len(trails) or any(fix is None for fix in fixes):
        llms.check(first, fixes[0])
        return {}
    missing = llms.missing_key(first)
    if missing is None:
        return {}
    return {
        file: no_model_error(f"{file} {why}", str(file), device.text, missing, flags=flags).message
        for file, why in needing
    }


def _not_run(rundir: RunDir, file: Path, device: DeviceChoice, error: str) -> TrailRecord:
    """A trail that erred before its first step (`error` says why), in the run directory's record."""
    from trailblaze.errors import TrailblazeError
    from trailblaze.output.rundir import now_iso

    try:
        config = load_trail(file).config
    except TrailblazeError:  # changed since it was checked: its id and title are not known
        config = None
    record = TrailRecord(
        path=str(file),
        id=config.id if config else None,
        title=config.title if config else None,
        tags=list((config.tags if config else None) or []),
        device=device.text,
        platform=device.spec.platform,
        status="error",
        error=rundir.memory.redact(error),
        started_at=now_iso(),
    )
    rundir.run.trails.append(record)
    return record


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


def report_target(report: str) -> Path:
    """Where `--report` writes the page: the .html file named, or report.html in the folder named."""
    target = Path(report)
    return target if target.suffix.lower() in (".html", ".htm") else target / "report.html"



class _Summarised(RunEvents):
    """What `record_trail` tells of one trail: its steps go on to the command's progress, its summary
    line is kept for `recorded` (after the port summary, if any, is made of it)."""

    def __init__(self, told: RunEvents, summary: list[str]) -> None:
        self._told, self._summary = told, summary

    def step_done(self, record: StepRecord) -> None:
        self._told.step_done(record)

    def proof_step_done(self, record: StepRecord) -> None:
        self._told.proof_step_done(record)

    def summarised(self, line: str) -> None:
        self._summary.append(line)


def run_record_command(run: RecordRun, progress: RunEvents | None = None) -> int:
    """`trailblaze record`: record every trail on one device, telling `progress` how it goes.

    `run.device.element_timeout` bounds how long a selector is polled before its tool fails (None:
    5 s); `run.model.timeout` / `retries` bound each model call (None: 30 s, 2 retries);
    `run.record.ask` answers the agent's `askUser` questions (`--ask`; None: the tool is not offered);
    `run.output.screenshots` picks the run directory's screenshots (steps, failures, off).

    Returns:
        The exit code: 0 every trail passed, 1 a step failed.

    Raises:
        UsageError: no trail file found. Other `TrailblazeError`s propagate (exit 2 / 3).
    """
    told: RunEvents = progress if progress is not None else Quiet()
    device, inputs, options = run.device, run.inputs, run.record
    files = _trail_files(run.paths, device.platform)
    trails = [(file, load_trail(file)) for file in files]  # every file must load before the device is touched
    # no unknown-tool check: `record` reports a failing recorded tool with --rerecord as the fix
    _preflight(trails, device.platform, inputs, tools=False)
    why = _check_record_options(options, trails, device.platform)
    resumed = _resume_drafts(trails, device.platform) if options.resume else {}
    if not why and not options.rerecord:  # a trail with nothing to solve is not recorded again
        todo = _to_record(trails, device, resumed)
        for file, _ in trails:
            if file not in todo:
                told.nothing_to_record(nothing_to_record(file, device.platform, device.text, inputs.flags))
        trails = [(file, trail) for file, trail in trails if file in todo]
        files = [file for file, _ in trails]
        if not files:
            return 0
    llms = _LLMs(run.model)
    if not why and not options.rerecord:
        needed = _agent_needed(trails, device.platform)
        why = f"{needed[0]} {needed[1]}" if needed else None
    why = why or ("--rerecord solves every step" if options.rerecord else None)
    if why and options.port_from is None:  # a port solves steps with no model
        llms.check(why)
    rundir, created = _open_run_dir(run)
    root = rundir.root
    failed = ported = wanted = 0
    session = _open_session(device, rundir, created, llms)
    interrupted = False
    try:
        _install(told, session, device.install, device.reinstall)
        notes = {file: trail.note for file, trail in trails}
        for file in files:
            told.trail_started(
                file, device.text, notes.get(file) or None,
                resumed_text(file, resumed[file]) if resumed.get(file) else None,
            )  # fmt: skip
            summary: list[str] = []
            try:
                record = record_trail(
                    file,
                    session,
                    llms,
                    inputs=inputs,
                    options=options,
                    rundir=rundir,
                    device=device.text,
                    progress=_Summarised(told, summary),
                )
            except BaseException:  # the error follows; first what became of the file and the paid steps
                this = rundir.run.trails[-1] if rundir.run.trails else None
                if this is not None and this.path == str(file):
                    told.record_stopped(not_changed_text(file, this, device.text, inputs.flags))
                raise
            failed += record.status != "passed"
            if options.port_from is not None:
                counts = port_counts(record)
                ported += counts[0]
                wanted += counts[1]
                summary[:] = [port_summary(record, counts, file, device.text, summary[0] if summary else None, inputs.flags)]
            unchanged = (
                not_changed_text(file, record, device.text, inputs.flags)
                if record.status != "passed" and record.verification != "failed"  # a refused proof says so itself
                else None
            )
            told.recorded(file, record, root, summary[0] if summary else None, unchanged)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        rundir.finish(interrupted=interrupted)
        session.close()
        llms.close()
        if not interrupted:
            _store_results(told, root, run.output.results, "record")
        if interrupted:
            told.interrupted(root, None)
    passed = steps = unproven = 0
    for trail in iter_trails(root, rundir.run):  # one at a time: the run directory let go of them
        steps += len(trail.steps)
        passed += sum(s.status.startswith("passed") for s in trail.steps)
        unproven += trail.verification in ("failed", "unverified")
    told.record_totals(RecordTotals(len(files), passed, steps, unproven, rundir.run.usage, root))
    if options.port_from is not None:
        told.ported(f"ported {ported} of {wanted} step{'s' * (wanted != 1)} with 0 model calls, {wanted - ported} left for record")
    return 1 if failed else 0


def port_counts(record: TrailRecord) -> tuple[int, int]:
    """(steps ported, steps that wanted porting) of a port run's record, its `runTrail` trails' included:
    a step wanted porting when it had no recording to replay here (the port solved it, or failed to, or
    it was skipped after a step that failed)."""
    ported = wanted = 0
    for step in record.steps:
        for sub in step.subtrails:
            p, w = port_counts(sub)
            ported, wanted = ported + p, wanted + w
        if step.mode == "agent" or (step.status == "skipped" and not step.tools):
            wanted += 1
            ported += step.mode == "agent" and step.status == "passed"
    return ported, wanted


def port_summary(
    record: TrailRecord, counts: tuple[int, int], file: Path, device: str, proof: str | None, flags: Flags
) -> str:
    """`ported 3 of 4 steps, 1 left for record` with the proof's verdict, or what to run for the rest."""
    ported, wanted = counts
    line = f"ported {ported} of {wanted} step{'s' * (wanted != 1)} with 0 model calls, {wanted - ported} left for record"
    if ported < wanted:
        return f"{line}: {flags.record_trail(str(file), device, '--resume')} (a model solves only those)"
    return f"{line} · {proof}" if proof else line


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

    if _simulated_tablet(device):  # a tablet records the steps whose phone recording fails there: all run
        return {file for file, _ in trails}
    return {file for file, trail in trails if resumed.get(file) or agent_anywhere(trail, device.platform)}


def _simulated_tablet(device: DeviceChoice) -> bool:
    """A simulated device with the `tablet` profile: a form factor of its own (docs/guides/every-device.md).
    A real device's form factor is known once it is open; there, `--step N` picks the steps to record."""
    profile = device.spec.profile
    return device.spec.simulated and profile is not None and "tablet" in profile.split("+")


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



def run_replay_command(run: ReplayRun, progress: RunEvents | None = None) -> int:
    """`trailblaze replay`: replay every trail on one device; reports, and how it goes told to `progress`.

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
        UsageError: no trail file, a file that does not load, no trail with the tags, or (outside a
            shard) every trail skipped on the device, so nothing ran (exit 2), after the reports.
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
        check_writable(report_target(report), "--report")
    if junit:
        check_writable(junit, "--junit")
    if run.output.ctrf:
        check_writable(run.output.ctrf, "--ctrf")
    llms = _LLMs(run.model)
    unrunnable = _without_model(trails, device, inputs.flags, llms)
    checked = [(file, _digest(trail)) for file, trail in trails]
    del trails  # each is loaded again when its turn comes: a run of a thousand holds one at a time
    told: RunEvents = progress if progress is not None else Quiet()
    rundir, created = _open_run_dir(run)
    root = rundir.root
    rundir.run.shard = str(shard) if shard is not None else None
    if not checked:  # more shards than trails: this job has nothing to do, and says so in its reports
        llms.close()
        rundir.finish()
        _write_reports(told, rundir, run.output)
        told.empty_shard(str(shard), root)
        return 0
    broken: InfrastructureError | None = None
    wants_reports = bool(junit or report or run.output.allure_dir or run.output.ctrf)
    try:
        session = _open_session(device, rundir, created and not wants_reports, llms)
    except InfrastructureError as exc:
        if wants_reports:  # CI reads these every time: each trail is an error naming the cause
            _never_started(rundir, checked, device, exc)
            _write_reports(told, rundir, run.output)
        raise
    interrupted = False

    try:
        _install(told, session, device.install, device.reinstall)
        for file, digest in checked:
            if file in unrunnable:  # that trail errs with its message; the others run
                told.trail_started(file, device.text, None)
                told.replayed(file, _not_run(rundir, file, device, unrunnable[file]), root)
                continue
            trail = _load_again(file, digest, device.platform, inputs, tools=not run.replay.self_heal)
            told.trail_started(file, device.text, trail.note or None)
            try:
                record = replay_with_retries(
                    trail, session, options=run.replay, inputs=inputs, retries=policy.retries,
                    llm_factory=llms, rundir=rundir, device=device.text, progress=told,
                )  # fmt: skip
            except SessionLost as exc:  # that trail errs; the next one opens a new remote session
                broken = exc
                told.trail_lost(exc.message)
                continue
            except InfrastructureError as exc:
                broken = exc
                told.trail_lost(exc.message)
                break
            told.replayed(file, record, root)
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        rundir.finish(interrupted=interrupted)
        try:
            session.close()
        finally:
            llms.close()
            if not interrupted:  # a run cut short says nothing about its trails
                _store_results(told, root, run.output.results, "replay")
            _write_reports(told, rundir, run.output)
            if interrupted:
                told.interrupted(root, report_target(report) if report else None)
    told.replay_totals(rundir.run, root)
    result = verdict(rundir.run, policy, root, trails=iter_trails(root, rundir.run))
    told.verdict(list(result.lines))  # their values are redacted already, their labels are the program's
    if broken is not None:
        raise broken
    if shard is None and result.trails and len(result.skipped) == result.trails:
        raise UsageError(_nothing_ran(result.skipped))  # a green run that ran nothing would mislead CI
    return result.code


def _nothing_ran(skipped: list[str]) -> str:
    """Why a run whose every trail was skipped is an error, and what to do (exit 2)."""
    if len(skipped) == 1:
        return f"nothing ran: the one trail was skipped ({skipped[0]}); replay it on a --device it runs on"
    return (
        f"nothing ran: all {len(skipped)} trails were skipped (the first: {skipped[0]}); replay them on a "
        "--device they run on, or add trails that run on this one"
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
    error = f"device {device.text} did not open, nothing ran: {getattr(exc, 'message', str(exc))}"
    for file, _ in checked:
        _not_run(rundir, file, device, error)
    rundir.finish()


def _write_reports(told: RunEvents, rundir: RunDir, output: RunOutput) -> None:
    """JUnit, Allure, CTRF and the HTML report, from run.json one trail at a time (the run directory
    let go of them); the report shows each trail's history from the results store, when there is one.

    JUnit, Allure and CTRF are fed by one read of run.json (`fan_out`); each is told as it was written,
    in that order, and the first that failed is raised after them."""
    from trailblaze.output.fan_out import fan_out

    root, run = rundir.root, rundir.run
    writers: list[tuple[Callable[[Path], None], Callable[[Iterable[TrailRecord]], Path]]] = []
    if output.junit:
        from trailblaze.output.junit import write_junit

        junit = output.junit
        writers.append((told.junit_written, lambda trails: write_junit(run, junit, run_dir=root, trails=trails)))
    if output.allure_dir:
        from trailblaze.output.allure import write_allure

        allure = output.allure_dir
        writers.append(
            (partial(told.results_written, "allure"), lambda trails: write_allure(run, allure, run_dir=root, trails=trails))
        )
    if output.ctrf:
        from trailblaze.output.ctrf import write_ctrf

        ctrf = output.ctrf
        writers.append(
            (partial(told.results_written, "ctrf"), lambda trails: write_ctrf(run, ctrf, run_dir=root, trails=trails))
        )
    if writers:
        outcomes = fan_out(iter_trails(root, run), [write for _, write in writers])
        for (tell, _), outcome in zip(writers, outcomes, strict=True):
            if outcome.value is not None:
                tell(outcome.value)
        failed = next((o.error for o in outcomes if o.error is not None), None)
        if failed is not None:
            raise failed
    if output.report:
        from trailblaze.output.report import pictures_folder, write_html_report
        from trailblaze.results.history import report_history

        with report_history(output.results) as history:
            page = write_html_report(
                root, report_target(output.report), single_file=output.report_single_file, history=history
            )
        told.report_written(page, pictures_folder(page))


def _store_results(told: RunEvents, root: Path, location: str | None, source: str) -> None:
    """Adds the run to the results store; a failure is a warning, never the run's result."""
    from trailblaze.results.hook import store_run

    warning = store_run(root, location, source)
    if warning is not None:
        told.results_not_stored(warning)


def _install(told: RunEvents, session: DeviceSession, paths: Sequence[str], reinstall: bool) -> None:
    """`--install`: the apps go on the device before the first trail."""
    from trailblaze.device.install import install_apps

    for path, app_id in zip(paths, install_apps(session, paths, reinstall=reinstall), strict=True):
        told.installed(path, app_id, reinstall=reinstall)
