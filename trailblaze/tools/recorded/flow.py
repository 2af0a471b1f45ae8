"""Params of the tools that wait or run another trail (see the package's docstring)."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from trailblaze.tools.params import RecordedToolParams

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
