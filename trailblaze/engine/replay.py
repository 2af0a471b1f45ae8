"""`replay_trail`: replay one trail on an open session, with no LLM unless a step needs the agent.

The step engine it runs is `trailblaze.engine.steps` (shared with record and the proof replay); the
`ReplayPolicy` / `HealPolicy` it is given (`trailblaze.engine.policy`) is all that makes it a replay.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trailblaze.common.deadline import DEFAULT_TRAIL_TIMEOUT_S, trail_budget
from trailblaze.engine.policy import AgentSettings, HealPolicy, ReplayPolicy
from trailblaze.engine.steps import StepEngine, run_engine, skip_reason, start_record
from trailblaze.output.runlog import TrailRecord
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import Trail, load_trail
from trailblaze.trail.variables import build_memory

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.output.events import RunEvents
    from trailblaze.output.rundir import RunDir

__all__ = ["ReplayOptions", "build_memory", "replay_trail", "skip_reason", "trail_timeout"]


@dataclass(frozen=True)
class ReplayOptions:
    """Knobs of a replay run."""

    self_heal: bool = False
    """Hand a step whose recording fails to the agent (off by default: fail loudly)."""
    max_llm_calls: int = 50
    """Per healed or unrecorded step."""
    screenshots: bool = True
    """Send screenshots to the model when the agent runs."""
    write_back: bool = True
    """Write healed / newly solved recordings into the trail file (only when self-heal is on or the
    device had no recording)."""
    trail_timeout: float | None = DEFAULT_TRAIL_TIMEOUT_S
    """Wall-clock seconds one trail may run (`--trail-timeout`; a trail's `config.timeout` may lower
    it); past it the trail fails where it got to and the run goes on. None: no bound."""


def replay_trail(
    trail: str | os.PathLike[str] | Trail,
    session: DeviceSession,
    *,
    options: ReplayOptions = ReplayOptions(),
    memory: Memory | None = None,
    llm_factory: Callable[[], LLMClient] | None = None,
    rundir: RunDir | None = None,
    device: str = "",
    progress: RunEvents | None = None,
) -> TrailRecord:
    """Replays one trail on an open session, with no LLM unless a step needs the agent.

    A failing trail is reported in the returned record (status `failed`, the failing step's error
    and candidates), never raised.

    Args:
        trail: A trail file or a loaded `Trail` (saved back to its own path when it changes).
        session: The device.
        options: Self-heal, LLM budget, screenshots, write-back.
        memory: The run's variables and secrets (default: the trail's `config.memory` / `args`).
        llm_factory: Builds the LLM client; called only if a step has no recording for this device,
            is `recordable: false`, or fails with self-heal on. None: such steps fail.
        rundir: Where to keep run.json, screenshots, hierarchies and transcripts.
        device: The device spec, for the record.
        progress: Told of every step as it ends (`step_done`).

    Returns:
        The trail's record: `passed`, `passed-with-self-heal`, `passed-ai`, `failed` or `skipped`.

    Raises:
        UsageError / TrailFileError: the file does not load, or a template names an unknown variable.
        DeviceError / LLMError: infrastructure failed; the message names the step.
    """
    loaded = trail if isinstance(trail, Trail) else load_trail(trail)
    path = loaded.path or (os.fspath(trail) if not isinstance(trail, Trail) else "<trail>")
    mem = memory if memory is not None else build_memory(loaded)
    agent = AgentSettings(max_llm_calls=options.max_llm_calls, screenshots=options.screenshots)
    policy = (HealPolicy if options.self_heal else ReplayPolicy)(agent=agent, write_back=options.write_back)
    record = start_record(loaded, path, session, "replay", device)
    engine = StepEngine(
        loaded, session, mem, policy, llm_factory=llm_factory, observer=rundir, progress=progress
    )
    seconds, flag = trail_timeout(loaded, options.trail_timeout, mem.flags.trail_timeout)
    with trail_budget(seconds, flag):
        return run_engine(loaded, record, engine, skipped=skip_reason(loaded, session.info.classifier))


def trail_timeout(trail: Trail, given: float | None, flag: str | None) -> tuple[float | None, str]:
    """The trail's budget in seconds and what set it: the run's (`flag`), or the trail's own
    `config.timeout` when that is lower (a trail may lower the run's budget, never raise it)."""
    own = trail.config.timeout if trail.config else None
    if own is not None and (given is None or own < given):
        return own, "config.timeout"
    return given, flag or "the trail timeout"
