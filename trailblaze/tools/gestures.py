"""The gestures the element tools, scrolling into view and Maestro's runner share: where on the screen
to swipe (`app_area`, `scroll_area`), the finger's path across it (`swipe_path`), and swiping until
something shows (`scroll_until`).

Directions name the way the content moves, as the tools do (`scrollUntilTextIsVisible` DOWN shows what
lies below); `FINGER` turns one into the way the finger moves. Maestro's runner swipes farther than
the core tools (`reach`), so each caller passes its own reach and the paths stay what they were.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trailblaze.device.settle import same_screen

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.device.session import DeviceSession
    from trailblaze.screen.hierarchy import Hierarchy, Node, Rect

__all__ = [
    "FINGER",
    "REACH",
    "FingerPath",
    "Scrolling",
    "app_area",
    "biggest_scrollable",
    "scroll_area",
    "scroll_until",
    "swipe_path",
    "swiper",
]

FingerPath = tuple[float, float, float, float]
"""A finger path: from (x, y) to (x, y), in screen points."""

FINGER = {"DOWN": "UP", "UP": "DOWN", "RIGHT": "LEFT", "LEFT": "RIGHT"}
"""The finger's direction that scrolls content the other way: scrolling DOWN is a swipe UP."""

REACH = 0.25
"""How far a swipe goes from the area's centre each way, as a share of its size: the middle half."""


def swipe_path(area: Rect, direction: str, reach: float = REACH) -> FingerPath:
    """The finger's path through the centre of `area` in `direction`, `reach` of its size each way."""
    cx, cy = area.center
    dx, dy = area.width * reach, area.height * reach
    if direction == "UP":
        return cx, cy + dy, cx, cy - dy
    if direction == "DOWN":
        return cx, cy - dy, cx, cy + dy
    if direction == "LEFT":
        return cx + dx, cy, cx - dx, cy
    return cx - dx, cy, cx + dx, cy


def swiper(path: FingerPath) -> Callable[[Driver], None]:
    """The action that swipes along `path`, for `DeviceSession.act`."""
    return lambda d: d.swipe(*path)


def app_area(hierarchy: Hierarchy) -> Rect:
    """The visible part of the app's biggest window (the whole screen when the app shows none)."""
    from trailblaze.screen.hierarchy import Rect

    roots = [r for r in hierarchy.roots if hierarchy.window_kind(r) == "app" and r.visible_bounds.area > 0]
    if not roots:
        return hierarchy.screen
    biggest = max(roots, key=lambda r: r.visible_bounds.area)
    vb = biggest.visible_bounds
    return Rect(vb.left, vb.top, vb.right, vb.bottom)


def biggest_scrollable(hierarchy: Hierarchy) -> Node | None:
    """The app's on-screen scrollable container with the biggest visible area, if it has one."""
    scrollables = [n for n in hierarchy.visible_nodes() if n.scrollable and hierarchy.window_kind(n) == "app"]
    return max(scrollables, key=lambda n: n.visible_bounds.area) if scrollables else None


def scroll_area(hierarchy: Hierarchy) -> Rect:
    """Where a scroll swipes: the biggest scrollable container, else the app's area."""
    container = biggest_scrollable(hierarchy)
    return app_area(hierarchy) if container is None else container.visible_bounds


@dataclass(frozen=True)
class Scrolling:
    """How `scroll_until` ended."""

    node: Node | None
    """What `shown` found; None when it never showed."""
    swipes: int
    """Swipes made."""
    hierarchy: Hierarchy
    """The last screen."""
    reached_end: bool = False
    """The last swipe left the screen as it was: the content ends there."""


def scroll_until(
    session: DeviceSession,
    shown: Callable[[Hierarchy], Node | None],
    direction: str,
    *,
    max_swipes: int,
    reach: float = REACH,
    go_on: Callable[[int], bool] | None = None,
) -> Scrolling:
    """Swipes the scroll area (`scroll_area`) so the content moves in `direction` until `shown` finds
    a node on the settled screen, a swipe moves nothing, `max_swipes` swipes are made, or `go_on`
    (given the swipes made so far, before the next one) says to stop.
    """
    hierarchy = session.settle()
    finger = FINGER[direction]
    swipes = 0
    while True:
        node = shown(hierarchy)
        if node is not None:
            return Scrolling(node, swipes, hierarchy)
        if swipes == max_swipes or (go_on is not None and not go_on(swipes)):
            return Scrolling(None, swipes, hierarchy)
        before = hierarchy
        after = session.act(swiper(swipe_path(scroll_area(hierarchy), finger, reach)))
        assert after is not None  # act settles by default
        hierarchy = after
        swipes += 1
        if same_screen(hierarchy, before):
            return Scrolling(None, swipes, hierarchy, reached_end=True)
