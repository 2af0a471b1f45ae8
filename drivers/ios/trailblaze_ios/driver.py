"""The facebook-wda adapter: `IosDriver` (one device) and `IosPlugin` (open / list).

Coordinates are points, the space of WebDriverAgent's source and gestures; `DeviceInfo.scale`
converts them to screenshot pixels. The hierarchy comes from `/source?format=json`: it parses as fast
as the XML form with our parser (both ~90 µs on the demo login screen) and, unlike the XML, carries
`isFocused`, which `eraseText` and `focused` selectors need.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from trailblaze.device.driver import DeviceInfo, DeviceListing, Key, LaunchMode, before_acting
from trailblaze.device.query import ElementQuery, wda_predicate
from trailblaze.errors import AppNotInstalledError, DeviceError, UsageError
from trailblaze.screen.hierarchy import DumpCache, Hierarchy, Node
from trailblaze_ios._errors import translating

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["IosDriver", "IosPlugin"]

_DEFAULT_URL = "http://127.0.0.1:8100"
_CLEAR_ENV = "TRAILBLAZE_CLEAR_STATE"
_TYPED_KEYS = {"ENTER": "\n", "BACKSPACE": "\b", "TAB": "\t"}


class IosDriver:
    """A device driven through WebDriverAgent. Every method raises `DeviceError` on failure."""

    def __init__(self, session: Any, url: str) -> None:
        self._s = session
        self._url = url
        self._info: DeviceInfo | None = None
        self._dumps = DumpCache()  # an unchanged screen is not parsed twice
        self._quiescent: bool | None = None  # WDA waits for quiescence inside every action

    def __repr__(self) -> str:
        return f"<IosDriver {self._url}>"

    def _guard(self, what: str) -> Any:
        return translating(what, self._url)

    # --- observation -----------------------------------------------------------------------------
    @property
    def info(self) -> DeviceInfo:
        if self._info is None:
            with self._guard("reading device info"):
                size = self._s.window_size()
                scale = float(self._s.scale)
                raw = self._s.device_info()
            raw = raw if isinstance(raw, dict) else {}
            ipad = raw.get("userInterfaceIdiom") == 1 or "ipad" in str(raw.get("model", "")).lower()
            self._info = DeviceInfo(
                platform="ios",
                classifier="ios-ipad" if ipad else "ios-iphone",
                serial=self._url,
                model=str(raw.get("name") or raw.get("model") or "iOS device"),
                width=int(size.width),
                height=int(size.height),
                scale=scale,
            )
        return self._info

    def hierarchy(self) -> Hierarchy:
        info = self.info
        with self._guard("reading the view hierarchy (/source)"):
            tree = self._s.source(format="json")
        text = json.dumps(tree) if isinstance(tree, dict | list) else str(tree)
        hierarchy = self._dumps.parse(text, "ios", scale=info.scale)
        if len(hierarchy.nodes) <= 1:  # an application element without a window: nothing to act on
            raise DeviceError(
                f"reading the view hierarchy (/source) failed on {self._url}: the source was empty; "
                "the app may be frozen or not running: relaunch it",
                wire="error_answer",
            )
        return hierarchy

    def screenshot(self) -> bytes:
        with self._guard("taking a screenshot"):
            data = self._s.screenshot(format="raw")
        return bytes(data)

    def wait_for_idle(self, timeout: float) -> bool | None:
        """WDA already waited for the app to be quiescent before it answered the last action, up to its
        `waitForIdleTimeout` setting, which this sets to `timeout` (the session's settle bound) on first
        use. None when `/appium/settings` has the wait turned off: the session then compares dumps."""
        if self._quiescent is None:
            self._quiescent = self._reads_quiescence(timeout)
        return True if self._quiescent else None

    def _reads_quiescence(self, timeout: float) -> bool:
        try:
            with self._guard("reading the WDA settings"):
                raw = self._s._session_http.get("/appium/settings").value
                settings = raw if isinstance(raw, dict) else {}
                bound = settings.get("waitForIdleTimeout", 10)
                off = any(settings.get(k, True) is False for k in ("shouldWaitForQuiescence", "waitForQuiescence"))
                if off or not isinstance(bound, int | float):
                    return False
                if bound <= 0:
                    return False
                if bound != timeout:
                    self._s._session_http.post("/appium/settings", {"settings": {"waitForIdleTimeout": timeout}})
        except DeviceError:
            return False  # an old WDA without settings: do not trust an idle signal we cannot see
        return True

    def wait_for(self, query: ElementQuery, timeout: float, *, gone: bool = False) -> bool:
        """Polls `/elements` with a predicate string (WDA has no server-side wait), backing off from
        25 ms; each poll is one cheap round trip."""
        body = {"using": "predicate string", "value": wda_predicate(query)}
        deadline = time.monotonic() + max(0.0, timeout)
        delay = 0.025
        while True:
            with self._guard("finding elements"):
                found = bool(self._s._session_http.post("/elements", body).value)
            if found != gone:
                return True
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(delay, left))
            delay = min(delay * 1.5, 0.25)

    def current_app(self) -> str | None:
        with self._guard("reading the foreground app"):
            current = self._s.app_current()
        bundle = str(current.get("bundleId") or "") if isinstance(current, dict) else ""
        return None if not bundle or bundle == "com.apple.springboard" else bundle

    # --- gestures ----------------------------------------------------------------------------------
    def tap(self, x: float, y: float) -> None:
        import wda.exceptions as we

        point = {"x": _i(x), "y": _i(y)}
        with self._guard(f"tapping at ({x:g}, {y:g})"):
            # Not `Session.tap`: on any failure of `/wda/tap` — a lost answer too — it sends the tap
            # again on the legacy route, so a tap that landed lands twice. The legacy route (WDA
            # before 6.0) is used here only when the device says the new one does not exist.
            try:
                self._s._session_http.post("/wda/tap", point)
            except we.WDARequestError as exc:
                if not _unknown_route(exc):
                    raise
                self._s._session_http.post("/wda/tap/0", point)

    def long_press(self, x: float, y: float, duration: float = 0.8) -> None:
        with self._guard(f"long-pressing at ({x:g}, {y:g})"):
            self._s.tap_hold(_i(x), _i(y), duration)

    def double_tap(self, x: float, y: float) -> None:
        with self._guard(f"double-tapping at ({x:g}, {y:g})"):
            self._s.double_tap(_i(x), _i(y))

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.3) -> None:
        with self._guard(f"swiping from ({x1:g}, {y1:g}) to ({x2:g}, {y2:g})"):
            self._s.swipe(_i(x1), _i(y1), _i(x2), _i(y2), duration)

    # --- keyboard ----------------------------------------------------------------------------------
    def input_text(self, text: str) -> None:
        with self._guard("typing text"):
            self._s.send_keys(text)

    def erase_text(self, characters: int | None = None) -> None:
        if characters is None:
            with before_acting():
                field = _focused_field(self.hierarchy())
            if field is None:
                return
            characters = len(field.text) if field.text != field.hint else 0
        if characters <= 0:
            return
        with self._guard("erasing text"):
            self._s.send_keys("\b" * characters)

    def hide_keyboard(self) -> None:
        import wda.exceptions as we

        try:
            with self._guard("hiding the keyboard"):
                # `Session.keyboard_dismiss()` is disabled in facebook-wda 1.5.4 (raises RuntimeError);
                # the WDA route itself works, so call it through the session's own HTTP helper.
                self._s._session_http.post("/wda/keyboard/dismiss", {})
        except Exception as exc:  # not present is fine: the goal state already holds
            cause = exc.__cause__
            if isinstance(cause, we.WDARequestError) and "not present" in str(cause):
                return
            raise

    def press_key(self, key: Key) -> None:
        if key == "HOME":
            with self._guard("pressing HOME"):
                self._s.home()
        elif key == "BACK":
            self._back()
        elif key in _TYPED_KEYS:
            with self._guard(f"pressing {key}"):
                # Straight to the route: the client's send_keys retries for 3 s when no keyboard shows.
                self._s._session_http.post("/wda/keys", {"value": [_TYPED_KEYS[key]]})
        else:
            raise UsageError(f"unknown key {key!r}: use BACK, HOME, ENTER, BACKSPACE or TAB")

    def _back(self) -> None:
        # iOS has no back key: the navigation bar's back button, else the interactive pop gesture.
        with before_acting():
            hierarchy = self.hierarchy()
        button = _back_button(hierarchy)
        if button is not None:
            self.tap(*button.center)
            return
        y = hierarchy.height / 2
        self.swipe(1, y, hierarchy.width * 0.7, y, 0.25)

    # --- apps ----------------------------------------------------------------------------------------
    def launch_app(self, app_id: str, mode: LaunchMode = "FORCE_RESTART") -> None:
        try:
            with self._guard(f"launching {app_id} ({mode})"):
                if mode != "RESUME":
                    self._s.app_terminate(app_id)
                # WebDriverAgent cannot wipe an app's data (that takes a reinstall through devicectl /
                # simctl). CLEAR_STATE asks the app to reset itself through a launch environment
                # variable, the convention apps under test (and the bundled simulator) honour.
                env = {_CLEAR_ENV: "1"} if mode == "CLEAR_STATE" else {}
                # facebook-wda launches with `shouldWaitForQuiescence: false`, which turns WDA's wait
                # after every action off for the app; `wait_for_idle` relies on that wait.
                self._s.app_launch(app_id, environment=env, wait_for_quiescence=True)
        except DeviceError as exc:
            if not _missing_app(exc.__cause__):
                raise
            # WDA cannot list installed apps; the running ones are the only ids it knows.
            with self._guard(f"listing the running apps after launching {app_id}"):
                running = [str(a.get("bundleId")) for a in self._s.app_list() or [] if isinstance(a, dict)]
            raise AppNotInstalledError(
                app_id, running, where=f"the iOS device at {self._url}", known_what="running"
            ) from exc

    def stop_app(self, app_id: str) -> None:
        with self._guard(f"stopping {app_id}"):
            self._s.app_terminate(app_id)

    def clear_app(self, app_id: str) -> None:
        with self._guard(f"clearing the data of {app_id}"):
            self._s.app_terminate(app_id)
            self._s.app_launch(app_id, environment={_CLEAR_ENV: "1"})
            self._s.app_terminate(app_id)

    # --- extras (SupportsClipboard, SupportsOpenUrl) ------------------------------------------------
    def get_clipboard(self) -> str:
        # facebook-wda's `get_clipboard` first brings WDA's own app forward through Siri and sleeps
        # 3 s; the endpoint itself (`/wda/getPasteboard`) answers in place, so call it directly.
        with self._guard("reading the clipboard"):
            raw = self._s._session_http.post("/wda/getPasteboard").value
        return base64.b64decode(raw or "").decode("utf-8", errors="replace")

    def set_clipboard(self, text: str) -> None:
        with self._guard("setting the clipboard"):
            self._s.set_clipboard(text)

    def open_url(self, url: str) -> bool:
        try:
            with self._guard(f"opening {url}"):
                self._s.open_url(url)
        except DeviceError as exc:
            text = str(exc).lower()
            if "failed to open" in text or "not a valid url" in text:  # WDA: no app handles it / malformed
                return False
            raise
        return True

    def app_state(self, app_id: str) -> int:
        """1 not running, 2 background suspended, 3 background, 4 foreground."""
        with self._guard(f"reading the state of {app_id}"):
            value = self._s.app_state(app_id)
        return int(value.get("value", 0) if isinstance(value, dict) else value)

    # --- lifecycle ---------------------------------------------------------------------------------
    def close(self) -> None:
        # The WDA session stays: WDA keeps one session per device and the next client reuses it.
        return None

    def __enter__(self) -> IosDriver:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


_MISSING_APP = ("unknown to FrontBoard", "is not installed", "Make sure the correct bundle identifier")


def _unknown_route(exc: BaseException) -> bool:
    """WebDriverAgent's answer to a route it does not have (`unknown command`, 404)."""
    value = getattr(exc, "value", None)
    return isinstance(value, dict) and value.get("error") == "unknown command"


def _missing_app(cause: BaseException | None) -> bool:
    """WebDriverAgent's answer when XCTest cannot find the bundle (launch, or a session with bundleId)."""
    if cause is None:
        return False
    value = getattr(cause, "value", None)
    text = str(value.get("message") if isinstance(value, dict) else "") + " " + str(cause)
    return any(marker in text for marker in _MISSING_APP)


def _i(value: float) -> int:
    # facebook-wda reads a float coordinate as a fraction of the window: always send integer points.
    return int(round(value))


def _focused_field(hierarchy: Hierarchy) -> Node | None:
    for node in hierarchy.nodes:
        if node.focused and node.editable:
            return node
    return None


def _back_button(hierarchy: Hierarchy) -> Node | None:
    for node in hierarchy.visible_nodes():
        if node.short_class != "NavigationBar":
            continue
        buttons = [c for c in node.walk() if c.short_class == "Button" and c.on_screen]
        if not buttons:
            continue
        left = min(buttons, key=lambda b: b.visible_bounds.left)
        if left.visible_bounds.left < hierarchy.width / 3:
            return left
    return None


class IosPlugin:
    """The `ios` entry of the `trailblaze.drivers` group."""

    platform = "ios"

    def open(self, target: str | None, options: Mapping[str, str]) -> IosDriver:
        """Connects to WebDriverAgent at `target` (default `http://127.0.0.1:8100`) and opens a session."""
        url = (target or options.get("wda_url") or _DEFAULT_URL).rstrip("/")
        if "://" not in url:
            url = "http://" + url
        with translating("connecting", url):
            import wda

            client = wda.Client(url)
            client.status()
            session = client.session()
        driver = IosDriver(session, url)
        driver.info  # noqa: B018 - fail now, not on first use, if the device cannot describe itself
        return driver

    def list_devices(self, options: Mapping[str, str]) -> list[DeviceListing]:
        """The WebDriverAgent at `options['wda_url']` if it answers (WDA cannot enumerate devices)."""
        url = options.get("wda_url")
        if not url:
            return []
        with translating("probing", url):
            import wda

            status = wda.Client(url).status()
        name = str(status.get("device") or "ios device") if isinstance(status, dict) else "ios device"
        return [DeviceListing(spec=f"ios:{url}", platform="ios", state="ready", description=name)]
