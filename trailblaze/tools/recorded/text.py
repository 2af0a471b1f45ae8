"""Params of the tools that look for an element by its text (see the package's docstring)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.recorded.gestures import Direction

__all__ = ["AssertNotVisibleWithText", "ScrollUntilTextIsVisible"]


class ScrollUntilTextIsVisible(RecordedToolParams):
    """Scroll until an element with `text` is visible."""

    tool_name = "scrollUntilTextIsVisible"
    text: str = ""
    textRegex: str | None = None
    """A full-match pattern for the text; wins over `text`."""
    direction: Direction = "DOWN"
    index: int | None = Field(default=None, ge=0)
    id: str | None = None
    visibilityPercentage: int | None = Field(default=None, ge=0, le=100)
    centerElement: bool | None = None
    scrollStartPosition: Literal["CENTER", "TOP", "BOTTOM"] | None = None

    @model_validator(mode="after")
    def _something_to_find(self) -> ScrollUntilTextIsVisible:
        if not self.text and self.textRegex is None and self.id is None:
            raise ValueError("scrollUntilTextIsVisible needs text, textRegex or id")
        return self


class AssertNotVisibleWithText(RecordedToolParams):
    """Assert no visible element shows `text`."""

    tool_name = "assertNotVisibleWithText"
    text: str
    index: int | None = Field(default=None, ge=0)
    id: str | None = None
    enabled: bool | None = None
    selected: bool | None = None
