"""The `mobile:` gesture routes of appium-uiautomator2-server 10.x (`/session/:id/appium/gestures/*`),
which appium-uiautomator2-driver 8.7.0 proxies for `mobile: clickGesture`, `longClickGesture`,
`doubleClickGesture`, `swipeGesture`, `scrollGesture`, `dragGesture`, `flingGesture` and
`pinchOpenGesture` / `pinchCloseGesture`.

A gesture targets an element (`origin` or `elementId`: its centre, or its bounds less a 10% margin
on each side) or, without one, a point (`x`, `y`) or an area (`left`, `top`, `width`, `height`). A
swipe or scroll moves `percent` of the area in `direction` at `speed` pixels per second
(default 5000 dp/s, UiObject2's default, scaled to pixels); a scroll answers whether the content
moved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from trailblaze_sim.android.hierarchy import AxNode
from trailblaze_sim.android.u2 import U2Service
from trailblaze_sim.appium.uia2_errors import Uia2Error
from trailblaze_sim.appium.uia2_screen import Screen
from trailblaze_sim.model import SimDevice

__all__ = ["Server", "gesture_routes"]

_ELEMENT_KEYS = ("elementId", "element-6066-11e4-a52e-4f735466cecf", "ELEMENT")
_DEFAULT_SPEED_DP = 5000
_LONG_CLICK_MS = 500
_MARGIN = 0.1

Route = Callable[[dict[str, str], dict[str, Any]], Any]


class Server(Protocol):
    """What a gesture needs from the server (`uia2_server.Uia2Server`)."""

    device: SimDevice
    u2: U2Service

    def screen(self) -> Screen: ...

    def element_in(self, screen: Screen, element_id: str) -> AxNode: ...

    def rpc(self, method: str, *params: Any) -> Any: ...


def gesture_routes(server: Server) -> list[tuple[str, Route]]:
    """(path under `/session/:sessionId/`, handler) for each gesture route."""
    g = _Gestures(server)
    return [
        ("appium/gestures/click", lambda p, b: g.click(b, "tap")),
        ("appium/gestures/long_click", lambda p, b: g.click(b, "long")),
        ("appium/gestures/double_click", lambda p, b: g.click(b, "double")),
        ("appium/gestures/swipe", lambda p, b: g.swipe(b, scroll=False)),
        ("appium/gestures/scroll", lambda p, b: g.swipe(b, scroll=True)),
        ("appium/gestures/fling", lambda p, b: g.swipe({**b, "percent": 1.0, "speed": 7500}, scroll=True)),
        ("appium/gestures/drag", lambda p, b: g.drag(b)),
        ("appium/gestures/pinch_open", lambda p, b: g.pinch(b, spread=True)),
        ("appium/gestures/pinch_close", lambda p, b: g.pinch(b, spread=False)),
    ]


class _Gestures:
    def __init__(self, server: Server) -> None:
        self.server = server

    def _element_id(self, body: dict[str, Any]) -> str | None:
        origin = body.get("origin")
        if isinstance(origin, dict):
            return next((str(origin[k]) for k in _ELEMENT_KEYS if k in origin), None)
        return next((str(body[k]) for k in _ELEMENT_KEYS if k in body), None)

    def _bounds(self, body: dict[str, Any], *, margin: bool) -> tuple[float, float, float, float]:
        element_id = self._element_id(body)
        if element_id is not None:
            x0, y0, x1, y1 = (
                float(v) for v in self.server.element_in(self.server.screen(), element_id).bounds
            )
            if margin:
                dx, dy = (x1 - x0) * _MARGIN, (y1 - y0) * _MARGIN
                return (x0 + dx, y0 + dy, x1 - dx, y1 - dy)
            return (x0, y0, x1, y1)
        given = body.get("area")
        area: dict[str, Any] = given if isinstance(given, dict) else body
        try:
            left, top = float(area["left"]), float(area["top"])
            width, height = float(area["width"]), float(area["height"])
        except (KeyError, TypeError, ValueError) as exc:
            raise Uia2Error.invalid_argument(
                "The gesture area coordinates must be provided if element is not set"
            ) from exc
        if width < 0 or height < 0:
            raise Uia2Error.invalid_argument("Rectangle width and height must not be negative")
        return (left, top, left + width, top + height)

    def _point(self, body: dict[str, Any]) -> tuple[float, float]:
        element_id = self._element_id(body)
        offset = body.get("offset") if isinstance(body.get("offset"), dict) else {}
        if element_id is not None:
            node = self.server.element_in(self.server.screen(), element_id)
            if offset:
                return (
                    node.bounds[0] + float(offset.get("x", 0)),
                    node.bounds[1] + float(offset.get("y", 0)),
                )
            return node.center
        point = offset or body
        try:
            return (float(point["x"]), float(point["y"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise Uia2Error.invalid_argument(
                "Either the element or the point coordinates must be provided"
            ) from exc

    def click(self, body: dict[str, Any], kind: str) -> None:
        x, y = self._point(body)
        if kind == "long":
            duration = body.get("duration")
            self.server.rpc(
                "click", x, y, int(duration) if isinstance(duration, (int, float)) else _LONG_CLICK_MS
            )
        elif kind == "double":
            scale = self.server.device.scale
            self.server.device.double_tap(x / scale, y / scale)
        else:
            self.server.u2.tap_px(x, y)
        return None

    def swipe(self, body: dict[str, Any], *, scroll: bool) -> bool | None:
        direction = str(body.get("direction", "")).lower()
        if direction not in ("up", "down", "left", "right"):
            noun = "Scroll" if scroll else "Swipe"
            raise Uia2Error.invalid_argument(f"{noun} direction must be one of [LEFT, RIGHT, UP, DOWN]")
        percent = body.get("percent")
        if not isinstance(percent, (int, float)) or percent <= 0:
            raise Uia2Error.invalid_argument("'percent' must be a positive number")
        left, top, right, bottom = self._bounds(body, margin=True)
        cx, cy = (left + right) / 2, (top + bottom) / 2
        dx = (right - left) * min(float(percent), 1.0)
        dy = (bottom - top) * min(float(percent), 1.0)
        # a swipe moves the finger that way; a scroll moves the content that way (the finger goes opposite)
        sign = -1 if scroll else 1
        vectors = {"up": (0.0, -dy), "down": (0.0, dy), "left": (-dx, 0.0), "right": (dx, 0.0)}
        vx, vy = (sign * v for v in vectors[direction])
        start = (cx - vx / 2, cy - vy / 2)
        end = (cx + vx / 2, cy + vy / 2)
        steps = self._steps(start, end, body.get("speed"))
        before = [(n.text, n.bounds) for r in self.server.screen().roots() for n in r.node.walk()]
        self.server.rpc("swipe", start[0], start[1], end[0], end[1], steps)
        if not scroll:
            return None
        return [(n.text, n.bounds) for r in self.server.screen().roots() for n in r.node.walk()] != before

    def _steps(self, start: tuple[float, float], end: tuple[float, float], speed: Any) -> int:
        density = float(self.server.device.scale)
        px_per_s = (
            float(speed) if isinstance(speed, (int, float)) and speed > 0 else _DEFAULT_SPEED_DP * density
        )
        distance = ((end[0] - start[0]) ** 2 + (end[1] - start[1]) ** 2) ** 0.5
        # UiAutomator injects one move every 5 ms
        return max(2, int(distance / px_per_s / 0.005))

    def drag(self, body: dict[str, Any]) -> None:
        given = body.get("end")
        end: dict[str, Any] = (
            given if isinstance(given, dict) else {"x": body.get("endX"), "y": body.get("endY")}
        )
        try:
            ex, ey = float(end["x"]), float(end["y"])
        except (KeyError, TypeError, ValueError) as exc:
            raise Uia2Error.invalid_argument("The drag end point must be provided") from exc
        start = body.get("start") if isinstance(body.get("start"), dict) else None
        if self._element_id(body) is not None:
            sx, sy = self._point(body)
        elif start is not None:
            sx, sy = float(start["x"]), float(start["y"])
        else:
            sx, sy = self._point(body)
        steps = self._steps((sx, sy), (ex, ey), body.get("speed"))
        self.server.rpc("drag", sx, sy, ex, ey, steps)
        return None

    def pinch(self, body: dict[str, Any], *, spread: bool) -> None:
        percent = body.get("percent")
        if not isinstance(percent, (int, float)) or not 0 < percent <= 1:
            raise Uia2Error.invalid_argument("'percent' must be in range 0..1")
        left, top, right, bottom = self._bounds(body, margin=True)
        scale = self.server.device.scale
        factor = 1 + float(percent) if spread else 1 - float(percent) / 2
        self.server.device.pinch((left + right) / 2 / scale, (top + bottom) / 2 / scale, factor)
        return None
