"""The tools that look for an element by its text: their params and handlers (see the package's docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.recorded.gestures import Direction
from trailblaze.tools.tooldef import ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Hierarchy, Node
    from trailblaze.tools.lookup import ToolContext

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


@defines(ScrollUntilTextIsVisible, "action", source="core")
def _scroll_until_visible(run: ToolContext, p: ScrollUntilTextIsVisible) -> ToolResult:
    from trailblaze.tools.gestures import scroll_until
    from trailblaze.tools.lookup import MAX_SCROLLS, candidates, describe, text_selector

    pattern = p.textRegex if p.textRegex is not None else (p.text or None)
    selector = text_selector(run, pattern, ident=p.id, index=p.index)
    what = f"text {pattern!r}" if pattern is not None else f"id {p.id!r}"
    need = (p.visibilityPercentage if p.visibilityPercentage is not None else 100) / 100
    from trailblaze.screen.resolve import resolve

    def shown(h: Hierarchy) -> Node | None:
        for node in resolve(selector, h):
            area = node.bounds.area
            if area <= 0 or node.visible_bounds.area / area >= need - 1e-6:
                return node
        return None

    scrolled = scroll_until(run.session, shown, p.direction, max_swipes=MAX_SCROLLS)
    if scrolled.node is not None:
        swipes = scrolled.swipes
        return ToolResult("OK", f"{describe(scrolled.node)} is visible after {swipes} swipe{'s' * (swipes != 1)}")
    if scrolled.reached_end:
        return ToolResult("NOT_FOUND", (
            f"no element with {what} after {scrolled.swipes} swipes {p.direction}: reached the end; "
            f"{candidates(selector, scrolled.hierarchy)}"
        ))
    return ToolResult("NOT_FOUND", f"no element with {what} after {MAX_SCROLLS} swipes {p.direction}")


@defines(AssertNotVisibleWithText, "assertion", source="core")
def _assert_not_visible_with_text(run: ToolContext, p: AssertNotVisibleWithText) -> ToolResult:
    from trailblaze.tools.lookup import assert_gone, text_selector

    selector = text_selector(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return assert_gone(run, selector, f"text {p.text!r}", None)
