"""A WebDriverAgent HTTP server in front of a simulated iOS device.

It speaks what the unmodified `facebook-wda` client sends: every answer
is `{"value": …, "sessionId": …}` with the active session id (or null), errors are W3C error objects
with WDA's HTTP status, and routes work with and without the `/session/<sid>` prefix and with a
trailing slash. Elements found by `/elements` get ids that stay valid while an element with the same
identity path exists; an id whose element is gone answers `stale element reference`.

Requests are served one at a time (a real WDA runs every command on the app's main thread), after
`Conditions.before_request(kind)` has slept the latency and picked the fault to inject
(`trailblaze_sim.faults`): a dropped connection serves the request and closes without answering, a
protocol error answers `500 unknown error` without serving it, an empty dump is an application
element without children, a stall holds the answer back, and an offline device closes the listener.
"""

from __future__ import annotations

import base64
import json
import math
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

from trailblaze.errors import DeviceError
from trailblaze_sim.access import from_this_process, loopback_host
from trailblaze_sim.faults import Conditions, RequestKind
from trailblaze_sim.ios.query import QueryError, find_class_chain, find_predicate, find_xpath
from trailblaze_sim.ios.source import SPRINGBOARD, IosElement, Snapshot, build_snapshot
from trailblaze_sim.ios.wda_settings import SettingsError, default_settings, update_settings
from trailblaze_sim.model import Frame, Key, SimDevice, deep_link_app, wait_until_still

__all__ = [
    "ELEMENT_KEY", "OS_VERSION", "WDA_ROUTES", "Handler", "Req", "Route", "RouteTable", "WdaError", "WdaSimServer",
    "bad_arg", "on_screen", "type_text", "unknown_bundle",
]

ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
OS_VERSION = "17.4"
_KEYBOARD_MISSING = (
    'Error Domain=com.facebook.WebDriverAgent Code=1 "The on-screen keyboard must be present to send keys" '
    "UserInfo={NSLocalizedDescription=The on-screen keyboard must be present to send keys}"
)
_MAX_SCROLLS = 25


class WdaError(Exception):
    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message


def _no_element(what: str) -> WdaError:
    return WdaError(404, "no such element", f"Unable to find an element using {what}")


def _stale(eid: str) -> WdaError:
    return WdaError(
        404,
        "stale element reference",
        f"The previously found element \"{eid}\" is not present in the current view anymore. "
        "Make sure the application UI has the expected state.",
    )


def bad_arg(message: str) -> WdaError:
    return WdaError(400, "invalid argument", message)


@dataclass
class Req:
    method: str
    path: str
    params: dict[str, str]
    body: dict[str, Any]
    query: dict[str, str]
    snapshot_fn: Callable[[], Snapshot]
    empty_dump: bool = False
    _snap: Snapshot | None = None

    @property
    def snapshot(self) -> Snapshot:
        if self._snap is None:
            self._snap = self.snapshot_fn()
        return self._snap

    def num(self, key: str) -> float:
        v = self.body.get(key)
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise bad_arg(f"'{key}' must be a number, got {v!r}")
        return float(v)

    def string(self, key: str) -> str:
        v = self.body.get(key)
        if not isinstance(v, str):
            raise bad_arg(f"'{key}' must be a string, got {v!r}")
        return v


Handler = Callable[["WdaSimServer", Req], Any]


@dataclass(frozen=True)
class Route:
    method: str
    parts: tuple[str, ...]
    handler: Handler
    kind: RequestKind


class RouteTable:
    """Routes by method and path length; a `:name` part matches any one part. A personality in front
    of WDA (`appium.xcuitest`) starts from a copy of WDA's table and wraps or adds routes in its own."""

    def __init__(self, routes: dict[tuple[str, int], list[Route]] | None = None) -> None:
        self._routes = {k: list(v) for k, v in (routes or {}).items()}

    def copy(self) -> RouteTable:
        return RouteTable(self._routes)

    def route(self, method: str, path: str, kind: RequestKind = "other") -> Callable[[Handler], Handler]:
        """Register the decorated handler for `method path`."""
        parts = tuple(p for p in path.split("/") if p)

        def deco(fn: Handler) -> Handler:
            self._routes.setdefault((method, len(parts)), []).append(Route(method, parts, fn, kind))
            return fn

        return deco

    def wrap(self, method: str, path: str, wrapper: Callable[[Handler, WdaSimServer, Req], Any]) -> None:
        """Answer `method path` with `wrapper`, which gets the handler it replaces first."""
        parts = tuple(p for p in path.split("/") if p)
        routes = self._routes[(method, len(parts))]
        i = next((i for i, r in enumerate(routes) if r.parts == parts), None)
        if i is None:
            raise LookupError(f"no route {method} {path} to wrap")
        original, kind = routes[i].handler, routes[i].kind
        routes[i] = Route(method, parts, lambda s, req: wrapper(original, s, req), kind)

    def match(self, method: str, segs: list[str]) -> tuple[Route | None, dict[str, str]]:
        for r in self._routes.get((method, len(segs)), ()):
            params: dict[str, str] = {}
            for want, got in zip(r.parts, segs, strict=True):
                if want.startswith(":") and want != ":session":
                    params[want[1:]] = got
                elif want != got:
                    break
            else:
                return r, params
        return None, {}


WDA_ROUTES = RouteTable()
"""WebDriverAgent's own routes, registered below."""


_DROP = object()


@dataclass
class _Stats:
    requests: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    gesture_seconds: float = 0.0
    """Device time the gestures asked for (press and drag durations), whatever the latency profile slept."""


class WdaSimServer:
    """WebDriverAgent over HTTP for one simulated iOS device.

    Args:
        device: The simulated device (points; scale 3 on the demo iPhone).
        conditions: Latency profile and faults; defaults to no latency and no faults.
        host: Address to bind; keep the loopback address.
        port: Port to bind; 0 picks a free one (read it back from `port`).
        private: Accept connections only from this process (an in-process replay; `access`).

    Example:
        with WdaSimServer(device) as server:
            client = wda.Client(server.url)
    """

    routes: ClassVar[RouteTable] = WDA_ROUTES
    """What the server answers; a personality in front of WDA (`appium.xcuitest`) sets its own."""

    def __init__(
        self,
        device: SimDevice,
        *,
        conditions: Conditions | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        private: bool = False,
    ) -> None:
        self.device = device
        self.conditions = conditions or Conditions()
        self.private = private
        self._host = host
        self._requested_port = port
        self._httpd: _HttpServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._session_id: str | None = None
        self._session_bundle: str | None = None
        self._locked = False
        self._settings: dict[str, Any] = default_settings()
        self._launched_with: dict[str, dict[str, Any]] = {}
        """Per bundle: the `args` and `env` of its last launch (what `/wda/activeAppInfo` reports)."""
        self._session_quiescence = True
        """The session's `shouldWaitForQuiescence` capability (default true): what a launch inherits."""
        self._tested: tuple[str, bool] | None = None
        """The session's tested app and its `fb_shouldWaitForQuiescence`, as its last launch set them
        (WDA keeps the flag on that app object; any other foreground app is a fresh object: true)."""
        self._ids_by_key: dict[str, str] = {}
        self._keys_by_id: dict[str, str] = {}
        self.stats = _Stats()
        self.offline = False
        self._served = threading.local()
        """What the request this thread serves was dealt (`stall`)."""

    # --- lifecycle ------------------------------------------------------------------------------
    def start(self) -> WdaSimServer:
        """Bind and serve in a background thread. Returns self."""
        if self._httpd is not None:
            return self
        httpd = _HttpServer((self._host, self._requested_port), _Handler_)
        httpd.wda = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="wda-sim", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket (idempotent)."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> WdaSimServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The bound TCP port (after `start()`)."""
        if self._httpd is None:
            raise RuntimeError("WdaSimServer is not running; call start() first")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """`http://host:port`, what `wda.Client(url)` takes."""
        return f"http://{self._host}:{self.port}"

    @property
    def session_id(self) -> str | None:
        """The active session id, or None."""
        return self._session_id

    def _go_offline(self) -> None:
        # Called from a request thread: serve_forever runs elsewhere, so shutdown() cannot deadlock.
        self.offline = True
        httpd = self._httpd
        if httpd is not None:
            httpd.shutdown()
            httpd.socket.close()

    # --- dispatch -------------------------------------------------------------------------------
    def handle(self, method: str, raw_path: str, raw_body: bytes) -> tuple[int, bytes] | object:
        """Serve one request; returns `(status, body)` or `_DROP` to close without answering."""
        self._served.stall = False
        with self._lock:
            try:
                outcome = self._handle(method, raw_path, raw_body)
            except WdaError as err:
                outcome = self._error(err)
            except DeviceError as err:
                # The app model refused the action (not a field, app not installed): WDA says unknown error.
                outcome = self._error(WdaError(500, "unknown error", err.message))
        if self._served.stall:  # outside the lock: the link hangs, not WebDriverAgent
            self.conditions.stall()
        return outcome

    def _handle(self, method: str, raw_path: str, raw_body: bytes) -> tuple[int, bytes] | object:
        split = urlsplit(raw_path)
        segs = [s for s in split.path.split("/") if s]
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        route: Route | None = None
        params: dict[str, str] = {}
        sid: str | None = None
        if segs[:1] == ["session"] and len(segs) >= 2:
            sid, segs = segs[1], segs[2:]
            if not segs:
                segs = [":session"]
        route, params = self.routes.match(method, segs)
        fault = self.conditions.before_request(route.kind if route else "other")
        self._served.stall = fault == "stall"
        self.stats.requests += 1
        if fault is not None:
            self.stats.faults[fault] = self.stats.faults.get(fault, 0) + 1
        if fault == "offline":
            self._go_offline()
            return _DROP
        if fault == "rpc_error":
            raise WdaError(500, "unknown error", f"Injected protocol error on {method} {split.path}")
        if fault == "drop_connection":
            try:
                self._run_route(method, split.path, query, raw_body, route, params, sid, fault)
            except (WdaError, DeviceError):
                pass  # an error answer is lost the same way
            return _DROP  # served, but the answer is lost: the client cannot tell whether it happened
        return self._run_route(method, split.path, query, raw_body, route, params, sid, fault)

    def _run_route(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        raw_body: bytes,
        route: Route | None,
        params: dict[str, str],
        sid: str | None,
        fault: str | None,
    ) -> tuple[int, bytes]:
        if sid is not None and sid != self._session_id:
            raise WdaError(404, "invalid session id", "Session does not exist")
        if route is None:
            raise WdaError(404, "unknown command", f"Unhandled endpoint: {path} -- http://{self._host}/")
        body: dict[str, Any] = {}
        if raw_body.strip():
            try:
                decoded = json.loads(raw_body)
            except ValueError:
                raise bad_arg("The request body is not valid JSON") from None
            if not isinstance(decoded, dict):
                raise bad_arg("The request body must be a JSON object")
            body = decoded
        req = Req(
            method=method,
            path=path,
            params=params,
            body=body,
            query=query,
            snapshot_fn=lambda: self._snapshot(empty=fault == "empty_dump"),
            empty_dump=fault == "empty_dump",
        )
        value = route.handler(self, req)
        if route.kind == "action":
            _quiesce(self)
        return 200, self._envelope(value)

    def _envelope(self, value: Any) -> bytes:
        doc = {"value": value, "sessionId": self._session_id}
        return json.dumps(doc, indent=2, ensure_ascii=False).encode("utf-8")

    def _error(self, err: WdaError) -> tuple[int, bytes]:
        value = {"error": err.error, "message": err.message, "traceback": ""}
        return err.status, self._envelope(value)

    # --- model access ---------------------------------------------------------------------------
    def _snapshot(self, *, empty: bool = False) -> Snapshot:
        d = self.device
        return build_snapshot(
            d.tree(), d.current_app(), screen_width=d.screen_width, screen_height=d.screen_height, empty=empty
        )

    def _element_id(self, el: IosElement) -> str:
        eid = self._ids_by_key.get(el.key)
        if eid is None:
            eid = str(uuid.uuid4()).upper()
            self._ids_by_key[el.key] = eid
            self._keys_by_id[eid] = el.key
        return eid

    def _element(self, req: Req, eid: str | None = None) -> IosElement:
        eid = eid or req.params["id"]
        key = self._keys_by_id.get(eid)
        el = req.snapshot.by_key.get(key) if key is not None else None
        if el is None:
            raise _stale(eid)
        return el

    def _refs(self, els: list[IosElement]) -> list[dict[str, str]]:
        out = []
        for el in els:
            eid = self._element_id(el)
            out.append({"ELEMENT": eid, ELEMENT_KEY: eid})
        return out

    def _find(self, req: Req, context: IosElement | None) -> list[IosElement]:
        using = req.body.get("using")
        value = req.body.get("value")
        if not isinstance(using, str) or not isinstance(value, str):
            raise bad_arg("'using' and 'value' must be strings")
        snap = req.snapshot
        ctx = context or snap.root
        below = snap.flat[ctx.order + 1 : ctx.end]
        try:
            match using:
                case "id" | "accessibility id" | "name":
                    return [e for e in below if e.name == value]
                case "class name":
                    return [e for e in below if e.type == value]
                case "predicate string":
                    return find_predicate(snap, value, context)
                case "class chain":
                    return find_class_chain(snap, value, context)
                case "xpath":
                    return find_xpath(snap, value, context)
                case "link text" | "partial link text":
                    attr, sep, wanted = value.partition("=")
                    if not sep:
                        raise QueryError(f"{using} must look like 'label=Text', got {value!r}")
                    partial = using == "partial link text"
                    out = []
                    for e in below:
                        got = e.attribute(attr)
                        if isinstance(got, str) and (wanted in got if partial else got == wanted):
                            out.append(e)
                    return out
        except (QueryError, KeyError) as exc:
            raise WdaError(400, "invalid selector", str(exc)) from None
        raise WdaError(400, "invalid selector", f"Unsupported locator strategy {using!r}")

    # --- gestures helpers -----------------------------------------------------------------------
    def _gesture_time(self, seconds: float) -> None:
        """A gesture that lasts `seconds` on a phone takes that long here too, scaled by the latency
        profile's `gesture_time_scale` (0 in the `zero` profile, so tests stay fast)."""
        seconds = max(0.0, seconds)
        self.stats.gesture_seconds += seconds
        wait = seconds * self.conditions.latency.gesture_time_scale
        if wait > 0:
            time.sleep(wait)

    def _tap_element(self, req: Req, el: IosElement) -> None:
        if not el.visible:
            el = self._scroll_to_visible(req, el)
        self.device.tap(*el.frame.center)

    def _scroll_to_visible(self, req: Req, el: IosElement) -> IosElement:
        key = el.key
        for _ in range(_MAX_SCROLLS):
            container = _scroll_container(el)
            if el.visible and (container is None or _inside(el.frame, container.frame)):
                return el
            if container is None:
                break
            f, c = el.frame, container.frame
            cx, cy = c.center
            step = c.height * 0.6
            if f.y < c.y:
                self.device.swipe(cx, cy - step / 2, cx, cy + step / 2, 0.2)
            else:
                self.device.swipe(cx, cy + step / 2, cx, cy - step / 2, 0.2)
            req._snap = None
            found = req.snapshot.by_key.get(key)
            if found is None:
                raise _stale(self._ids_by_key.get(key, key))
            el = found
        if not el.visible:
            raise WdaError(400, "element not visible", f"Cannot scroll {el.type} '{el.name}' into view")
        return el


def _inside(f: Frame, c: Frame) -> bool:
    return f.y >= c.y and f.bottom <= c.bottom + 0.5


def _scroll_container(el: IosElement) -> IosElement | None:
    p = el.parent
    while p is not None:
        if p.node.scrollable:
            return p
        p = p.parent
    return None


# --- routes -------------------------------------------------------------------------------------

_route = WDA_ROUTES.route


def _status(s: WdaSimServer, req: Req) -> Any:
    return {
        "ready": True,
        "message": "WebDriverAgent is ready to accept commands",
        "state": "success",
        "os": {"name": "iOS", "version": OS_VERSION, "sdkVersion": OS_VERSION, "testmanagerdVersion": 28},
        "ios": {"ip": "127.0.0.1"},
        "build": {
            "time": "Jan  1 2025 00:00:00",
            "productBundleIdentifier": "com.facebook.WebDriverAgentRunner",
            "version": "7.0.0",
        },
        "device": "ipad" if s.device.tablet else "iphone",
    }


_route("GET", "status")(_status)


@_route("GET", "wda/healthcheck")
def _healthcheck(s: WdaSimServer, req: Req) -> Any:
    return None


def _not_created(message: str) -> WdaError:
    return WdaError(500, "session not created", message)


def _capabilities(body: dict[str, Any]) -> dict[str, Any]:
    """W3C `alwaysMatch` merged with the first `firstMatch`, else the legacy `desiredCapabilities`."""
    caps = body.get("capabilities")
    if not isinstance(caps, dict):
        raise _not_created("'capabilities' is mandatory to create a new session")
    merged: dict[str, Any] = {}
    always = caps.get("alwaysMatch")
    if isinstance(always, dict):
        merged.update(always)
    first = caps.get("firstMatch")
    if isinstance(first, list) and first and isinstance(first[0], dict):
        merged.update(first[0])
    desired = body.get("desiredCapabilities")
    if not merged and isinstance(desired, dict):
        merged.update(desired)
    return merged


def _launch_options(where: dict[str, Any], fail: Callable[[str], WdaError]) -> tuple[list[str], dict[str, str]]:
    args = where.get("arguments") or []
    env = where.get("environment") or {}
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise fail(f"'arguments' must be a list of strings, got {args!r}")
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise fail(f"'environment' must map strings to strings, got {env!r}")
    return list(args), dict(env)


@_route("POST", "session", "action")
def _new_session(s: WdaSimServer, req: Req) -> Any:
    # A new session replaces the old one (WDA kills it first), whatever happens next; its element
    # ids and settings die with it.
    s._session_id = None
    s._session_bundle = None
    s._ids_by_key.clear()
    s._keys_by_id.clear()
    s._settings = default_settings()
    caps = _capabilities(req.body)
    bundle = caps.get("bundleId")
    if bundle is not None and (not isinstance(bundle, str) or not bundle):
        raise _not_created(f"'bundleId' must be a non-empty string, got {bundle!r}")
    s._session_quiescence = caps.get("shouldWaitForQuiescence", True) is not False
    s._tested = None
    if bundle is not None:
        args, env = _launch_options(caps, _not_created)
        force = caps.get("forceAppLaunch", True) is not False  # WDA: YES unless the client says NO
        state = s.device.app_state(bundle) if _installed(s, bundle) else 1
        if state < 2 or force:
            # `-[XCUIApplication launch]`: a running app is terminated and started afresh.
            s._tested = (bundle, s._session_quiescence)
            if not _installed(s, bundle):
                raise _not_created(
                    f"Cannot launch {bundle} application. Make sure the correct bundle identifier has been "
                    "provided in capabilities and check the device log for possible crash report occurrences"
                )
            _start(s, bundle, args, env, cold=True)
        elif state < 4:
            s.device.launch(bundle)
    action = caps.get("defaultAlertAction")
    if isinstance(action, str):
        s._settings["defaultAlertAction"] = action.lower()
    s._session_id = str(uuid.uuid4()).upper()
    s._session_bundle = bundle
    return {"sessionId": s._session_id, "capabilities": _session_caps(s)}


def _session_caps(s: WdaSimServer) -> dict[str, Any]:
    app = s.device.current_app()
    return {
        "device": "ipad" if s.device.tablet else "iphone",
        "sdkVersion": OS_VERSION,
        "browserName": app.name if app is not None else SPRINGBOARD.name,
        "CFBundleIdentifier": app.app_id if app is not None else SPRINGBOARD.app_id,
    }


@_route("GET", ":session")
def _session_info(s: WdaSimServer, req: Req) -> Any:
    return {"sessionId": s._session_id, "capabilities": _session_caps(s)}


@_route("DELETE", ":session")
def _delete_session(s: WdaSimServer, req: Req) -> Any:
    s._session_id = None
    s._session_bundle = None
    return None


@_route("GET", "wda/locked")
def _is_locked(s: WdaSimServer, req: Req) -> Any:
    return s._locked


@_route("POST", "wda/lock", "action")
def _lock(s: WdaSimServer, req: Req) -> Any:
    s._locked = True
    return None


@_route("POST", "wda/unlock", "action")
def _unlock(s: WdaSimServer, req: Req) -> Any:
    s._locked = False
    return None


@_route("POST", "wda/homescreen", "action")
def _home(s: WdaSimServer, req: Req) -> Any:
    s.device.go_home()
    return None


@_route("POST", "wda/pressButton", "action")
def _press_button(s: WdaSimServer, req: Req) -> Any:
    name = req.string("name")
    keys: dict[str, Key] = {"home": "home", "volumeup": "volume_up", "volumedown": "volume_down"}
    key = keys.get(name.lower())
    if key is None:
        raise bad_arg(f"The button '{name}' is unknown. Only the following button names are supported: "
                       "home, volumeUp, volumeDown")
    if key == "home":
        s.device.go_home()
    else:
        s.device.press_key(key)
    return None


def _app_info(s: WdaSimServer) -> Any:
    app = s.device.current_app() or SPRINGBOARD
    launched = s._launched_with.get(app.app_id, {"env": {}, "args": []})
    return {"pid": app.pid, "bundleId": app.app_id, "name": "", "processArguments": launched}


_route("GET", "wda/activeAppInfo")(lambda s, req: _app_info(s))


@_route("GET", "wda/apps/list")
def _apps_list(s: WdaSimServer, req: Req) -> Any:
    app = s.device.current_app() or SPRINGBOARD
    return [{"pid": app.pid, "bundleId": app.app_id}]


def _installed(s: WdaSimServer, bundle: str) -> bool:
    return bundle in {a.app_id for a in s.device.installed_apps()}


def unknown_bundle(bundle: str) -> WdaError:
    # What XCTest's failed `-[XCUIApplication launch]` turns into through WDA's exception handler.
    return WdaError(
        500,
        "unknown error",
        f'Failed to launch {bundle}: The request to open "{bundle}" failed. The request was denied by service '
        f'delegate (SBMainWorkspace) for reason: NotFound ("Application "{bundle}" is unknown to FrontBoard").',
    )


def _launch(s: WdaSimServer, bundle: str) -> None:
    if not _installed(s, bundle):
        raise unknown_bundle(bundle)
    s.device.launch(bundle)


def _start(s: WdaSimServer, bundle: str, args: list[str], env: dict[str, str], *, cold: bool) -> None:
    """Launch with process arguments and environment (they only reach a process that starts now)."""
    if not _installed(s, bundle):
        raise unknown_bundle(bundle)
    starts = cold or s.device.app_state(bundle) < 2
    if starts and env.get("TRAILBLAZE_CLEAR_STATE") == "1":  # trailblaze's CLEAR_STATE convention
        s.device.clear_app_data(bundle)
    s.device.launch(bundle, stop_first=cold)
    if starts:
        s._launched_with[bundle] = {"env": env, "args": args}


@_route("POST", "wda/apps/launch", "action")
def _apps_launch(s: WdaSimServer, req: Req) -> Any:
    # WDA launches an app that is not running and only activates a running one; either way the app
    # object it keeps takes the request's quiescence flag, or the session's when the flag is omitted.
    args, env = _launch_options(req.body, bad_arg)
    bundle = req.string("bundleId")
    flag = req.body.get("shouldWaitForQuiescence")
    s._tested = (bundle, s._session_quiescence if flag is None else flag is not False)
    _start(s, bundle, args, env, cold=False)
    return None


@_route("POST", "url", "action")
def _open_url(s: WdaSimServer, req: Req) -> Any:
    if "url" not in req.body:
        raise bad_arg("URL is required")
    url = req.string("url")
    scheme, sep, _ = url.partition("://")
    if not sep or not scheme:
        raise WdaError(500, "unknown error", f"'{url}' is not a valid URL")
    if "bundleId" in req.body:  # open the URL with a given app
        app: str | None = req.string("bundleId")
        if not _installed(s, app or ""):
            raise unknown_bundle(app or "")
    else:
        app = deep_link_app(s.device, url)
    if app is None:  # what WDA answers when no app claims the URL's scheme
        raise WdaError(500, "unknown error", f"Failed to open url {url}: the URL cannot be opened")
    s.device.launch(app)
    return None


@_route("POST", "wda/apps/activate", "action")
def _apps_activate(s: WdaSimServer, req: Req) -> Any:
    _launch(s, req.string("bundleId"))
    return None


@_route("POST", "wda/apps/terminate", "action")
def _apps_terminate(s: WdaSimServer, req: Req) -> Any:
    bundle = req.string("bundleId")
    was_running = s.device.app_state(bundle) > 1
    if was_running:  # WDA answers false for an app that is not running (or not installed)
        s.device.terminate(bundle)
    return was_running


@_route("POST", "wda/apps/state")
def _apps_state(s: WdaSimServer, req: Req) -> Any:
    return s.device.app_state(req.string("bundleId"))


@_route("POST", "wda/deactivateApp", "action")
def _deactivate(s: WdaSimServer, req: Req) -> Any:
    app = s.device.current_app()
    s.device.go_home()
    # WDA stays on the home screen for `duration` seconds (at least 3 on a phone).
    s._gesture_time(max(req.num("duration") if "duration" in req.body else 3.0, 3.0))
    if app is not None:
        s.device.launch(app.app_id)
    return None


@_route("GET", "source", "dump")
def _source(s: WdaSimServer, req: Req) -> Any:
    fmt = req.query.get("format", "xml").lower()
    if fmt == "xml":
        return req.snapshot.xml()
    if fmt == "json":
        return req.snapshot.json()
    if fmt == "description":
        return req.snapshot.xml()
    raise bad_arg(f"Unknown source format '{fmt}'. Only xml, json and description are supported")


@_route("GET", "wda/accessibleSource", "dump")
def _accessible_source(s: WdaSimServer, req: Req) -> Any:
    return req.snapshot.accessible_source()


@_route("GET", "screenshot", "screenshot")
def _screenshot(s: WdaSimServer, req: Req) -> Any:
    return base64.b64encode(s.device.screenshot_png()).decode("ascii")


@_route("GET", "window/size")
def _window_size(s: WdaSimServer, req: Req) -> Any:
    return {"width": s.device.screen_width, "height": s.device.screen_height}


@_route("GET", "window/rect")
def _window_rect(s: WdaSimServer, req: Req) -> Any:
    return {"x": 0, "y": 0, "width": s.device.screen_width, "height": s.device.screen_height}


@_route("GET", "wda/screen")
def _screen(s: WdaSimServer, req: Req) -> Any:
    w, h = s.device.screen_width, s.device.screen_height
    scale = s.device.scale
    return {
        "screenSize": {"width": w, "height": h},
        "statusBarSize": {"width": w, "height": round(s.device.status_bar)},
        "scale": int(scale) if float(scale).is_integer() else scale,
    }


# WDA's orientation names (FBOrientationCommands); iPhones never turn upside down.
_ORIENTATIONS = {
    "PORTRAIT": "portrait",
    "LANDSCAPE": "landscape",
    "UIA_DEVICE_ORIENTATION_LANDSCAPERIGHT": "landscape",
    "UIA_DEVICE_ORIENTATION_PORTRAIT_UPSIDEDOWN": "upside down",
}
_ROTATIONS = {0: "portrait", 90: "landscape", 270: "landscape", 180: "upside down"}


@_route("GET", "orientation")
def _get_orientation(s: WdaSimServer, req: Req) -> Any:
    return s.device.orientation.upper()


@_route("POST", "orientation", "action")
def _set_orientation(s: WdaSimServer, req: Req) -> Any:
    wanted = req.string("orientation").upper()
    target = _ORIENTATIONS.get(wanted)
    if target is None or not s.device.rotate(target):
        # WDA's answer when XCUIDevice refuses the rotation (an app that only supports portrait).
        raise WdaError(500, "unknown error", "Unable To Rotate Device")
    return None


@_route("GET", "rotation")
def _get_rotation(s: WdaSimServer, req: Req) -> Any:
    return {"x": 0, "y": 0, "z": 90 if s.device.orientation == "landscape" else 0}


@_route("POST", "rotation", "action")
def _set_rotation(s: WdaSimServer, req: Req) -> Any:
    if not all(k in req.body for k in ("x", "y", "z")):
        raise bad_arg(f"x, y and z arguments must exist in the request body: {req.body}")
    x, y, z = (req.num(k) for k in ("x", "y", "z"))
    target = _ROTATIONS.get(int(z)) if x == 0 and y == 0 and z == int(z) else None
    if target is None:
        raise bad_arg(f"{{x: {x:g}, y: {y:g}, z: {z:g}}} rotation is not supported. Only z of 0, 90, 180 "
                       "or 270 (x and y 0) is supported")
    if not s.device.rotate(target):
        app = s.device.current_app()
        raise WdaError(400, "invalid element state",
                        f"The current rotation cannot be set to z={z:g}. Make sure the "
                        f"{(app or SPRINGBOARD).app_id} application supports it")
    return None


@_route("GET", "wda/batteryInfo")
def _battery(s: WdaSimServer, req: Req) -> Any:
    return {"level": 1, "state": 3}


@_route("GET", "wda/device/info")
def _device_info(s: WdaSimServer, req: Req) -> Any:
    return {
        "currentLocale": "en_US",
        "timeZone": "UTC",
        "name": s.device.model,
        "model": "iPad" if s.device.tablet else "iPhone",
        "uuid": s.device.serial,
        "userInterfaceIdiom": 1 if s.device.tablet else 0,
        "userInterfaceStyle": "dark" if s.device.dark else "light",
        "isSimulator": True,
        "thermalState": 0,
    }


def _quiesce(s: WdaSimServer) -> None:
    # WDA answers an action only once the app is quiescent (no running animation), bounded by the
    # `waitForIdleTimeout` setting (seconds; 0 turns the wait off, as does `shouldWaitForQuiescence` /
    # `waitForQuiescence` false). An app launched with `shouldWaitForQuiescence: false` (facebook-wda's
    # default for `session(bundle)` and `app_launch`) is never waited for.
    timeout = s._settings.get("waitForIdleTimeout", 10.0)
    if not _quiescence_on(s._settings) or not isinstance(timeout, int | float) or timeout <= 0:
        return
    app = s.device.current_app()
    if app is not None and s._tested == (app.app_id, False):
        return
    wait_until_still(s.device, float(timeout))


def _quiescence_on(settings: dict[str, Any]) -> bool:
    """Whether WDA settings leave the quiescence wait on (it is on unless a setting says false)."""
    return all(settings.get(key, True) is not False for key in ("shouldWaitForQuiescence", "waitForQuiescence"))


@_route("GET", "appium/settings")
def _get_settings(s: WdaSimServer, req: Req) -> Any:
    return dict(s._settings)


@_route("POST", "appium/settings")
def _set_settings(s: WdaSimServer, req: Req) -> Any:
    new = req.body.get("settings")
    if not isinstance(new, dict):
        raise bad_arg("'settings' must be an object")
    try:
        s._settings = update_settings(s._settings, new)
    except SettingsError as exc:
        raise bad_arg(str(exc)) from None
    return dict(s._settings)


@_route("POST", "wda/setPasteboard", "action")
def _set_pasteboard(s: WdaSimServer, req: Req) -> Any:
    try:
        s.device.clipboard = base64.b64decode(req.string("content")).decode("utf-8")
    except ValueError:
        raise bad_arg("'content' must be base64-encoded UTF-8 text") from None
    return None


@_route("POST", "wda/getPasteboard", "action")
def _get_pasteboard(s: WdaSimServer, req: Req) -> Any:
    return base64.b64encode(s.device.clipboard.encode("utf-8")).decode("ascii")


# --- coordinate gestures -----------------------------------------------------------------------


@_route("POST", "wda/tap", "action")
def _tap(s: WdaSimServer, req: Req) -> Any:
    s.device.tap(req.num("x"), req.num("y"))
    return None


@_route("POST", "wda/tap/:id", "action")
def _tap_legacy(s: WdaSimServer, req: Req) -> Any:
    # WDA < 6: coordinates are relative to the element, or absolute when the id is "0"/unknown.
    x, y = req.num("x"), req.num("y")
    key = s._keys_by_id.get(req.params["id"])
    el = req.snapshot.by_key.get(key) if key else None
    if el is not None:
        x, y = x + el.frame.x, y + el.frame.y
    s.device.tap(x, y)
    return None


@_route("POST", "wda/doubleTap", "action")
def _double_tap(s: WdaSimServer, req: Req) -> Any:
    s.device.double_tap(req.num("x"), req.num("y"))
    return None


@_route("POST", "wda/touchAndHold", "action")
def _touch_and_hold(s: WdaSimServer, req: Req) -> Any:
    duration = req.num("duration") if "duration" in req.body else 1.0
    s._gesture_time(duration)
    s.device.long_press(req.num("x"), req.num("y"), duration)
    return None


_DRAG_MOVE_S = 0.1
"""How long XCTest takes to move the finger after `pressForDuration:thenDragToCoordinate:`'s press."""


def on_screen(s: WdaSimServer, x: float, y: float) -> tuple[float, float]:
    # A phone delivers a synthesized touch outside the screen at its nearest edge: facebook-wda's e2e
    # suite drags a list from x=500 on a 390-pt iPhone 13 Pro, and the list scrolls.
    w, h = s.device.screen_width, s.device.screen_height
    return min(max(x, 0.0), w - 1.0), min(max(y, 0.0), h - 1.0)


def _drag_path(s: WdaSimServer, req: Req, duration: float, origin: Frame | None = None) -> None:
    # `duration` is how long the finger presses before it moves (XCUICoordinate's press-then-drag).
    ox, oy = (origin.x, origin.y) if origin is not None else (0.0, 0.0)
    if duration < 0:
        raise bad_arg(f"'duration' must not be negative, got {duration:g}")
    s._gesture_time(duration + _DRAG_MOVE_S)
    start = on_screen(s, ox + req.num("fromX"), oy + req.num("fromY"))
    end = on_screen(s, ox + req.num("toX"), oy + req.num("toY"))
    s.device.swipe(*start, *end, max(duration, 0.05))


@_route("POST", "wda/dragfromtoforduration", "action")
def _drag(s: WdaSimServer, req: Req) -> Any:
    _drag_path(s, req, req.num("duration") if "duration" in req.body else 0.0)
    return None


@_route("POST", "wda/element/:id/dragfromtoforduration", "action")
def _el_drag(s: WdaSimServer, req: Req) -> Any:
    # Coordinates relative to the element's frame, as WDA's element variant takes them.
    _drag_path(s, req, req.num("duration") if "duration" in req.body else 0.0, s._element(req).frame)
    return None


@_route("POST", "wda/drag", "action")
def _drag_velocity(s: WdaSimServer, req: Req) -> Any:
    # facebook-wda's fast swipe: no press, the finger moves at `velocity` points per second.
    velocity = req.num("velocity") if "velocity" in req.body else 500.0
    if velocity <= 0:
        raise bad_arg(f"'velocity' must be positive, got {velocity:g}")
    x1, y1, x2, y2 = req.num("fromX"), req.num("fromY"), req.num("toX"), req.num("toY")
    seconds = math.hypot(x2 - x1, y2 - y1) / velocity
    s._gesture_time(seconds)
    s.device.swipe(*on_screen(s, x1, y1), *on_screen(s, x2, y2), max(seconds, 0.05))
    return None


_HID_CONSUMER_PAGE = 0x0C


@_route("POST", "wda/performIoHidEvent", "action")
def _io_hid_event(s: WdaSimServer, req: Req) -> Any:
    page, usage = int(req.num("page")), int(req.num("usage"))
    duration = req.num("duration") if "duration" in req.body else 0.005
    s._gesture_time(duration)
    if page != _HID_CONSUMER_PAGE:
        return None  # XCUIDevice sends any page/usage; the device ignores what it does not know
    if usage == 0x40:  # menu: the home button
        s.device.go_home()
    elif usage == 0xE9:
        s.device.press_key("volume_up")
    elif usage == 0xEA:
        s.device.press_key("volume_down")
    elif usage == 0x30:  # power: a short press locks, a second one wakes the lock screen
        s._locked = not s._locked
    # 0x65 (snapshot, power+home) takes a screenshot: nothing on screen changes.
    return None


def _swipe_in(s: WdaSimServer, f: Frame, direction: str, distance: float = 1.0) -> None:
    # "up" means the finger moves up (content scrolls towards its end), as XCUIElement.swipeUp().
    cx, cy = f.center
    dx = f.width * 0.4 * distance
    dy = f.height * 0.4 * distance
    moves = {"up": (0.0, -dy), "down": (0.0, dy), "left": (-dx, 0.0), "right": (dx, 0.0)}
    if direction not in moves:
        raise bad_arg(f"Unsupported swipe direction '{direction}'; use up, down, left or right")
    mx, my = moves[direction]
    s.device.swipe(cx - mx / 2, cy - my / 2, cx + mx / 2, cy + my / 2, 0.2)


@_route("POST", "wda/swipe", "action")
def _swipe_app(s: WdaSimServer, req: Req) -> Any:
    _swipe_in(s, Frame(0, 0, s.device.screen_width, s.device.screen_height), req.string("direction"))
    return None


@_route("POST", "wda/keys", "action")
def _keys(s: WdaSimServer, req: Req) -> Any:
    raw = req.body.get("value")
    if isinstance(raw, str):
        text = raw
    elif isinstance(raw, list) and all(isinstance(c, str) for c in raw):
        text = "".join(raw)
    else:
        raise bad_arg("'value' must be a string or a list of strings")
    if not s.device.keyboard_shown():
        raise WdaError(400, "invalid element state", _KEYBOARD_MISSING)
    type_text(s, text)
    return None


_SPECIAL: dict[str, Key] = {"\n": "enter", "\r": "enter", "\t": "tab", "\b": "delete", "\x7f": "delete",
                            "\ue003": "delete", "\ue007": "enter", "\ue006": "enter", "\ue004": "tab"}


def type_text(s: WdaSimServer, text: str) -> None:
    run: list[str] = []
    for ch in text:
        key = _SPECIAL.get(ch)
        if key is None:
            run.append(ch)
            continue
        if run:
            s.device.type_text("".join(run))
            run = []
        s.device.press_key(key)
    if run:
        s.device.type_text("".join(run))


@_route("POST", "wda/keyboard/dismiss", "action")
def _dismiss_keyboard(s: WdaSimServer, req: Req) -> Any:
    if not s.device.keyboard_shown():
        raise WdaError(400, "invalid element state", "The keyboard cannot be dismissed: it is not present")
    s.device.hide_keyboard()
    return None


# --- alerts ------------------------------------------------------------------------------------


def _alert_or_raise(s: WdaSimServer) -> Any:
    alert = s.device.alert()
    if alert is None:
        raise WdaError(404, "no such alert", "An attempt was made to operate on a modal dialog when one was not open")
    return alert


@_route("GET", "alert/text")
def _alert_text(s: WdaSimServer, req: Req) -> Any:
    return _alert_or_raise(s).text


@_route("POST", "alert/text", "action")
def _alert_set_text(s: WdaSimServer, req: Req) -> Any:
    _alert_or_raise(s)
    raise WdaError(400, "invalid element state", "The alert has no text field to type into")


@_route("GET", "wda/alert/buttons")
def _alert_buttons(s: WdaSimServer, req: Req) -> Any:
    return list(_alert_or_raise(s).buttons)


def _alert_press(s: WdaSimServer, req: Req, default_last: bool) -> Any:
    alert = _alert_or_raise(s)
    name = req.body.get("name")
    if name is None:
        if not alert.buttons:
            raise WdaError(400, "invalid element state", "The alert has no buttons")
        # iOS puts the cancel action first and the default (affirmative) one last.
        name = alert.buttons[-1] if default_last else alert.buttons[0]
    if name not in alert.buttons:
        raise WdaError(400, "invalid element state",
                        f"Failed to find button with label '{name}' for alert: {list(alert.buttons)}")
    s.device.alert_press(name)
    return None


_route("POST", "alert/accept", "action")(lambda s, req: _alert_press(s, req, True))
_route("POST", "alert/dismiss", "action")(lambda s, req: _alert_press(s, req, False))


# --- finding -----------------------------------------------------------------------------------


@_route("POST", "elements")
def _elements(s: WdaSimServer, req: Req) -> Any:
    return s._refs(s._find(req, None))


@_route("POST", "element")
def _element_first(s: WdaSimServer, req: Req) -> Any:
    found = s._find(req, None)
    if not found:
        raise _no_element(f"{req.body.get('using')} '{req.body.get('value')}'")
    return s._refs(found[:1])[0]


@_route("POST", "element/:id/elements")
def _elements_under(s: WdaSimServer, req: Req) -> Any:
    return s._refs(s._find(req, s._element(req)))


@_route("POST", "element/:id/element")
def _element_under(s: WdaSimServer, req: Req) -> Any:
    found = s._find(req, s._element(req))
    if not found:
        raise _no_element(f"{req.body.get('using')} '{req.body.get('value')}'")
    return s._refs(found[:1])[0]


@_route("GET", "element/active")
def _active_element(s: WdaSimServer, req: Req) -> Any:
    for el in req.snapshot.flat:
        if el.focused:
            return s._refs([el])[0]
    raise _no_element("the focused element (nothing has focus)")


# --- element properties ------------------------------------------------------------------------


@_route("GET", "element/:id/rect")
def _el_rect(s: WdaSimServer, req: Req) -> Any:
    return s._element(req).attribute("rect")


@_route("GET", "element/:id/attribute/:name")
def _el_attribute(s: WdaSimServer, req: Req) -> Any:
    el = s._element(req)
    try:
        return el.attribute(req.params["name"])
    except KeyError:
        return None


@_route("GET", "element/:id/text")
def _el_text(s: WdaSimServer, req: Req) -> Any:
    return s._element(req).text


@_route("GET", "element/:id/name")
def _el_name(s: WdaSimServer, req: Req) -> Any:
    return s._element(req).type


@_route("GET", "element/:id/displayed")
def _el_displayed(s: WdaSimServer, req: Req) -> Any:
    return s._element(req).visible


@_route("GET", "element/:id/enabled")
def _el_enabled(s: WdaSimServer, req: Req) -> Any:
    return s._element(req).enabled


@_route("GET", "element/:id/selected")
def _el_selected(s: WdaSimServer, req: Req) -> Any:
    el = s._element(req)
    return el.selected or (el.node.checked and el.type != "XCUIElementTypeSwitch")


@_route("GET", "wda/element/:id/accessible")
def _el_accessible(s: WdaSimServer, req: Req) -> Any:
    return s._element(req).accessible


@_route("GET", "wda/element/:id/accessibilityContainer")
def _el_container(s: WdaSimServer, req: Req) -> Any:
    s._element(req)
    return False


# --- element actions ---------------------------------------------------------------------------


@_route("POST", "element/:id/click", "action")
def _el_click(s: WdaSimServer, req: Req) -> Any:
    s._tap_element(req, s._element(req))
    return None


@_route("POST", "element/:id/value", "action")
def _el_value(s: WdaSimServer, req: Req) -> Any:
    el = s._element(req)
    raw = req.body.get("value", req.body.get("text"))
    if isinstance(raw, list) and all(isinstance(c, str) for c in raw):
        text = "".join(raw)
    elif isinstance(raw, str):
        text = raw
    else:
        raise bad_arg("'value' must be a string or a list of strings")
    if el.type not in ("XCUIElementTypeTextField", "XCUIElementTypeSecureTextField",
                       "XCUIElementTypeSearchField", "XCUIElementTypeTextView"):
        raise WdaError(400, "invalid element state", f"Cannot type into {el.type} '{el.name}': not a text input")
    if not el.focused:
        # Focus like a finger would, then type at the end; the model masks secure text, so re-setting
        # the current value is only safe for plain fields.
        if el.visible and not el.node.password:
            s.device.set_text(el.node, el.node.text)
        else:
            s._tap_element(req, el)
    type_text(s, text)
    return None


@_route("POST", "element/:id/clear", "action")
def _el_clear(s: WdaSimServer, req: Req) -> Any:
    el = s._element(req)
    s.device.set_text(el.node, "")
    return None


@_route("POST", "wda/element/:id/touchAndHold", "action")
def _el_touch_and_hold(s: WdaSimServer, req: Req) -> Any:
    el = s._element(req)
    duration = req.num("duration") if "duration" in req.body else 1.0
    s._gesture_time(duration)
    s.device.long_press(*el.frame.center, duration)
    return None


@_route("POST", "wda/element/:id/pinch", "action")
def _el_pinch(s: WdaSimServer, req: Req) -> Any:
    el = s._element(req)
    scale, velocity = req.num("scale"), req.num("velocity")
    if scale <= 0:
        raise bad_arg(f"'scale' must be greater than zero, got {scale:g}")
    if (scale < 1 and velocity > 0) or (scale > 1 and velocity < 0):
        # XCTest's own rule for pinchWithScale:velocity: (WDA passes the exception on).
        raise WdaError(500, "unknown error",
                        f"velocity must be less than zero when scale is less than 1 (scale {scale:g}, "
                        f"velocity {velocity:g})")
    # Two fingers move from the centre by the scale change, at |velocity| scale factors per second.
    seconds = abs(math.log(scale)) / abs(velocity) if velocity else 0.0
    s._gesture_time(seconds)
    s.device.pinch(*el.frame.center, scale)
    return None


@_route("POST", "wda/element/:id/doubleTap", "action")
def _el_double_tap(s: WdaSimServer, req: Req) -> Any:
    s.device.double_tap(*s._element(req).frame.center)
    return None


@_route("POST", "wda/element/:id/swipe", "action")
def _el_swipe(s: WdaSimServer, req: Req) -> Any:
    _swipe_in(s, s._element(req).frame, req.string("direction"))
    return None


@_route("POST", "wda/element/:id/scroll", "action")
def _el_scroll(s: WdaSimServer, req: Req) -> Any:
    el = s._element(req)
    if req.body.get("toVisible"):
        s._scroll_to_visible(req, el)
        return None
    if "direction" in req.body:
        # Scrolling "down" reveals content further down: the finger moves up.
        direction = req.string("direction")
        finger = {"down": "up", "up": "down", "left": "right", "right": "left"}.get(direction)
        if finger is None:
            raise bad_arg(f"Unsupported scroll direction '{direction}'")
        distance = req.num("distance") if "distance" in req.body else 1.0
        target = _scroll_container(el) if not el.node.scrollable else el
        _swipe_in(s, (target or el).frame, finger, distance)
        return None
    if "name" in req.body or "predicateString" in req.body:
        wanted = req.string("name") if "name" in req.body else None
        pred = req.string("predicateString") if "predicateString" in req.body else None
        for e in req.snapshot.flat[el.order + 1 : el.end]:
            if (wanted is not None and e.name == wanted) or (
                pred is not None and e in find_predicate(req.snapshot, pred, el)
            ):
                s._scroll_to_visible(req, e)
                return None
        raise _no_element(f"name '{wanted}'" if wanted else f"predicate '{pred}'")
    raise bad_arg("scroll needs one of toVisible, direction, name or predicateString")


# --- HTTP ---------------------------------------------------------------------------------------


_FOREIGN_HOST = json.dumps(
    {"value": {"error": "forbidden", "message": "this server answers only requests to localhost / 127.0.0.1 / [::1]"}}
).encode()


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    wda: WdaSimServer

    def verify_request(self, request: Any, client_address: Any) -> bool:
        return not self.wda.private or from_this_process(request)


class _Handler_(BaseHTTPRequestHandler):
    server: _HttpServer
    protocol_version = "HTTP/1.1"
    server_version = "WebDriverAgent-sim"

    def _serve(self, method: str) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        raw = self.rfile.read(length) if length > 0 else b""
        self.close_connection = True
        if not loopback_host(self.headers.get("Host")):
            status, body = 403, _FOREIGN_HOST
        else:
            outcome = self.server.wda.handle(method, self.path, raw)
            if not isinstance(outcome, tuple):
                return  # an injected dropped connection: close without a byte
            status, body = outcome
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def do_DELETE(self) -> None:
        self._serve("DELETE")

    def do_PUT(self) -> None:
        self._serve("PUT")

    def log_message(self, format: str, *args: Any) -> None:
        pass
