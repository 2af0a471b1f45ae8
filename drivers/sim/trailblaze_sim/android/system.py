"""System UI of a simulated Android phone beyond the two bars: the notification shade, Quick
Settings, toasts and the display rotation.

The state lives per device in `SystemUI` (owned by the device's `U2Service`, shared with its adb
shell); `windows()` renders what is showing as extra `com.android.systemui` windows for
`build_windows`, so a toast or an open shade shows up in every hierarchy dump, the UiSelector
matcher and `uiautomator dump` alike. Times come from the device's clock, so a test advances a
`ManualClock` to let a toast expire.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Literal

from trailblaze_sim.android.hierarchy import NAV_BAR_PT, STATUS_BAR_PT, AxNode, system_node

__all__ = ["QUICK_SETTINGS_TILES", "Shade", "SystemUI", "Toast", "bar_key"]

Shade = Literal["notifications", "quick_settings"]

QUICK_SETTINGS_TILES = (
    "Internet",
    "Bluetooth",
    "Do Not Disturb",
    "Flashlight",
    "Auto-rotate",
    "Battery Saver",
)
_TOAST_HEIGHT_PT = 40
_TOAST_GAP_PT = 64


@dataclass(frozen=True)
class Toast:
    text: str
    until: float
    """Device-clock second at which the toast leaves the screen."""


@dataclass
class SystemUI:
    """What SystemUI shows over the apps, and the display rotation. Thread-safe."""

    shade: Shade | None = None
    toasts: list[Toast] = field(default_factory=list)
    last_toast: str | None = None
    """The latest toast's text (u2's `getLastToast`), kept after it leaves the screen."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def show_toast(self, text: str, seconds: float, now: float) -> None:
        with self._lock:
            self.toasts = [t for t in self.toasts if t.until > now] + [Toast(text, now + max(0.0, seconds))]
            self.last_toast = text

    def visible_toasts(self, now: float) -> list[Toast]:
        with self._lock:
            self.toasts = [t for t in self.toasts if t.until > now]
            return list(self.toasts)

    def open_shade(self, which: Shade) -> None:
        with self._lock:
            self.shade = which

    def close_shade(self) -> bool:
        """Close the shade; True when one was open (the key or swipe that closed it is used up)."""
        with self._lock:
            was_open = self.shade is not None
            self.shade = None
            return was_open

    def swipe(self, fy: float, ty: float, scale: float) -> bool:
        """A swipe down from the status bar opens the shade; a swipe up closes an open one. True when
        SystemUI took the swipe (pixels from y `fy` to `ty`): the app under it gets nothing."""
        status = STATUS_BAR_PT * scale
        if self.shade is not None:
            if ty < fy:
                self.close_shade()
            return True
        if fy < status and ty - fy > status:
            self.open_shade("notifications")
            return True
        return False

    def windows(self, width: int, height: int, scale: float, now: float) -> list[AxNode]:
        """The shade (if open) and each visible toast, as window roots in pixels."""
        out: list[AxNode] = []
        if self.shade is not None:
            out.append(_shade_window(self.shade, width, height, scale))
        for toast in self.visible_toasts(now):
            out.append(_toast_window(toast.text, width, height, scale))
        return out


def _px(value: float, scale: float) -> int:
    return int(round(value * scale))


def _shade_window(which: Shade, width: int, height: int, scale: float) -> AxNode:
    top = _px(STATUS_BAR_PT, scale)
    pad = _px(16, scale)
    tile_h = _px(64, scale)
    tile_w = (width - 3 * pad) // 2
    tiles = QUICK_SETTINGS_TILES if which == "quick_settings" else QUICK_SETTINGS_TILES[:4]
    tile_nodes = []
    for i, name in enumerate(tiles):
        col, row = i % 2, i // 2
        left = pad + col * (tile_w + pad)
        y = top + pad + row * (tile_h + pad)
        tile_nodes.append(
            system_node(i, "android.widget.LinearLayout", (left, y, left + tile_w, y + tile_h), desc=name,
                  order=i + 1, clickable=True,
                  children=[system_node(0, "android.widget.TextView", (left + pad, y, left + tile_w - pad, y + tile_h),
                                  rid="tile_label", text=name)])
        )  # fmt: skip
    qs_bottom = top + pad + ((len(tiles) + 1) // 2) * (tile_h + pad)
    children = [system_node(0, "android.widget.FrameLayout", (0, top, width, qs_bottom), rid="quick_settings_panel",
                      children=tile_nodes)]  # fmt: skip
    if which == "notifications":
        msg_top = qs_bottom + pad
        children.append(
            system_node(1, "android.widget.TextView", (pad, msg_top, width - pad, msg_top + _px(48, scale)),
                  rid="no_notifications", text="No notifications", order=2)
        )  # fmt: skip
    panel = system_node(0, "android.widget.FrameLayout", (0, 0, width, height - _px(NAV_BAR_PT, scale)),
                  rid="notification_panel", children=children)  # fmt: skip
    return system_node(0, "android.widget.FrameLayout", (0, 0, width, height), order=0, children=[panel])


def _toast_window(text: str, width: int, height: int, scale: float) -> AxNode:
    bottom = height - _px(NAV_BAR_PT + _TOAST_GAP_PT, scale)
    top = bottom - _px(_TOAST_HEIGHT_PT, scale)
    # as wide as its text, centred (a rough 8 pt per character, within the screen's margins)
    text_w = min(width - _px(48, scale), _px(24 + 8 * len(text), scale))
    left = (width - text_w) // 2
    rect = (left, top, left + text_w, bottom)
    message = system_node(0, "android.widget.TextView", rect, rid="android:id/message", text=text)
    layout = system_node(0, "android.widget.LinearLayout", rect, children=[message])
    return system_node(0, "android.widget.FrameLayout", rect, order=0, children=[layout])


def bar_key(x: float, y: float, width: float, height: float, scale: float) -> str | None:
    """What a tap at pixel (x, y) hits on a `width` x `height` pt screen: `""` inside the status bar,
    a key name on a navigation button, None in the app area."""
    if y < STATUS_BAR_PT * scale:
        return ""
    if y >= height * scale - NAV_BAR_PT * scale:
        third = width * scale / 3
        return "back" if x < third else ("home" if x < 2 * third else "recent")
    return None
