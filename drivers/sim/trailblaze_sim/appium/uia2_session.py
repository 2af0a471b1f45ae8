"""A session of appium-uiautomator2-server 10.x: its capabilities, its settings and its element cache.

- `POST /session` reads W3C capabilities (`alwaysMatch` merged with the first `firstMatch` that does
  not clash, `appium:` prefixes stripped; a standard capability with the prefix is an error). A
  capability named like a setting (case-insensitive) sets that setting instead.
- Settings (`GET|POST /session/:id/appium/settings`) have the server's names, defaults and types; a
  new session resets those tied to a session (all but `wakeLockTimeout`, `serverPort` and the MJPEG
  ones); an unknown name is skipped; a value of the wrong type is `invalid argument`.
- Found elements are cached (500, least recently used first out) under a UUID made from their window
  and view, so finding the same view twice gives the same id, and a cached element goes stale when
  its view leaves the screen.
"""

from __future__ import annotations

import collections
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from trailblaze_sim.appium.uia2_find import Locator

__all__ = ["SETTING_DEFAULTS", "ElementRef", "Session", "SessionError", "Settings", "parse_capabilities"]

_STANDARD_CAPS = (
    "browserName", "browserVersion", "platformName", "acceptInsecureCerts", "pageLoadStrategy", "proxy",
    "setWindowRect", "timeouts", "unhandledPromptBehavior",
)  # fmt: skip
_CACHE_SIZE = 500
_MAX_TEST_DURATION_MS = 24 * 60 * 60 * 1000

SETTING_DEFAULTS: dict[str, bool | int | str] = {
    "actionAcknowledgmentTimeout": 3000,
    "allowInvisibleElements": False,
    "ignoreUnimportantViews": False,
    "elementResponseAttributes": "name,text",
    "enableMultiWindows": False,
    "enableNotificationListener": True,
    "enableTopmostWindowFromActivePackage": False,
    "keyInjectionDelay": 0,
    "scrollAcknowledgmentTimeout": 200,
    "shouldUseCompactResponses": True,
    "waitForIdleTimeout": 10_000,
    "waitForSelectorTimeout": 10_000,
    "normalizeTagNames": False,
    "enforceXPath1": False,
    "disableIdLocatorAutocompletion": False,
    "limitXPathContextScope": True,
    "includeExtrasInPageSource": False,
    "includeA11yActionsInPageSource": False,
    "includeExtraRenderingInfo": False,
    "shutdownOnPowerDisconnect": True,
    "simpleBoundsCalculation": False,
    "trackScrollEvents": True,
    "wakeLockTimeout": _MAX_TEST_DURATION_MS,
    "serverPort": 6790,
    "mjpegServerPort": 7810,
    "mjpegServerFramerate": 10,
    "mjpegScalingFactor": 50,
    "mjpegServerScreenshotQuality": 50,
    "mjpegBilinearFiltering": False,
    "useResourcesForOrientationDetection": False,
    "snapshotMaxDepth": 70,
    "currentDisplayId": 0,
    "alwaysTraversableViewClasses": "",
    "deferAccessibilityCacheReset": False,
    "mapTestTagToResourceId": False,
}
"""Every setting the server knows, with its default (the values `GET /appium/settings` starts with)."""
_NOT_TIED_TO_SESSION = frozenset(
    {"wakeLockTimeout", "serverPort", "mjpegServerPort", "mjpegServerFramerate", "mjpegScalingFactor",
     "mjpegServerScreenshotQuality", "mjpegBilinearFiltering"}
)  # fmt: skip


class SessionError(Exception):
    """Bad capabilities or settings: the server's `invalid argument`."""


def parse_capabilities(caps: Any) -> dict[str, Any]:
    """`W3CCapsUtils.parseCapabilities`: the merged, prefix-stripped capabilities."""
    if not isinstance(caps, dict):
        raise SessionError("'capabilities' are mandatory for session creation")
    always = caps.get("alwaysMatch") or {}
    first = caps.get("firstMatch") or [{}]
    if not isinstance(always, dict) or not isinstance(first, list):
        raise SessionError(f"Could not find matching capabilities from {caps}")
    required = _strip(always)
    for candidate in first:
        stripped = _strip(candidate if isinstance(candidate, dict) else {})
        clash = [k for k in stripped if k in required]
        if not clash:
            return {**required, **stripped}
    raise SessionError(f"Could not find matching capabilities from {caps}")


def _strip(caps: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    bad: list[str] = []
    for name, value in caps.items():
        short = name.removeprefix("appium:")
        out[short] = value
        if short != name and short.lower() in (s.lower() for s in _STANDARD_CAPS):
            bad.append(short)
    if bad:
        raise SessionError(
            f"The capabilities {bad} are standard capabilities and should not have the 'appium:' prefix"
        )
    return out


@dataclass(frozen=True)
class ElementRef:
    """A cached element: the view it points at, and how it was found."""

    key: str
    """Window, view path and screen: the same key means the same view still on screen."""
    locator: Locator
    context: str | None
    single: bool


@dataclass
class Session:
    """One client session. The settings live on the server (they outlive sessions); see `Settings`."""

    capabilities: dict[str, Any]
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    _elements: collections.OrderedDict[str, ElementRef] = field(default_factory=collections.OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def app_package(self) -> str:
        value = self.capabilities.get("appPackage")
        return value if isinstance(value, str) else ""

    def remember(self, element_id: str, ref: ElementRef) -> None:
        with self._lock:
            self._elements[element_id] = ref
            self._elements.move_to_end(element_id)
            while len(self._elements) > _CACHE_SIZE:
                self._elements.popitem(last=False)

    def recall(self, element_id: str) -> ElementRef | None:
        with self._lock:
            ref = self._elements.get(element_id)
            if ref is not None:
                self._elements.move_to_end(element_id)
            return ref


class Settings:
    """The server's settings (`AbstractSetting`s). Thread-safe."""

    def __init__(self) -> None:
        self._values = dict(SETTING_DEFAULTS)
        self._lock = threading.Lock()

    def snapshot(self) -> dict[str, bool | int | str]:
        with self._lock:
            return dict(self._values)

    def __getitem__(self, name: str) -> bool | int | str:
        with self._lock:
            return self._values[name]

    def reset_for_new_session(self) -> None:
        with self._lock:
            for name, default in SETTING_DEFAULTS.items():
                if name not in _NOT_TIED_TO_SESSION:
                    self._values[name] = default

    def known(self, name: str) -> str | None:
        """The setting's own spelling when `name` names one ignoring case (how capabilities match)."""
        return next((k for k in SETTING_DEFAULTS if k.lower() == name.lower()), None)

    def update(self, name: str, value: Any) -> None:
        """Set one setting; raises SessionError for a value of the wrong type or out of range."""
        default = SETTING_DEFAULTS[name]
        if isinstance(default, bool):
            ok = isinstance(value, bool)
        elif isinstance(default, int):
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            value = int(value) if ok else value
        else:
            ok = isinstance(value, str)
        if not ok:
            expected = {bool: "java.lang.Boolean", int: "java.lang.Long", str: "java.lang.String"}[
                type(default)
            ]
            raise SessionError(
                f"Invalid '{name}' setting value type. Got: {_java_type(value)}. Expected: {expected}."
            )
        if name == "snapshotMaxDepth" and not 1 <= int(value) <= 500:
            raise SessionError(
                f"Invalid snapshotMaxDepth value specified, must be in range 1..500. {value} was given"
            )
        with self._lock:
            self._values[name] = value


def _java_type(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "java.lang.Boolean",
        int: "java.lang.Double",
        float: "java.lang.Double",
        str: "java.lang.String",
        list: "java.util.ArrayList",
        dict: "com.google.gson.internal.LinkedTreeMap",
    }.get(type(value), type(value).__name__)
