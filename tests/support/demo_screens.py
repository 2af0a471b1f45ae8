"""Every screen of the bundled demo app as a parsed `Hierarchy`, straight from the simulator.

The device model is driven directly (no protocol server, manual clock), and each capture is the
exact document the protocol servers would serve — `render_hierarchy(build_windows(device))` on
Android, `build_snapshot(...).xml()` on iOS — parsed with `parse_hierarchy`. That keeps tests of the
hierarchy layer fast while reading the same bytes a driver would get over the wire.

`demo_screens(platform, app)` reaches every screen the same way on every app variant, so a selector
generated on `demo` can be checked against the same screen of `demo@restyled`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from trailblaze.screen.hierarchy import Hierarchy, Node, parse_hierarchy
from trailblaze_sim import create_device
from trailblaze_sim.android.hierarchy import build_windows, render_hierarchy
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.ios.source import build_snapshot
from trailblaze_sim.model import ManualClock

SCREENS = (
    "launcher",
    "login",
    "login-keyboard",
    "inbox",
    "inbox-scrolled",
    "detail",
    "compose",
    "search-results",
    "search-empty",
    "settings",
    "sign-out-dialog",
)


def capture(device: SimulatedDevice) -> Hierarchy:
    """The device's current screen as the protocol server would serve it, parsed."""
    if device.platform == "android":
        return parse_hierarchy(render_hierarchy(build_windows(device)), "android")
    snapshot = build_snapshot(
        device.tree(),
        device.current_app(),
        screen_width=device.screen_width,
        screen_height=device.screen_height,
    )
    return parse_hierarchy(snapshot.xml(), "ios", scale=device.scale)


class _Driver:
    """Finds elements in a fresh capture and taps them in device points."""

    def __init__(self, device: SimulatedDevice) -> None:
        self.device = device

    def find(self, pred: Callable[[Node], bool]) -> Node:
        h = capture(self.device)
        found = [n for n in h.visible_nodes() if pred(n)]
        if not found:
            raise AssertionError(f"no such element on {self.device.screen_name}")
        return found[0]

    def tap(self, pred: Callable[[Node], bool]) -> None:
        x, y = self.find(pred).center
        k = self.device.scale if self.device.platform == "android" else 1.0
        self.device.tap(x / k, y / k)

    def tap_id(self, short_id: str) -> None:
        self.tap(lambda n: n.short_id == short_id and n.interactive)

    def tap_text(self, text: str) -> None:
        self.tap(lambda n: text in (n.text, n.label))


def _sign_in(drv: _Driver, clock: ManualClock) -> None:
    drv.tap_id("email")
    drv.device.type_text("ada@example.com")
    drv.tap_id("password")
    drv.device.type_text("hunter2")
    drv.tap_id("sign_in")
    clock.advance(1.1)  # "Signing in…" lasts one second


def _reach(screen: str, platform: str, app: str) -> SimulatedDevice:
    clock = ManualClock()
    device = create_device(platform, app, clock=clock, launch=screen != "launcher")
    drv = _Driver(device)
    if screen in ("launcher", "login"):
        return device
    if screen == "login-keyboard":
        drv.tap_id("email")
        return device
    _sign_in(drv, clock)
    if screen == "inbox":
        return device
    if screen == "inbox-scrolled":
        area = drv.find(lambda n: n.short_id == "messages")
        k = device.scale if platform == "android" else 1.0
        x, y = area.center
        device.swipe(x / k, (y + 200 * k) / k, x / k, (y - 200 * k) / k)
        return device
    if screen == "detail":
        drv.tap_text("Message 3")
        return device
    if screen == "compose":
        drv.tap(lambda n: n.label == "Compose")
        return device
    if screen.startswith("search"):
        drv.tap_id("tab_search")
        drv.tap_id("query")
        device.type_text("Message 1" if screen == "search-results" else "zzz")
        return device
    drv.tap_id("tab_settings")
    if screen == "sign-out-dialog":
        drv.tap_id("sign_out")
    return device


@cache
def demo_screen(screen: str, platform: str, app: str = "demo") -> Hierarchy:
    """One screen of `app` (a demo variant) on `platform`, captured once per test session."""
    return capture(_reach(screen, platform, app))


def demo_screens(platform: str, app: str = "demo") -> dict[str, Hierarchy]:
    """Every screen in `SCREENS`, by name."""
    return {name: demo_screen(name, platform, app) for name in SCREENS}
