"""Recording one trail: `record_trail`.

Record and replay share one step engine (`trailblaze.engine.steps.StepEngine`). In record mode a step that
already has a recording for this device is replayed through `run_recorded_tool` (no LLM); with
`rerecord`, or when it has none, or when it is `recordable: false`, or when `steps` / `from_step`
choose it, the agent solves it. The recordings the agent makes go under the device's platform
(`android` / `ios`) with `Trail.set_recording` in memory; when every step passed, the proof replay
(`trailblaze.engine.proof`) relaunches the trail and replays it from them with no LLM, and only then is the
file saved atomically — other classifiers and the rest of the file untouched. A failed, interrupted
or unproven record writes nothing. Replay (`replay_trail`) lives in `trailblaze.engine.replay`; the
`record` / `replay` commands over many trails in `trailblaze.engine.commands`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.engine.options import RecordOptions, RunInputs
from trailblaze.engine.policy import AgentSettings, RecordPolicy, RerecordPolicy
from trailblaze.engine.replay import build_memory
from trailblaze.engine.steps import StepEngine, run_engine, start_record
from trailblaze.output.runlog import TrailRecord
from trailblaze.trail.model import load_trail
from trailblaze.trail.subtrail import SubTrails

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.output.events import RunEvents
    from trailblaze.output.rundir import RunDir

__all__ = ["RecordOptions", "record_trail"]


_RECORD_DEFAULTS = RecordOptions()
_NO_INPUTS = RunInputs()


def record_trail(
    path: str | Path,
    session: DeviceSession,
    llm_factory: Callable[[], LLMClient],
    *,
    inputs: RunInputs = _NO_INPUTS,
    options: RecordOptions = _RECORD_DEFAULTS,
    rundir: RunDir | None = None,
    device: str = "",
    progress: RunEvents | None = None,
) -> TrailRecord:
    """Record one trail file on `session`: replay what is recorded, solve the rest, prove, then save.

    Args:
        progress: Told of every step as it ends (`step_done`, then the proof replay's
            `proof_step_done`) and of the line saying what was recorded and whether the proof replay
            verified it (`summarised`: `recorded 5 steps · verified by replay in 3.1 s`).
        inputs: What templates read (`memory`, `args`, `secrets`) and how the calling front end
            spells the options its hints name (`flags`, trailblaze.common.flags).

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
    mem = build_memory(trail, inputs.memory, inputs.args, inputs.secrets, flags=inputs.flags)
    # recording only: a replay does not pay for importing the proof (and mutation) machinery
    from trailblaze.engine.proof import ProofOptions, Recorded, chosen_steps, finish_recording
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
    solver = None
    if options.port_from is not None:
        from trailblaze.port.solver import PortSolver

        solver = PortSolver(options.port_from)
    agent = AgentSettings(
        max_llm_calls=options.max_llm_calls, screenshots=options.screenshots, ask=options.ask, solver=solver
    )
    policy = RerecordPolicy(agent=agent) if options.rerecord else RecordPolicy(agent=agent, solve=solve)
    record = start_record(trail, str(path), session, "record", device)
    subtrails: SubTrails = {}  # runTrail's trails: their new recordings are written after the proof too
    engine = StepEngine(
        trail, session, mem, policy, llm_factory=llm_factory, observer=rundir, progress=progress, subtrails=subtrails
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
        Recorded(trail, record, before, subtrails, len(resumed)),
        session,
        memory=lambda: build_memory(trail, inputs.memory, inputs.args, inputs.secrets, flags=inputs.flags),
        llm_factory=llm_factory,
        options=ProofOptions(verify=options.verify, keep_unverified=options.keep_unverified),
        rundir=rundir,
        device=device,
        progress=progress,
    )
    if record.verification in ("verified", "skipped", "unverified") and trail.path is not None:
        drop_draft(trail.path)  # written: the draft is spent
    if line is not None and progress is not None:
        progress.summarised(line)
    return record
