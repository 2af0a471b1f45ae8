"""What the step engine does with each step, as small policy objects instead of flags.

The engine (`trailblaze.engine.steps`) asks its policy four questions: does the agent solve this step even
though it has a recording (record, re-record), may a failing recording go to the agent (heal), is a
solved step written into the trail and when (record defers to the proof replay, replay saves at
once), and what should a failure message tell the person to do. Record, re-record, replay, heal and
proof are one small class each (docs/adr/0045-engine-policies.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

from trailblaze.common.flags import CLI, Flags

if TYPE_CHECKING:
    from trailblaze.port.solver import PortSolver

__all__ = [
    "AgentSettings",
    "EnginePolicy",
    "HealPolicy",
    "ProofPolicy",
    "RecordPolicy",
    "ReplayPolicy",
    "RerecordPolicy",
]


@dataclass(frozen=True)
class AgentSettings:
    """How the agent runs when a step needs it."""

    max_llm_calls: int = 50
    screenshots: bool = True
    ask: Callable[[str], str] | None = None
    """Answers the agent's `askUser` questions (record with `--ask`); None: the tool is not offered."""
    solver: PortSolver | None = None
    """Solves steps in the agent's place with no model (`trailblaze port`); None: the agent does."""


@dataclass(frozen=True)
class EnginePolicy:
    """Replay's behaviour: recordings replay, a failure fails the step, an unrecorded step goes to the
    agent (when there is one) and its new recording is saved at once."""

    agent: AgentSettings = field(default_factory=AgentSettings)
    write_back: bool = True
    """Save a recording the agent made for an unrecorded step into the trail file."""

    name: ClassVar[Literal["record", "replay"]] = "replay"

    def solves(self, index: int, *, trailhead: bool = False) -> bool:
        """The agent solves this step although it has a recording for the device."""
        return False

    def heals(self) -> bool:
        """A step whose recording fails goes to the agent instead of failing."""
        return False

    def writes(self) -> bool:
        """A recording the agent made is kept in the trail."""
        return self.write_back

    def defers_save(self) -> bool:
        """New recordings stay in the in-memory trail until the proof replay verified them."""
        return False

    def agent_status(self) -> Literal["passed", "passed-ai"]:
        """A step the agent solved (not healed) passed as a recorded step or as an AI step."""
        return "passed-ai"

    def failure_hint(self, index: int, flags: Flags = CLI) -> str:
        """What to do about a recording that failed (step `index`, -1 for the trailhead), in the
        options of the front end that runs it (`flags`)."""
        if index >= 0 and flags.self_heal:
            return f"run with {flags.self_heal} to let the agent repair this step, or re-record it"
        if index >= 0:
            return "re-record this step"
        return "the trailhead must replay (it is never healed): fix or re-record it"

    def for_subtrail(self) -> EnginePolicy:
        """The policy a `runTrail` sub-trail runs with: its own unrecorded steps only."""
        return self


@dataclass(frozen=True)
class ReplayPolicy(EnginePolicy):
    """`trailblaze replay`."""


@dataclass(frozen=True)
class HealPolicy(EnginePolicy):
    """`trailblaze replay --self-heal`: a failing step (not the trailhead, not a sub-trail call, not a
    missing app) goes to the agent, seeded with what already succeeded."""

    def heals(self) -> bool:
        return True


@dataclass(frozen=True)
class ProofPolicy(EnginePolicy):
    """The replay that proves new recordings after `trailblaze record`: nothing is written, and a
    failure says how to fix the recording."""

    write_back: bool = False

    def failure_hint(self, index: int, flags: Flags = CLI) -> str:
        number = "the trailhead" if index < 0 else f"--step {index + 1}"
        return (
            f"the new recording does not replay after a relaunch: re-record {number}, or start the "
            "trail from a clean state (launchApp launchMode: CLEAR_STATE)"
        )


@dataclass(frozen=True)
class RecordPolicy(EnginePolicy):
    """`trailblaze record`: unrecorded steps (and the `--step` / `--from` ones) go to the agent; the
    new recordings are written after the proof replay."""

    solve: frozenset[int] | None = None
    """The steps (0-based) the agent solves even when recorded; None: only unrecorded ones."""
    name: ClassVar[Literal["record", "replay"]] = "record"

    def solves(self, index: int, *, trailhead: bool = False) -> bool:
        return not trailhead and self.solve is not None and index in self.solve

    def writes(self) -> bool:
        return True

    def defers_save(self) -> bool:
        return True

    def agent_status(self) -> Literal["passed", "passed-ai"]:
        return "passed"

    def failure_hint(self, index: int, flags: Flags = CLI) -> str:
        return f"run with {flags.rerecord} to record this step again" if flags.rerecord else "record this step again"

    def for_subtrail(self) -> EnginePolicy:
        return RecordPolicy(agent=self.agent)


@dataclass(frozen=True)
class RerecordPolicy(RecordPolicy):
    """`trailblaze record --rerecord`: the agent solves every step and the trailhead again."""

    def solves(self, index: int, *, trailhead: bool = False) -> bool:
        return True
