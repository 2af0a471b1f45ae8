"""The on-device uiautomator2 server (u2.jar 0.4.x), served in-process on an adb `tcp:9008` stream.

HTTP/1.1: `GET /ping` → `pong`, `POST /jsonrpc/0` → JSON-RPC 2.0, anything else 404. JSON-RPC
answers are always HTTP 200; failures travel in the `error` object exactly as the jar's error
resolver writes them (`code` -32001, `message` = the Java exception class), because that is what
`uiautomator2.core._jsonrpc_call` maps to its exceptions. Coordinates on the wire are pixels; the
`SimDevice` works in points, so every action divides by `device.scale`.

Faults (`Conditions.before_request`) are applied once per HTTP request, as `trailblaze_sim.faults`
describes: latency by request kind, a request served whose answer is lost (the connection closes
without a byte), a JSON-RPC error instead of the call (HTTP 200, as the jar's error resolver answers),
an empty dump, a stall, or the device going offline mid-request.
"""

from __future__ import annotations

import base64
import io
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, cast

from trailblaze.errors import DeviceError
from trailblaze_sim.access import loopback_host
from trailblaze_sim.android.hierarchy import (
    IME_PACKAGE,
    AxNode,
    app_package,
    build_windows,
    render_hierarchy,
)
from trailblaze_sim.android.system import SystemUI, bar_key
from trailblaze_sim.android.u2_objects import UiObjects
from trailblaze_sim.android.ui_selector import RpcError, find_nodes, obj_info
from trailblaze_sim.faults import Conditions, RequestKind
from trailblaze_sim.model import Key, SimDevice, wait_until_still

__all__ = ["FOREIGN_HOST_ANSWER", "SocketReader", "U2Service", "find_nodes", "obj_info", "read_http_request"]

_FOREIGN_HOST_TEXT = b"this server answers only requests to localhost, 127.0.0.1 or [::1]"
FOREIGN_HOST_ANSWER = (
    b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n"
    + f"Content-Length: {len(_FOREIGN_HOST_TEXT)}\r\n\r\n".encode()
    + _FOREIGN_HOST_TEXT
)
"""What an HTTP server of the phone answers a request for another host (DNS rebinding; `access`)."""

_MAX_BODY = 16 * 1024 * 1024

_DUMP_METHODS = frozenset({"dumpWindowHierarchy"})
_SCREENSHOT_METHODS = frozenset({"takeScreenshot"})
_ACTION_METHODS = frozenset(
    {
        "click", "longClick", "clickAndWaitForNewWindow", "swipe", "swipePoints", "drag", "dragTo",
        "pressKey", "pressKeyCode", "injectInputEvent", "setText", "clearTextField", "clearInputText",
        "pasteClipboard", "scrollForward", "scrollBackward", "scrollToBeginning", "scrollToEnd",
        "scrollTo", "flingForward", "flingBackward", "flingToBeginning", "flingToEnd", "wakeUp", "sleep",
        "setOrientation", "gesture", "pinchIn", "pinchOut", "openNotification", "openQuickSettings",
    }
)  # fmt: skip

# UiDevice.pressKey* names accepted by AutomatorServiceImpl.pressKey, mapped to SimDevice keys
# (None: a real key with no effect in the simulated app).
_KEY_NAMES: dict[str, Key | None] = {
    "home": "home", "back": "back", "enter": "enter", "delete": "delete", "del": "delete",
    "menu": "menu", "recent": "recent", "volume_up": "volume_up", "volume_down": "volume_down",
    "power": "power", "left": None, "right": None, "up": None, "down": None, "center": None,
    "search": None, "volume_mute": None, "camera": None,
}  # fmt: skip

_KEYCODES: dict[int, Key] = {
    3: "home", 4: "back", 66: "enter", 67: "delete", 61: "tab", 82: "menu", 187: "recent",
    24: "volume_up", 25: "volume_down", 26: "power",
}  # fmt: skip


def keycode_char(code: int, meta: int = 0) -> str | None:
    """The character an Android keycode types (KEYCODE_A..Z, 0..9, SPACE, a few symbols)."""
    shift = bool(meta & 1)
    if 29 <= code <= 54:
        ch = chr(ord("a") + code - 29)
        return ch.upper() if shift else ch
    if 7 <= code <= 16:
        return chr(ord("0") + code - 7)
    return {62: " ", 55: ",", 56: ".", 69: "-", 70: "=", 77: "@", 76: "/", 81: "+"}.get(code)


_QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)


class SocketReader:
    """Buffered reads on a socket that may switch protocols mid-stream (adb → HTTP)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buf = bytearray()

    def _fill(self) -> bool:
        if _QUICKACK is not None:
            # http.client writes headers and body separately; without an immediate ACK the client's
            # Nagle algorithm holds the body back for our delayed-ACK timer (~40 ms per request).
            try:
                self.sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except OSError:
                pass
        chunk = self.sock.recv(65536)
        if not chunk:
            return False
        self._buf += chunk
        return True

    def read_exact(self, n: int) -> bytes | None:
        """Exactly `n` bytes, or None when the peer closed first."""
        while len(self._buf) < n:
            if not self._fill():
                return None
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def read_line(self, limit: int = 65536) -> bytes | None:
        """One line including its `\\n`, or None on EOF before a full line."""
        while True:
            i = self._buf.find(b"\n")
            if i >= 0:
                out = bytes(self._buf[: i + 1])
                del self._buf[: i + 1]
                return out
            if len(self._buf) > limit or not self._fill():
                return None

    def read_some(self) -> bytes:
        """Whatever is buffered, else one recv (b"" on EOF)."""
        if self._buf:
            out = bytes(self._buf)
            self._buf.clear()
            return out
        return self.sock.recv(65536)


# --- the service ------------------------------------------------------------------------------


class U2Service:
    """The uiautomator2 server of one simulated device: HTTP on a stream, JSON-RPC over the model."""

    def __init__(self, device: SimDevice, conditions: Conditions) -> None:
        self.device = device
        self.conditions = conditions
        self.rotation = 0
        self.rotation_frozen = False
        self.screen_on = True
        self.system = SystemUI()
        """The notification shade and toasts drawn over the apps."""
        self.ime_package: Callable[[], str] = lambda: IME_PACKAGE
        """The selected input method's package, whose window the keyboard is (the shell knows)."""
        if hasattr(device, "set_toast_sink"):
            # the app's own toasts (spec `toast:` steps) are SystemUI's to draw, like makeToast's
            device.set_toast_sink(lambda text, seconds: self.system.show_toast(text, seconds, self._now()))
        self.gesture_seconds = 0.0
        """Seconds this server has spent performing timed gestures (swipes, drags, pinches)."""
        self.last_gesture: tuple[str, float] | None = None
        """The latest two-finger gesture: `("pinch_in" | "pinch_out" | "pan", distance in px)`."""
        self.objects = UiObjects(device, self.windows, self._swipe_px)
        """The UiObjects handed out by name, selector lookups and UiScrollable's scrolling."""
        self._touch: tuple[float, float, float] | None = None
        self._touch_last: tuple[float, float] | None = None
        self._lock = threading.Lock()
        self.requests_served = 0
        self._methods: dict[str, Callable[[list[Any]], Any]] = {
            "deviceInfo": self._device_info,
            "dumpWindowHierarchy": self._dump,
            "takeScreenshot": self._screenshot,
            "click": self._click,
            "longClick": self._long_click,
            "clickAndWaitForNewWindow": self._click_new_window,
            "swipe": self._swipe,
            "swipePoints": self._swipe_points,
            "drag": self._drag,
            "dragTo": self._drag_to,
            "injectInputEvent": self._inject,
            "pressKey": self._press_key,
            "pressKeyCode": self._press_keycode,
            "setClipboard": self._set_clipboard,
            "getClipboard": lambda a: self.device.clipboard or None,
            "pasteClipboard": self._paste,
            "clearInputText": self._clear_input,
            "exist": lambda a: self.objects.find(a[0]) is not None,
            "waitForExists": lambda a: self.objects.wait(a, gone=False),
            "waitUntilGone": lambda a: self.objects.wait(a, gone=True),
            "objInfo": lambda a: obj_info(self.objects.must_find(a[0])),
            "objInfoOfAllInstances": lambda a: [obj_info(n) for n in find_nodes(self.windows(), a[0])],
            "count": lambda a: len(find_nodes(self.windows(), a[0])),
            "setText": self._set_text,
            "getText": lambda a: self.objects.must_find(a[0]).text,
            "clearTextField": self._clear_field,
            "scrollForward": lambda a: self.objects.scroll(a, forward=True),
            "scrollBackward": lambda a: self.objects.scroll(a, forward=False),
            "flingForward": lambda a: self.objects.scroll(a, forward=True, fling=True),
            "flingBackward": lambda a: self.objects.scroll(a, forward=False, fling=True),
            "scrollToEnd": lambda a: self.objects.scroll_to_edge(a, forward=True),
            "scrollToBeginning": lambda a: self.objects.scroll_to_edge(a, forward=False),
            "flingToEnd": lambda a: self.objects.scroll_to_edge(a, forward=True, fling=True),
            "flingToBeginning": lambda a: self.objects.scroll_to_edge(a, forward=False, fling=True),
            "scrollTo": self.objects.scroll_to,
            "freezeRotation": self._freeze_rotation,
            "setOrientation": self._set_orientation,
            "waitForIdle": lambda a: wait_until_still(self.device, (int(a[0]) if a else 10_000) / 1000),
            "waitForWindowUpdate": lambda a: True,
            "getLastToast": lambda a: self.system.last_toast,
            "makeToast": self._make_toast,
            "openNotification": lambda a: self._open_shade("notifications"),
            "openQuickSettings": lambda a: self._open_shade("quick_settings"),
            "childByText": lambda a: self.objects.child_by(a, "text"),
            "childByDescription": lambda a: self.objects.child_by(a, "description"),
            "childByInstance": self.objects.child_by_instance,
            "getChild": lambda a: self.objects.relative(a, "child"),
            "getFromParent": lambda a: self.objects.relative(a, "sibling"),
            "getParent": self.objects.get_parent,
            "getUiObject": lambda a: self.objects.name(self.objects.resolver(a[0])),
            "removeUiObject": self.objects.remove,
            "getUiObjects": lambda a: self.objects.names(),
            "gesture": self._gesture_rpc,
            "pinchIn": lambda a: self._pinch(a, inward=True),
            "pinchOut": lambda a: self._pinch(a, inward=False),
            "clearLastToast": self._clear_toast,
            "getLastTraversedText": lambda a: None,
            "clearLastTraversedText": lambda a: None,
            "wakeUp": lambda a: self._set_screen(True),
            "sleep": lambda a: self._set_screen(False),
            "isScreenOn": lambda a: self.screen_on,
        }

    # --- HTTP ------------------------------------------------------------------------------

    def serve(self, reader: SocketReader) -> None:
        """Serve HTTP requests on an already-switched `tcp:9008` stream until the client closes."""
        sock = reader.sock
        while True:
            request = read_http_request(reader)
            if request is None:
                return
            method, path, headers, body = request
            if not loopback_host(headers.get("host")):
                sock.sendall(FOREIGN_HOST_ANSWER)
                return
            rpc: dict[str, Any] | None = None
            kind: RequestKind = "other"
            if path.startswith("/jsonrpc/0"):
                try:
                    parsed = json.loads(body or b"null")
                    rpc = parsed if isinstance(parsed, dict) else None
                except ValueError:
                    rpc = None
                kind = _kind(rpc.get("method") if rpc else None)
            fault = self.conditions.before_request(kind)
            if fault == "offline":
                return  # the caller closes the socket: the client sees the peer vanish
            with self._lock:
                self.requests_served += 1
            status, ctype, payload = self._route(method, path, body, rpc, fault)
            if fault == "drop_connection":
                return  # served, but the answer is lost: the client cannot tell whether it happened
            if fault == "stall":
                self.conditions.stall()
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(payload)}\r\n"
                f"Connection: keep-alive\r\n\r\n"
            ).encode()
            sock.sendall(head + payload)
            if headers.get("connection", "").lower() == "close":
                return

    def _route(
        self, method: str, path: str, body: bytes, rpc: dict[str, Any] | None, fault: str | None
    ) -> tuple[str, str, bytes]:
        if path == "/ping" or path.startswith("/ping?"):
            return "200 OK", "text/plain", b"pong"
        if path.startswith("/jsonrpc/0") and method == "POST":
            result = self.handle_rpc(rpc, fault)
            return "200 OK", "application/json", json.dumps(result).encode()
        return "404 Not Found", "text/plain", b"Not Found!!!"

    # --- JSON-RPC --------------------------------------------------------------------------

    def handle_rpc(self, rpc: dict[str, Any] | None, fault: str | None = None) -> dict[str, Any]:
        """One JSON-RPC envelope in, one out (always a dict with `result` or `error`)."""
        if rpc is None:
            return _error(None, -32700, "JSON parse error", None)
        rid = rpc.get("id")
        name = rpc.get("method")
        params = rpc.get("params")
        args: list[Any] = list(params) if isinstance(params, list) else []
        if fault == "rpc_error":
            # what an app crash mid-call looks like from the jar's error resolver
            return _error(
                rid, -32001, "java.lang.RuntimeException", "simulated fault: injected JSON-RPC error"
            )
        if name == "dumpWindowHierarchy" and fault == "empty_dump":
            return {"jsonrpc": "2.0", "id": rid, "result": _EMPTY_DUMP}
        handler = self._methods.get(name) if isinstance(name, str) else None
        if handler is None:
            return _error(rid, -32601, "method not found", f"method not found: {name}")
        try:
            return {"jsonrpc": "2.0", "id": rid, "result": handler(args)}
        except RpcError as exc:
            return _error(rid, exc.code, exc.message, exc.data)
        except DeviceError as exc:
            # the model refused the action (e.g. not a text field): what the jar reports for a bad call
            return _error(rid, -32001, "java.lang.IllegalStateException", str(exc))
        except (IndexError, TypeError, ValueError, KeyError) as exc:
            return _error(rid, -32602, "method parameters invalid", f"{name}: {exc!r}")

    # --- helpers ---------------------------------------------------------------------------

    def windows(self) -> list[AxNode]:
        """Every window UiAutomator sees now, system overlays (shade, toasts) included."""
        d = self.device
        width, height = int(round(d.screen_width * d.scale)), int(round(d.screen_height * d.scale))
        overlays = self.system.windows(width, height, d.scale, self._now())
        return build_windows(d, overlays, ime_package=self.ime_package())

    def _now(self) -> float:
        clock = getattr(self.device, "clock", None)
        return float(clock.now()) if clock is not None else time.monotonic()

    def press(self, key: Key) -> None:
        """A key press as the system routes it: Back and Home first close an open shade."""
        if key in ("back", "home") and self.system.close_shade():
            return
        self.device.press_key(key)

    def take_time(self, seconds: float) -> None:
        """Let a timed gesture last its duration, scaled by the latency profile (0 in `zero`)."""
        scaled = max(0.0, seconds) * self.conditions.latency.gesture_time_scale
        with self._lock:
            self.gesture_seconds += scaled
        if scaled > 0:
            time.sleep(scaled)

    def _pt(self, x: Any, y: Any) -> tuple[float, float]:
        return (float(x) / self.device.scale, float(y) / self.device.scale)

    def tap_px(self, x: float, y: float) -> None:
        """A tap at pixel (x, y): system bars take their share, the app gets the rest."""
        key = bar_key(x, y, self.device.screen_width, self.device.screen_height, self.device.scale)
        if key == "":
            return
        if key is not None:
            self.press(cast(Key, key))
            return
        if self.system.shade is not None:
            return  # the shade covers the app: nothing under it gets the tap
        self.device.tap(*self._pt(x, y))

    def _device_info(self, args: list[Any]) -> dict[str, Any]:
        d = self.device
        app = d.current_app()
        return {
            "currentPackageName": app.app_id if app is not None else app_package(d),
            "displayWidth": int(round(d.screen_width * d.scale)),
            "displayHeight": int(round(d.screen_height * d.scale)),
            "displayRotation": self.rotation,
            "displaySizeDpX": int(d.screen_width),
            "displaySizeDpY": int(d.screen_height),
            "productName": "sdk_gphone64_x86_64",
            "naturalOrientation": self.rotation % 2 == 0,
            "screenOn": self.screen_on,
            "sdkInt": 34,
        }

    def _dump(self, args: list[Any]) -> str:
        max_depth = int(args[1]) if len(args) > 1 and args[1] is not None else 50
        root_in_active = bool(args[2]) if len(args) > 2 else False
        windows = self.windows()
        if root_in_active:
            windows = windows[:1]
        return render_hierarchy(windows, rotation=self.rotation, max_depth=max_depth)

    def _screenshot(self, args: list[Any]) -> str:
        from PIL import Image

        scale = float(args[0]) if args else 1.0
        quality = int(args[1]) if len(args) > 1 else 80
        with Image.open(io.BytesIO(self.device.screenshot_png())) as img:
            rgb = img.convert("RGB")
        if 0 < scale < 1:
            rgb = rgb.resize((max(1, int(rgb.width * scale)), max(1, int(rgb.height * scale))))
        buf = io.BytesIO()
        rgb.save(buf, format="JPEG", quality=max(1, min(100, quality)))
        # android.util.Base64.DEFAULT wraps lines at 76 characters, like encodebytes
        return base64.encodebytes(buf.getvalue()).decode("ascii")

    def _click(self, args: list[Any]) -> bool:
        if args and isinstance(args[0], (dict, str)):
            node = self.objects.must_find(args[0])
            self.tap_px(*node.center)
            return True
        x, y = float(args[0]), float(args[1])
        if len(args) > 2 and args[2] is not None:
            self.take_time(float(args[2]) / 1000)
            self.device.long_press(*self._pt(x, y), duration=float(args[2]) / 1000)
            return True
        self.tap_px(x, y)
        return True

    def _click_new_window(self, args: list[Any]) -> bool:
        node = self.objects.must_find(args[0])
        self.tap_px(*node.center)
        return True

    def _long_click(self, args: list[Any]) -> bool:
        node = self.objects.must_find(args[0])
        self.device.long_press(*self._pt(*node.center))
        return True

    def _swipe_px(self, fx: float, fy: float, tx: float, ty: float, steps: int) -> None:
        # UiAutomator injects one move every 5 ms: the finger is down for steps * 5 ms
        duration = max(2, steps) * 0.005
        self.take_time(duration)
        if self.system.swipe(fy, ty, self.device.scale):
            return
        self.device.swipe(*self._pt(fx, fy), *self._pt(tx, ty), duration=duration)

    def _swipe(self, args: list[Any]) -> bool:
        if args and isinstance(args[0], (dict, str)):
            # swipe(Selector, direction, steps) / swipe(Selector, direction, percent, steps)
            node = self.objects.must_find(args[0])
            direction = str(args[1])
            steps = int(args[-1]) if len(args) > 2 else 10
            left, top, right, bottom = node.bounds
            cx, cy = node.center
            ends = {"up": (cx, top), "down": (cx, bottom - 1), "left": (left, cy), "right": (right - 1, cy)}
            if direction not in ends:
                raise RpcError(-32602, "method parameters invalid", f"direction {direction!r}")
            self._swipe_px(cx, cy, *ends[direction], steps)
            return True
        fx, fy, tx, ty = (float(v) for v in args[:4])
        steps = int(args[4]) if len(args) > 4 else 55
        self._swipe_px(fx, fy, tx, ty, steps)
        return True

    def _swipe_points(self, args: list[Any]) -> bool:
        pts = [float(v) for v in args[0]]
        if len(pts) < 4:
            return False
        steps = int(args[1]) if len(args) > 1 else 55
        self._swipe_px(pts[0], pts[1], pts[-2], pts[-1], steps * (len(pts) // 2 - 1))
        return True

    def _drag(self, args: list[Any]) -> bool:
        sx, sy, ex, ey = (float(v) for v in args[:4])
        steps = int(args[4]) if len(args) > 4 else 100
        self._swipe_px(sx, sy, ex, ey, steps)
        return True

    def _drag_to(self, args: list[Any]) -> bool:
        node = self.objects.must_find(args[0])
        if isinstance(args[1], dict):
            target = self.objects.must_find(args[1])
            tx, ty = target.center
            steps = int(args[2]) if len(args) > 2 else 100
        else:
            tx, ty = float(args[1]), float(args[2])
            steps = int(args[3]) if len(args) > 3 else 100
        self._swipe_px(*node.center, tx, ty, steps)
        return True

    def _inject(self, args: list[Any]) -> bool:
        action, x, y = int(args[0]), float(args[1]), float(args[2])
        now = time.monotonic()
        if action == 0:  # ACTION_DOWN
            self._touch = (x, y, now)
            self._touch_last = (x, y)
        elif action == 2:  # ACTION_MOVE
            self._touch_last = (x, y)
        elif action == 1 and self._touch is not None:  # ACTION_UP ends the gesture
            sx, sy, t0 = self._touch
            self._touch = None
            held = now - t0
            if abs(x - sx) < 24 and abs(y - sy) < 24:
                if self.system.shade is not None:
                    pass  # the shade swallows touches
                elif held >= 0.5:
                    self.device.long_press(*self._pt(sx, sy), duration=held)
                else:
                    self.tap_px(sx, sy)
            elif not self.system.swipe(sy, y, self.device.scale):
                self.device.swipe(*self._pt(sx, sy), *self._pt(x, y), duration=max(held, 0.05))
        return True

    def _press_key(self, args: list[Any]) -> bool:
        name = str(args[0]).lower()
        if name not in _KEY_NAMES:
            return False
        key = _KEY_NAMES[name]
        if key is not None:
            self.press(key)
        return True

    def _press_keycode(self, args: list[Any]) -> bool:
        code = int(args[0])
        meta = int(args[1]) if len(args) > 1 and args[1] is not None else 0
        key = _KEYCODES.get(code)
        if key is not None:
            self.press(key)
            return True
        ch = keycode_char(code, meta)
        if ch is not None:
            self.device.type_text(ch)
        return True

    def _set_clipboard(self, args: list[Any]) -> None:
        # setClipboard(label, text)
        text = args[1] if len(args) > 1 else args[0]
        self.device.clipboard = "" if text is None else str(text)

    def _paste(self, args: list[Any]) -> None:
        if self.device.clipboard:
            self.device.type_text(self.device.clipboard)

    def _clear_input(self, args: list[Any]) -> None:
        self.device.clear_text()

    def _set_text(self, args: list[Any]) -> bool:
        node = self.objects.must_find(args[0])
        text = "" if len(args) < 2 or args[1] is None else str(args[1])
        if node.sim is None or not node.editable:
            return False
        self.device.set_text(node.sim, text)
        return True

    def _clear_field(self, args: list[Any]) -> None:
        node = self.objects.must_find(args[0])
        if node.sim is not None and node.editable:
            self.device.set_text(node.sim, "")

    def _freeze_rotation(self, args: list[Any]) -> None:
        self.rotation_frozen = bool(args[0]) if args else True

    def _set_orientation(self, args: list[Any]) -> None:
        # A portrait-only app (the default; app specs list `orientations: [portrait, landscape]` otherwise) keeps the
        # display at rotation 0 whatever is asked, as a real phone does for such an activity.
        value = str(args[0]) if args else "natural"
        turns = {"natural": 0, "n": 0, "left": 1, "l": 1, "right": 3, "r": 3, "upsidedown": 2, "u": 2}
        if value not in turns:
            raise RpcError(-32001, "java.lang.IllegalArgumentException", f"Invalid orientation: {value}")
        set_rotation = getattr(self.device, "set_rotation", None)
        self.rotation = int(set_rotation(turns[value])) if callable(set_rotation) else 0

    def _clear_toast(self, args: list[Any]) -> bool:
        self.system.last_toast = None
        return True

    def _make_toast(self, args: list[Any]) -> bool:
        # makeToast(text, durationMillis): shown over the app for that long on the device clock
        text = "" if not args or args[0] is None else str(args[0])
        millis = float(args[1]) if len(args) > 1 and args[1] is not None else 1000.0
        self.system.show_toast(text, millis / 1000, self._now())
        return True

    def _open_shade(self, which: Any) -> bool:
        self.device.hide_keyboard()
        self.system.open_shade(which)
        return True

    # --- two-finger gestures ----------------------------------------------------------------

    def _gesture_rpc(self, args: list[Any]) -> bool:
        # gesture(obj, startPoint1, startPoint2, endPoint1, endPoint2, steps); points are {x, y}
        self.objects.must_find(args[0])
        s1, s2, e1, e2 = (_point(p) for p in args[1:5])
        steps = int(args[5]) if len(args) > 5 else 100
        return self._two_fingers(s1, s2, e1, e2, steps)

    def _pinch(self, args: list[Any], *, inward: bool) -> bool:
        # pinchIn/pinchOut(obj, percent, steps): both fingers on the diagonal, UiObject-style
        node = self.objects.must_find(args[0])
        percent = max(0, min(100, int(args[1]) if len(args) > 1 else 100)) / 100
        steps = int(args[2]) if len(args) > 2 else 50
        left, top, right, bottom = node.bounds
        cx, cy = node.center
        half_w, half_h = (right - left) / 2 * percent, (bottom - top) / 2 * percent
        outer1, outer2 = (cx - half_w, cy - half_h), (cx + half_w, cy + half_h)
        inner1, inner2 = (cx - 1, cy - 1), (cx + 1, cy + 1)
        if inward:
            return self._two_fingers(outer1, outer2, inner1, inner2, steps)
        return self._two_fingers(inner1, inner2, outer1, outer2, steps)

    def _two_fingers(
        self,
        s1: tuple[float, float],
        s2: tuple[float, float],
        e1: tuple[float, float],
        e2: tuple[float, float],
        steps: int,
    ) -> bool:
        """Two pointers moving together: a pan drags the content like one finger; a pinch has no
        effect on the simulated apps (none of them zooms) but is recorded in `last_gesture`."""
        self.take_time(max(2, steps) * 0.005)
        before = ((s1[0] - s2[0]) ** 2 + (s1[1] - s2[1]) ** 2) ** 0.5
        after = ((e1[0] - e2[0]) ** 2 + (e1[1] - e2[1]) ** 2) ** 0.5
        if abs(after - before) < 24:
            self.last_gesture = ("pan", ((e1[0] - s1[0]) ** 2 + (e1[1] - s1[1]) ** 2) ** 0.5)
            if not self.system.swipe(s1[1], e1[1], self.device.scale):
                self.device.swipe(*self._pt(*s1), *self._pt(*e1), duration=max(2, steps) * 0.005)
        else:
            self.last_gesture = ("pinch_out" if after > before else "pinch_in", abs(after - before))
        return True

    def _set_screen(self, on: bool) -> None:
        self.screen_on = on


def _point(value: Any) -> tuple[float, float]:
    if isinstance(value, dict):
        return (float(value["x"]), float(value["y"]))
    x, y = value
    return (float(x), float(y))


_EMPTY_DUMP = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\" />"


def _kind(method: Any) -> RequestKind:
    if method in _DUMP_METHODS:
        return "dump"
    if method in _SCREENSHOT_METHODS:
        return "screenshot"
    if method in _ACTION_METHODS:
        return "action"
    return "other"


def _error(rid: Any, code: int, message: str, data: str | None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message, "data": data}}


def read_http_request(reader: SocketReader) -> tuple[str, str, dict[str, str], bytes] | None:
    """One HTTP/1.1 request off the stream: (method, path, lower-cased headers, body); None at EOF."""
    line = reader.read_line()
    if line is None:
        return None
    while line in (b"\r\n", b"\n"):  # tolerate stray blank lines between requests
        line = reader.read_line()
        if line is None:
            return None
    parts = line.decode("latin-1").split()
    if len(parts) < 2:
        return None
    method, path = parts[0].upper(), parts[1]
    headers: dict[str, str] = {}
    while True:
        h = reader.read_line()
        if h is None:
            return None
        if h in (b"\r\n", b"\n"):
            break
        name, _, value = h.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or 0)
    if length < 0 or length > _MAX_BODY:
        return None
    body = reader.read_exact(length) if length else b""
    if body is None:
        return None
    return method, path, headers, body
