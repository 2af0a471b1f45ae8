"""The contract between the simulated app (the UI model) and the protocol servers.

The app model (`trailblaze_sim.app.spec` and the YAML app specs) produces, at any instant, a tree of
`SimNode`s laid out in *points* (Android dp / iOS pt). The protocol servers (`server.adb` +
`android.u2` for Android, `server.wda` for iOS) only read that tree and call the `SimDevice` actions;
they never know about screens, roles or transitions. Pixels exist only at the protocol edge:
Android XML bounds and screenshots are `round(pt * scale)`, WebDriverAgent speaks points.

Thread safety: servers are multi-threaded; every `SimDevice` method takes the device lock.
Time: the device owns a clock (`SimClock`) so tests can run delays (the 1 s sign-in progress, the 2 s
snackbar, the ticking inbox clock) without sleeping.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal, Protocol

Platform = Literal["android", "ios"]

# Keys the device understands, whatever protocol asked for them.
Key = Literal["back", "home", "enter", "delete", "tab", "menu", "recent", "volume_up", "volume_down", "power"]


@dataclass(frozen=True)
class Frame:
    """A rectangle in points: origin top-left, x/y/width/height."""

    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.width / 2, self.y + self.height / 2)

    def contains(self, px: float, py: float) -> bool:
        return self.x <= px < self.right and self.y <= py < self.bottom


@dataclass
class SimNode:
    """One element of the simulated UI, already mapped to both platforms' vocabularies.

    `android_class` / `ios_type` are filled by the app model from the element's role (or the spec's
    override), so protocol servers never map roles themselves.
    """

    role: str
    """Platform-neutral role: screen, container, heading, text, button, icon_button, link, text_field,
    secure_field, multiline_field, switch, list, row, tab_bar, tab, progress, dialog, snackbar,
    nav_bar, image, keyboard."""
    android_class: str
    """e.g. android.widget.Button, android.widget.EditText, android.widget.FrameLayout."""
    ios_type: str
    """e.g. XCUIElementTypeButton, XCUIElementTypeTextField, XCUIElementTypeOther."""
    frame: Frame
    id: str = ""
    """Spec id (e.g. `sign_in`); Android resource-id is `<package>:id/<id>`, iOS identifier is `<id>`."""
    text: str = ""
    """Visible text. For fields, the typed value (Android shows password fields as `•` per char)."""
    label: str = ""
    """Content description (Android) / accessibility label (iOS) when it differs from `text`."""
    hint: str = ""
    """Placeholder / hint of a text field."""
    enabled: bool = True
    focused: bool = False
    focusable: bool = False
    checkable: bool = False
    checked: bool = False
    selected: bool = False
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    password: bool = False
    visible: bool = True
    """False for nodes that exist but are scrolled off-screen (u2 `visible-to-user="false"`)."""
    opacity: float = 1.0
    """0 for a transparent element (never drawn; iOS also reports it invisible and lets touches through)."""
    children: list[SimNode] = field(default_factory=list)

    def walk(self) -> list[SimNode]:
        """This node and all its descendants, depth-first, pre-order."""
        out: list[SimNode] = [self]
        for child in self.children:
            out.extend(child.walk())
        return out


class SimClock(Protocol):
    def now(self) -> float:
        """Seconds, monotonic."""
        ...


class RealClock:
    def now(self) -> float:
        return time.monotonic()


@dataclass
class ManualClock:
    """A clock tests advance by hand."""

    t: float = 0.0

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class SteppedClock(ManualClock):
    """A manual clock that the device's own waits move forward: an idle wait or a wait for an
    element advances it by the time it polls instead of sleeping, and bounds those waits in its time.

    Time-dependent tests then take no wall time and read exact durations: a 700 ms animation is
    waited out in 0.70 s of device time, whatever the machine's load. Share it with a
    `DeviceSession(clock=clock.now, sleep=clock.advance)` and the session's settle bounds run on
    the same time.
    """


def device_time(device: object) -> float:
    """The time a device-side wait is bounded in: the device's own with a `SteppedClock`."""
    clock = getattr(device, "clock", None)
    return clock.now() if isinstance(clock, SteppedClock) else time.monotonic()


def device_pause(device: object, seconds: float) -> None:
    """One pause of a device-side wait: a `SteppedClock` moves on, any other clock is slept on."""
    clock = getattr(device, "clock", None)
    if isinstance(clock, SteppedClock):
        clock.advance(seconds)
    else:
        time.sleep(seconds)


@dataclass(frozen=True)
class AppInfo:
    app_id: str
    """Android package / iOS bundle id."""
    name: str
    """Display name (iOS application label)."""
    activity: str = ".MainActivity"
    """Android launcher activity, as `am start -n <app_id>/<activity>` wants it."""
    pid: int = 0


@dataclass(frozen=True)
class Alert:
    """A modal dialog, as WebDriverAgent's alert routes see it."""

    text: str
    buttons: tuple[str, ...]


class SimDevice(Protocol):
    """What a protocol server may ask of a simulated device. All coordinates are points."""

    platform: Platform
    serial: str
    """adb serial (Android) / UDID (iOS)."""
    model: str
    """e.g. `Pixel 7` / `iPhone 15`."""
    @property
    def screen_width(self) -> int:
        """Points."""
        ...

    @property
    def screen_height(self) -> int:
        """Points."""
        ...

    scale: float
    """Pixels per point: 3.0 on both demo devices (Android 360x800 dp = 1080x2400 px, xxhdpi;
    iOS 390x844 pt = 1170x2532 px)."""

    @property
    def font_scale(self) -> float:
        """The system font size: 1.0, or 1.3 under the `large-font` profile."""
        ...

    @property
    def dark(self) -> bool:
        """The system's dark theme (the `dark` profile)."""
        ...

    @property
    def tablet(self) -> bool:
        """A tablet (Android, smallest width 600 dp or more) or an iPad."""
        ...

    @property
    def status_bar(self) -> float:
        """The status bar's height in points (iOS: the top safe area; 20 on a home-button iPhone)."""
        ...

    # --- observation ---------------------------------------------------------------------------
    def tree(self) -> SimNode:
        """The current UI of the foreground app (or the launcher) as one root node."""
        ...

    def animating(self) -> bool:
        """Whether the UI is still moving after the last action (what a device's idle signal waits out)."""
        ...

    def screenshot_png(self) -> bytes:
        """A PNG of the current screen at pixel size (points * scale)."""
        ...

    def current_app(self) -> AppInfo | None:
        """The foreground app, or None when the launcher / home screen is showing."""
        ...

    def installed_apps(self) -> list[AppInfo]: ...

    def start_activity(self, app_id: str, activity: str) -> bool:
        """Android `am start -n app_id/activity`: opens the screen that is that activity (on top of the
        app's screens when it runs). False when the app has no such activity."""
        ...

    def app_state(self, app_id: str) -> int:
        """XCUIApplicationState: 1 not running, 2 background suspended, 4 running foreground."""
        ...

    def keyboard_shown(self) -> bool: ...

    @property
    def orientation(self) -> str:
        """`portrait` or `landscape` (`screen_width` / `screen_height` follow it)."""
        ...

    def rotate(self, orientation: str) -> bool:
        """Turns the device; False (and no change) when the app spec does not allow that orientation."""
        ...

    def alert(self) -> Alert | None:
        """The dialog on screen, if any."""
        ...

    # --- actions -------------------------------------------------------------------------------
    def tap(self, x: float, y: float) -> None: ...

    def long_press(self, x: float, y: float, duration: float = 0.5) -> None: ...

    def double_tap(self, x: float, y: float) -> None: ...

    def pinch(self, x: float, y: float, scale: float) -> None:
        """Two fingers around (x, y) spreading (scale > 1) or closing (scale < 1)."""
        ...

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.2) -> None:
        """A finger moving from (x1, y1) to (x2, y2); scrolls lists under the start point."""
        ...

    def type_text(self, text: str) -> None:
        """Types into the focused field (no-op when nothing is focused)."""
        ...

    def clear_text(self) -> None:
        """Clears the focused field."""
        ...

    def set_text(self, node: SimNode, text: str) -> None:
        """Focuses `node` (a field from the latest `tree()`) and replaces its text."""
        ...

    def press_key(self, key: Key) -> None: ...

    def hide_keyboard(self) -> None: ...

    def alert_press(self, button: str) -> None:
        """Presses a button of the current dialog by its label."""
        ...

    def launch(self, app_id: str, *, stop_first: bool = False) -> None: ...

    def terminate(self, app_id: str) -> None: ...

    def clear_app_data(self, app_id: str) -> None: ...

    def go_home(self) -> None: ...

    clipboard: str


def wait_until_still(device: SimDevice, timeout_s: float) -> bool:
    """Device-side idle wait (uiautomator's `waitForIdle`, WDA's quiescence): returns once the UI has
    stopped animating, or False at the bound. The sleeps are the device's, not the client's."""
    deadline = device_time(device) + max(0.0, timeout_s)
    while device.animating():
        if device_time(device) >= deadline:
            return False
        device_pause(device, 0.01)
    return True


def deep_link_app(device: SimDevice, url: str) -> str | None:
    """The installed app a URL opens: the one whose id is the URL's scheme (`dev.trailblaze.demo://inbox`),
    the custom-scheme deep links both platforms route to the app that declares them."""
    scheme, sep, _ = url.partition("://")
    if not sep:
        return None
    for app in device.installed_apps():
        if app.app_id.lower() == scheme.lower():
            return app.app_id
    return None
