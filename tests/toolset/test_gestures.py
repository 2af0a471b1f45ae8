"""The shared gestures (`trailblaze.tools.gestures`): the swipe path and its reach, the areas swiped,
and the scroll-until loop's four ways to end, on a stand-in session that swipes through given screens."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import pytest

from trailblaze.screen.hierarchy import Hierarchy, Node, Rect, parse_hierarchy
from trailblaze.tools.gestures import FINGER, Scrolling, app_area, scroll_area, scroll_until, swipe_path

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession

_NODE = (
    'index="0" resource-id="com.example:id/{id}" class="{cls}" package="com.example" content-desc="" '
    'checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" '
    'scrollable="{scrollable}" long-clickable="false" password="false" selected="false" visible-to-user="true" '
    'bounds="{bounds}"'
)


def _screen(row: str, *, list_: bool = True) -> Hierarchy:
    """A 1080x2400 app whose list (when it has one) spans [0,200][1080,2000] and shows `row`."""
    inner = f'<node text="{row}" {_NODE.format(id="row", cls="android.widget.TextView", scrollable="false", bounds="[0,200][1080,400]")} />'
    if list_:
        inner = f'<node text="" {_NODE.format(id="list", cls="android.widget.ListView", scrollable="true", bounds="[0,200][1080,2000]")}>{inner}</node>'
    frame = _NODE.format(
        id="frame", cls="android.widget.FrameLayout", scrollable="false", bounds="[0,0][1080,2400]"
    )
    return parse_hierarchy(f'<hierarchy rotation="0"><node text="" {frame}>{inner}</node></hierarchy>')


class _Driver:
    def __init__(self) -> None:
        self.swipes: list[tuple[float, ...]] = []

    def swipe(self, *path: float) -> None:
        self.swipes.append(path)


class _Session:
    """Settles on the first screen; each action shows the next one (the last one stays)."""

    def __init__(self, screens: list[Hierarchy]) -> None:
        self.screens, self.driver = screens, _Driver()

    def settle(self) -> Hierarchy:
        return self.screens[0]

    def act(self, action: Callable[[Any], None]) -> Hierarchy:
        action(self.driver)
        self.screens = self.screens[1:] or self.screens
        return self.screens[0]


def _shows(text: str) -> Callable[[Hierarchy], Node | None]:
    return lambda h: next((n for n in h.visible_nodes() if n.text == text), None)


def _scroll(session: _Session, text: str, **kw: Any) -> Scrolling:
    return scroll_until(
        cast("DeviceSession", session), _shows(text), "DOWN", **kw
    )  # it settles and acts only


def test_a_swipe_path_crosses_the_middle_of_its_area_by_its_reach() -> None:
    area = Rect(0, 200, 1000, 1000)
    assert swipe_path(area, "UP") == (500, 800, 500, 400)  # the middle half, by default
    assert swipe_path(area, "DOWN") == (500, 400, 500, 800)
    assert swipe_path(area, "LEFT") == (750, 600, 250, 600)
    assert swipe_path(area, "RIGHT") == (250, 600, 750, 600)
    assert swipe_path(area, "UP", 0.3) == pytest.approx((500, 840, 500, 360))  # Maestro's reach
    assert FINGER["DOWN"] == "UP" and FINGER["LEFT"] == "RIGHT"


def test_the_scroll_area_is_the_biggest_list_else_the_app() -> None:
    assert scroll_area(_screen("a")) == Rect(0, 200, 1080, 2000)
    assert scroll_area(_screen("a", list_=False)) == app_area(_screen("a")) == Rect(0, 0, 1080, 2400)


def test_scrolling_stops_when_the_node_shows_and_says_after_how_many_swipes() -> None:
    session = _Session([_screen("a"), _screen("b"), _screen("c")])
    done = _scroll(session, "c", max_swipes=5)
    assert done.node is not None and done.swipes == 2 and not done.reached_end
    assert session.driver.swipes == [(540, 1550, 540, 650)] * 2  # content DOWN: the finger moves up the list


def test_scrolling_stops_at_the_end_of_the_content() -> None:
    done = _scroll(_Session([_screen("a"), _screen("b")]), "z", max_swipes=5)
    assert done.node is None and done.reached_end and done.swipes == 2  # the second swipe moved nothing


def test_scrolling_stops_at_its_bounds() -> None:
    screens = [_screen(str(i)) for i in range(10)]
    assert _scroll(_Session(screens), "z", max_swipes=3).swipes == 3
    asked: list[int] = []
    done = _scroll(_Session(screens), "z", max_swipes=5, go_on=lambda n: asked.append(n) or n < 1)
    assert done.swipes == 1 and asked == [0, 1] and not done.reached_end
