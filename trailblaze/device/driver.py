"""The device seam: one `Driver` Protocol that every platform adapter implements.

Drivers are plugins: a distribution registers a `DriverPlugin` under the `trailblaze.drivers`
entry-point group (`android` → `trailblaze_android`, `ios` → `trailblaze_ios`). The core never imports
uiautomator2 or wda; a driver never leaks their objects (it returns our types) and translates their
exceptions into `trailblaze.errors` at its boundary.

Coordinates: a driver works in its platform's native space, the same space as the bounds of the
`Hierarchy` it returns — device pixels on Android, points on iOS. `DeviceInfo.scale` converts points to
screenshot pixels (1.0 on Android).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from trailblaze.errors import DeviceError

if TYPE_CHECKING:
    from types import TracebackType

    from trailblaze.device.query import ElementQuery
    from trailblaze.screen.hierarchy import Hierarchy

__all__ = [
    "DeviceInfo",
    "DeviceListing",
    "Driver",
    "DriverPlugin",
    "Key",
    "LaunchMode",
    "SupportsAddMedia",
    "SupportsAppList",
    "SupportsClipboard",
    "SupportsConcurrentRequests",
    "SupportsElementWait",
    "SupportsIdle",
    "SupportsOpenUrl",
    "SupportsRemoteSession",
    "AppLog",
    "ShellOutput",
    "SupportsAppLogs",
    "SupportsInstall",
    "SupportsShell",
    "SupportsShellStatus",
    "SupportsTrace",
    "before_acting",
]

Platform = Literal["android", "ios", "web"]
Key = Literal["BACK", "HOME", "ENTER", "BACKSPACE", "TAB"]
LaunchMode = Literal["FORCE_RESTART", "RESUME", "CLEAR_STATE"]


@dataclass(frozen=True)
class DeviceInfo:
    platform: Platform
    classifier: str
    """Most specific device classifier, e.g. `android-phone`, `ios-iphone`; recordings are stored
    under the platform (`android` / `ios`) and looked up closest-first."""
    serial: str
    """adb serial / WDA URL / simulator name."""
    model: str
    width: int
    """Screen width in the driver's coordinate space (pixels on Android, points on iOS)."""
    height: int
    scale: float
    """Screenshot pixels per coordinate unit (1.0 on Android, usually 2 or 3 on iOS)."""


@dataclass(frozen=True)
class DeviceListing:
    """One line of `trailblaze devices`."""

    spec: str
    """What to pass to `--device`, e.g. `android:emulator-5554`."""
    platform: Platform
    state: str
    description: str


@runtime_checkable
class Driver(Protocol):
    """A connected device. Every method may raise `trailblaze.errors.DeviceError`."""

    @property
    def info(self) -> DeviceInfo: ...

    def hierarchy(self) -> Hierarchy:
        """A fresh dump of the current UI, parsed into our node model."""
        ...

    def screenshot(self) -> bytes:
        """The current screen as the device sends it: PNG or JPEG bytes (pixels), not re-encoded."""
        ...

    def tap(self, x: float, y: float) -> None: ...

    def long_press(self, x: float, y: float, duration: float = 0.8) -> None: ...

    def double_tap(self, x: float, y: float) -> None: ...

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.3) -> None:
        """Moves a finger from (x1, y1) to (x2, y2)."""
        ...

    def input_text(self, text: str) -> None:
        """Types into the focused field."""
        ...

    def erase_text(self, characters: int | None = None) -> None:
        """Deletes `characters` characters before the cursor of the focused field, or all of it."""
        ...

    def hide_keyboard(self) -> None: ...

    def press_key(self, key: Key) -> None: ...

    def launch_app(self, app_id: str, mode: LaunchMode = "FORCE_RESTART") -> None: ...

    def stop_app(self, app_id: str) -> None: ...

    def clear_app(self, app_id: str) -> None: ...

    def current_app(self) -> str | None:
        """Package / bundle id of the foreground app, None on the home screen."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Driver: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


@contextmanager
def before_acting() -> Iterator[None]:
    """Marks a device fault in what a driver does before an action's own request — a read, setting
    the clipboard it pastes from — as `not_sent`: the action never went out, so the session may send
    it again (`trailblaze.device.hiccups`)."""
    try:
        yield
    except DeviceError as exc:
        exc.wire = "not_sent"
        raise


@runtime_checkable
class SupportsClipboard(Protocol):
    def get_clipboard(self) -> str: ...

    def set_clipboard(self, text: str) -> None: ...


@runtime_checkable
class SupportsOpenUrl(Protocol):
    def open_url(self, url: str) -> bool:
        """Opens a URL / deep link; False when no app on the device handles it."""
        ...


@runtime_checkable
class SupportsAppList(Protocol):
    def list_apps(self) -> list[str]:
        """Ids of the installed apps (packages / bundle ids)."""
        ...


@runtime_checkable
class SupportsIdle(Protocol):
    def wait_for_idle(self, timeout: float) -> bool | None:
        """Waits for the device's own idle signal (uiautomator's `waitForIdle`, WDA's quiescence, a
        browser page's quiet network and DOM).

        Returns:
            True once idle, False at the bound, None when this device offers no idle signal (the
            session then compares consecutive dumps instead).
        """
        ...


@runtime_checkable
class SupportsCallsFromAnyThread(Protocol):
    def calls_from_any_thread(self) -> bool:
        """Whether the driver may be called from a thread other than the one that opened it.

        False for a browser page driven through Playwright's sync API, which refuses a call from
        another thread: the run directory then takes its screenshots on the run's own thread. A
        driver without this method is taken to allow it (the HTTP clients of uiautomator2 and
        WebDriverAgent do).
        """
        ...


@runtime_checkable
class SupportsConcurrentRequests(Protocol):
    def serves_concurrently(self) -> bool:
        """Whether the device serves a second request while one is running, each in its own time.

        True for uiautomator2's server (NanoHTTPD: a thread per connection; the client opens a
        connection per request), so a screenshot can be taken while a hierarchy dump runs. A driver
        without this method is taken to queue requests (WebDriverAgent routes every request on its
        main queue): the session then never puts two requests in flight.
        """
        ...


@runtime_checkable
class SupportsElementWait(Protocol):
    def wait_for(self, query: ElementQuery, timeout: float, *, gone: bool = False) -> bool:
        """Waits on the device until something matches `query` (or, with `gone`, nothing does).

        Returns:
            Whether that happened within `timeout` seconds.
        """
        ...


@runtime_checkable
class SupportsShell(Protocol):
    def shell(self, command: str) -> str: ...


@dataclass(frozen=True)
class ShellOutput:
    """What a device shell command answered."""

    exit_code: int
    output: str
    """stdout and stderr as the device wrote them."""


@runtime_checkable
class SupportsShellStatus(Protocol):
    """A device shell that reports the exit code (the app-state probes read app files through
    `run-as`, which fails in ways only the exit code tells apart)."""

    def shell_status(self, command: str) -> ShellOutput:
        """Runs one shell command line (the caller quotes its words for the device's sh)."""
        ...


@runtime_checkable
class SupportsAddMedia(Protocol):
    """A device whose gallery a picture or video can be added to (Maestro's `addMedia`)."""

    def add_media(self, path: str, name: str) -> str:
        """Copies the file at `path` into the device's shared pictures or movies as `name` and has
        the media scanner index it; returns where it went on the device (`/sdcard/Pictures/a.png`)."""
        ...


@runtime_checkable
class SupportsTrace(Protocol):
    """A driver that records its own trace of a trail (the web driver: Playwright's `trace.zip`)."""

    def start_trace(self) -> None: ...

    def stop_trace(self, path: str | None) -> None:
        """Ends the trail's trace, writing it to `path` (None: discard it)."""
        ...


@runtime_checkable
class SupportsRemoteSession(Protocol):
    """A device reached through a remote session that a trail can own (Appium: a local server, a
    Selenium Grid, a device farm). The engine tells it where each top-level trail starts and ends, so
    a farm's session is named after the trail, marked passed or failed, and linked from the report."""

    def begin_trail(self, name: str) -> None:
        """A trail called `name` starts: name the session after it (a new session when the driver
        opens one per trail, or when the previous one died)."""
        ...

    def end_trail(self, passed: bool, reason: str | None) -> str | None:
        """The trail ended: mark the session passed or failed on the farm (`reason`: the failure).

        Returns:
            The farm's page for this session (video, logs), or None when it gives none.
        """
        ...


@dataclass(frozen=True)
class AppLog:
    """An app's log lines read from the device, and where the device's log stood after them."""

    lines: list[str]
    """The app's lines, oldest first, in the platform's own format (`logcat -v threadtime`)."""
    mark: str | None
    """Pass to the next `app_log` to read only what came after (None: the log was empty)."""


@runtime_checkable
class SupportsAppLogs(Protocol):
    """The device keeps an app log a test can read (Android logcat; WebDriverAgent has none)."""

    def log_mark(self) -> str | None:
        """Where the device log stands now (None: it is empty); one cheap read."""
        ...

    def app_log(self, app_id: str, since: str | None) -> AppLog:
        """The lines `app_id`'s processes wrote after `since` (a `log_mark` or a previous `mark`;
        None: all the device still holds), in one read of the device log."""
        ...


@runtime_checkable
class SupportsInstall(Protocol):
    """The driver installs apps from a file on the host (`--install`; Android APKs)."""

    def install_app(self, path: str, *, reinstall: bool = False) -> str:
        """Installs (or updates, keeping its data) the app in `path`; `reinstall` removes it first, so
        it starts with no data. Returns the app's id. Raises UsageError for a file that is not an
        app, DeviceError when the device refuses it."""
        ...


class DriverPlugin(Protocol):
    """What a `trailblaze.drivers` entry point resolves to."""

    platform: Platform

    def open(self, target: str | None, options: Mapping[str, str]) -> Driver:
        """Connects to a device: `target` is the part after `android:` / `ios:` (serial, WDA URL),
        `options` carries connection settings such as `adb_port`."""
        ...

    def list_devices(self, options: Mapping[str, str]) -> list[DeviceListing]: ...
