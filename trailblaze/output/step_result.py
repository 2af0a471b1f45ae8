"""What a step solver returns: how the step ended, the calls it ran, what it cost.

The solvers are the agent (`trailblaze.agent.loop`) and `trailblaze port`'s (`trailblaze.port.solver`);
the run's events carry their results (`trailblaze.output.events`: `on_tool`, `step_solved`) to the run
directory and the in-memory recorder, which sit below the solvers. So the results live here, with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from trailblaze.llm.client import Usage

if TYPE_CHECKING:
    from trailblaze.llm.client import ToolUseBlock
    from trailblaze.tools.tooldef import ToolResult
    from trailblaze.trail.model import ToolCall

__all__ = ["StepResult", "ToolRun"]


@dataclass
class ToolRun:
    """One executed LLM-facing call."""

    use: ToolUseBlock
    outcome: ToolResult
    duration_ms: float


@dataclass
class StepResult:
    """How one step ended, what to record, and what it cost."""

    status: Literal["COMPLETED", "FAILED"]
    explanation: str
    runs: list[ToolRun] = field(default_factory=list)
    llm_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    cost_usd: float = 0.0

    @property
    def recorded(self) -> list[ToolCall]:
        """The recorded-form calls of every successful tool, in order: the step's recording."""
        return [call for run in self.runs if run.outcome.ok for call in run.outcome.recorded]
