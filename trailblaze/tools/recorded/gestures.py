"""Params of the tools that tap a point or swipe (see the package's docstring)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.params import RecordedToolParams

__all__ = ["Direction", "Swipe", "TapOnPoint"]

Direction = Literal["UP", "DOWN", "LEFT", "RIGHT"]
"""Finger direction of a swipe; for scrolling, DOWN reveals content further down."""


class TapOnPoint(RecordedToolParams):
    """Tap absolute screen coordinates; recorded only when no selector can identify the element."""

    tool_name = "tapOnPoint"
    x: int = Field(ge=0)
    y: int = Field(ge=0)
    longPress: bool = False


class Swipe(RecordedToolParams):
    """Swipe the finger in `direction`, on `nodeSelector` if given, else mid-screen."""

    tool_name = "swipe"
    direction: Direction = "DOWN"
    nodeSelector: NodeSelector | None = None
    swipeOnElementText: str | None = None
    """Swipe on the element showing this text (Trailblaze's text form of `nodeSelector`)."""
