"""The Appium adapter: `AppiumDriver` (one device behind an Appium session) and `AppiumPlugin`.

Every action is one Appium command, and an observation is one page source, so a checked replay
costs one page source and one action per tool (`benchmarks/appium_replay.py` counts them):

- taps, long presses, double taps and swipes are one W3C `POST /actions` each (a touch pointer at
  the coordinates the hierarchy gave), so occlusion and no-op checks work as with the local drivers;
- typing is `POST /keys` into the focused field (UiAutomator2 appends to the field's text; XCUITest
  types through WebDriverAgent's keyboard), erasing N characters one W3C key action of N Backspaces;
- the hierarchy is the page source, parsed by `platformName`: UiAutomator2's XML (tags named by
  class) or XCUITest's (WebDriverAgent's source), into the same unified hierarchy as the local
  drivers, so a trail recorded on a local phone replays through Appium unchanged;
- settle relies on the server's own idle wait (both drivers wait for the UI to be idle before a page
  source, up to their `waitForIdleTimeout` setting, which this sets to the session's settle bound),
  plus the session's hierarchy-stability check;
- app lifecycle is `mobile: activateApp / terminateApp / clearApp / installApp`; logs are Appium's
  log types (`logcat`, `syslog`); shell is `mobile: shell`, which a server refuses unless started
  with the insecure feature (a device farm always refuses): those tools answer UNSUPPORTED.

Coordinates are the page source's: device pixels on Android, points on iOS (`DeviceInfo.scale`
converts points to screenshot pixels).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from trailblaze.device.driver import AppLog, DeviceInfo, DeviceListing, Key, LaunchMode, ShellOutput
from trailblaze.device.media import media_destination
from trailblaze.errors import (
    AppNotInstalledError,
    BadAnswer,
    DeviceError,
    DeviceUnsupported,
    SessionLost,
    UsageError,
)
from trailblaze.screen.hierarchy import DumpCache, Hierarchy
from trailblaze_appium.connection import Connection
from trailblaze_appium.session import AppiumSession, SessionMode
from trailblaze_appium.spec import SESSION_MODES

if TYPE_CHECKING:

    from appium.webdriver.webdriver import WebDriver

__all__ = ["SESSION_ENV", "AppiumDriver", "AppiumPlugin"]

SESSION_ENV = "TRAILBLAZE_APPIUM_SESSION"
_ANDROID_KEYS = {"BACK": 4, "HOME": 3, "ENTER": 66, "BACKSPACE": 67, "TAB": 61}
_IOS_TYPED = {"ENTER": "\n", "BACKSPACE": "\b", "TAB": "\t"}
_LAUNCHERS = ("launcher", "nexuslauncher", "trebuchet", "com.android.systemui")
_BACKSPACE = "\ue003"
_EXIT_MARK = "__trailblaze_exit:"
_MAX_DEPTH = 200
_THREADTIME = re.compile(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\s+(?P<pid>\d+)\s+\d+\s+[VDIWEFA]\s")


class AppiumDriver(AppiumSession):
    """A device driven through an Appium session. Every method raises `DeviceError` on failure
    (`SessionLost` when the session ended, `DeviceUnsupported` for what the server refuses)."""

    def __init__(self, connection: Connection, platform: Literal["android", "ios"], mode: SessionMode) -> None:
        self._info: DeviceInfo | None = None
        self._dumps = DumpCache()
        self._log: list[str] = []
        self._log_base = 0  # entries of `_log` dropped from the front (marks count from the start)
        self._pids: dict[str, set[int]] = {}
        super().__init__(connection, platform, mode)

    # --- observation -----------------------------------------------------------------------------
    @property
    def info(self) -> DeviceInfo:
        if self._info is None:
            d = self._session()
            with self._guard("reading the window size"):
                rect = d.get_window_rect()
                caps = dict(d.capabilities or {})
            width, height = int(rect.get("width", 0)), int(rect.get("height", 0))
            name = str(caps.get("deviceName") or caps.get("appium:deviceName") or caps.get("deviceModel") or "")
            if self._platform == "android":
                density = _number(caps.get("deviceScreenDensity")) or 160.0
                dp = min(width, height) / (density / 160.0)
                classifier, scale = ("android-tablet" if dp >= 600 else "android-phone"), 1.0
            else:
                scale = _number(caps.get("pixelRatio")) or self._screenshot_scale(width)
                ipad = "ipad" in name.lower()
                classifier = "ios-ipad" if ipad else "ios-iphone"
            self._info = DeviceInfo(
                platform=self._platform,
                classifier=classifier,
                serial=f"{self._conn.display} ({self._conn.source})",
                model=name or self._platform,
                width=width,
                height=height,
                scale=scale,
            )
        return self._info

    def _screenshot_scale(self, width: int) -> float:
        import io

        from PIL import Image

        with Image.open(io.BytesIO(self.screenshot())) as image:
            return round(image.width / width, 2) if width else 1.0

    def hierarchy(self) -> Hierarchy:
        info = self.info
        with self._guard("reading the page source"):
            source = self._session().page_source
        try:
            hierarchy = self._dumps.parse(source, self._platform, scale=info.scale)
            too_deep = any(node.depth > _MAX_DEPTH for node in hierarchy.nodes)
        except RecursionError:
            too_deep = True
        if too_deep:
            # a real screen is tens of levels deep, and the compact view and selectors walk it
            # recursively: hundreds of levels is a broken server, not a screen (nor a hiccup)
            raise BadAnswer(
                f"reading the page source failed on {self._conn.display}: it is nested more than "
                f"{_MAX_DEPTH} levels deep, which no screen is; check the Appium server and its driver"
            )
        if len(hierarchy.nodes) <= 1:
            raise DeviceError(
                f"reading the page source failed on {self._conn.display}: it was empty; the app may be "
                "frozen or not running: relaunch it"
            )
        return hierarchy

    def screenshot(self) -> bytes:
        with self._guard("taking a screenshot"):
            return base64.b64decode(self._session().get_screenshot_as_base64())

    def wait_for_idle(self, timeout: float) -> bool | None:
        """The server waits for the UI to be idle before it answers a page source (UiAutomator's
        `waitForIdle`, WebDriverAgent's quiescence), up to its `waitForIdleTimeout` setting; this sets
        that bound to `timeout` on first use. None when the setting is off: the session then compares
        consecutive page sources."""
        if self._idle is None:
            self._idle = self._set_idle_bound(timeout)
        return True if self._idle else None

    def _set_idle_bound(self, timeout: float) -> bool:
        d = self._session()
        try:
            with self._guard("reading the Appium settings"):
                settings = d.get_settings()
                bound = settings.get("waitForIdleTimeout")
                if not isinstance(bound, int | float) or bound <= 0:
                    return False
                # UiAutomator2 counts milliseconds, XCUITest seconds
                wanted: float = int(timeout * 1000) if self._platform == "android" else timeout
                if bound != wanted:
                    d.update_settings({"waitForIdleTimeout": wanted})
        except SessionLost:
            raise
        except (DeviceError, DeviceUnsupported):
            return False  # a server without settings: do not trust an idle signal we cannot see
        return True

    def serves_concurrently(self) -> bool:
        """An Appium session runs one command at a time (and a farm bills it so)."""
        return False

    def current_app(self) -> str | None:
        d = self._session()
        with self._guard("reading the foreground app"):
            if self._platform == "android":
                package = str(d.current_package or "")
                return None if not package or any(h in package for h in _LAUNCHERS) else package
            active = d.execute_script("mobile: activeAppInfo")
        bundle = str(active.get("bundleId") or "") if isinstance(active, dict) else ""
        return None if not bundle or bundle == "com.apple.springboard" else bundle

    # --- gestures ----------------------------------------------------------------------------------
    def _pointer(self, what: str, steps: list[dict[str, Any]]) -> None:
        body = {"actions": [{"type": "pointer", "id": "finger1", "parameters": {"pointerType": "touch"}, "actions": steps}]}
        with self._guard(what):
            self._session().execute("actions", body)

    def tap(self, x: float, y: float) -> None:
        self._pointer(f"tapping at ({x:g}, {y:g})", [*_press(x, y), {"type": "pointerUp", "button": 0}])

    def long_press(self, x: float, y: float, duration: float = 0.8) -> None:
        steps = [*_press(x, y), {"type": "pause", "duration": int(duration * 1000)}, {"type": "pointerUp", "button": 0}]
        self._pointer(f"long-pressing at ({x:g}, {y:g})", steps)

    def double_tap(self, x: float, y: float) -> None:
        up = {"type": "pointerUp", "button": 0}
        steps = [*_press(x, y), up, {"type": "pause", "duration": 60}, {"type": "pointerDown", "button": 0}, up]
        self._pointer(f"double-tapping at ({x:g}, {y:g})", steps)

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.3) -> None:
        steps = [
            *_press(x1, y1),
            {"type": "pointerMove", "duration": int(duration * 1000), "origin": "viewport", "x": _i(x2), "y": _i(y2)},
            {"type": "pointerUp", "button": 0},
        ]
        self._pointer(f"swiping from ({x1:g}, {y1:g}) to ({x2:g}, {y2:g})", steps)

    # --- keyboard ----------------------------------------------------------------------------------
    def input_text(self, text: str) -> None:
        with self._guard("typing text"):
            self._session().execute("tbKeys", {"value": list(text)})

    def erase_text(self, characters: int | None = None) -> None:
        if characters is None:
            field = next((n for n in self.hierarchy().nodes if n.focused and n.editable), None)
            if field is None:
                return
            characters = len(field.text) if field.text and field.text != field.hint else 0
        if characters <= 0:
            return
        keys: list[dict[str, Any]] = []
        for _ in range(characters):
            keys += [{"type": "keyDown", "value": _BACKSPACE}, {"type": "keyUp", "value": _BACKSPACE}]
        with self._guard("erasing text"):
            self._session().execute("actions", {"actions": [{"type": "key", "id": "keyboard", "actions": keys}]})

    def keyboard_shown(self) -> bool:
        """Whether the on-screen keyboard is up. Asked of the server (`mobile: isKeyboardShown`): the
        UiAutomator2 page source holds only the app's window, not the keyboard's."""
        with self._guard("checking the keyboard"):
            return bool(self._session().execute_script("mobile: isKeyboardShown", {}))

    def hide_keyboard(self) -> None:
        if not self.keyboard_shown():
            return
        with self._guard("hiding the keyboard"):
            self._session().execute_script("mobile: hideKeyboard", {})

    def press_key(self, key: Key) -> None:
        d = self._session()
        if key == "BACK":
            with self._guard("pressing BACK"):
                d.back()
        elif self._platform == "android":
            code = _ANDROID_KEYS.get(key)
            if code is None:
                raise UsageError(f"unknown key {key!r}: use one of {', '.join(_ANDROID_KEYS)}")
            with self._guard(f"pressing {key}"):
                d.press_keycode(code)
        elif key == "HOME":
            with self._guard("pressing HOME"):
                d.execute_script("mobile: pressButton", {"name": "home"})
        elif key in _IOS_TYPED:
            with self._guard(f"pressing {key}"):
                d.execute("tbKeys", {"value": [_IOS_TYPED[key]]})
        else:
            raise UsageError(f"unknown key {key!r}: use BACK, HOME, ENTER, BACKSPACE or TAB")

    # --- apps ----------------------------------------------------------------------------------------
    def _app_args(self, app_id: str) -> dict[str, Any]:
        return {"appId": app_id} if self._platform == "android" else {"bundleId": app_id}

    def launch_app(self, app_id: str, mode: LaunchMode = "FORCE_RESTART") -> None:
        d = self._session()
        what = f"launching {app_id} ({mode})"
        try:
            with self._guard(what):
                if mode == "CLEAR_STATE":
                    self._clear(d, app_id)
                elif mode == "FORCE_RESTART":
                    d.execute_script("mobile: terminateApp", self._app_args(app_id))
                d.execute_script("mobile: activateApp", self._app_args(app_id))
        except SessionLost:
            raise
        except DeviceError as exc:
            # Asked only when the launch failed: a launch that works costs no extra command on a farm
            if not self._installed(app_id):
                raise AppNotInstalledError(app_id, self._known_apps(), where=self._conn.display) from exc
            raise

    def _clear(self, d: WebDriver, app_id: str) -> None:
        if self._platform == "android":
            d.execute_script("mobile: clearApp", {"appId": app_id})
            return
        try:
            d.execute_script("mobile: clearApp", {"bundleId": app_id})  # XCUITest: simulators only
        except Exception:
            # A real iPhone cannot wipe an app's data without a reinstall: ask the app to reset itself
            # through the launch environment, as the local iOS driver does.
            d.execute_script("mobile: terminateApp", {"bundleId": app_id})
            d.execute_script(
                "mobile: launchApp", {"bundleId": app_id, "environment": {"TRAILBLAZE_CLEAR_STATE": "1"}}
            )

    def _installed(self, app_id: str) -> bool:
        with self._guard(f"checking that {app_id} is installed"):
            return bool(self._session().execute_script("mobile: isAppInstalled", self._app_args(app_id)))

    def _known_apps(self) -> list[str]:
        try:
            return self.list_apps()
        except DeviceError:
            return []

    def stop_app(self, app_id: str) -> None:
        with self._guard(f"stopping {app_id}"):
            self._session().execute_script("mobile: terminateApp", self._app_args(app_id))

    def clear_app(self, app_id: str) -> None:
        with self._guard(f"clearing the data of {app_id}"):
            self._clear(self._session(), app_id)
            self._session().execute_script("mobile: terminateApp", self._app_args(app_id))

    def list_apps(self) -> list[str]:
        with self._guard("listing the installed apps"):
            found = self._session().execute_script("mobile: listApps", {})
        if isinstance(found, dict):
            return sorted(str(k) for k in found)
        return sorted(str(a) for a in found or [])

    def install_app(self, path: str, *, reinstall: bool = False) -> str:
        """Installs an app file that the Appium server's machine can read (a local server: this one;
        a farm installs the `app` capability's upload instead)."""
        app_id = _app_id(path, self._platform)
        d = self._session()
        if reinstall:
            with self._guard(f"removing {app_id}"):
                d.execute_script("mobile: removeApp", self._app_args(app_id))
        key = "appPath" if self._platform == "android" else "app"
        with self._guard(f"installing {path}"):
            d.execute_script("mobile: installApp", {key: str(Path(path).resolve())})
        return app_id

    def add_media(self, path: str, name: str) -> str:
        """Appium's `pushFile` (Android): UiAutomator2 copies the file over adb and has it scanned
        into the MediaStore itself. An iOS device takes media through the simulator's tools only."""
        if self._platform != "android":
            raise DeviceUnsupported(f"addMedia: Appium adds media to Android devices only ({self._conn.display})")
        remote = media_destination(name)
        with self._guard(f"copying {name} to the device"):
            self._session().push_file(remote, source_path=path)
        return remote

    # --- extras --------------------------------------------------------------------------------------
    def get_clipboard(self) -> str:
        with self._guard("reading the clipboard"):
            return str(self._session().get_clipboard_text() or "")

    def set_clipboard(self, text: str) -> None:
        with self._guard("setting the clipboard"):
            self._session().set_clipboard_text(text)

    def open_url(self, url: str) -> bool:
        try:
            with self._guard(f"opening {url}"):
                self._session().get(url)
        except DeviceUnsupported:
            raise
        except DeviceError as exc:
            if isinstance(exc, SessionLost):
                raise
            return False
        return True

    def shell(self, command: str) -> str:
        return self.shell_status(command).output

    def shell_status(self, command: str) -> ShellOutput:
        """`mobile: shell` (Android): refused unless the server enables the insecure feature; the exit
        code comes back through a marker, since Appium turns a non-zero exit into an error."""
        if self._platform != "android":
            raise DeviceUnsupported(f"shell commands: an iOS device has no shell ({self._conn.display})")
        wrapped = f"{command}; echo {_EXIT_MARK}$?"
        with self._guard(f"running `{command}`"):
            answer = self._session().execute_script(
                "mobile: shell", {"command": "sh", "args": ["-c", wrapped], "includeStderr": True}
            )
        out = answer.get("stdout", "") + answer.get("stderr", "") if isinstance(answer, dict) else str(answer)
        body, _, code = str(out).rpartition(_EXIT_MARK)
        if not _:
            return ShellOutput(0, str(out))
        digits = code.strip().split()[0] if code.strip() else "0"
        return ShellOutput(int(digits) if digits.isdigit() else 1, body)

    # --- permissions (trailblaze.device.permissions.SupportsPermissions) --------------------------------
    def requested_permissions(self, app_id: str) -> list[str]:
        """`mobile: getPermissions` (UiAutomator2: what `dumpsys package` lists as requested)."""
        if self._platform != "android":
            raise DeviceUnsupported(f"launchApp permissions: an iOS device has none to set ({self._conn.display})")
        with self._guard(f"reading the permissions of {app_id}"):
            found = self._session().execute_script(
                "mobile: getPermissions", {"type": "requested", "appPackage": app_id}
            )
        return [str(p) for p in found or []]

    def change_permission(self, app_id: str, permission: str, grant: bool) -> str | None:
        """`mobile: changePermissions`: Appium runs `pm grant`/`revoke` itself, so no insecure shell."""
        if self._platform != "android":
            raise DeviceUnsupported(f"launchApp permissions: an iOS device has none to set ({self._conn.display})")
        try:
            with self._guard(f"changing {permission} of {app_id}"):
                self._session().execute_script(
                    "mobile: changePermissions",
                    {"permissions": permission, "appPackage": app_id, "action": "grant" if grant else "revoke"},
                )
        except SessionLost:
            raise
        except DeviceError as exc:
            return exc.message
        return None

    # --- logs (SupportsAppLogs) ------------------------------------------------------------------------
    def _read_log(self) -> None:
        kind = "logcat" if self._platform == "android" else "syslog"
        with self._guard(f"reading the {kind} log"):
            entries = self._session().get_log(kind)
        self._log += [str(e.get("message", "")) for e in entries or [] if isinstance(e, dict)]
        if len(self._log) > 20_000:  # a long run's log: keep the newest lines, not the memory
            drop = len(self._log) - 10_000
            self._log = self._log[drop:]
            self._log_base += drop

    def log_mark(self) -> str | None:
        self._read_log()
        end = self._log_base + len(self._log)
        return str(end) if end else None

    def app_log(self, app_id: str, since: str | None) -> AppLog:
        self._read_log()
        start = int(since) if since and since.isdigit() else 0
        lines = self._log[max(0, start - self._log_base) :]
        mark = str(self._log_base + len(self._log)) if self._log else since
        pids = self._pids.setdefault(app_id, set())
        started = re.compile(rf"Start proc (\d+):{re.escape(app_id)}[/:\s]")
        for line in lines:
            if (m := started.search(line)) is not None:
                pids.add(int(m[1]))
        mine = [line for line in lines if app_id in line or _pid(line) in pids]
        return AppLog(mine, mark)


def _press(x: float, y: float) -> list[dict[str, Any]]:
    return [
        {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": _i(x), "y": _i(y)},
        {"type": "pointerDown", "button": 0},
    ]


def _i(value: float) -> int:
    return int(round(value))


def _number(raw: Any) -> float | None:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


def _pid(line: str) -> int | None:
    m = _THREADTIME.match(line)
    return int(m["pid"]) if m else None


def _app_id(path: str, platform: str) -> str:
    import zipfile

    from trailblaze.device.apk import manifest_package, read_manifest

    if platform != "android":
        raise UsageError(
            f"--install {path}: installing an iOS app through Appium needs its bundle id; put the app in the "
            "`app` capability instead"
        )
    try:
        package = manifest_package(read_manifest(Path(path).read_bytes()))
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise UsageError(f"--install {path}: not an APK with an AndroidManifest.xml ({exc})") from None
    if not package:
        raise UsageError(f"--install {path}: its AndroidManifest.xml names no package")
    return package


class AppiumPlugin:
    """The `appium` entry of the `trailblaze.drivers` group."""

    platform = "appium"

    def open(self, target: str | None, options: Mapping[str, str]) -> AppiumDriver:
        """Opens an Appium session on `target` (a URL or a farm preset) with `options['capabilities']`
        (JSON; `trailblaze_appium.capabilities` normalised it)."""
        import os

        raw = options.get("capabilities")
        if not target or not raw:
            raise UsageError("an Appium device needs a server and capabilities: --device appium:URL --capabilities FILE")
        caps = json.loads(raw)
        platform: Literal["android", "ios"] = "ios" if str(caps.get("platformName", "")).lower() == "ios" else "android"
        connection = Connection.create(target, caps, options.get("capabilities_source", "capabilities"))
        mode = options.get("session") or os.environ.get(SESSION_ENV, "").strip()
        if not mode:
            mode = "per-trail" if connection.farm is not None else "shared"
        if mode not in SESSION_MODES:
            raise UsageError(f"{SESSION_ENV}={mode!r}: use per-trail or shared")
        return AppiumDriver(connection, platform, "per-trail" if mode == "per-trail" else "shared")

    def list_devices(self, options: Mapping[str, str]) -> list[DeviceListing]:
        """Appium servers and farms hand out devices per session: there is nothing to list."""
        return []
