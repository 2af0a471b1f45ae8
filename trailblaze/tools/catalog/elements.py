"""Trailblaze's catalog tools that act on or check one element, found by its ref, a selector or a point: each one's params (Trailblaze's names, fields and defaults) and its handler.

Semantics come from block/trailblaze's tool classes (`trailblaze-common/.../toolcalls/commands/`);
docs/trailblaze-catalog.md lists each one and where it differs here. A handler imports what it runs on
when it runs: reading a trail imports this module for the params of the tools it names (start-up).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field, model_validator

from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.catalog import ANDROID, catalog_tool
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Node, Rect
    from trailblaze.tools.lookup import ToolContext

__all__: list[str] = []


def _ref_node(run: ToolContext, ref: str) -> tuple[Node | None, ToolResult]:
    from trailblaze.screen.compact import compact_view

    view = compact_view(run.session.settle())
    key = ref.strip().strip("[]")
    node = view.refs.get(key) or view.covered.get(key)
    if node is None:
        return None, ToolResult("NOT_FOUND", f"Element ref '{key}' not found on current screen")
    return node, ToolResult("OK", "")


def _drag(run: ToolContext, start: tuple[float, float], end: tuple[float, float], ms: int) -> None:
    run.act(lambda d: d.swipe(start[0], start[1], end[0], end[1], ms / 1000), start)


def _relative(spec: str, area: Rect) -> tuple[float, float]:
    x_raw, y_raw = (part.strip().rstrip("%") for part in spec.split(","))
    fx = min(100.0, max(0.0, float(x_raw))) / 100
    fy = min(100.0, max(0.0, float(y_raw))) / 100
    return area.left + area.width * fx, area.top + area.height * fy


class Tap(RecordedToolParams):
    """Tap (or long-press) the element with this ref on the current screen (refs are stable across
    captures of the same screen); Trailblaze records it as its selector form."""

    tool_name = "tap"
    ref: str = Field(min_length=1)
    longPress: bool = False


@catalog_tool(Tap, "action")
def _tap(run: ToolContext, p: Tap) -> ToolResult:
    node, outcome = _ref_node(run, p.ref)
    return outcome if node is None else run.tap_node(node, p.longPress)


class LongPress(RecordedToolParams):
    """Long-press the element with this ref on the current screen."""

    tool_name = "longPress"
    ref: str = Field(min_length=1)


@catalog_tool(LongPress, "action")
def _long_press(run: ToolContext, p: LongPress) -> ToolResult:
    node, outcome = _ref_node(run, p.ref)
    return outcome if node is None else run.tap_node(node, True)


class AssertVisible(RecordedToolParams):
    """Assert the element with this ref is on the current screen (showing `expectedText`, if given)."""

    tool_name = "assertVisible"
    ref: str = Field(min_length=1)
    expectedText: str | None = None


@catalog_tool(AssertVisible, "assertion")
def _assert_visible(run: ToolContext, p: AssertVisible) -> ToolResult:
    node, outcome = _ref_node(run, p.ref)
    if node is None:
        return ToolResult("NOT_VISIBLE", outcome.message)
    if p.expectedText is not None and p.expectedText not in (node.text, node.label, node.value):
        shown = node.text or node.label or node.value
        return ToolResult("NOT_VISIBLE", f"{run.describe(node)} shows {shown!r}, expected {p.expectedText!r}")
    return ToolResult("OK", f"{run.describe(node)} is visible")


class DragTo(RecordedToolParams):
    """Drag the element with `ref` onto the element `toRef`, or to the point (`toX`, `toY`)."""

    tool_name = "dragTo"
    ref: str = Field(min_length=1)
    toRef: str | None = None
    toX: int | None = Field(default=None, ge=0)
    toY: int | None = Field(default=None, ge=0)
    durationMs: int = Field(default=1000, ge=0)

    @model_validator(mode="after")
    def _one_target(self) -> DragTo:
        if (self.toRef is None) == (self.toX is None or self.toY is None):
            raise ValueError("dragTo takes either toRef or both toX and toY")
        return self


@catalog_tool(DragTo, "action")
def _drag_to(run: ToolContext, p: DragTo) -> ToolResult:
    node, outcome = _ref_node(run, p.ref)
    if node is None:
        return outcome
    if p.toRef is not None:
        target, outcome = _ref_node(run, p.toRef)
        if target is None:
            return outcome
        end = target.center
    else:
        assert p.toX is not None and p.toY is not None
        end = (float(p.toX), float(p.toY))
    start = node.center
    _drag(run, start, end, p.durationMs)
    return ToolResult(
        "OK",
        f"dragged {run.describe(node)} from ({start[0]:.0f}, {start[1]:.0f}) to ({end[0]:.0f}, {end[1]:.0f})",
    )


class TapOn(RecordedToolParams):
    """Tap the one element `selector` matches, at `relativePoint` ("x%,y%" of its bounds) or its centre."""

    tool_name = "tapOn"
    selector: NodeSelector
    relativePoint: str | None = Field(default=None, pattern=r"^\s*-?\d+(\.\d+)?%?\s*,\s*-?\d+(\.\d+)?%?\s*$")
    longPress: bool = False


@catalog_tool(TapOn, "action")
def _tap_on(run: ToolContext, p: TapOn) -> ToolResult:
    node, outcome = run.find_one(p.selector)
    if node is None:
        return outcome
    if p.relativePoint is None:
        return run.tap_node(node, p.longPress)
    x, y = _relative(p.relativePoint, node.bounds)
    if p.longPress:
        run.act(lambda d: d.long_press(x, y), (x, y))
    else:
        run.act(lambda d: d.tap(x, y), (x, y))
    verb = "long-pressed" if p.longPress else "tapped"
    return ToolResult("OK", f"{verb} ({x:.0f}, {y:.0f}) within {run.describe(node)}")


class DragByPoints(RecordedToolParams):
    """Drag a finger between absolute points, slowly (`durationMs`)."""

    tool_name = "dragByPoints"
    startX: int = Field(ge=0)
    startY: int = Field(ge=0)
    endX: int = Field(ge=0)
    endY: int = Field(ge=0)
    durationMs: int = Field(default=1000, ge=0)


@catalog_tool(DragByPoints, "action")
def _drag_by_points(run: ToolContext, p: DragByPoints) -> ToolResult:
    _drag(run, (p.startX, p.startY), (p.endX, p.endY), p.durationMs)
    return ToolResult("OK", f"dragged ({p.startX}, {p.startY}) to ({p.endX}, {p.endY})")


class SwipeWithRelativeCoordinates(RecordedToolParams):
    """Swipe from `startRelative` to `endRelative` ("x%,y%" of the screen, or of the element showing
    `swipeOnElementText`)."""

    tool_name = "swipeWithRelativeCoordinates"
    startRelative: str = Field(pattern=r"^\s*\d+(\.\d+)?%?\s*,\s*\d+(\.\d+)?%?\s*$")
    endRelative: str = Field(pattern=r"^\s*\d+(\.\d+)?%?\s*,\s*\d+(\.\d+)?%?\s*$")
    swipeOnElementText: str | None = None
    durationMs: int | None = Field(default=None, ge=0)


@catalog_tool(SwipeWithRelativeCoordinates, "action")
def _swipe_relative(run: ToolContext, p: SwipeWithRelativeCoordinates) -> ToolResult:
    area = run.session.screen().screen
    where = "the screen"
    if p.swipeOnElementText is not None:
        node, outcome = run.find_one(run.maestro_text(p.swipeOnElementText))
        if node is None:
            return outcome
        area, where = node.visible_bounds, run.describe(node)
    start, end = _relative(p.startRelative, area), _relative(p.endRelative, area)
    seconds = 0.3 if p.durationMs is None else p.durationMs / 1000
    run.act(lambda d: d.swipe(start[0], start[1], end[0], end[1], seconds), start)
    return ToolResult("OK", f"swiped {p.startRelative} → {p.endRelative} on {where}")


class TapOnAccessibilityNode(RecordedToolParams):
    """Tap the first node matching the patterns (Trailblaze's Android accessibility driver only)."""

    tool_name = "tapOnAccessibilityNode"
    contentDescriptionRegex: str | None = None
    textRegex: str | None = None
    classNameRegex: str | None = None
    resourceIdRegex: str | None = None
    longPress: bool = False

    @model_validator(mode="after")
    def _needs_text(self) -> TapOnAccessibilityNode:
        if self.contentDescriptionRegex is None and self.textRegex is None:
            raise ValueError("tapOnAccessibilityNode needs contentDescriptionRegex or textRegex")
        return self


@catalog_tool(TapOnAccessibilityNode, "action", platforms=ANDROID)
def _tap_on_accessibility_node(run: ToolContext, p: TapOnAccessibilityNode) -> ToolResult:
    if run.platform != "android":
        return ToolResult(
            "UNSUPPORTED",
            "tapOnAccessibilityNode runs on Android only (Trailblaze's accessibility driver)",
        )
    from trailblaze.screen.selector import NodeSelector

    fields = {
        "contentDescriptionRegex": p.contentDescriptionRegex,
        "textRegex": p.textRegex,
        "classNameRegex": p.classNameRegex,
        "resourceIdRegex": p.resourceIdRegex,
    }
    selector = NodeSelector.model_validate(
        {"androidAccessibility": {k: v for k, v in fields.items() if v is not None}, "index": 0}
    )
    node, outcome = run.find_one(selector)  # several matches: the first, as Trailblaze does
    return outcome if node is None else run.tap_node(node, p.longPress)


class LongPressElementWithAccessibilityText(RecordedToolParams):
    """Long-press the element whose content description / label (or text) is `accessibilityText`."""

    tool_name = "longPressElementWithAccessibilityText"
    accessibilityText: str
    id: str | None = None
    index: int | None = Field(default=None, ge=0)
    enabled: bool | None = None
    selected: bool | None = None


@catalog_tool(LongPressElementWithAccessibilityText, "action")
def _long_press_accessibility_text(run: ToolContext, p: LongPressElementWithAccessibilityText) -> ToolResult:
    selector = run.maestro_text(p.accessibilityText, ident=p.id, index=p.index or 0)
    node, outcome = run.find_one(selector)
    return outcome if node is None else run.tap_node(node, True)
