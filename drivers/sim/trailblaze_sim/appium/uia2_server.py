"""The HTTP server of appium-uiautomator2-server 10.x (the `io.appium.uiautomator2.server` instrumentation)
on device port 6790, serving a simulated phone. appium-uiautomator2-driver 8.7.0 reaches it through
`adb forward tcp:8200..8299 tcp:6790` and proxies most W3C commands to it.

Protocol facts (the server's `AppiumServlet`, `ServerHandler` and `AppiumResponse`):

- Routes are matched section by section (`:name` matches any one section); a `/wd/hub` prefix is
  dropped; an unknown route is `404 unknown command`. Every answer is JSON
  `{"value": …, "sessionId": …}` with nulls kept; `sessionId` is `"None"` for the session-less
  commands (`/status`, `/sessions`).
- A command of a session checks the id in the path against the one session: a different or no
  session is `404 invalid session id` (`The session identified by X is not known`).
- Errors are W3C errors in `value` (`error`, `message`, `stacktrace`) with the server's status codes
  (see `uia2_errors`). A malformed body is `400 invalid argument`.
- `DELETE /session/:id` answers, then the instrumentation stops itself (15 ms later on a phone; here at
  once), which ends `am instrument -w` and the server.
- Before it reads the screen (source, find, click) the server waits for the UI to idle, up to the
  `waitForIdleTimeout` setting.

Gestures and keys go through the device's uiautomator2 JSON-RPC service (`U2Service`), the simulated
UiDevice that both on-device servers drive, so a tap on the navigation bar presses Back there too.

Injected faults (`trailblaze_sim.faults`) as this server produces them: a dropped connection serves
the command and closes without answering, a protocol error answers `500 unknown error` without
serving it, an empty dump is a `<hierarchy>` without windows, a stall answers late, and an offline
device closes the connection.
"""

from __future__ import annotations

import base64
import io
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trailblaze.errors import DeviceError
from trailblaze_sim.access import loopback_host
from trailblaze_sim.android.hierarchy import AxNode
from trailblaze_sim.android.u2 import FOREIGN_HOST_ANSWER, SocketReader, U2Service, read_http_request
from trailblaze_sim.appium.uia2_actions import ActionsError, Gesture, plan_actions
from trailblaze_sim.appium.uia2_device import device_routes
from trailblaze_sim.appium.uia2_errors import Uia2Error
from trailblaze_sim.appium.uia2_find import InvalidSelector, Locator, find
from trailblaze_sim.appium.uia2_gestures import gesture_routes
from trailblaze_sim.appium.uia2_screen import Screen
from trailblaze_sim.appium.uia2_session import ElementRef, Session, SessionError, Settings, parse_capabilities
from trailblaze_sim.appium.uia2_source import WindowNode, attribute, render_source
from trailblaze_sim.faults import Conditions, RequestKind
from trailblaze_sim.model import Key, SimDevice, wait_until_still

__all__ = ["SERVER_PORT", "Uia2Host", "Uia2Server"]

SERVER_PORT = 6790
TARGET_PACKAGE = "io.appium.uiautomator2.server"
_W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
_NO_ID = "None"
_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    500: "Internal Server Error",
}
_KEY_NAMES: dict[int, Key] = {
    3: "home", 4: "back", 66: "enter", 67: "delete", 61: "tab", 82: "menu", 187: "recent",
}  # fmt: skip

Handler = Callable[[dict[str, str], dict[str, Any]], Any]


@dataclass
class Uia2Host:
    """What the server reads from the phone it runs on."""

    version: Callable[[], tuple[str, int]]
    """(versionName, versionCode) of the installed server APK."""
    properties: Callable[[], dict[str, str]]
    """The phone's system properties (`getprop`)."""
    stop: Callable[[], None]
    """Ends the instrumentation (what the server does after `DELETE /session`)."""


@dataclass(frozen=True)
class _Route:
    method: str
    sections: tuple[str, ...]
    handler: Handler
    needs_session: bool = True
    envelope_id: str = "request"
    """The answer's `sessionId`: the request's (`request`), `None` (`none`) or the new one (`new`)."""
    then: Callable[[], None] | None = None
    """What the server does once the answer is out."""


class Uia2Server:
    """One device's UiAutomator2 server. `reset()` is a fresh process; `serve()` one HTTP connection."""

    def __init__(self, device: SimDevice, u2: U2Service, conditions: Conditions, host: Uia2Host) -> None:
        self.device = device
        self.u2 = u2
        self.conditions = conditions
        self.host = host
        self.settings = Settings()
        self.session: Session | None = None
        self._lock = threading.RLock()
        self._routes = self._table()
        self._request = threading.local()
        """What the request being served on this thread was dealt (`empty_dump`)."""

    def reset(self) -> None:
        """A new instrumentation process: no session, default settings."""
        with self._lock:
            self.session = None
            self.settings = Settings()

    # --- HTTP ---------------------------------------------------------------------------------

    def serve(self, reader: SocketReader) -> None:
        """Answer HTTP requests on one connection until the client closes it."""
        sock = reader.sock
        while True:
            request = read_http_request(reader)
            if request is None:
                return
            method, path, headers, body = request
            if not loopback_host(headers.get("host")):
                sock.sendall(FOREIGN_HOST_ANSWER)
                return
            fault = self.conditions.before_request(_kind(path))
            if fault == "offline":
                return
            if fault == "rpc_error":  # what an app crash mid-command looks like from the server
                error = Uia2Error.unknown("simulated fault: injected server error")
                status, payload, after = error.status, self._error_body(error, None), None
            else:
                self._request.empty_dump = fault == "empty_dump"
                status, payload, after = self.handle(method, path, body)
            if fault == "drop_connection":
                if after is not None:
                    after()
                return  # served, but the answer is lost: the client cannot tell whether it happened
            if fault == "stall":
                self.conditions.stall()
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            keep = headers.get("connection", "").lower() != "close"
            head = (
                f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}\r\n"
                "Content-Type: application/json; charset=utf-8\r\nContent-Encoding: identity\r\n"
                f"Content-Length: {len(data)}\r\nPragma: no-cache\r\nCache-Control: no-store\r\n"
                f"Connection: {'keep-alive' if keep else 'close'}\r\n\r\n"
            ).encode()
            sock.sendall(head + data)
            if after is not None:
                after()
            if not keep:
                return

    def handle(
        self, method: str, path: str, body: bytes
    ) -> tuple[int, dict[str, Any], Callable[[], None] | None]:
        """(HTTP status, JSON body, what to do once the answer is out) for one request."""
        sections = _sections(path)
        route, params = self._match(method.upper(), sections)
        session_id = params.get("sessionId")
        if route is None:
            return 404, self._error_body(Uia2Error.unknown_command(), session_id), None
        try:
            if route.needs_session:
                current = self.session
                if session_id is None or current is None or current.id != session_id:
                    raise Uia2Error.invalid_session(f"The session identified by {session_id} is not known")
            try:
                parsed = json.loads(body or b"{}") if body.strip() else {}
            except ValueError as exc:
                raise Uia2Error.invalid_argument(f"com.google.gson.JsonSyntaxException: {exc}") from exc
            if not isinstance(parsed, dict):
                raise Uia2Error.invalid_argument(f"Expected a JSON object, got {parsed!r}")
            with self._lock:
                value = route.handler(params, parsed)
        except Uia2Error as exc:
            return exc.status, self._error_body(exc, session_id), None
        except DeviceError as exc:
            return 400, self._error_body(Uia2Error.invalid_element_state(str(exc)), session_id), None
        except Exception as exc:  # the server answers any Throwable as `unknown error`
            error = Uia2Error.unknown(f"{type(exc).__name__}: {exc}")
            return error.status, self._error_body(error, session_id), None
        if route.envelope_id == "none":
            return 200, {"value": value, "sessionId": _NO_ID}, route.then
        if route.envelope_id == "new":
            session_id = self.session.id if self.session is not None else None
        return 200, {"value": value, "sessionId": session_id}, route.then

    @staticmethod
    def _error_body(error: Uia2Error, session_id: str | None) -> dict[str, Any]:
        return {
            "value": {"error": error.error, "message": error.message, "stacktrace": error.stacktrace},
            "sessionId": session_id,
        }

    def _match(self, method: str, sections: list[str]) -> tuple[_Route | None, dict[str, str]]:
        for route in self._routes:
            if route.method != method or len(route.sections) != len(sections):
                continue
            params: dict[str, str] = {}
            for want, got in zip(route.sections, sections, strict=True):
                if want.startswith(":"):
                    params[want[1:]] = urllib.parse.unquote(got)
                elif want != got:
                    break
            else:
                return route, params
        # the servlet still records the session id of an unmatched path for the error's envelope
        sid = sections[1] if len(sections) > 1 and sections[0] == "session" else None
        return None, {"sessionId": sid} if sid else {}

    def _table(self) -> list[_Route]:
        s = ":sessionId"
        e = f"session/{s}/element/:id"
        routes = [
            _Route("GET", ("status",), self._status, needs_session=False, envelope_id="none"),
            _Route("GET", ("sessions",), self._sessions, needs_session=False, envelope_id="none"),
            _Route("POST", ("session",), self._new_session, needs_session=False, envelope_id="new"),
            # the server stops its instrumentation once it has answered a session's deletion
            _Route("DELETE", ("session", s), self._delete_session, then=self.host.stop),
        ]
        spec: list[tuple[str, str, Handler]] = [
            ("GET", f"session/{s}", self._session_details),
            ("GET", f"session/{s}/source", self._source),
            ("GET", f"session/{s}/screenshot", self._screenshot),
            ("POST", f"session/{s}/element", lambda p, b: self._find(b, multiple=False)),
            ("POST", f"session/{s}/elements", lambda p, b: self._find(b, multiple=True)),
            ("GET", f"session/{s}/element/active", self._active),
            ("POST", f"{e}/click", self._click),
            ("POST", f"{e}/clear", self._clear),
            ("POST", f"{e}/value", self._send_keys),
            ("POST", f"session/{s}/keys", self._send_keys),
            ("GET", f"{e}/text", lambda p, b: self._element(p["id"]).text),
            ("GET", f"{e}/name", lambda p, b: self._element(p["id"]).content_desc or None),
            ("GET", f"{e}/attribute/:name", self._attribute),
            ("GET", f"{e}/rect", lambda p, b: _rect(self._element(p["id"]))),
            ("GET", f"{e}/size", lambda p, b: _size(self._element(p["id"]))),
            ("GET", f"{e}/location", lambda p, b: _location(self._element(p["id"]))),
            ("GET", f"{e}/screenshot", self._element_screenshot),
            ("GET", f"session/{s}/screenshot/:id", self._element_screenshot),
            ("POST", f"session/{s}/actions", self._actions),
            ("POST", f"session/{s}/back", self._back),
            ("POST", f"session/{s}/appium/device/press_keycode", self._keycode),
            ("POST", f"session/{s}/appium/device/long_press_keycode", self._keycode),
            ("GET", f"session/{s}/appium/settings", lambda p, b: self.settings.snapshot()),
            ("POST", f"session/{s}/appium/settings", self._update_settings),
            ("POST", f"session/{s}/appium/reset_ax_cache", lambda p, b: None),
        ]
        routes += [_Route(m, tuple(path.split("/")), h) for m, path, h in spec]
        routes += [
            _Route("POST", tuple(f"session/{s}/{path}".split("/")), h) for path, h in gesture_routes(self)
        ]
        routes += [
            _Route(m, tuple(f"session/{s}/{path}".split("/")), h)
            for m, path, h in device_routes(self, self.host.properties)
        ]
        return routes

    # --- the screen ---------------------------------------------------------------------------

    def screen(self) -> Screen:
        return Screen.of(self.device, self.u2.windows(), self.u2.rotation)

    def wait_for_idle(self) -> None:
        timeout_ms = int(self.settings["waitForIdleTimeout"])
        if timeout_ms > 0:
            wait_until_still(self.device, timeout_ms / 1000)

    def _session(self) -> Session:
        if self.session is None:
            raise Uia2Error.invalid_session("A session is either terminated or not started")
        return self.session

    def _element(self, element_id: str) -> AxNode:
        return self.element_in(self.screen(), element_id)

    def element_in(self, screen: Screen, element_id: str) -> AxNode:
        """The node a cached element id points at on `screen`. Raises no such element / stale."""
        ref = self._session().recall(element_id)
        if ref is None:
            raise Uia2Error.no_such_element(
                f"The element identified by '{element_id}' is not present in the cache or has expired. "
                "Try to find it again"
            )
        node = screen.find_key(ref.key)
        if node is not None:
            return node
        if not ref.single:
            raise Uia2Error.stale(f"Cached elements '{_by(ref.locator)}' do not exist in DOM anymore")
        raise Uia2Error.stale(f"The element '{_by(ref.locator)}' does not exist in DOM anymore")

    def element_center(self, element_id: str) -> tuple[float, float]:
        return self._element(element_id).center

    def rpc(self, method: str, *params: Any) -> Any:
        """One call of the device's UiDevice (the uiautomator2 JSON-RPC service)."""
        answer = self.u2.handle_rpc({"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
        if "error" in answer:
            err = answer["error"]
            raise Uia2Error.invalid_element_state(f"{err.get('message')}: {err.get('data')}")
        return answer.get("result")

    # --- session ------------------------------------------------------------------------------

    def _status(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        name, code = self.host.version()
        return {
            "ready": True,
            "message": "UiAutomator2 Server is ready to accept commands",
            "build": {"version": name, "versionCode": code},
        }

    def _sessions(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        current = self.session
        if current is None:
            return []
        return [{"id": current.id, "sessionId": current.id, "capabilities": current.capabilities}]

    def _new_session(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        raw = body.get("capabilities")
        try:
            caps = parse_capabilities(raw)
        except SessionError as exc:
            raise Uia2Error.session_not_created(
                f"io.appium.uiautomator2.common.exceptions.InvalidArgumentException: {exc}"
            ) from exc
        self.settings.reset_for_new_session()
        own: dict[str, Any] = {}
        for name, value in caps.items():
            setting = self.settings.known(name)
            if setting is None:
                own[name] = value
                continue
            try:
                self.settings.update(setting, value)
            except SessionError:
                pass  # AbstractSetting.update logs a bad value and keeps the old one
        self.session = Session(own)
        return {"sessionId": self.session.id, "capabilities": raw}

    def _session_details(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        return {"lastScrollData": None}

    def _delete_session(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        self.session = None
        return None

    def _update_settings(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        settings = body.get("settings")
        if not isinstance(settings, dict):
            raise Uia2Error.invalid_argument("'settings' must be a JSON object")
        for name, value in settings.items():
            if name in self.settings.snapshot():
                try:
                    self.settings.update(name, value)
                except SessionError as exc:
                    raise Uia2Error.invalid_argument(str(exc)) from exc
        return None

    # --- source and screenshots -----------------------------------------------------------------

    def _source(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        self.wait_for_idle()
        screen = self.screen()
        if getattr(self._request, "empty_dump", False):
            return render_source([], screen.display)
        toasts = [t.text for t in self.u2.system.visible_toasts(self._now())]
        return render_source(
            screen.roots(all_windows=bool(self.settings["enableMultiWindows"])),
            screen.display,
            toasts=toasts if self.settings["enableNotificationListener"] else (),
            max_depth=int(self.settings["snapshotMaxDepth"]),
        )

    def _now(self) -> float:
        clock = getattr(self.device, "clock", None)
        return float(clock.now()) if clock is not None else time.monotonic()

    def _screenshot(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        return base64.b64encode(self.device.screenshot_png()).decode("ascii")

    def _element_screenshot(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        from PIL import Image

        left, top, right, bottom = self._element(params["id"]).bounds
        with Image.open(io.BytesIO(self.device.screenshot_png())) as img:
            crop = img.crop((left, top, right, bottom))
            buf = io.BytesIO()
            crop.save(buf, format="PNG")
        return base64.b64encode(buf.getvalue()).decode("ascii")

    # --- finding --------------------------------------------------------------------------------

    def _find(self, body: dict[str, Any], *, multiple: bool) -> Any:
        strategy, selector = body.get("strategy"), body.get("selector")
        if not isinstance(strategy, str) or not isinstance(selector, str):
            raise Uia2Error.invalid_argument("'strategy' and 'selector' are mandatory")
        context = body.get("context") or None
        locator = Locator(strategy, selector)
        self.wait_for_idle()
        screen = self.screen()
        try:
            nodes, screen = self._search(locator, screen, context)
        except InvalidSelector as exc:
            raise Uia2Error.invalid_selector(str(exc)) from exc
        session = self._session()
        if not multiple:
            if not nodes:
                raise Uia2Error.no_such_element()
            return self._model(screen, nodes[0], locator, context, single=True, session=session)
        return [self._model(screen, n, locator, context, single=False, session=session) for n in nodes]

    def _search(self, locator: Locator, screen: Screen, context: str | None) -> tuple[list[AxNode], Screen]:
        """The nodes `locator` finds, and the snapshot they belong to (a newer one after a
        `UiScrollable` scrolled)."""
        multi = bool(self.settings["enableMultiWindows"])
        if context is not None:
            scope = [screen.window_node(self.element_in(screen, context))]
        else:
            scope = screen.roots(all_windows=multi)
        latest = [screen]

        def again() -> list[WindowNode]:
            latest[0] = self.screen()
            return latest[0].roots(all_windows=multi)

        autocomplete = not self.settings["disableIdLocatorAutocompletion"]
        nodes = find(
            locator,
            scope,
            package=(self._session().app_package or TARGET_PACKAGE) if autocomplete else None,
            display=screen.display,
            scroll=self._scroll_step,
            search=again,
        )
        return nodes, latest[0]

    def _scroll_step(self, node: AxNode, direction: str, horizontal: bool) -> bool:
        """One UiScrollable step inside `node`'s bounds (a swipe over 60% of it, 55 steps, as
        UiScrollable does); True when the content moved."""
        before = _signature(self.screen())
        left, top, right, bottom = node.bounds
        cx, cy = (left + right) / 2, (top + bottom) / 2
        if horizontal:
            far, near = left + (right - left) * 0.8, left + (right - left) * 0.2
            start, end = (far, near) if direction == "forward" else (near, far)
            self.rpc("swipe", start, cy, end, cy, 55)
        else:
            far, near = top + (bottom - top) * 0.8, top + (bottom - top) * 0.2
            start, end = (far, near) if direction == "forward" else (near, far)
            self.rpc("swipe", cx, start, cx, end, 55)
        return _signature(self.screen()) != before

    def _model(
        self,
        screen: Screen,
        node: AxNode,
        locator: Locator,
        context: str | None,
        *,
        single: bool,
        session: Session,
    ) -> dict[str, Any]:
        element_id, key = screen.identity(node)
        session.remember(element_id, ElementRef(key, locator, context, single))
        model: dict[str, Any] = {"ELEMENT": element_id, _W3C_ELEMENT: element_id}
        if self.settings["shouldUseCompactResponses"]:
            return model
        for name in str(self.settings["elementResponseAttributes"]).split(","):
            if name == "name":
                model[name] = node.content_desc or None
            elif name == "text":
                model[name] = node.text
            elif name == "rect":
                model[name] = _rect(node)
            elif name in ("enabled", "displayed", "selected"):
                model[name] = attribute(node, name)
            elif name.startswith("attribute/"):
                try:
                    model[name] = attribute(node, name.removeprefix("attribute/"))
                except KeyError:
                    pass
        return model

    def _active(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        screen = self.screen()
        focused = [n for r in screen.roots() for n in r.node.walk() if n.focused]
        if not focused:
            raise Uia2Error.no_such_element()
        return self._model(
            screen,
            focused[0],
            Locator("-android uiautomator", "new UiSelector().focused(true)"),
            None,
            single=True,
            session=self._session(),
        )

    # --- elements -------------------------------------------------------------------------------

    def _attribute(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        node = self._element(params["id"])
        try:
            return attribute(node, params["name"])
        except KeyError as exc:
            raise Uia2Error.unknown_command(
                f"'{params['name']}' attribute is unknown for the element. Only the following attributes "
                "are supported: [checkable, checked, {class,className}, clickable, {content-desc,contentDescription}, "
                "enabled, focusable, focused, {long-clickable,longClickable}, package, password, "
                "{resource-id,resourceId}, scrollable, selection-start, selection-end, selected, {text,name}, hint, "
                "extras, bounds, displayed, contentSize]"
            ) from exc

    def _click(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        node = self._element(params["id"])
        self.u2.tap_px(*node.center)
        self.wait_for_idle()
        return None

    def _clear(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        node = self._element(params["id"])
        if node.sim is not None and node.editable:
            self.device.set_text(node.sim, "")
        return None

    def _send_keys(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        text = body.get("text")
        if not isinstance(text, str):
            raise Uia2Error.invalid_argument("'text' is mandatory")
        screen = self.screen()
        if "id" in params:
            node = self.element_in(screen, params["id"])
        else:
            focused = [n for r in screen.roots() for n in r.node.walk() if n.focused]
            if not focused:
                raise Uia2Error.no_such_element()
            node = focused[0]
        press_enter = text.endswith("\\n")
        if press_enter:
            text = text[:-2]
        if not body.get("replace"):
            # appends to the text the node reports (a password field's is masked, as on a phone);
            # an empty field reports its hint, which the server finds still there after clearing
            showing_hint = node.editable and node.sim is not None and not node.sim.text
            text = ("" if showing_hint else node.text) + text
        if node.sim is None or not node.editable:
            raise Uia2Error.invalid_element_state(
                f"Cannot set the element to '{body.get('text')}'. Did you interact with the correct element?"
            )
        self.device.set_text(node.sim, text)
        if press_enter:
            self.u2.press("enter")
        return None

    # --- input ----------------------------------------------------------------------------------

    def _actions(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        try:
            gestures = plan_actions(body.get("actions"), self.element_center, float(self.device.scale))
        except ActionsError as exc:
            raise Uia2Error.invalid_argument(str(exc)) from exc
        for gesture in gestures:
            self.perform(gesture)
        return None

    def perform(self, gesture: Gesture) -> None:
        """Carry out one planned gesture on the phone."""
        if gesture.kind == "tap":
            self.u2.tap_px(*gesture.points[0])
        elif gesture.kind == "long_press":
            x, y = gesture.points[0]
            self.rpc("click", x, y, gesture.duration_ms)
        elif gesture.kind == "swipe":
            (x0, y0), (x1, y1) = gesture.points
            self.rpc("swipe", x0, y0, x1, y1, max(2, gesture.duration_ms // 5))
        elif gesture.kind == "pinch":
            s1, s2, e1, e2 = gesture.points
            before, after = _distance(s1, s2), _distance(e1, e2)
            self.u2.take_time(gesture.duration_ms / 1000)
            if abs(after - before) < 24:
                self.rpc("swipe", s1[0], s1[1], e1[0], e1[1], max(2, gesture.duration_ms // 5))
            else:
                cx, cy = (s1[0] + s2[0]) / 2, (s1[1] + s2[1]) / 2
                scale = self.device.scale
                self.device.pinch(cx / scale, cy / scale, after / max(before, 1.0))
        elif gesture.kind == "keycode":
            self.press_keycode(gesture.keycode, 0)
        elif gesture.kind == "text":
            self.device.type_text(gesture.text)

    def press_keycode(self, code: int, meta: int) -> None:
        key = _KEY_NAMES.get(code)
        if key is not None:
            self.u2.press(key)
            return
        self.rpc("pressKeyCode", code, meta)

    def _keycode(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        code = body.get("keycode")
        if not isinstance(code, int):
            raise Uia2Error.invalid_argument("'keycode' is mandatory and must be an integer")
        meta = body.get("metastate")
        # a long press is the same key's down, repeat (FLAG_LONG_PRESS) and up: the simulated apps
        # have no long-press key handlers, so they see one press either way
        self.press_keycode(code, meta if isinstance(meta, int) else 0)
        return None

    def _back(self, params: dict[str, str], body: dict[str, Any]) -> Any:
        self.u2.press("back")
        return None


def _sections(path: str) -> list[str]:
    path = path.split("?", 1)[0]
    path = path.removeprefix("/wd/hub")
    return [p for p in path.strip("/").split("/")] if path.strip("/") else []


def _kind(path: str) -> RequestKind:
    if path.endswith("/source"):
        return "dump"
    if path.endswith("/screenshot"):
        return "screenshot"
    if path.endswith(("/click", "/actions", "/value", "/keys", "/back", "_keycode")):
        return "action"
    return "other"


def _by(locator: Locator) -> str:
    names = {"id": "By.id", "xpath": "By.xpath", "accessibility id": "By.accessibilityId",
             "class name": "By.clazz", "-android uiautomator": "By.AndroidUiAutomator"}  # fmt: skip
    return f"{names.get(locator.strategy, locator.strategy)}: {locator.selector}"


def _rect(node: AxNode) -> dict[str, int]:
    left, top, right, bottom = node.bounds
    return {"x": left, "y": top, "width": right - left, "height": bottom - top}


def _size(node: AxNode) -> dict[str, int]:
    left, top, right, bottom = node.bounds
    return {"width": right - left, "height": bottom - top}


def _location(node: AxNode) -> dict[str, int]:
    left, top, _, _ = node.bounds
    return {"x": left, "y": top}


def _signature(screen: Screen) -> list[tuple[str, str, tuple[int, int, int, int]]]:
    return [(n.text, n.content_desc, n.bounds) for r in screen.roots() for n in r.node.walk()]


def _distance(a: tuple[float, float], b: tuple[float, float]) -> float:
    return float(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5)
