"""Proof replay: `record` writes new recordings only after they replayed from a relaunch (ADR 0015).

While the agent solves steps, `record` keeps the new recordings in the in-memory trail. When every step
passed, the whole trail is replayed on the same device the way it starts — the trailhead, or the first
step's `launchApp` — from those recordings, with no LLM, exactly as `trailblaze replay` would. Only when
that passes is the file written (atomically). When it fails nothing is written (unless
`keep_unverified`), the trail's record fails and its error names the step that did not replay.

The steps `record --step N` / `--from N` re-solve are chosen here too (`chosen_steps`): steps are
numbered from 1 over `trail:`, as replay prints them; the trailhead is not a numbered step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.common.files import write_text
from trailblaze.engine.policy import ProofPolicy
from trailblaze.engine.steps import StepEngine, run_engine, start_record
from trailblaze.errors import TrailblazeError, UsageError
from trailblaze.mutation.mutants import is_assertion, prove_assertion
from trailblaze.output.events import RunEvents
from trailblaze.trail.discovery import recordings_file
from trailblaze.trail.model import ToolCall, load_trail
from trailblaze.trail.subtrail import SubTrails, resolve_subtrail_path, trail_key

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.output.rundir import RunDir
    from trailblaze.output.runlog import StepRecord, TrailRecord
    from trailblaze.screen.hierarchy import Hierarchy
    from trailblaze.tools.memory import Memory
    from trailblaze.trail.model import Trail

__all__ = ["ProofOptions", "Recorded", "assertion_proof", "chosen_steps", "finish_recording", "start_problem"]

RECORDING_DIFF = "recording.diff"


@dataclass(frozen=True)
class Recorded:
    """What a record run made, for `finish_recording` to prove and write."""

    trail: Trail
    record: TrailRecord
    before: str | None
    """The file's text when the record started."""
    subtrails: SubTrails | None = None
    """The `runTrail` trails the record run loaded: their new recordings are proven and written (or
    not) with the trail's own (ADR 0021)."""
    resumed: int = 0
    """Steps that got their recordings from a draft (`record --resume`): they replayed in the record
    run, and are new to the file all the same."""


@dataclass(frozen=True)
class ProofOptions:
    """How `finish_recording` treats new recordings."""

    verify: bool = True
    """Run the proof replay (off: `--no-verify`, the recordings are written unproven)."""
    keep_unverified: bool = False
    """Write the recordings even when the proof replay fails (marked `unverified`)."""


def chosen_steps(
    trail: Trail, platform: str, steps: Sequence[int], from_step: int | None
) -> frozenset[int] | None:
    """The 0-based steps `--step N` (repeatable) / `--from N` hand to the agent; None when neither is given.

    Raises:
        UsageError: a number out of range, a step the agent cannot record, or a step outside the
            choice that has no recording to replay.
    """
    if not steps and from_step is None:
        return None
    count = len(trail.steps)
    numbers = list(steps) + ([from_step] if from_step is not None else [])
    for n in numbers:
        if not 1 <= n <= count:
            option = "--from" if from_step == n and n not in steps else "--step"
            raise UsageError(
                f"{option} {n}: {_name(trail)} has {count} step{'s' * (count != 1)}, numbered 1 to {count} "
                "as replay prints them (the trailhead is not numbered)"
            )
    chosen = {n - 1 for n in steps}
    if from_step is not None:
        chosen.update(range(from_step - 1, count))
    for i in sorted(chosen):
        step = trail.steps[i]
        if step.static:
            raise UsageError(
                f"--step {i + 1}: step {i + 1} of {_name(trail)} is a recorded `tools:` block with no text "
                "for the agent to solve; edit its tools in the file"
            )
        if not step.recordable and (i + 1) in steps:
            raise UsageError(
                f"--step {i + 1}: step {i + 1} of {_name(trail)} is `recordable: false`; the agent solves it "
                "on every run, so there is nothing to record"
            )
    first = min(chosen)
    trailhead = trail.trailhead
    if trailhead is not None and trailhead.recording_for(platform) is None:
        raise UsageError(
            f"the trailhead of {_name(trail)} has no {platform} recording to reach step {first + 1}; "
            "record the whole trail first (without --step / --from)"
        )
    for i, step in enumerate(trail.steps):
        if i in chosen or step.static or not step.recordable or step.recording_for(platform) is not None:
            continue
        where = f"to reach step {first + 1}" if i < first else "to replay after the re-recorded steps"
        raise UsageError(
            f"step {i + 1} of {_name(trail)} has no {platform} recording {where}; "
            f"add --step {i + 1}, or record the whole trail (without --step / --from)"
        )
    return frozenset(chosen)


def start_problem(
    trail: Trail, classifier: str, subtrails: SubTrails | None = None, depth: int = 0
) -> str | None:
    """Why a proof replay cannot reproduce the trail's start state, or None when it can.

    A trail starts the same way every time when it has a trailhead or its first step's recording
    begins with `launchApp`, or with a `runTrail` whose trail starts so; otherwise its recordings
    depend on whatever screen the device showed.
    """
    if trail.trailhead is not None:
        return None
    first = trail.steps[0].recording_for(classifier)
    if first and first[0].name == "launchApp":
        return None
    if first and first[0].name == "runTrail" and depth < 8:
        sub = _subtrail(trail, first[0], subtrails or {})
        if sub is not None and start_problem(sub, classifier, subtrails, depth + 1) is None:
            return None
    return (
        "the trail does not start with a trailhead or a launchApp, so a relaunch cannot reproduce "
        "its start state; add one to have recordings verified"
    )


def _subtrail(trail: Trail, call: ToolCall, subtrails: SubTrails) -> Trail | None:
    """The trail a `runTrail` names: the run's loaded copy, else the file (None when it does not load)."""
    path = resolve_subtrail_path(trail.path, str(call.params.get("path", "")))
    loaded = subtrails.get(trail_key(path))
    if loaded is not None:
        return loaded[0]
    try:
        return load_trail(path)
    except TrailblazeError:
        return None


def finish_recording(
    recorded: Recorded,
    session: DeviceSession,
    *,
    memory: Callable[[], Memory],
    llm_factory: Callable[[], LLMClient],
    options: ProofOptions,
    rundir: RunDir | None,
    device: str,
    progress: RunEvents | None = None,
) -> str | None:
    """After a record run: prove the new recordings by replay, then write them (or not).

    `recorded` is what the record run made (`Recorded`); `memory` builds a fresh memory for the
    proof (what the record run remembered must not leak into it).

    Returns:
        The summary line (`recorded 5 steps · verified by replay in 3.1 s`), or None when the run
        recorded nothing new or failed before the proof.

    Raises:
        DeviceError / LLMError: the device failed during the proof replay (nothing is written).
        UsageError: the file could not be written.
    """
    trail, record, before, resumed = recorded.trail, recorded.record, recorded.before, recorded.resumed
    subs = recorded.subtrails if recorded.subtrails is not None else {}
    solved = sum(s.recording_written for s in _all_steps(record))
    new = solved + resumed
    if record.status != "passed" or not new:
        return None
    what = f"recorded {new} step{'s' * (new != 1)}"
    if resumed:
        what += f" ({resumed} from the draft)"
    problem = None if options.verify else "not verified (--no-verify)"
    if problem is None and (why := start_problem(trail, session.info.classifier, subs)) is not None:
        problem = f"not verified: {why}"
    if problem is not None:
        record.verification, record.verification_note = "skipped", problem
        _write(trail, record, before, rundir, subs)
        return f"{what} · {problem}"
    screens: dict[int, Hierarchy] = {}
    proof_memory = memory()
    try:
        proof = _prove(
            trail, record, session, proof_memory, llm_factory, rundir, device, progress, subs, screens
        )
    except BaseException as exc:  # the device died or Ctrl-C: unproven, so nothing is written
        _reject(record, "NOT verified: the proof replay did not finish; nothing was written")
        record.status = "error"
        record.error = f"proof replay: {getattr(exc, 'message', None) or exc or type(exc).__name__}"
        if rundir is not None:
            rundir.write()
        raise
    seconds = f"{proof.duration_ms / 1000:.1f} s"
    weak: list[str] = []
    if proof.status.startswith("passed"):
        shown, weak = assertion_proof(trail, session.info.classifier, screens, proof_memory)
        if not weak:
            record.verification, record.verification_note = "verified", f"verified by replay in {seconds}"
            if shown:
                record.verification_note += f" · {shown} assertion{'s' * (shown != 1)} shown to fail"
            _write(trail, record, before, rundir, subs)
            return f"{what} · {record.verification_note}"
    failed = next((s for s in proof.steps if s.status == "failed"), None)
    reason = (failed.error if failed is not None else None) or proof.error or "the proof replay failed"
    number = (
        "a step" if failed is None else "the trailhead" if failed.index < 0 else f"step {failed.index + 1}"
    )
    why = f"{number} did not replay"
    if weak:
        reason = "; ".join(weak)
        why = f"{len(weak)} recorded assertion{'s' * (len(weak) != 1)} cannot fail ({reason})"
        reason = f"{why}; assert the fact the step states (re-record the step)"
    if options.keep_unverified:
        record.verification = "unverified"
        record.verification_note = f"NOT verified: {why}; written anyway (--keep-unverified)"
        _write(trail, record, before, rundir, subs)
    else:
        _reject(record, f"NOT verified: {why}; nothing was written")
        _keep_diff(trail, record, before, rundir, subs)
    record.status = "failed"
    record.error = f"proof replay: {reason}"
    if rundir is not None:
        rundir.write()
    return f"{what} · {record.verification_note}"


def _prove(
    trail: Trail,
    record: TrailRecord,
    session: DeviceSession,
    memory: Memory,
    llm_factory: Callable[[], LLMClient],
    rundir: RunDir | None,
    device: str,
    progress: RunEvents | None,
    subtrails: SubTrails,
    screens: dict[int, Hierarchy],
) -> TrailRecord:
    # Only `recordable: false` steps may use the model, as they would in `trailblaze replay`; every
    # other step must replay from its recording, so no LLM client is built for a fully recorded trail.
    agent_steps = any(not s.recordable for s in trail.steps)
    proof = start_record(trail, record.path, session, "replay", device)
    session.invalidate()  # the record run may have left a cached dump of a screen that is gone
    classifier = session.info.classifier

    class _ProofSteps(RunEvents):
        def step_done(self, rec: StepRecord) -> None:
            # the screen the step's assertions passed on, for the mutation proof (no round trip: the
            # assertions' last dump is the session's cached screen)
            step = trail.steps[rec.index] if 0 <= rec.index < len(trail.steps) else None
            calls = (step.recording_for(classifier) or []) if step is not None else []
            if rec.status == "passed" and any(is_assertion(c) for c in calls):
                screens[rec.index] = session.screen()
            if progress is not None:
                progress.proof_step_done(rec)

    engine = StepEngine(
        trail,
        session,
        memory,
        ProofPolicy(),
        llm_factory=llm_factory if agent_steps else None,
        observer=rundir,
        progress=_ProofSteps(),
        subtrails=subtrails,
    )
    try:
        run_engine(trail, proof, engine, proof_of=record)
    finally:
        engine.observer.resume_trail(record)
    return proof


def assertion_proof(
    trail: Trail, classifier: str, screens: dict[int, Hierarchy], memory: Memory
) -> tuple[int, list[str]]:
    """The mutation proof (`trailblaze.mutation.mutants`) of every recorded assertion of the steps in
    `screens` (step index → the screen its assertions passed on).

    Returns:
        (how many assertions were shown to fail, one line per assertion that cannot fail:
        `step 4: assertVisibleBySelector checks only that TextView … (message_body) exists, not its text`).
    """
    shown, weak = 0, []
    for index, screen in sorted(screens.items()):
        for call in trail.steps[index].recording_for(classifier) or []:
            if not is_assertion(call):
                continue
            verdict = prove_assertion(call, screen, memory)
            if verdict.status == "can-fail":
                shown += 1
            elif verdict.status == "cannot-fail":
                weak.append(f"step {index + 1}: {verdict.message}")
    return shown, weak


def _all_steps(record: TrailRecord) -> Iterator[StepRecord]:
    """The trail's steps and, nested under them, its sub-trails' (runTrail)."""
    for step in record.steps:
        yield step
        for sub in step.subtrails:
            yield from _all_steps(sub)


def _reject(record: TrailRecord, note: str) -> None:
    record.verification, record.verification_note = "failed", note
    for step in _all_steps(record):
        step.recording_written = False
        for tool in step.tools:
            tool.recorded = False


def _write(
    trail: Trail, record: TrailRecord, before: str | None, rundir: RunDir | None, subtrails: SubTrails
) -> None:
    _keep_diff(trail, record, before, rundir, subtrails)
    if before is None or trail.to_yaml() != before:
        trail.save()
    for sub, loaded in subtrails.values():  # sub-trails that got recordings in this run
        if sub.to_yaml() != loaded:
            sub.save()
    if rundir is not None:
        rundir.write()  # run.json says how the recording was verified


def _keep_diff(
    trail: Trail, record: TrailRecord, before: str | None, rundir: RunDir | None, subtrails: SubTrails
) -> None:
    from trailblaze.engine.heal import trail_diff

    diffs = []
    after = trail.to_yaml()
    if before is not None and after != before:
        diffs.append(trail_diff(before, after, recordings_file(record.path).name))
    for sub, loaded in subtrails.values():  # runTrail's trails recorded in this run
        if loaded is not None and sub.to_yaml() != loaded:
            diffs.append(trail_diff(loaded, sub.to_yaml(), Path(sub.path or "sub-trail").name))
    if not diffs:
        return
    record.heal_diff = "".join(diffs)
    if rundir is not None:
        write_text(rundir.trail_file(record, RECORDING_DIFF), record.heal_diff)


def _name(trail: Trail) -> str:
    return Path(trail.path).name if trail.path else "the trail"
