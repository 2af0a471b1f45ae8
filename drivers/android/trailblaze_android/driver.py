"""The uiautomator2 adapter: `AndroidDriver` (one device) and `AndroidPlugin` (open / list).

Connection: an explicit `adbutils.AdbClient(host, port)` (options `adb_host` / `adb_port`, else the
`ANDROID_ADB_SERVER_HOST` / `ANDROID_ADB_SERVER_PORT` environment, else 127.0.0.1:5037) hands the
device to `uiautomator2.connect`, so no global client state is involved and two sessions can talk to
two adb servers. Coordinates are device pixels, the space of the hierarchy bounds.

Text input uses `Device.send_keys(text, clear=False)`: on a phone without u2's AdbKeyboard IME it
pastes through the clipboard into the focused view (the path that works on every device and on the
simulator, and that appends like a person typing), and with the IME installed it broadcasts the text.
`d(focused=True).set_text()` would replace the field's content instead of typing into it, which is
not what `inputText` means.
"""

from __future__ import annotations

import base64
import io
import os
import shlex
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.device.apk import manifest_package, read_manifest
from trailblaze.device.driver import (
    AppLog,
    DeviceInfo,
    DeviceListing,
    Key,
    LaunchMode,
    ShellOutput,
    before_acting,
)
from trailblaze.device.media import media_destination, media_scan_command
from trailblaze.device.query import ElementQuery, u2_selector
from trailblaze.errors import AppNotInstalledError, DeviceError, UsageError
from trailblaze.screen.hierarchy import DumpCache, Hierarchy
from trailblaze_android._errors import translating
from trailblaze_android.adb_server import stop_if_started
from trailblaze_android.logcat import AppLogReader

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["AndroidDriver", "AndroidPlugin"]

_KEYS: dict[str, str | int] = {"BACK": "back", "HOME": "home", "ENTER": "enter", "BACKSPACE": "delete", "TAB": 61}
_LAUNCHERS = ("launcher", "nexuslauncher", "trebuchet", "com.android.systemui")


def _monkey_launch(app_id: str) -> list[str]:
    return ["monkey", "-p", app_id, "-c", "android.intent.category.LAUNCHER", "1"]


def _address(options: Mapping[str, str]) -> tuple[str, int]:
    host = options.get("adb_host") or os.environ.get("ANDROID_ADB_SERVER_HOST") or "127.0.0.1"
    raw = options.get("adb_port") or os.environ.get("ANDROID_ADB_SERVER_PORT") or "5037"
    try:
        return host, int(raw)
    except ValueError:
        raise UsageError(f"adb port {raw!r} is not a number: set ANDROID_ADB_SERVER_PORT to a port") from None


class AndroidDriver:
    """A device driven through uiautomator2. Every method raises `DeviceError` on failure."""

    def __init__(self, device: Any, serial: str, host: str, port: int) -> None:
        self._d = device
        self._serial = serial
        self._host = host
        self._port = port
        self._info: DeviceInfo | None = None
        self._dumps = DumpCache()  # an unchanged screen is not parsed twice
        self._idle_rpc = True  # until the server answers "method not found"
        self._logs = AppLogReader(self.shell_status)

    def __repr__(self) -> str:
        return f"<AndroidDriver {self._serial} via {self._host}:{self._port}>"

    def _guard(self, what: str) -> Any:
        return translating(what, self._serial, self._host, self._port)

    # --- observation -----------------------------------------------------------------------------
    @property
    def info(self) -> DeviceInfo:
        if self._info is None:
            with self._guard("reading device info"):
                raw = self._d.info
            width, height = int(raw.get("displayWidth", 0)), int(raw.get("displayHeight", 0))
            dp = min(int(raw.get("displaySizeDpX", 0) or 0), int(raw.get("displaySizeDpY", 0) or 0))
            self._info = DeviceInfo(
                platform="android",
                classifier="android-tablet" if dp >= 600 else "android-phone",
                serial=self._serial,
                model=str(raw.get("productName") or "android"),
                width=width,
                height=height,
                scale=1.0,
            )
        return self._info

    def hierarchy(self) -> Hierarchy:
        with self._guard("dumping the view hierarchy"):
            xml = self._d.dump_hierarchy()
        hierarchy = self._dumps.parse(xml, "android")
        if not hierarchy.nodes:  # u2 retries an empty dump, then hands back `<hierarchy rotation="0" />`
            raise DeviceError(
                f"dumping the view hierarchy failed on android device {self._serial}: the dump was empty "
                "after retries; the UI may be frozen: restart the app or the device",
                wire="error_answer",
            )
        return hierarchy

    def screenshot(self) -> bytes:
        # The server's JPEG as it comes: `Device.screenshot()` would decode it into a PIL image, and
        # re-encoding that costs ~80 ms of client CPU per picture for no better pixels.
        with self._guard("taking a screenshot"):
            data = self._d.jsonrpc.takeScreenshot(1, 80)
            if data:
                return base64.b64decode(data)
            image = self._d.screenshot()  # no picture from the server: u2 falls back to adb screencap
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue()

    def serves_concurrently(self) -> bool:
        """uiautomator2 opens a connection per request and the on-device server (NanoHTTPD) serves
        each on its own thread: a screenshot runs alongside a dump."""
        return True

    def wait_for_idle(self, timeout: float) -> bool | None:
        """uiautomator's `waitForIdle`: returns once the accessibility event stream has been quiet."""
        if not self._idle_rpc:
            return None
        import uiautomator2.exceptions as u2e

        try:
            with self._guard("waiting for the UI to be idle"):
                return bool(self._d.jsonrpc.waitForIdle(max(1, int(timeout * 1000))))
        except DeviceError as exc:
            if isinstance(exc.__cause__, u2e.RPCError) and "method not found" in str(exc.__cause__).lower():
                self._idle_rpc = False
                return None
            raise

    def wait_for(self, query: ElementQuery, timeout: float, *, gone: bool = False) -> bool:
        """`d(**UiSelector).wait()`: `waitForExists` / `waitUntilGone` on the device, one round trip."""
        with self._guard("waiting for an element" + (" to go" if gone else "")):
            return bool(self._d(**u2_selector(query)).wait(exists=not gone, timeout=max(0.0, timeout)))

    def current_app(self) -> str | None:
        with self._guard("reading the foreground app"):
            current = self._d.app_current()
        package = str(current.get("package") or "")
        if not package or any(hint in package for hint in _LAUNCHERS):
            return None
        return package

    # --- gestures ----------------------------------------------------------------------------------
    def tap(self, x: float, y: float) -> None:
        with self._guard(f"tapping at ({x:g}, {y:g})"):
            self._d.click(int(round(x)), int(round(y)))

    def long_press(self, x: float, y: float, duration: float = 0.8) -> None:
        with self._guard(f"long-pressing at ({x:g}, {y:g})"):
            self._d.long_click(int(round(x)), int(round(y)), duration)

    def double_tap(self, x: float, y: float) -> None:
        with self._guard(f"double-tapping at ({x:g}, {y:g})"):
            self._d.double_click(int(round(x)), int(round(y)))

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.3) -> None:
        with self._guard(f"swiping from ({x1:g}, {y1:g}) to ({x2:g}, {y2:g})"):
            self._d.swipe(int(round(x1)), int(round(y1)), int(round(x2)), int(round(y2)), duration=duration)

    # --- keyboard ----------------------------------------------------------------------------------
    def input_text(self, text: str) -> None:
        with before_acting(), self._guard("typing text"):
            ime = self._d.is_input_ime_installed()
        if ime:
            with self._guard("typing text"):
                self._d.send_keys(text, clear=False)  # through u2's AdbKeyboard, as on a phone (ADR 0043)
            return
        # Not `send_keys` here: when its clipboard paste fails in any way, an answer lost after the
        # text was pasted too, uiautomator2 installs its AdbKeyboard and types the text a second time.
        with before_acting(), self._guard("typing text (setting the clipboard to paste from)"):
            self._d.clipboard = text
            pasted = self._d.clipboard == text
        with self._guard("typing text"):
            if pasted:
                self._d.jsonrpc.pasteClipboard()
                return
            self._d.set_input_ime(True)  # the clipboard refused it, nothing was pasted: type through the keyboard
            self._d.send_keys(text, clear=False)

    def erase_text(self, characters: int | None = None) -> None:
        with self._guard("erasing text"):
            if characters is None:
                self._d.clear_text()
                return
            for _ in range(characters):
                self._d.press("delete")

    def hide_keyboard(self) -> None:
        # u2 has no reliable "is the IME up" call; the dump shows the IME window.
        with before_acting():
            shown = self.hierarchy().keyboard_shown
        if shown:
            self.press_key("BACK")

    def press_key(self, key: Key) -> None:
        code = _KEYS.get(key)
        if code is None:
            raise UsageError(f"unknown key {key!r}: use one of {', '.join(_KEYS)}")
        with self._guard(f"pressing {key}"):
            self._d.press(code)

    # --- apps ----------------------------------------------------------------------------------------
    def launch_app(self, app_id: str, mode: LaunchMode = "FORCE_RESTART") -> None:
        what = f"launching {app_id} ({mode})"
        with self._guard(what):
            if mode == "CLEAR_STATE":
                self._d.app_clear(app_id)
            if mode == "FORCE_RESTART":
                self._d.app_stop(app_id)
            # What `app_start` runs without an activity, but read: it drops monkey's answer, so a
            # package that is not installed "launched" fine and the next step failed on the launcher.
            out = str(self._d.shell(_monkey_launch(app_id)).output)
        if "No activities found" not in out and "monkey aborted" not in out:
            return
        with self._guard(f"listing the installed apps after {what}"):
            installed = [str(a) for a in self._d.app_list()]
        if app_id not in installed:
            raise AppNotInstalledError(app_id, installed, where=f"android device {self._serial}")
        raise DeviceError(
            f"{what} failed on android device {self._serial}: it has no launcher activity "
            f"(monkey: {out.strip().splitlines()[-1]!r}); launch one of its activities with `am start -n`"
        )

    def stop_app(self, app_id: str) -> None:
        with self._guard(f"stopping {app_id}"):
            self._d.app_stop(app_id)

    def clear_app(self, app_id: str) -> None:
        with self._guard(f"clearing the data of {app_id}"):
            self._d.app_clear(app_id)

    # --- extras (SupportsClipboard, SupportsOpenUrl, SupportsAppList, SupportsShell[Status]) --------------------
    def get_clipboard(self) -> str:
        with self._guard("reading the clipboard"):
            return str(self._d.clipboard or "")

    def set_clipboard(self, text: str) -> None:
        with self._guard("setting the clipboard"):
            self._d.set_clipboard(text)

    def open_url(self, url: str) -> bool:
        # uiautomator2's `open_url` runs `am start -a VIEW -d URL` and drops the answer; run the same
        # command and read it, so a URL no app handles is a failed step rather than a silent no-op.
        with self._guard(f"opening {url}"):
            out = self._d.shell(["am", "start", "-a", "android.intent.action.VIEW", "-d", url]).output
        return "Error" not in str(out)

    def list_apps(self) -> list[str]:
        with self._guard("listing the installed apps"):
            return [str(a) for a in self._d.app_list()]

    def shell(self, command: str) -> str:
        with self._guard(f"running `{command}`"):
            return str(self._d.shell(command).output)

    def shell_status(self, command: str) -> ShellOutput:
        with self._guard(f"running `{command}`"):
            answer = self._d.shell(command)
        return ShellOutput(int(answer.exit_code), str(answer.output))

    def install_app(self, path: str, *, reinstall: bool = False) -> str:
        try:
            package = manifest_package(read_manifest(Path(path).read_bytes()))
        except (zipfile.BadZipFile, KeyError, OSError) as exc:
            raise UsageError(f"--install {path}: not an APK with an AndroidManifest.xml ({exc})") from None
        if not package:
            raise UsageError(f"--install {path}: its AndroidManifest.xml names no package")
        remote = f"/data/local/tmp/trailblaze-{package}.apk"
        with self._guard(f"copying {path} to the device"):
            self._d.adb_device.sync.push(path, remote)
        if reinstall:
            self.shell_status(f"pm uninstall {shlex.quote(package)}")  # fails harmlessly when it is not installed
        answer = self.shell_status(f"pm install -r -t {remote}")
        self.shell_status(f"rm -f {remote}")
        if answer.exit_code != 0 or "Success" not in answer.output:
            said = answer.output.strip().splitlines()[-1] if answer.output.strip() else f"exit code {answer.exit_code}"
            raise DeviceError(f"installing {path} on android device {self._serial} failed: {said}")
        return package

    def add_media(self, path: str, name: str) -> str:
        remote = media_destination(name)
        with self._guard(f"copying {name} to the device"):
            self._d.adb_device.sync.push(path, remote)  # adbd creates the folder when it is missing
        self.shell_status(media_scan_command(remote))
        return remote

    def log_mark(self) -> str | None:
        return self._logs.mark()

    def app_log(self, app_id: str, since: str | None) -> AppLog:
        return self._logs.read(app_id, since)

    # --- lifecycle ---------------------------------------------------------------------------------
    def close(self) -> None:
        # Only stops a u2 server process this client launched; one that was already running stays up
        # so the next invocation (e.g. the next `trailblaze tool`) connects instantly.
        with self._guard("disconnecting"):
            self._d.stop_uiautomator(wait=False)

    def __enter__(self) -> AndroidDriver:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AndroidPlugin:
    """The `android` entry of the `trailblaze.drivers` group."""

    platform = "android"

    def open(self, target: str | None, options: Mapping[str, str]) -> AndroidDriver:
        """Connects to `target` (an adb serial; the only device when None) through uiautomator2."""
        host, port = _address(options)
        with stop_if_started(host, port):  # no phone: the adb server adbutils started goes again
            with translating("connecting", "", host, port):
                import adbutils
                import uiautomator2

                client = adbutils.AdbClient(host=host, port=port)
                online = [d.serial for d in client.device_list() if d.serial]
            serial = target or _only_device(online, host, port)
            if serial not in online:
                listed = ", ".join(online) or "none"
                raise DeviceError(
                    f"no android device {serial!r} on adb server {host}:{port} (connected: {listed}); "
                    f"check `adb -P {port} devices`"
                )
            with translating("starting uiautomator2", serial, host, port):
                device = uiautomator2.connect(client.device(serial))
        return AndroidDriver(device, serial, host, port)

    def list_devices(self, options: Mapping[str, str]) -> list[DeviceListing]:
        """Every device the adb server knows, with its state."""
        host, port = _address(options)
        with stop_if_started(host, port, always=True), translating("listing devices", "", host, port):
            import adbutils

            client = adbutils.AdbClient(host=host, port=port)
            rows = client.list(extended=True)
        out: list[DeviceListing] = []
        for row in rows:
            tags = getattr(row, "tags", None) or {}
            model = tags.get("model", "") if isinstance(tags, dict) else ""
            out.append(
                DeviceListing(
                    spec=f"android:{row.serial}",
                    platform="android",
                    state=str(row.state),
                    description=f"{model or 'android device'} on adb {host}:{port}",
                )
            )
        return out


def _only_device(online: list[str], host: str, port: int) -> str:
    if not online:
        raise DeviceError(
            f"no android device on adb server {host}:{port}: connect a phone or start an emulator, "
            "or use the simulated phone: --device sim:android"
        )
    if len(online) > 1:
        raise UsageError(f"{len(online)} android devices connected ({', '.join(online)}): pass --device android:SERIAL")
    return online[0]

