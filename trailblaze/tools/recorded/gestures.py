"""The tools that tap a point or swipe: their params and handlers (see the package's docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

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


@defines(TapOnPoint, "action", source="core")
def _tap_on_point(run: ToolContext, p: TapOnPoint) -> ToolResult:
    if p.longPress:
        run.act(lambda d: d.long_press(p.x, p.y), (p.x, p.y))
    else:
        run.act(lambda d: d.tap(p.x, p.y), (p.x, p.y))
    return ToolResult("OK", f"{'long-pressed' if p.longPress else 'tapped'} ({p.x}, {p.y})")


@defines(Swipe, "action", source="core")
def _swipe(run: ToolContext, p: Swipe) -> ToolResult:
    from trailblaze.tools.compat_lookup import compat_query
    from trailblaze.tools.gestures import app_area, swipe_path
    from trailblaze.tools.lookup import describe, find_one

    where = "the screen"
    target = p.nodeSelector
    if target is None and p.swipeOnElementText is not None:
        target = compat_query(run, p.swipeOnElementText).selector
    if target is not None:
        node, outcome = find_one(run, target)
        if node is None:
            return outcome
        area = node.visible_bounds
        where = describe(node)
    else:
        area = app_area(run.session.screen())
    path = swipe_path(area, p.direction)
    run.act(lambda d: d.swipe(*path))
    return ToolResult("OK", f"swiped {p.direction} on {where}")
