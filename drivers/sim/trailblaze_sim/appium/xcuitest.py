"""What an Appium client sees through the XCUITest driver, answered by the simulated WebDriverAgent.

Appium's appium-xcuitest-driver is mostly a proxy in front of WebDriverAgent: W3C routes go to WDA
unchanged and its `mobile:` execute methods are mapped onto WDA routes. `XcuitestSimServer` is a WDA
server whose route table (`ROUTES`) starts from a copy of WDA's and wraps or adds what that driver
answers itself or translates, so that an unmodified Appium client (Appium-Python-Client, `webdriver.Remote(url, options=XCUITestOptions())`) can talk to
the simulator as if it were an Appium server with the XCUITest driver on an iOS Simulator:

- `POST /session` with W3C capabilities that carry `platformName` or `appium:`-prefixed keys is an
  Appium session. Non-standard capabilities must carry a vendor prefix (else `invalid argument`);
  `platformName` must be iOS and `appium:automationName` XCUITest. On a Simulator the driver's fast
  reset (`noReset` false, the default) terminates the app and wipes its data container before the
  session starts; `fullReset` also clears the pasteboard. The WDA session is then created the way
  the driver does it: `bundleId` (none with `autoLaunch: false`), `processArguments.args/env` as
  `arguments`/`environment`, `shouldTerminateApp`/`forceAppLaunch` (default true, false under
  `noReset`). The answer is Appium's: the capabilities without prefixes, merged with the driver's
  default server capabilities, `udid` and `platformVersion`. Ending the session terminates the app
  it launched unless `shouldTerminateApp` is false (WDA's `-[FBSession kill]`).
- `POST /session/:id/actions` is WDA's own W3C synthesizer (FBW3CActionsSynthesizer), after the
  driver's preprocessing when an Appium session sends it (every pointer becomes `touch`, zero-length
  pauses are dropped; WDA alone accepts only `touch`): each input source is its own timeline (offsets
  add up the items' durations, no tick alignment); a pointer chain must start with `pointerMove`,
  which already touches the screen; `pointerDown` right after that first move joins its touch, any
  other `pointerDown` starts a new one; key chains type the `keyUp` values of each key group when the
  group ends. `DELETE /session/:id/actions` is a no-op in the driver.
- `POST /session/:id/execute/sync` (and the legacy `/execute`) runs the `mobile:` methods with the
  driver's argument names and return values; a script that is no execute method answers
  `unknown method` ("Method is not implemented", HTTP 405) in the native context, as the driver does.
- `GET .../se/log/types` and `.../log/types` list the driver's log types; `POST .../se/log` and
  `.../log` with `{"type": "syslog"}` drain the entries captured since the last read (the Simulator's
  `log stream --style compact` lines, `{"timestamp": ms, "level": "ALL", "message": line}`).
- `POST /session/:id/back` taps the navigation bar's button labelled "Back" (else its first button);
  with neither it does nothing and succeeds, as the driver's `nativeBack` does.
- `GET /session/:id/source` of an Appium session is `format=xml&scope=AppiumAUT`: WDA wraps the tree
  in an `<AppiumAUT>` element. Element finding takes the driver's locator rewrites
  (`-ios predicate string`, `-ios class chain`, short `class name`s).

Routes only the driver has (execute, logs, back, timeouts, `DELETE /actions`, the legacy `/keys` and
clipboard routes) answer WDA's `unknown command` outside an Appium session; a facebook-wda session
sees WDA's own answers. What the simulator does not model is said next to the code that stops
short of it.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import functools
import json
import math
import plistlib
import re
import weakref
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from trailblaze_sim.device.log import DeviceLog, LogEntry
from trailblaze_sim.faults import RequestKind
from trailblaze_sim.ios.source import SPRINGBOARD
from trailblaze_sim.ios.wda import (
    ELEMENT_KEY,
    OS_VERSION,
    WDA_ROUTES,
    Handler,
    Req,
    WdaError,
    WdaSimServer,
    bad_arg,
    on_screen,
    type_text,
    unknown_bundle,
)
from trailblaze_sim.model import SteppedClock, deep_link_app

__all__ = ["ROUTES", "XcuitestSimServer"]

_W3C_ELEMENT_KEYS = (ELEMENT_KEY, "ELEMENT")

ROUTES = WDA_ROUTES.copy()
"""WDA's routes with the XCUITest driver's in front: the ones it wraps and the ones only it answers
(registered below into this copy; WDA's own table stays as it is)."""


class XcuitestSimServer(WdaSimServer):
    """The simulated WebDriverAgent behind Appium's XCUITest driver: a facebook-wda client sees WDA,
    an Appium client (W3C capabilities with `platformName` / `appium:` keys) the driver."""

    routes = ROUTES


# --- per-server Appium state -------------------------------------------------------------------


@dataclass
class _Session:
    id: str
    caps: dict[str, Any]
    """What session creation answered (Appium's processed capabilities)."""
    tested: str | None
    """The bundle the WDA session launched (what `-[FBSession kill]` terminates)."""
    terminate_on_quit: bool
    log_cursor: int
    """`DeviceLog.written` at the last syslog read: the driver's log buffer is drained by every read."""
    safari_logs: frozenset[str]
    timeouts: dict[str, int | None] = field(default_factory=lambda: {"implicit": 0, "pageLoad": 300000,
                                                                     "script": 30000})


@dataclass
class _Appium:
    session: _Session | None = None
    removed: set[str] = field(default_factory=set)
    """Apps of the device's app spec uninstalled through `mobile: removeApp` (the device keeps the
    spec; Appium-side routes treat them as absent until `mobile: installApp` brings them back)."""
    extra: dict[str, str] = field(default_factory=dict)
    """Bundles installed from an `.app`/`.ipa` that is not the spec's app: bundle id -> source path.
    They have no UI in the simulator."""


_STATE: weakref.WeakKeyDictionary[WdaSimServer, _Appium] = weakref.WeakKeyDictionary()


def _state(s: WdaSimServer) -> _Appium:
    st = _STATE.get(s)
    if st is None:
        st = _STATE[s] = _Appium()
    return st


def _session(s: WdaSimServer) -> _Session | None:
    """The Appium session, if the active WDA session is one (a later facebook-wda session replaces it)."""
    st = _STATE.get(s)
    if st is None or st.session is None or st.session.id != s.session_id:
        return None
    return st.session


def _current(s: WdaSimServer) -> _Session:
    """The Appium session of a driver route (which only runs in one)."""
    session = _session(s)
    assert session is not None
    return session


def _spec_app(s: WdaSimServer) -> set[str]:
    return {a.app_id for a in s.device.installed_apps()}


def _installed(s: WdaSimServer, bundle: str) -> bool:
    st = _state(s)
    return (bundle in _spec_app(s) and bundle not in st.removed) or bundle in st.extra


def _require_runnable(s: WdaSimServer, bundle: str) -> None:
    """Launching needs an installed app the simulator has a UI for."""
    st = _state(s)
    if bundle in st.extra:
        raise _unknown(f"{bundle} is installed, but the simulator cannot run it: only the app spec has a UI")
    if bundle in st.removed:
        raise unknown_bundle(bundle)


# --- route table hooks -------------------------------------------------------------------------


def _override(method: str, path: str) -> Callable[[Callable[[Handler, WdaSimServer, Req], Any]], None]:
    """Wrap the handler WDA answers `method path` with, in this server's table; the wrapper gets it first."""

    def deco(wrapper: Callable[[Handler, WdaSimServer, Req], Any]) -> None:
        ROUTES.wrap(method, path, wrapper)

    return deco


def _driver_route(method: str, path: str, kind: RequestKind = "other") -> Callable[[Handler], Handler]:
    """A route the XCUITest driver answers itself: WDA has none, so outside an Appium session it is
    WDA's unknown command."""

    def deco(fn: Handler) -> Handler:
        def handler(s: WdaSimServer, req: Req) -> Any:
            if _session(s) is None:
                raise WdaError(404, "unknown command",
                                f"Unhandled endpoint: {req.path} -- http://{urlsplit(s.url).hostname}/")
            return fn(s, req)

        ROUTES.route(method, path, kind)(handler)
        return fn

    return deco


def _proxy(s: WdaSimServer, req: Req, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """What the driver's `proxyCommand` does: one WDA request (None values dropped, as JSON.stringify does)."""
    split = urlsplit(path)
    segs = [p for p in split.path.split("/") if p]
    route, params = s.routes.match(method, segs)
    if route is None:
        raise WdaError(404, "unknown command", f"Unhandled endpoint: /{split.path.strip('/')}")
    sub = Req(
        method=method,
        path="/" + split.path.strip("/"),
        params=params,
        body={k: v for k, v in (body or {}).items() if v is not None},
        query={k: v[-1] for k, v in parse_qs(split.query).items()},
        snapshot_fn=req.snapshot_fn,
        empty_dump=req.empty_dump,
    )
    return route.handler(s, sub)


def _invalid(message: str) -> WdaError:
    return WdaError(400, "invalid argument", message)


def _unknown(message: str) -> WdaError:
    # Appium turns a plain `Error` thrown by the driver into this.
    return WdaError(500, "unknown error", message)


def _missing_params(required: tuple[str, ...], optional: tuple[str, ...], given: list[str]) -> WdaError:
    # Appium base driver's BadParametersError wording.
    missing = [p for p in required if p not in given]
    lines = [f"The following required parameter{' is' if len(missing) == 1 else 's are'} missing: "
             f"{json.dumps(missing)}"]
    if required:
        lines.append(f"Known required parameters are: {json.dumps(list(required))}")
    if optional:
        lines.append(f"Known optional parameters are: {json.dumps(list(optional))}")
    lines.append(f"You have provided{': ' + json.dumps(given) if given else ' none'}")
    return _invalid("\n".join(lines))


def _require_body(req: Req, *names: str) -> None:
    if any(n not in req.body for n in names):
        raise _missing_params(names, (), list(req.body))


# --- session -----------------------------------------------------------------------------------

_STANDARD_CAPS = frozenset({
    "browserName", "browserVersion", "platformName", "acceptInsecureCerts", "pageLoadStrategy", "proxy",
    "setWindowRect", "timeouts", "strictFileInteractability", "unhandledPromptBehavior", "userAgent",
    "webSocketUrl",
})
# The XCUITest driver's `defaultServerCaps`, merged under every session's capabilities.
_DEFAULT_SERVER_CAPS: dict[str, Any] = {
    "webStorageEnabled": False,
    "locationContextEnabled": False,
    "browserName": "",
    "platform": "MAC",
    "javascriptEnabled": True,
    "databaseEnabled": False,
    "takesScreenshot": True,
    "networkConnectionEnabled": False,
}


def _w3c_caps(body: dict[str, Any]) -> list[dict[str, Any]] | None:
    """`alwaysMatch` merged with each `firstMatch` entry, or None when this is no Appium request."""
    caps = body.get("capabilities")
    if not isinstance(caps, dict):
        return None
    raw_always, raw_first = caps.get("alwaysMatch"), caps.get("firstMatch")
    always: dict[str, Any] = raw_always if isinstance(raw_always, dict) else {}
    first: list[Any] = raw_first if isinstance(raw_first, list) and raw_first else [{}]
    merged = [{**always, **f} for f in first if isinstance(f, dict)] or [dict(always)]
    # facebook-wda sends bare WDA capabilities (bundleId, arguments, ...): Appium clients always send
    # platformName and `appium:` keys.
    if not any("platformName" in m or any(str(k).startswith("appium:") for k in m) for m in merged):
        return None
    return merged


def _strip_prefixes(caps: dict[str, Any]) -> dict[str, Any]:
    bare = [k for k in caps if ":" not in k and k not in _STANDARD_CAPS]
    if bare:
        raise _invalid("All non-standard capabilities should have a vendor prefix. The following capabilities "
                       f"did not have one: {','.join(bare)}")
    return {(k[len("appium:"):] if k.startswith("appium:") else k): v for k, v in caps.items()}


def _matching_caps(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    errors: list[str] = []
    for raw in candidates:
        caps = _strip_prefixes(raw)
        platform, automation = caps.get("platformName"), caps.get("automationName")
        if not isinstance(platform, str):
            errors.append("You must include a platformName capability")
        elif not isinstance(automation, str):
            errors.append("You must include an automationName capability")
        elif platform.lower() != "ios" or automation.lower() != "xcuitest":
            errors.append(
                f"Could not find a driver for automationName '{automation}' and platformName '{platform}'. "
                "Have you installed a driver that supports those capabilities? Run 'appium driver list "
                "--installed' to see. (Lower-level error: the simulated WebDriverAgent is an iOS Simulator "
                "behind the XCUITest driver)"
            )
        else:
            return caps
    raise _unknown(errors[0])


def _process_arguments(caps: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    raw = caps.get("processArguments")
    if raw is None:
        return [], {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise _unknown("processArguments must be a JSON format or an object with format "
                           f"{{args : [], env : {{a:b, c:d}}}}. Both environment and argument can be null. "
                           f"Error: {exc}") from None
    if not isinstance(raw, dict):
        raise _unknown("'processArguments must be an object, or a string JSON object with format "
                       "{args : [], env : {a:b, c:d}}. Both environment and argument can be null.")
    args, env = raw.get("args") or [], raw.get("env") or {}
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise _unknown("processArguments.args must be an array of strings")
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise _unknown("processArguments.env must be an object <key,value> pair {a:b, c:d}")
    return list(args), dict(env)


def _log_of(s: WdaSimServer) -> DeviceLog | None:
    log = getattr(s.device, "log", None)
    return log if isinstance(log, DeviceLog) else None


def _end_session(s: WdaSimServer) -> None:
    """WDA's `-[FBSession kill]` for the Appium session in place: its tested app stops with it."""
    session = _session(s)
    st = _STATE.get(s)
    if st is not None:
        st.session = None
    if session is None or not session.terminate_on_quit or session.tested is None:
        return
    if s.device.app_state(session.tested) > 1:
        s.device.terminate(session.tested)


@_override("POST", "session")
def _new_session(original: Handler, s: WdaSimServer, req: Req) -> Any:
    candidates = _w3c_caps(req.body)
    if candidates is None:
        _end_session(s)  # WDA kills the session in place before it creates the next one
        return original(s, req)
    caps = _matching_caps(candidates)
    d = s.device
    udid = caps.get("udid")
    if udid is not None and udid not in (d.serial, "auto"):
        raise _unknown(f"Unknown device or simulator UDID: '{udid}'")
    log = _log_of(s)
    # Log capture starts before the reset and the launch, so the session's syslog sees them.
    cursor = log.written if log is not None else 0
    bundle = caps.get("bundleId")
    if bundle is not None and (not isinstance(bundle, str) or not bundle):
        raise _unknown(f"'bundleId' must be a non-empty string, got {bundle!r}")
    app = caps.get("app")
    if isinstance(app, str) and app:
        installed = _install(s, app)
        bundle = bundle or installed
    no_reset, full_reset = caps.get("noReset") is True, caps.get("fullReset") is True
    if bundle is not None and (full_reset or not no_reset) and bundle in _spec_app(s):
        # Fast reset on a Simulator: terminate, then scrub the app's data container.
        d.clear_app_data(bundle)
    if full_reset:
        # A full reset erases the whole Simulator; the pasteboard is what else the model holds.
        d.clipboard = ""
    if bundle is not None and not _installed(s, bundle):
        raise _unknown(f"App with bundle identifier '{bundle}' unknown")
    if bundle is not None:
        _require_runnable(s, bundle)
    args, env = _process_arguments(caps)
    if isinstance(caps.get("language"), str):
        args += ["-AppleLanguages", f"({caps['language']})", "-NSLanguages", f"({caps['language']})"]
    if isinstance(caps.get("locale"), str):
        args += ["-AppleLocale", caps["locale"]]
    if isinstance(caps.get("appTimeZone"), str):
        env["TZ"] = caps["appTimeZone"]

    def flag(name: str) -> bool:
        value = caps.get(name)
        return (not no_reset) if value is None else value is not False

    launch = None if caps.get("autoLaunch") is False else bundle
    wda_caps: dict[str, Any] = {
        "arguments": args,
        "environment": env,
        "shouldWaitForQuiescence": True,
        "shouldTerminateApp": flag("shouldTerminateApp"),
        "forceAppLaunch": flag("forceAppLaunch"),
    }
    if launch is not None:
        wda_caps["bundleId"] = launch
    if caps.get("autoAcceptAlerts") is True:
        wda_caps["defaultAlertAction"] = "accept"
    elif caps.get("autoDismissAlerts") is True:
        wda_caps["defaultAlertAction"] = "dismiss"
    wda_req = Req(method="POST", path=req.path, params={}, body={"capabilities": {"firstMatch": [wda_caps],
                                                                                   "alwaysMatch": {}}},
                   query={}, snapshot_fn=req.snapshot_fn, empty_dump=req.empty_dump)
    # Only a request that got this far reaches WDA, which kills the session in place first.
    _end_session(s)
    answer = original(s, wda_req)
    session_id = answer["sessionId"]
    link = caps.get("initialDeeplinkUrl")
    if isinstance(link, str) and link:
        _proxy(s, req, "POST", "url", {"url": link, "bundleId": launch})
    out = {**_DEFAULT_SERVER_CAPS, **caps, "udid": d.serial, "platformVersion": OS_VERSION}
    safari = frozenset(name for name, cap in (("safariConsole", "showSafariConsoleLog"),
                                              ("safariNetwork", "showSafariNetworkLog"))
                       if isinstance(caps.get(cap), bool))
    _state(s).session = _Session(
        id=session_id, caps=out, tested=launch, terminate_on_quit=wda_caps["shouldTerminateApp"],
        log_cursor=cursor, safari_logs=safari,
    )
    return {"sessionId": session_id, "capabilities": out}


@_override("GET", ":session")
def _session_info(original: Handler, s: WdaSimServer, req: Req) -> Any:
    session = _session(s)
    if session is None:
        return original(s, req)
    # The driver answers this itself (it is on its no-proxy list): its own capabilities.
    return dict(session.caps)


@_override("DELETE", ":session")
def _delete_session(original: Handler, s: WdaSimServer, req: Req) -> Any:
    _end_session(s)
    return original(s, req)


@_driver_route("GET", "timeouts")
def _get_timeouts(s: WdaSimServer, req: Req) -> Any:
    return dict(_current(s).timeouts)


@_driver_route("POST", "timeouts")
def _set_timeouts(s: WdaSimServer, req: Req) -> Any:
    # Stored and answered; the simulator's finds never wait, whatever `implicit` says.
    session = _current(s)
    for key in ("implicit", "pageLoad", "script"):
        if key in req.body:
            value = req.body[key]
            if isinstance(value, bool) or not (value is None or (isinstance(value, int) and value >= 0)):
                raise _invalid(f"'{key}' must be a non-negative integer, got {value!r}")
            session.timeouts[key] = value
    return None


# --- finding: the driver's locator rewrites ---------------------------------------------------


def _xcuitest_locator(body: dict[str, Any]) -> dict[str, Any]:
    using, value = body.get("using"), body.get("value")
    if not isinstance(using, str) or not isinstance(value, str):
        return body
    if using == "-ios predicate string":
        using = "predicate string"
    elif using == "-ios class chain":
        using = "class chain"
    elif using == "class name":
        if value.startswith("UIA"):
            value = value[3:]
        if not value.startswith("XCUIElementType"):
            value = "XCUIElementType" + value
    return {**body, "using": using, "value": value}


def _find_override(path: str) -> None:
    @_override("POST", path)
    def _find(original: Handler, s: WdaSimServer, req: Req) -> Any:
        if _session(s) is not None:
            req.body = _xcuitest_locator(req.body)
        return original(s, req)


for _path in ("element", "elements", "element/:id/element", "element/:id/elements"):
    _find_override(_path)


# --- source ------------------------------------------------------------------------------------


@_override("GET", "source")
def _source(original: Handler, s: WdaSimServer, req: Req) -> Any:
    if _session(s) is not None and not req.query:
        # The driver's getPageSource: `GET /source?format=xml&scope=AppiumAUT`.
        req.query = {"format": "xml", "scope": "AppiumAUT"}
    doc = original(s, req)
    if not isinstance(doc, str) or req.query.get("format", "xml").lower() != "xml":
        return doc
    excluded = [a.strip() for a in req.query.get("excluded_attributes", "").split(",") if a.strip()]
    for attr in excluded:
        doc = re.sub(rf'\s{re.escape(attr)}="[^"]*"', "", doc)
    scope = req.query.get("scope")
    if scope:
        # WDA writes the scope as an element around the whole tree (libxml2 keeps the 2-space indent).
        head, _, rest = doc.partition("\n")
        body = "\n".join("  " + line if line else line for line in rest.rstrip("\n").split("\n"))
        doc = f"{head}\n<{scope}>\n{body}\n</{scope}>\n"
    return doc


# --- W3C actions -------------------------------------------------------------------------------

_POINTER_ITEMS = ("pause", "pointerUp", "pointerDown", "pointerMove")
_KEY_ITEMS = ("pause", "keyUp", "keyDown")
_TAP_SLOP = 10.0
"""Points a finger may drift and still tap (UIKit's touch slop is about this)."""
_LONG_PRESS_S = 0.5
"""UILongPressGestureRecognizer's default minimumPressDuration."""
_DOUBLE_TAP_S = 0.3
_DOUBLE_TAP_SLOP = 24.0
"""How soon and how near a second tap must land to make a double tap (the device model's window)."""


@dataclass
class _Touch:
    points: list[tuple[float, float, float]]
    """(offset s, x, y): where the finger landed, then where each move took it."""
    source: int
    up: float | None = None

    @property
    def lifted(self) -> float:
        """When the finger left the screen (its last point's time while it has not)."""
        return self.up if self.up is not None else self.points[-1][0]

    def moved(self) -> bool:
        _, x0, y0 = self.points[0]
        return any(math.hypot(x - x0, y - y0) > _TAP_SLOP for _, x, y in self.points[1:])


def _describe(item: dict[str, Any]) -> str:
    return json.dumps(item, ensure_ascii=False)


def _synth_error(message: str) -> WdaError:
    # WDA's `handlePerformW3CTouchActions` answers every synthesis failure as an unknown error.
    return WdaError(500, "unknown error", message)


def _duration_of(item: dict[str, Any], default: float | None) -> float:
    raw = item.get("duration")
    if raw is None:
        if default is None:
            raise _synth_error(f"Duration must be present for '{_describe(item)}' action item")
        return default
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < 0:
        raise _synth_error(f"Duration must be a valid positive number for '{_describe(item)}' action item")
    return float(raw) / 1000.0


def _coordinate(item: dict[str, Any], key: str) -> float | None:
    raw = item.get(key)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise _invalid(f"'{key}' of '{_describe(item)}' must be a number")
    return float(raw)


def _element_ref(value: Any) -> str | None:
    if isinstance(value, dict):
        for key in _W3C_ELEMENT_KEYS:
            if isinstance(value.get(key), str):
                return str(value[key])
        return None
    return value if isinstance(value, str) and value not in ("viewport", "pointer") else None


def _move_target(s: WdaSimServer, req: Req, item: dict[str, Any],
                 current: tuple[float, float] | None) -> tuple[float, float]:
    origin = item.get("origin", "viewport")
    x, y = _coordinate(item, "x"), _coordinate(item, "y")
    if (x is None) != (y is None) or (origin == "viewport" and x is None):
        raise _synth_error(f"Both 'x' and 'y' options should be set for '{_describe(item)}' action item")
    if origin == "viewport":
        assert x is not None and y is not None
        return x, y
    if origin == "pointer":
        if current is None:
            raise _synth_error(f"There is no previous item for '{_describe(item)}' action item, however origin "
                               "is set to 'pointer'")
        return current[0] + (x or 0.0), current[1] + (y or 0.0)
    eid = _element_ref(origin)
    if eid is None:
        raise _synth_error(f"Unsupported origin type '{json.dumps(origin)}' is set for '{_describe(item)}' "
                           "action item. Supported origin types: (pointer, viewport) or an element instance")
    el = s._element(req, eid)
    f = el.frame
    if f.width <= 0 or f.height <= 0:
        raise _synth_error(f"The element '{el.type}' is not visible on the screen and thus is not interactable")
    # The W3C spec (and WDA) count element offsets from the element's centre.
    cx, cy = f.center
    return cx + (x or 0.0), cy + (y or 0.0)


def _pointer_chain(s: WdaSimServer, req: Req, sid: str, index: int,
                   items: list[dict[str, Any]]) -> list[_Touch]:
    offset = 0.0
    pos: tuple[float, float] | None = None
    touches: list[_Touch] = []
    current: _Touch | None = None
    for i, item in enumerate(items):
        kind = item.get("type")
        if not isinstance(kind, str):
            raise _synth_error(f"The type property is mandatory to set for '{_describe(item)}' action item")
        if kind not in _POINTER_ITEMS:
            raise _synth_error(f"'{sid}' action item type '{kind}' is not supported. Only the following action "
                               f"item types are supported: ({', '.join(_POINTER_ITEMS)})")
        duration = _duration_of(item, 0.0)
        if kind == "pointerMove":
            pos = _move_target(s, req, item, pos)
            at = offset + duration
            if current is None:
                # WDA starts the touch with the first move: a lone move taps.
                current = _Touch([(at, *pos)], index)
                touches.append(current)
            elif current.up is None:
                current.points.append((at, *pos))
        elif pos is None:
            raise _synth_error(f"The '{_describe(item)}' action item must be preceded by pointerMove item")
        elif kind == "pointerDown":
            if not (current is not None and i == 1 and items[0].get("type") == "pointerMove"):
                current = _Touch([(offset, *pos)], index)
                touches.append(current)
        elif kind == "pointerUp" and current is not None and current.up is None:
            current.up = offset
        offset += duration
    for t in touches:
        if t.up is None:  # never lifted: the synthesized event ends with the chain
            t.up = max(offset, t.points[-1][0])
    return touches


_SPECIAL_KEYS: dict[int, str] = {
    0xE000: "", 0xE003: "\b", 0xE004: "\t", 0xE006: "\r", 0xE007: "\n", 0xE00C: "\x1b", 0xE00D: " ",
    0xE05D: " ", 0xE017: "\x7f", 0xE018: ";", 0xE019: "=", 0xE024: "*", 0xE025: "+", 0xE026: ",",
    0xE027: "-", 0xE028: ".", 0xE029: "/", **{0xE01A + n: str(n) for n in range(10)},
}


def _key_char(value: str) -> str:
    code = ord(value[0])
    if code in _SPECIAL_KEYS:
        return _SPECIAL_KEYS[code]
    return "" if 0xE000 <= code <= 0xE05D else value


def _key_chain(sid: str, items: list[dict[str, Any]]) -> list[tuple[float, str]]:
    """(offset s, text) of each key group, typed when its last `keyUp` happens."""
    parsed: list[tuple[str, str, float]] = []
    for item in items:
        kind = item.get("type")
        if not isinstance(kind, str):
            raise _synth_error(f"The type property is mandatory to set for '{_describe(item)}' action item")
        if kind not in _KEY_ITEMS:
            raise _synth_error(f"'{sid}' action item type '{kind}' is not supported. Only the following action "
                               f"item types are supported: ({', '.join(_KEY_ITEMS)})")
        if kind == "pause":
            parsed.append((kind, "", _duration_of(item, None)))
            continue
        value = item.get("value")
        if not isinstance(value, str) or not value:
            raise _synth_error(f"Key value must be present and should be a valid non-empty string for "
                               f"'{_describe(item)}'")
        parsed.append((kind, value[0], 0.0))
    out: list[tuple[float, str]] = []
    offset = 0.0
    start = 0
    for i, (kind, value, duration) in enumerate(parsed):
        if kind == "pause":
            offset += duration
            start = i + 1
            continue
        end = next((j for j in range(i, len(parsed)) if parsed[j][0] == "pause"), len(parsed))
        group = parsed[start:end]
        if kind == "keyDown":
            later = [(k, v) for k, v, _ in parsed[i + 1 : end] if v == value]
            if sum(1 if k == "keyUp" else -1 for k, _ in later) != 1:
                raise _synth_error(f"Key Down action '{value}' must have a closing Key Up successor in "
                                   f"'{_describe(items[i])}'")
        else:
            earlier = [(k, v) for k, v, _ in parsed[start:i] if v == value]
            if sum(1 if k == "keyDown" else -1 for k, _ in earlier) != 1:
                raise _synth_error(f"Key Up action '{value}' is not balanced with a preceding Key Down one in "
                                   f"'{_describe(items[i])}'")
            if i == end - 1:
                out.append((offset, "".join(_key_char(v) for k, v, _ in group if k == "keyUp")))
    return out


def _preprocess(actions: Any, *, driver: bool) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """WDA's validation, after the driver's preprocessing when an Appium client sent the actions:
    (id, type, items) of each non-empty source."""
    if not isinstance(actions, list):
        raise _invalid("'actions' must be an array of action sequences")
    if not actions:
        raise _synth_error("Actions list cannot be empty")
    seen: set[str] = set()
    out: list[tuple[str, str, list[dict[str, Any]]]] = []
    for source in actions:
        if not isinstance(source, dict):
            raise _synth_error(f"Each action must be an object, got {json.dumps(source)}")
        sid = source.get("id")
        if not isinstance(sid, str) or not sid:
            raise _synth_error(f"The mandatory action id field is missing or empty for '{json.dumps(source)}'")
        if sid in seen:
            raise _synth_error(f"Action id '{sid}' is not unique for '{json.dumps(source)}'")
        seen.add(sid)
        items = source.get("actions")
        if not isinstance(items, list):
            raise _synth_error(f"It is mandatory to have at least one item defined for each action. Action with "
                               f"id '{sid}' contains none")
        if not all(isinstance(i, dict) for i in items):
            raise _synth_error(f"Every item of action '{sid}' must be an object")
        kind = source.get("type")
        if driver:
            # Selenium pads every source with zero pauses to align their ticks, and its default
            # pointer is a mouse: the driver drops the former and makes every pointer a touch.
            items = [i for i in items if not (i.get("type") == "pause" and i.get("duration") == 0)]
            pointer_type: Any = "touch"
        else:
            parameters = source.get("parameters")
            pointer_type = parameters.get("pointerType", "mouse") if isinstance(parameters, dict) else "mouse"
        if not items:
            continue  # WDA logs "had an empty array. Skipping the action."
        if kind not in ("pointer", "key"):
            raise _synth_error(f"Only actions of '(pointer, key)' types are supported. '{kind}' is given instead "
                               f"for action with id '{sid}'")
        if kind == "pointer" and pointer_type != "touch":
            raise _synth_error(f"Only pointer type 'touch' is supported. '{pointer_type}' is given instead for "
                               f"action with id '{sid}'")
        # A pointerCancel cancels the item before it (WDA reads the chain backwards).
        kept: list[dict[str, Any]] = []
        skip = False
        for item in reversed(items):
            if skip:
                skip = False
                continue
            if item.get("type") == "pointerCancel":
                skip = True
                continue
            kept.append(item)
        out.append((sid, kind, list(reversed(kept))))
    return out


def _pinch_pairs(touches: list[_Touch]) -> list[tuple[_Touch, _Touch]]:
    pairs: list[tuple[_Touch, _Touch]] = []
    used: set[int] = set()
    for i, a in enumerate(touches):
        for j in range(i + 1, len(touches)):
            b = touches[j]
            if i in used or j in used or a.source == b.source or not (a.moved() and b.moved()):
                continue
            if a.points[0][0] < b.lifted and b.points[0][0] < a.lifted:
                pairs.append((a, b))
                used |= {i, j}
    return pairs


def _perform(s: WdaSimServer, req: Req, sources: list[tuple[str, str, list[dict[str, Any]]]]) -> None:
    touches: list[_Touch] = []
    typing: list[tuple[float, str]] = []
    for index, (sid, kind, items) in enumerate(sources):
        if kind == "pointer":
            touches += _pointer_chain(s, req, sid, index, items)
        else:
            typing += _key_chain(sid, items)
    end = max([t.lifted for t in touches] + [at for at, _ in typing] + [0.0])
    d = s.device
    # Each touch becomes one device gesture at the moment UIKit would recognise it; typing happens at
    # its own offset, so a key chain without pauses types before a tap that lifts later.
    ops: list[tuple[float, int, Callable[[], Any]]] = []

    def add(at: float, op: Callable[[], Any]) -> None:
        ops.append((at, len(ops), op))

    pinched: set[int] = set()
    for a, b in _pinch_pairs(touches):
        pinched |= {id(a), id(b)}
        (_, ax0, ay0), (_, bx0, by0) = a.points[0], b.points[0]
        (_, ax1, ay1), (_, bx1, by1) = a.points[-1], b.points[-1]
        scale = math.hypot(bx1 - ax1, by1 - ay1) / (math.hypot(bx0 - ax0, by0 - ay0) or 1.0)
        add(max(a.lifted, b.lifted), functools.partial(d.pinch, (ax0 + bx0) / 2, (ay0 + by0) / 2, scale))
    taps: list[_Touch] = []
    for t in sorted(touches, key=lambda t: t.points[0][0]):
        if id(t) in pinched:
            continue
        t0, x0, y0 = t.points[0]
        if t.moved():
            # From where the finger started moving to where it ended, for as long as it moved.
            first = next(i for i, (_, x, y) in enumerate(t.points) if (x, y) != (x0, y0))
            seconds = max(t.points[-1][0] - t.points[first - 1][0], 0.05)
            fx, fy = on_screen(s, x0, y0)
            tx, ty = on_screen(s, t.points[-1][1], t.points[-1][2])
            add(t.lifted, functools.partial(d.swipe, fx, fy, tx, ty, seconds))
        elif t.lifted - t0 >= _LONG_PRESS_S:
            add(t0 + _LONG_PRESS_S, functools.partial(d.long_press, x0, y0, t.lifted - t0))
        else:
            taps.append(t)
    i = 0
    while i < len(taps):
        a = taps[i]
        _, ax, ay = a.points[0]
        nxt = taps[i + 1] if i + 1 < len(taps) else None
        if nxt is not None and nxt.points[0][0] - a.lifted <= _DOUBLE_TAP_S \
                and math.hypot(nxt.points[0][1] - ax, nxt.points[0][2] - ay) < _DOUBLE_TAP_SLOP:
            add(nxt.lifted, functools.partial(d.double_tap, ax, ay))
            i += 2
        else:
            add(a.lifted, functools.partial(d.tap, ax, ay))
            i += 1
    for at, text in typing:
        if text:
            # The Simulator's keyboard has no escape key: XCTest types nothing for it.
            add(at, functools.partial(type_text, s, text.replace("\x1b", "")))
    # The gesture takes its time between the device events, not before them: a device whose clock
    # steps with its own waits sees two taps a second apart as two taps, not a double tap.
    clock = getattr(d, "clock", None)
    now = 0.0

    def elapse(until: float) -> None:
        nonlocal now
        if until > now:
            s._gesture_time(until - now)
            if isinstance(clock, SteppedClock):
                clock.advance(until - now)
            now = until

    for at, _, op in sorted(ops, key=lambda o: (o[0], o[1])):
        elapse(at)
        op()
    elapse(end)


@ROUTES.route("POST", "actions", "action")
def _actions(s: WdaSimServer, req: Req) -> Any:
    _require_body(req, "actions")
    _perform(s, req, _preprocess(req.body["actions"], driver=_session(s) is not None))
    return None


@_driver_route("DELETE", "actions")
def _release_actions(s: WdaSimServer, req: Req) -> Any:
    return None  # the XCUITest driver: "On this platform, releaseActions is a no-op"


@_driver_route("POST", "keys", "action")
def _legacy_keys(s: WdaSimServer, req: Req) -> Any:
    _require_body(req, "value")
    value = req.body["value"]
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    return _proxy(s, req, "POST", "wda/keys", {"value": value})


# --- navigation --------------------------------------------------------------------------------


@_driver_route("POST", "back", "action")
def _back(s: WdaSimServer, req: Req) -> Any:
    snap = req.snapshot
    bar = next((e for e in snap.flat if e.type == "XCUIElementTypeNavigationBar"), None)
    if bar is None:
        return None  # the driver logs "Unable to find navigation bar and back button" and succeeds
    buttons = [e for e in snap.flat[bar.order + 1 : bar.end] if e.type == "XCUIElementTypeButton"]
    target = next((e for e in buttons if e.label == "Back"), buttons[0] if buttons else None)
    if target is not None:
        s._tap_element(req, target)
    return None


# --- logs --------------------------------------------------------------------------------------

_LOG_TYPES = ("syslog", "crashlog", "performance", "safariConsole", "safariNetwork", "server")
# `log stream --style compact` type column for the app model's (logcat-style) priorities.
_LOG_KINDS = {"V": "Db", "D": "Db", "I": "I ", "W": "Df", "E": "E ", "F": "F "}
_SYSTEM_TAGS = frozenset({"ActivityManager"})
"""Tags the device model writes its app-lifecycle lines under (on the system's behalf, not the app's)."""


def _syslog_line(s: WdaSimServer, entry: LogEntry, day: datetime.date) -> tuple[str, int]:
    app = next(iter(s.device.installed_apps()), None)
    if app is not None and entry.tag not in _SYSTEM_TAGS:
        # An app's os_log line: its process, and its subsystem:category.
        process, subsystem = app.name, f" [{app.app_id}:{entry.tag}]"
    else:
        process, subsystem = SPRINGBOARD.name, ""
    when = datetime.datetime.combine(day, datetime.time()) + datetime.timedelta(seconds=entry.seconds % 86400)
    line = (f"{when:%Y-%m-%d %H:%M:%S}.{when.microsecond // 1000:03d} {_LOG_KINDS.get(entry.level, 'Df')} "
            f"{process}[{entry.pid}:{entry.tid:x}]{subsystem} {entry.message}")
    return line, int(when.timestamp() * 1000)


def _log_types(s: WdaSimServer, req: Req) -> Any:
    return list(_LOG_TYPES)


def _get_log(s: WdaSimServer, req: Req) -> Any:
    _require_body(req, "type")
    kind = req.body["type"]
    session = _current(s)
    if kind not in _LOG_TYPES:
        described = {
            "syslog": "System Logs - Device logs for iOS applications on real devices and simulators",
            "crashlog": "Crash Logs - Crash reports for iOS applications on real devices and simulators",
            "performance": "Performance Logs - Debug Timelines on real devices and simulators",
            "safariConsole": "Safari Console Logs - data written to the JS console in Safari",
            "safariNetwork": "Safari Network Logs - information about network operations undertaken by Safari",
            "server": "Appium server logs",
        }
        raise _unknown(f"Unsupported log type '{kind}'. Supported types: {json.dumps(described)}")
    if kind == "server":
        raise _unknown("Potentially insecure feature 'get_server_logs' has not been enabled. If you want to enable "
                       "this feature and accept the security ramifications, please do so by following the "
                       "documented instructions at http://appium.io/docs/en/latest/guides/security/")
    if kind == "crashlog":
        return []  # nothing in the simulated app crashes
    if kind in ("safariConsole", "safariNetwork"):
        if kind in session.safari_logs:
            return []  # no web view runs
        cap = "showSafariConsoleLog" if kind == "safariConsole" else "showSafariNetworkLog"
        raise _unknown(f"{kind} logs are not enabled. Make sure you've set a proper value to the "
                       f"'appium:{cap}' capability.")
    if kind == "performance":
        raise _unknown(f"No logs of type 'performance' found. Supported log types are: {','.join(_LOG_TYPES)}.")
    log = _log_of(s)
    if log is None:
        return []
    entries, session.log_cursor = log.since(session.log_cursor)
    day = datetime.date.today()
    out = []
    for entry in entries:
        line, stamp = _syslog_line(s, entry, day)
        out.append({"timestamp": stamp, "level": "ALL", "message": line})
    return out


for _prefix in ("se/", ""):
    _driver_route("GET", f"{_prefix}log/types")(_log_types)
    _driver_route("POST", f"{_prefix}log")(_get_log)


# --- legacy clipboard routes -------------------------------------------------------------------


@_driver_route("POST", "appium/device/get_clipboard")
def _legacy_get_clipboard(s: WdaSimServer, req: Req) -> Any:
    return _proxy(s, req, "POST", "wda/getPasteboard", {"contentType": req.body.get("contentType")})


@_driver_route("POST", "appium/device/set_clipboard", "action")
def _legacy_set_clipboard(s: WdaSimServer, req: Req) -> Any:
    _require_body(req, "content")
    return _proxy(s, req, "POST", "wda/setPasteboard", {"content": req.body["content"],
                                                        "contentType": req.body.get("contentType")})


# --- execute -----------------------------------------------------------------------------------

_MethodFn = Callable[[WdaSimServer, Req, dict[str, Any]], Any]


@dataclass(frozen=True)
class _Method:
    required: tuple[str, ...]
    optional: tuple[str, ...]
    fn: _MethodFn


_METHODS: dict[str, _Method] = {}

# Every execute method the XCUITest driver maps (appium-xcuitest-driver's execute-method-map): the
# ones below that the simulator does not model answer `unsupported operation`, any other script
# `unknown method`, as the driver answers a script it does not know in the native context.
_XCUITEST_METHODS = frozenset(f"mobile: {n}" for n in (
    "tap scroll selectPickerWheelValue sendMemoryWarning swipe pinch doubleTap twoFingerTap "
    "tapWithNumberOfTaps touchAndHold dragFromToForDuration rotateElement dragFromToWithVelocity forcePress "
    "scrollToElement alert setPasteboard getPasteboard source getAppStrings getContexts installApp "
    "isAppInstalled removeApp launchApp terminateApp killApp queryAppState activateApp listApps clearApp "
    "viewportScreenshot viewportRect startPerfRecord stopPerfRecord installCertificate removeCertificate "
    "listCertificates startLogsBroadcast stopLogsBroadcast batteryInfo performAccessibilityAudit deviceInfo "
    "getDeviceTime activeAppInfo deviceScreenInfo pressButton rotateDigitalCrown performHandGesture "
    "enrollBiometric sendBiometricMatch isBiometricEnrolled clearKeychains getPermission setPermission "
    "resetPermission getAppearance setAppearance getIncreaseContrast setIncreaseContrast contentSize "
    "setContentSize getClipboard setClipboard siriCommand pushFile pullFile pullFolder deleteFile "
    "deleteFolder runXCTest installXCTestBundle listXCTestBundles startXCTestScreenRecording "
    "getXCTestScreenRecordingInfo stopXCTestScreenRecording pushNotification expectNotification "
    "performIoHidEvent performIndigoHidEvent configureLocalization resetLocationService startNetworkMonitor "
    "stopNetworkMonitor startSystemMonitor stopSystemMonitor listConditionInducers enableConditionInducer "
    "disableConditionInducer updateSafariPreferences calibrateWebToRealCoordinatesTranslation keys deepLink "
    "setSimulatedLocation getSimulatedLocation resetSimulatedLocation enableVoiceOver disableVoiceOver "
    "isVoiceOverEnabled voiceOverMove voiceOverCurrentSpeech shake startScreenRecording stopScreenRecording "
    "startAudioRecording stopAudioRecording hideKeyboard isKeyboardShown lock unlock isLocked backgroundApp "
    "simctl"
).split())


def _method(name: str, required: tuple[str, ...] = (), optional: tuple[str, ...] = ()
            ) -> Callable[[_MethodFn], _MethodFn]:
    def deco(fn: _MethodFn) -> _MethodFn:
        _METHODS[f"mobile: {name}"] = _Method(required, optional, fn)
        return fn

    return deco


def _execute_args(method: _Method, raw: Any) -> dict[str, Any]:
    """The Appium base driver's `validateExecuteMethodParams` plus the driver's `element` alias."""
    if not isinstance(raw, list) or len(raw) > 1:
        raise _invalid("Did not get correct format of arguments for execute method. Expected zero or one "
                       f"arguments to execute script and instead received: {json.dumps(raw)}")
    args = raw[0] if raw and raw[0] is not None else {}
    if not isinstance(args, dict):
        raise _invalid("Did not receive an appropriate execute method parameters object. It needs to be "
                       "deserializable as a plain JS object")
    args = dict(args)
    if "elementId" not in args and "element" in args:
        args["elementId"] = args.pop("element")
    known = method.required + method.optional
    if any(p not in args for p in method.required):
        raise _missing_params(method.required, method.optional, list(args))
    out = {k: v for k, v in args.items() if k in known}
    if "elementId" in out:
        out["elementId"] = _element_ref(out["elementId"]) or out["elementId"]
    return out


def _execute(s: WdaSimServer, req: Req) -> Any:
    _require_body(req, "script", "args")
    script = req.body["script"]
    if not isinstance(script, str):
        raise _invalid(f"'script' must be a string, got {script!r}")
    name = re.sub(r"^mobile:\s*", "mobile: ", script.strip())
    method = _METHODS.get(name)
    if method is None:
        if name in _XCUITEST_METHODS:
            raise WdaError(500, "unsupported operation",
                            f"The simulated WebDriverAgent does not model '{name}' of the XCUITest driver")
        raise WdaError(405, "unknown method", "Method is not implemented")
    return method.fn(s, req, _execute_args(method, req.body["args"]))


for _path in ("execute/sync", "execute"):
    _driver_route("POST", _path, "action")(_execute)


@_driver_route("POST", "execute/async")
def _execute_async(s: WdaSimServer, req: Req) -> Any:
    raise WdaError(405, "unknown method", "Method is not implemented")  # web contexts only


def _number(args: dict[str, Any], key: str) -> float | None:
    raw = args.get(key)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        try:
            return float(str(raw))
        except ValueError:
            raise _invalid(f'"{key}" parameter should be a valid number. "{raw}" is given instead') from None
    return float(raw)


def _bundle(args: dict[str, Any]) -> str:
    bundle = args.get("bundleId")
    if not isinstance(bundle, str) or not bundle:
        raise bad_arg(f"'bundleId' must be a non-empty string, got {bundle!r}")
    return bundle


# apps


@_method("activateApp", ("bundleId",))
def _activate_app(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    bundle = _bundle(args)
    _require_runnable(s, bundle)
    return _proxy(s, req, "POST", "wda/apps/activate", {"bundleId": bundle})


@_method("launchApp", ("bundleId",), ("arguments", "environment"))
def _launch_app(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    bundle = _bundle(args)
    _require_runnable(s, bundle)
    launch_args = args.get("arguments")
    return _proxy(s, req, "POST", "wda/apps/launch", {
        "bundleId": bundle,
        "arguments": ([launch_args] if isinstance(launch_args, str) else launch_args) or None,
        "environment": args.get("environment") or None,
    })


@_method("terminateApp", ("bundleId",))
def _terminate_app(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    bundle = _bundle(args)
    if not _installed(s, bundle) or bundle in _state(s).extra:
        return False
    return _proxy(s, req, "POST", "wda/apps/terminate", {"bundleId": bundle})


@_method("queryAppState", ("bundleId",))
def _query_app_state(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    bundle = _bundle(args)
    if not _installed(s, bundle) or bundle in _state(s).extra:
        return 1  # XCUIApplicationStateNotRunning, what WDA answers for a bundle it cannot run
    return _proxy(s, req, "POST", "wda/apps/state", {"bundleId": bundle})


@_method("isAppInstalled", ("bundleId",))
def _is_app_installed(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _installed(s, _bundle(args))


def _bundle_of(path: Path) -> str:
    """CFBundleIdentifier of an `.app` directory, an `.ipa`/`.zip` holding one, or an app spec's `app_id`."""
    try:
        if path.is_dir():
            return str(plistlib.loads((path / "Info.plist").read_bytes())["CFBundleIdentifier"])
        if path.suffix.lower() in (".yaml", ".yml"):
            from trailblaze_sim.app.spec import load_app_spec

            return load_app_spec(path).app_id
        with zipfile.ZipFile(path) as archive:
            plist = next(n for n in archive.namelist()
                         if re.fullmatch(r"(Payload/)?[^/]+\.app/Info\.plist", n))
            return str(plistlib.loads(archive.read(plist))["CFBundleIdentifier"])
    except Exception as exc:  # any unreadable bundle is the same install failure to the client
        raise _unknown(f"Could not extract the bundle identifier from '{path}': {exc}") from None


def _install(s: WdaSimServer, app: str) -> str:
    if re.match(r"^https?://", app):
        raise _unknown(f"The simulator cannot download '{app}': give a local path")
    path = Path(app).expanduser()
    if not path.exists():
        raise _unknown(f"The application at '{app}' does not exist or is not accessible")
    bundle = _bundle_of(path)
    st = _state(s)
    if bundle in _spec_app(s):
        st.removed.discard(bundle)  # reinstalled over its data (wiped if it had been removed)
    else:
        st.extra[bundle] = str(path)
    return bundle


@_method("installApp", ("app",), ("timeoutMs", "checkVersion"))
def _install_app(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    app = args.get("app")
    if not isinstance(app, str) or not app:
        raise bad_arg(f"'app' must be a path to an .app, .ipa or .zip, got {app!r}")
    _install(s, app)
    return None


@_method("removeApp", ("bundleId",))
def _remove_app(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    bundle = _bundle(args)
    st = _state(s)
    if bundle in st.extra:
        del st.extra[bundle]
        return True
    if bundle not in _spec_app(s) or bundle in st.removed:
        return False  # the driver answers false when the removal fails
    # Uninstalling stops the app and deletes its data container.
    s.device.clear_app_data(bundle)
    st.removed.add(bundle)
    return True


@_method("clearApp", ("bundleId",))
def _clear_app(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    bundle = _bundle(args)
    if not _installed(s, bundle):
        raise _unknown(f"Could not find the data container of '{bundle}': the application is not installed")
    if bundle in _state(s).extra:
        return False  # nothing the simulator runs wrote data for it
    # Terminates the app, then empties its data container (simulators only). The model's container is
    # never empty, so this always reports that files were deleted.
    s.device.clear_app_data(bundle)
    return True


@_method("killApp", ("bundleId",))
def _kill_app(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    raise _unknown("Killing app can only be performed on a real device")


@_method("listApps", (), ("applicationType", "returnAttributes"))
def _list_apps(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    raise _unknown("Listing apps can only be performed on a real device")


@_method("activeAppInfo")
def _active_app_info(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "GET", "wda/activeAppInfo")


@_method("backgroundApp", (), ("seconds",))
def _background_app(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    seconds = args.get("seconds")
    if seconds is None:
        return _proxy(s, req, "POST", "wda/homescreen")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        raise _invalid(f"Argument value is expected to be a valid number. {json.dumps(seconds)} has been provided "
                       "instead")
    if seconds < 0:
        return _proxy(s, req, "POST", "wda/homescreen")
    return _proxy(s, req, "POST", "wda/deactivateApp", {"duration": float(seconds)})


@_method("deepLink", ("url",), ("bundleId",))
def _deep_link(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    url, bundle = args.get("url"), args.get("bundleId")
    target = bundle if isinstance(bundle, str) else (deep_link_app(s.device, url) if isinstance(url, str) else None)
    if target is not None and target in _state(s).removed:
        if isinstance(bundle, str):
            raise unknown_bundle(bundle)
        raise _unknown(f"Failed to open url {url}: the URL cannot be opened")
    return _proxy(s, req, "POST", "url", {"url": url, "bundleId": bundle})


# keyboard and buttons


def _keyboard_shown(req: Req) -> bool:
    # The driver looks for an element of class XCUIElementTypeKeyboard.
    return any(e.type == "XCUIElementTypeKeyboard" for e in req.snapshot.flat)


@_method("isKeyboardShown")
def _is_keyboard_shown(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _keyboard_shown(req)


@_method("hideKeyboard", (), ("keys",))
def _hide_keyboard(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    # WDA returns at once when no keyboard shows; otherwise it taps a key named in `keyNames` (the
    # driver always adds "done"): the simulated keyboard's return key answers to it.
    if _keyboard_shown(req):
        keys = args.get("keys") or []
        names = [str(k) for k in keys] if isinstance(keys, list) else [str(keys)]
        _proxy(s, req, "POST", "wda/keyboard/dismiss", {"keyNames": names if "done" in names else [*names, "done"]})
    return None


@_method("pressButton", ("name",), ("durationSeconds",))
def _press_button(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    name, duration = args.get("name"), args.get("durationSeconds")
    if not name:
        raise _invalid("Button name is mandatory")
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, int | float)):
        raise _invalid("durationSeconds should be a number")
    return _proxy(s, req, "POST", "wda/pressButton", {"name": name, "duration": duration})


@_method("lock", (), ("seconds",))
def _lock(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    _proxy(s, req, "POST", "wda/lock")
    seconds = _number(args, "seconds")
    if seconds is not None and seconds > 0:
        s._gesture_time(seconds)
        _proxy(s, req, "POST", "wda/unlock")
    return None


@_method("unlock")
def _unlock(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "POST", "wda/unlock")


@_method("isLocked")
def _is_locked(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "GET", "wda/locked")


@_method("alert", ("action",), ("buttonLabel",))
def _alert(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    action, label = args.get("action"), args.get("buttonLabel")
    if action == "getButtons":
        return _proxy(s, req, "GET", "wda/alert/buttons")
    if action in ("accept", "dismiss"):
        return _proxy(s, req, "POST", f"alert/{action}", {"name": label or None})
    raise _unknown(f"The 'action' value should be either 'accept', 'dismiss' or 'getButtons'. '{action}' is "
                   "provided instead.")


# pasteboard


def _encoding(args: dict[str, Any]) -> str:
    enc = str(args.get("encoding") or "utf8").lower()
    if enc not in ("utf8", "utf-8", "ascii", "latin1", "binary", "base64", "hex", "utf16le", "ucs2"):
        raise _unknown(f"Unknown encoding: {enc}")
    return enc


def _decode(content: str, enc: str) -> bytes:
    if enc == "base64":
        return base64.b64decode(content + "=" * (-len(content) % 4))
    if enc == "hex":
        return binascii.unhexlify(content)
    py = {"utf8": "utf-8", "binary": "latin-1", "latin1": "latin-1", "ucs2": "utf-16-le", "utf16le": "utf-16-le"}
    return content.encode(py.get(enc, enc), errors="replace")


def _encode(data: bytes, enc: str) -> str:
    if enc == "base64":
        return base64.b64encode(data).decode("ascii")
    if enc == "hex":
        return data.hex()
    py = {"utf8": "utf-8", "binary": "latin-1", "latin1": "latin-1", "ucs2": "utf-16-le", "utf16le": "utf-16-le"}
    return data.decode(py.get(enc, enc), errors="replace")


@_method("setPasteboard", ("content",), ("encoding",))
def _set_pasteboard(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    # `simctl pbcopy`: the content is text in `encoding`, not base64 as WDA's own route takes it.
    content = args.get("content")
    if not isinstance(content, str):
        raise _unknown("Pasteboard content is mandatory to set")
    try:
        s.device.clipboard = _decode(content, _encoding(args)).decode("utf-8", errors="replace")
    except (ValueError, binascii.Error) as exc:
        raise _unknown(f"Cannot decode the pasteboard content: {exc}") from None
    return None


@_method("getPasteboard", (), ("encoding",))
def _get_pasteboard(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _encode(s.device.clipboard.encode("utf-8"), _encoding(args))


@_method("getClipboard", (), ("contentType", "mode"))
def _get_clipboard(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    if args.get("mode") == "xpc":
        raise _unknown("Getting clipboard content can only be performed on a real device")
    return _proxy(s, req, "POST", "wda/getPasteboard", {"contentType": args.get("contentType")})


@_method("setClipboard", ("content",), ("contentType", "mode"))
def _set_clipboard(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    if args.get("mode") == "xpc":
        raise _unknown("Setting clipboard content can only be performed on a real device")
    return _proxy(s, req, "POST", "wda/setPasteboard", {"content": args.get("content"),
                                                        "contentType": args.get("contentType")})


# device


@_method("deviceInfo")
def _device_info(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "GET", "wda/device/info")


@_method("deviceScreenInfo")
def _screen_info(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "GET", "wda/screen")


_DAYJS_TOKEN = re.compile(r"\[([^\]]+)]|Y{1,4}|M{1,4}|D{1,2}|d{1,4}|H{1,2}|h{1,2}|a|A|m{1,2}|s{1,2}|Z{1,2}|SSS")
_WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")


def _dayjs(now: datetime.datetime, fmt: str) -> str:
    """dayjs's `format()` (the driver formats with it), without its locale and advanced-format plugins."""
    offset = now.utcoffset() or datetime.timedelta()
    minutes = int(offset.total_seconds() // 60)
    zone = f"{'+' if minutes >= 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    weekday = (now.weekday() + 1) % 7
    tokens: dict[str, str] = {
        "YY": f"{now.year % 100:02d}", "YYYY": f"{now.year:04d}",
        "M": str(now.month), "MM": f"{now.month:02d}", "MMM": now.strftime("%b"), "MMMM": now.strftime("%B"),
        "D": str(now.day), "DD": f"{now.day:02d}",
        "d": str(weekday), "dd": _WEEKDAYS[weekday][:2], "ddd": _WEEKDAYS[weekday][:3], "dddd": _WEEKDAYS[weekday],
        "H": str(now.hour), "HH": f"{now.hour:02d}",
        "h": str(now.hour % 12 or 12), "hh": f"{now.hour % 12 or 12:02d}",
        "a": "am" if now.hour < 12 else "pm", "A": "AM" if now.hour < 12 else "PM",
        "m": str(now.minute), "mm": f"{now.minute:02d}", "s": str(now.second), "ss": f"{now.second:02d}",
        "SSS": f"{now.microsecond // 1000:03d}", "Z": zone,
    }
    # dayjs falls back to the colon-less offset for any token it does not know (that is how `ZZ` works).
    return _DAYJS_TOKEN.sub(lambda m: m.group(1) or tokens.get(m.group(0)) or zone.replace(":", ""), fmt)


@_method("getDeviceTime", (), ("format",))
def _device_time(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    # On a Simulator the driver assumes the host's time (a status-bar override such as 9:41 is only
    # what the screen shows).
    fmt = args.get("format")
    return _dayjs(datetime.datetime.now().astimezone(), fmt if isinstance(fmt, str) else "YYYY-MM-DDTHH:mm:ssZ")


@_method("source", (), ("format", "excludedAttributes"))
def _mobile_source(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    query = {"format": str(args.get("format") or "xml"), "scope": "AppiumAUT"}
    if args.get("excludedAttributes"):
        query["excluded_attributes"] = str(args["excludedAttributes"])
    return _proxy(s, req, "GET", f"source?{urlencode(query)}")


# gestures: the driver's endpoint choice (element variant when `elementId` is given)


def _element_path(args: dict[str, Any], element: str, plain: str) -> str:
    eid = args.get("elementId")
    return element.format(eid) if isinstance(eid, str) and eid else plain


@_method("tap", ("x", "y"), ("elementId",))
def _mobile_tap(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "POST", _element_path(args, "wda/element/{}/tap", "wda/tap"),
                  {"x": args.get("x"), "y": args.get("y")})


@_method("doubleTap", (), ("elementId", "x", "y"))
def _mobile_double_tap(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "POST", _element_path(args, "wda/element/{}/doubleTap", "wda/doubleTap"),
                  {"x": args.get("x"), "y": args.get("y")})


@_method("touchAndHold", ("duration",), ("x", "y", "elementId"))
def _mobile_touch_and_hold(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "POST", _element_path(args, "wda/element/{}/touchAndHold", "wda/touchAndHold"),
                  {"duration": _number(args, "duration"), "x": args.get("x"), "y": args.get("y")})


@_method("dragFromToForDuration", ("duration", "fromX", "fromY", "toX", "toY"), ("elementId",))
def _mobile_drag(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    body = {k: _number(args, k) for k in ("duration", "fromX", "fromY", "toX", "toY")}
    return _proxy(s, req, "POST", _element_path(args, "wda/element/{}/dragfromtoforduration",
                                                 "wda/dragfromtoforduration"), body)


@_method("swipe", ("direction",), ("velocity", "elementId"))
def _mobile_swipe(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    direction = args.get("direction")
    if str(direction).lower() not in ("up", "down", "left", "right"):
        raise _invalid("'direction' must be one of: up,down,left,right")
    return _proxy(s, req, "POST", _element_path(args, "wda/element/{}/swipe", "wda/swipe"),
                  {"direction": direction, "velocity": args.get("velocity")})


@_method("scroll", (), ("name", "direction", "predicateString", "toVisible", "distance", "elementId"))
def _mobile_scroll(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    params: dict[str, Any] = {}
    if args.get("name"):
        params["name"] = args["name"]
    elif args.get("direction"):
        if str(args["direction"]).lower() not in ("up", "down", "left", "right"):
            raise _invalid("'direction' must be one of: up,down,left,right")
        params = {"direction": args["direction"], "distance": args.get("distance")}
    elif args.get("predicateString"):
        params["predicateString"] = args["predicateString"]
    elif args.get("toVisible"):
        params["toVisible"] = args["toVisible"]
    else:
        raise _invalid("Mobile scroll supports the following strategies: name, direction, predicateString, and "
                       "toVisible. Specify one of these")
    return _proxy(s, req, "POST", _element_path(args, "wda/element/{}/scroll", "wda/scroll"), params)


@_method("pinch", ("scale", "velocity"), ("elementId",))
def _mobile_pinch(s: WdaSimServer, req: Req, args: dict[str, Any]) -> Any:
    return _proxy(s, req, "POST", _element_path(args, "wda/element/{}/pinch", "wda/pinch"),
                  {"scale": _number(args, "scale"), "velocity": _number(args, "velocity")})
