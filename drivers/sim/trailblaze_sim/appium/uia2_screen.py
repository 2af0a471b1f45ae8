"""What appium-uiautomator2-server 10.x sees of the screen at one instant: the window roots it
searches and the views' identities.

By default the server reads only the root of the active window (`getRootInActiveWindow`): the
notification shade while it is open, else the topmost dialog, else the app's activity; with the
`enableMultiWindows` setting it reads every window (status bar, navigation bar and keyboard too).
A view keeps its identity (and so its element id) while it stays in the same place of the same
window of the same screen; typing into a field does not change it, a new screen does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from trailblaze_sim.android.hierarchy import NAV_BAR_PT, AxNode
from trailblaze_sim.appium.uia2_source import Display, WindowNode, element_uuid
from trailblaze_sim.model import SimDevice

__all__ = ["Screen"]

_SHADE_ID = "com.android.systemui:id/notification_panel"
_FIRST_WINDOW_ID = 2


@dataclass
class Screen:
    """A snapshot of the windows (from `U2Service.windows()`), the display, and the views' keys."""

    windows: list[AxNode]
    display: Display
    screen_name: str

    @classmethod
    def of(cls, device: SimDevice, windows: list[AxNode], rotation: int) -> Screen:
        width = int(round(device.screen_width * device.scale))
        height = int(round(device.screen_height * device.scale))
        app_area = Display(width, height - int(round(NAV_BAR_PT * device.scale)), rotation)
        name = getattr(device, "screen_name", None)
        return cls(windows, app_area, str(name))

    def window_id(self, index: int) -> int:
        return _FIRST_WINDOW_ID + index

    def active_index(self) -> int:
        for i, root in enumerate(self.windows):
            if any(n.resource_id == _SHADE_ID for n in root.children):
                return i
        dialogs = [
            i for i, w in enumerate(self.windows) if i > 0 and w.sim is not None and w.sim.role == "dialog"
        ]
        return dialogs[-1] if dialogs else 0

    def roots(self, *, all_windows: bool = False) -> list[WindowNode]:
        """The roots a search or the page source covers."""
        if not self.windows:
            return []
        if all_windows:
            return [WindowNode(w, self.window_id(i)) for i, w in enumerate(self.windows)]
        i = self.active_index()
        return [WindowNode(self.windows[i], self.window_id(i))]

    @functools.cached_property
    def _index(self) -> dict[int, tuple[AxNode, str, int]]:
        """`id(node)` → (node, the view's key, its window id), for every node of every window."""
        out: dict[int, tuple[AxNode, str, int]] = {}
        for i, root in enumerate(self.windows):
            stack: list[tuple[AxNode, str]] = [(root, "0")]
            while stack:
                node, path = stack.pop()
                key = f"{self.screen_name}|{i}|{path}|{node.class_name}|{node.resource_id}"
                out[id(node)] = (node, key, self.window_id(i))
                stack.extend((c, f"{path}.{c.index}") for c in node.children)
        return out

    def find_key(self, key: str) -> AxNode | None:
        """The node with this key now, if the view is still there."""
        return next((node for node, k, _ in self._index.values() if k == key), None)

    def window_node(self, node: AxNode) -> WindowNode:
        """The node as a search root, with its window."""
        return WindowNode(node, self._index[id(node)][2])

    def identity(self, node: AxNode) -> tuple[str, str]:
        """(element id, key) of a node of this snapshot."""
        _, key, window_id = self._index[id(node)]
        return element_uuid(window_id, key), key
