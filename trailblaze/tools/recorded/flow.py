"""The tools that wait or run another trail: their params and handlers (see the package's docstring)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

__all__ = ["RunTrail", "Wait"]


class Wait(RecordedToolParams):
    """Wait for a fixed time."""

    tool_name = "wait"
    timeToWaitInSeconds: float = Field(default=5, ge=0)


ArgValue = str | int | float | bool


class RunTrail(RecordedToolParams):
    """Run another trail's steps here, with its own `config.args` (ADR 0021).

    `path` is relative to the calling trail's folder; `args` values may use the caller's `{{templates}}`.
    """

    tool_name = "runTrail"
    templates_at_run: ClassVar[bool] = True
    """`args` are filled from the caller's memory when the sub-trail opens (`trail.subtrail`)."""
    path: str = Field(min_length=1)
    args: dict[str, ArgValue] | None = None


@defines(Wait, "other", source="core")
def _wait(run: ToolContext, p: Wait) -> ToolResult:
    time.sleep(p.timeToWaitInSeconds)
    run.session.invalidate()
    run.session.settle()
    return ToolResult("OK", f"waited {p.timeToWaitInSeconds:g} s")


@defines(RunTrail, "other", source="core")
def _run_trail(run: ToolContext, p: RunTrail) -> ToolResult:
    if run.run_trail is None or run.call is None:  # a lone tool call has no calling trail
        return ToolResult("ERROR", f"runTrail {p.path}: a sub-trail runs only as a step of a trail (record or replay it)")
    result = run.run_trail(run.call)  # the step engine runs it (trailblaze.engine.steps)
    return ToolResult(result.status, result.message)
