"""Scroll into view: element tools whose recorded target sits below the fold of the demo inbox
(40 messages, about 9 on screen) scroll the list to it, on both platforms, through the real clients."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import pytest
import yaml

from tests.support.device import Rig, rig
from tests.support.hierarchy_fixtures import FIXTURE_DIR, load
from trailblaze.device.session import SessionStats
from trailblaze.screen.hierarchy import Hierarchy, parse_hierarchy
from trailblaze.screen.resolve import resolve_anywhere
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools import scroll_into_view
from trailblaze.tools.execute import ToolResult, run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.tools.scroll_into_view import MAX_SCROLLS, Scrolled, beyond
from trailblaze.trail.model import parse_tool
from trailblaze_sim.model import ManualClock


def _branch(r: Rig) -> str:
    return "androidAccessibility" if r.session.info.platform == "android" else "iosMaestro"


def _run(r: Rig, tool: str) -> ToolResult:
    return run_recorded_tool(r.session, parse_tool(tool), Memory())


def _ok(r: Rig, tool: str) -> ToolResult:
    result = _run(r, tool)
    assert result.ok, f"{tool} -> {result}"
    return result


def _by_id(r: Rig, short_id: str) -> str:
    return f"{{{_branch(r)}: {{resourceIdRegex: '.*{short_id}'}}}}"


def _row(r: Rig, title: str) -> str:
    """The selector the recorder writes for a tap on an inbox row (trails/archive-message.trail.yaml)."""
    text = "textRegex" if r.session.info.platform == "android" else "accessibilityTextRegex"
    return f"{{{_branch(r)}: {{resourceIdRegex: '.*message_row'}}, containsChild: {{{_branch(r)}: {{{text}: '{title}'}}}}}}"


@pytest.fixture(scope="module", params=["android", "ios"])
def _signed_in(request: pytest.FixtureRequest) -> Iterator[Rig]:
    clock = ManualClock()
    with rig(request.param, clock=clock) as r:
        device = r.device
        # signed in on the device itself (the tools' own tests sign in through them): a quick start
        for field, text in (("email", "ada@example.com"), ("password", "hunter2")):
            device.tap(*next(n for n in device.tree().walk() if n.id == field).frame.center)
            device.type_text(text)
        device.tap(*next(n for n in device.tree().walk() if n.id == "sign_in").frame.center)
        clock.advance(1.0)  # the demo's 1 s "Signing in…", in device time
        r.session.invalidate()
        yield r


@pytest.fixture
def inbox(_signed_in: Rig) -> Rig:
    """The demo app's inbox scrolled to the top (its tab resets it), the session's counters at zero."""
    r = _signed_in
    if r.device.screen_name != "inbox":
        _ok(r, "pressBack")
    _ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'tab_inbox')}}}")
    assert r.device.screen_name == "inbox" and _titles(r.session.screen())[0] == "Message 1"
    r.session.stats = SessionStats()
    return r


def _selector(flow_yaml: str) -> NodeSelector:
    return NodeSelector.model_validate(yaml.safe_load(flow_yaml))


def _titles(h: Hierarchy) -> list[str]:
    return [n.text or n.label for n in h.visible_nodes() if n.short_id == "row_title"]


def _opened(r: Rig, n: int) -> None:
    _ok(
        r,
        f"assertVisibleBySelector: {{nodeSelector: {_by_id(r, 'message_body')}, expectedText: 'This is message {n}.'}}",
    )


@pytest.mark.parametrize("n", [12, 30])
def test_a_tap_on_a_row_below_the_fold_scrolls_it_into_view(inbox: Rig, n: int) -> None:
    r = inbox
    screen = r.session.screen()
    assert f"Message {n}" not in _titles(screen)
    # Neither row is in the dump at all (a list lays out one row beyond its edge): found by searching.
    assert not resolve_anywhere(_selector(_row(r, f"Message {n}")), screen)
    tapped = _ok(r, f"tapOnElementBySelector: {{nodeSelector: {_row(r, f'Message {n}')}}}")
    assert "(id message_row)" in tapped.message and "after scrolling messages" in tapped.message
    assert r.device.screen_name == "detail"
    _opened(r, n)
    assert r.session.stats.scrolls_into_view == 1


def test_a_row_the_dump_holds_off_screen_is_scrolled_to_without_polling_first(inbox: Rig) -> None:
    r = inbox
    screen = r.session.screen()
    last = max(int(t.split()[1]) for t in _titles(screen))
    hidden = resolve_anywhere(_selector(_row(r, f"Message {last + 1}")), screen)
    if r.session.info.platform == "android":
        # UiAutomator leaves views that are not visible to the user out of its dump.
        assert not hidden
        return
    # iOS lists the cell laid out beyond the table's edge, flagged not visible.
    assert hidden and not hidden[0].on_screen
    tapped = _ok(r, f"tapOnElementBySelector: {{nodeSelector: {_row(r, f'Message {last + 1}')}}}")
    assert tapped.message.endswith("after scrolling messages 1 swipe into view")
    _opened(r, last + 1)
    # No wait on the device for the selector and no dump polled: one swipe and one tap, each settled once.
    stats = r.session.stats
    assert stats.element_waits == 0 and stats.actions == 2 and stats.dumps == 2
    assert stats.scrolls_into_view == 1


def test_an_assertion_scrolls_a_row_title_into_view(inbox: Rig) -> None:
    r = inbox
    text = "textRegex" if r.session.info.platform == "android" else "accessibilityTextRegex"
    selector = f"{{{_branch(r)}: {{resourceIdRegex: '.*row_title', {text}: Message 30}}}}"
    shown = _ok(r, f"assertVisibleBySelector: {{nodeSelector: {selector}}}")
    assert "is visible" in shown.message and "after scrolling messages" in shown.message
    assert "Message 30" in _titles(r.session.screen())
    assert r.session.stats.scrolls_into_view == 1


def test_a_visible_target_costs_what_it_did(inbox: Rig) -> None:
    r = inbox
    tapped = _ok(r, f"tapOnElementBySelector: {{nodeSelector: {_row(r, 'Message 3')}}}")
    assert "scroll" not in tapped.message
    stats = r.session.stats
    # the cached settled inbox answers the lookup; the tap and the settle after it are all
    assert (stats.actions, stats.dumps, stats.element_waits, stats.scrolls_into_view) == (1, 1, 0, 0)


def test_a_target_that_is_nowhere_fails_after_reaching_both_ends(inbox: Rig) -> None:
    r = inbox
    # the search results for "Message 1" (1, 10-19): a list a little longer than the screen
    _ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'tab_search')}}}")
    _ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'query')}}}")
    _ok(r, "inputText: {text: Message 1, hideKeyboardAfter: true}")
    r.session.stats = SessionStats()
    missing = _run(r, f"tapOnElementBySelector: {{nodeSelector: {_row(r, 'Message 99')}}}")
    assert missing.status == "NOT_FOUND"
    searched = re.search(
        r" and (\d+) swipes? down and (\d+) up in results, reached both ends; ", missing.message
    )
    assert searched, missing
    stats = r.session.stats
    assert (
        int(searched[1]) + int(searched[2]) == stats.actions <= MAX_SCROLLS and stats.scrolls_into_view == 0
    )
    # back where the search started: the top of the list
    assert _titles(r.session.screen())[0] == "Message 1"


def test_without_scrolling_a_row_below_the_fold_is_not_found(
    inbox: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tests above pass because of scrolling: with no swipes allowed the same tap fails."""
    monkeypatch.setattr(scroll_into_view, "MAX_SCROLLS", 0)
    missing = _run(inbox, f"tapOnElementBySelector: {{nodeSelector: {_row(inbox, 'Message 30')}}}")
    assert missing.status == "NOT_FOUND" and "swipe" not in missing.message
    assert inbox.session.stats.actions == 0


def test_an_assertion_of_absence_does_not_scroll(inbox: Rig) -> None:
    r = inbox
    gone = _ok(r, "assertNotVisibleWithText: {text: Message 30}")
    assert "scroll" not in gone.message
    assert r.session.stats.actions == 0 and _titles(r.session.screen())[0] == "Message 1"


def test_a_selector_with_an_index_does_not_scroll(inbox: Rig) -> None:
    """An index counts the matches on screen: scrolling would change which one it names."""
    r = inbox
    missing = _run(
        r,
        f"tapOnElementBySelector: {{nodeSelector: {{{_branch(r)}: {{resourceIdRegex: '.*row_title'}}, index: 30}}}}",
    )
    assert missing.status == "NOT_FOUND" and r.session.stats.actions == 0


# --- which way: a hidden match against its container's visible part (no device) ---------------------

_ANDROID_LISTS = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,0][1080,2400]">
    <node index="0" text="" resource-id="com.example:id/chips" class="android.widget.HorizontalScrollView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,100][1080,200]">
      <node index="0" text="Chip 1" resource-id="com.example:id/chip" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,100][540,200]" />
      <node index="1" text="Chip 3" resource-id="com.example:id/chip" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="false" bounds="[1080,100][1620,200]" />
    </node>
    <node index="1" text="" resource-id="com.example:id/list" class="androidx.recyclerview.widget.RecyclerView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="true" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,200][1080,2000]">
      <node index="0" text="Row 1" resource-id="com.example:id/row" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true" bounds="[0,200][1080,2000]" />
      <node index="1" text="Row 2" resource-id="com.example:id/row" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="false" bounds="[0,2000][1080,3800]" />
    </node>
    <node index="2" text="Footer" resource-id="com.example:id/footer" class="android.widget.TextView" package="com.example" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="false" bounds="[0,2000][1080,2100]" />
  </node>
</hierarchy>
"""


def _way(hierarchy: Hierarchy, selector: str) -> tuple[str, str] | None:
    found = beyond(_selector(selector), hierarchy)
    return None if found is None else (found[0].short_id or found[0].short_class, found[1])


def test_a_hidden_match_is_scrolled_toward_from_its_container() -> None:
    h = parse_hierarchy(_ANDROID_LISTS)
    # RecyclerView's prefetched row below the fold, a chip laid out right of a horizontal strip
    assert _way(h, "{androidAccessibility: {textRegex: Row 2}}") == ("list", "DOWN")
    assert _way(h, "{androidAccessibility: {textRegex: Chip 3}}") == ("chips", "RIGHT")
    # on screen already (the ordinary lookup has it), or hidden outside every scrollable container
    assert _way(h, "{androidAccessibility: {textRegex: Row 1}}") is None
    assert _way(h, "{androidAccessibility: {textRegex: Footer}}") is None
    # relations are matched among every node too: the row of the list that holds it
    assert _way(
        h,
        "{androidAccessibility: {textRegex: 'Row.*'}, childOf: {androidAccessibility: {resourceIdRegex: list}}}",
    ) == ("list", "DOWN")


def test_real_ios_dumps_hold_off_screen_content_both_ways() -> None:
    below = load(FIXTURE_DIR / "ios-wda" / "app-basic.xml")
    assert _way(below, "{iosMaestro: {accessibilityTextRegex: Phone}}") == ("ScrollView", "DOWN")
    above = load(FIXTURE_DIR / "ios-wda" / "date-and-time-ja.xml")
    assert _way(above, "{iosMaestro: {accessibilityTextRegex: '0:00'}}") == ("scroll-view2", "UP")
    # decorative images WebDriverAgent flags invisible inside the visible rows: no scrolling shows them
    rows = load(FIXTURE_DIR / "ios-wda" / "settings-top.xml")
    assert resolve_anywhere(_selector("{iosMaestro: {accessibilityTextRegex: chevron}}"), rows)
    assert _way(rows, "{iosMaestro: {accessibilityTextRegex: chevron}}") is None


def test_a_failed_search_says_how_far_it_looked() -> None:
    searched = Scrolled(container="messages", swipes=Counter({"DOWN": 7, "UP": 7}), ends={"DOWN", "UP"})
    assert searched.searched() == "7 swipes down and 7 up in messages, reached both ends"
    one = Scrolled(container="list", swipes=Counter({"DOWN": 1}), ends={"DOWN"}, found=True)
    assert one.searched() == "1 swipe down in list, reached the bottom"
    assert one.note() == "after scrolling list 1 swipe into view"
    bounded = Scrolled(container="feed", swipes=Counter({"DOWN": MAX_SCROLLS}))
    assert bounded.searched() == f"{MAX_SCROLLS} swipes down in feed, stopped after {MAX_SCROLLS} swipes"
