"""Selector generation on every screen of the bundled demo app, and its durability across a restyle.

Round trip: for every visible interactive node of the app's windows, the selector `generate_selector`
records (hit test on) must resolve to exactly the node a tap on it lands on.

Durability: a selector recorded on `demo` must find the same element — same class, id, label and
text, and for a row the same title inside it — on the same screen of `demo@restyled` (reached the
same way), where every position, size and order differs. Elements the restyle pushes off screen
(taller rows) cannot be found without scrolling, which is a separate recorded tool; they are
counted and reported, not scored.
"""

from __future__ import annotations

import pytest

from tests.support.demo_screens import SCREENS, demo_screen
from tests.support.screen_checks import covers_every_interactive_node, round_trip
from trailblaze.screen.compact import compact_view
from trailblaze.screen.hierarchy import Hierarchy, Node
from trailblaze.screen.occlusion import covers
from trailblaze.screen.resolve import describe_selector, resolve
from trailblaze.screen.selector_gen import generate_selector, tap_target

PLATFORMS = ("android", "ios")


def _controls(h: Hierarchy) -> list[Node]:
    """The controls a tap reaches (covered ones get no selector: `round_trip` in tests/support/screen_checks.py)."""
    covers(h)
    return [n for n in h.visible_nodes() if n.interactive and h.window_kind(n) == "app" and not n.covered]


def _identity(node: Node) -> tuple[str, ...]:
    """What makes an element "the same" across layouts: its own content, and a row's title."""
    title = next(
        (d.text or d.label for d in node.walk() if d is not node and d.is_visible and (d.text or d.label)), ""
    )
    return (node.class_name, node.resource_id, node.label, node.text, node.hint, title)


def _round_trip(platform: str) -> tuple[int, list[str]]:
    checked, misses = 0, []
    for screen in SCREENS:
        h = demo_screen(screen, platform)
        for node in _controls(h):
            checked += 1
            selector = generate_selector(node, h)
            target = tap_target(node, h)
            found = resolve(selector, h) if selector is not None else []
            if found != [target]:
                shown = describe_selector(selector) if selector is not None else None
                misses.append(f"{screen}: {node!r} -> {shown} found {found}, wanted {target!r}")
    return checked, misses


@pytest.mark.parametrize("platform", PLATFORMS)
def test_generated_selectors_find_the_tapped_node_on_every_demo_screen(
    platform: str, capsys: pytest.CaptureFixture[str]
) -> None:
    checked, misses = _round_trip(platform)
    ok = checked - len(misses)
    with capsys.disabled():
        print(f"\n{platform} demo selector round trip: {ok}/{checked} = {100 * ok / checked:.1f}%")
    # Every screen contributes (the keyboard screen included); the controls behind the sign-out
    # dialog do not (they are covered, checked in test_selectors.round_trip).
    assert checked >= 56
    assert misses == []


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("screen", SCREENS)
def test_every_demo_screen_passes_the_fixture_round_trip(platform: str, screen: str) -> None:
    h = demo_screen(screen, platform)
    checked, misses = round_trip(h)
    assert checked > 0 and misses == []
    assert covers_every_interactive_node(h) == []


def _durability(platform: str) -> tuple[int, list[str], list[str]]:
    checked, misses, absent = 0, [], []
    for screen in SCREENS:
        demo = demo_screen(screen, platform)
        restyled = demo_screen(screen, platform, "demo@restyled")
        for node in _controls(demo):
            selector = generate_selector(node, demo)
            assert selector is not None, node
            want = _identity(tap_target(node, demo))
            if not any(_identity(n) == want for n in restyled.visible_nodes()):
                absent.append(f"{screen}: {want}")
                continue
            checked += 1
            found = resolve(selector, restyled)
            if len(found) != 1 or _identity(found[0]) != want:
                misses.append(f"{screen}: {describe_selector(selector)} found {found}, wanted {want}")
    return checked, misses, absent


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_selectors_recorded_on_demo_find_the_same_element_on_the_restyled_app(
    platform: str, capsys: pytest.CaptureFixture[str]
) -> None:
    checked, misses, absent = _durability(platform)
    ok = checked - len(misses)
    with capsys.disabled():
        print(
            f"\n{platform} durability demo -> demo@restyled: {ok}/{checked} = {100 * ok / checked:.1f}% "
            f"({len(absent)} rows scrolled off screen by the restyle, not scored)"
        )
    assert checked >= 52  # the controls behind the sign-out dialog are covered, not scored
    assert len(absent) <= 8  # only list rows the taller restyled rows push below the fold
    assert all("message_row" in a for a in absent), absent
    assert misses == []


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_capture_through_the_real_client_matches_the_direct_capture(platform: str) -> None:
    """End to end: the login screen through `open_device` (real client, real sockets) reads the same."""
    from trailblaze.device.devices import open_device

    with open_device(f"sim:{platform}", latency="zero") as session:
        h = session.screen()
        direct = demo_screen("login", platform)
        assert compact_view(h).text == compact_view(direct).text
        checked, misses = round_trip(h)
        assert checked >= 4 and misses == []
        sign_in = next(n for n in h.visible_nodes() if n.short_id == "sign_in")
        selector = generate_selector(sign_in, h)
        assert selector is not None
        assert session.resolve(selector, timeout=0).nodes[0].short_id == "sign_in"
