"""The UiObjects u2.jar hands out by name, each found again on every use; UiSelector lookups and
waits; UiCollection / UiScrollable children; and scrolling a scrollable until something shows."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from trailblaze_sim.android.hierarchy import AxNode
from trailblaze_sim.android.ui_selector import (
    NOT_FOUND,
    RpcError,
    descendants,
    find_one,
    not_found,
    selector_instance,
    signature,
)
from trailblaze_sim.model import SimDevice, device_pause, device_time

__all__ = ["UiObjects"]

_WAIT_POLL_S = 0.05

Resolve = Callable[[list[AxNode]], AxNode | None]


class UiObjects:
    """Selectors and named UiObjects over the windows `windows` returns; scrolling swipes through
    `swipe_px` (the u2 service's timed swipe, in pixels)."""

    def __init__(
        self,
        device: SimDevice,
        windows: Callable[[], list[AxNode]],
        swipe_px: Callable[[float, float, float, float, int], None],
    ) -> None:
        self.device = device
        self._windows = windows
        self._swipe_px = swipe_px
        self._names: dict[str, Resolve] = {}

    def names(self) -> list[str]:
        """The UiObjects registered now (`getUiObjects`)."""
        return sorted(self._names)

    def resolver(self, obj: Any) -> Callable[[list[AxNode]], AxNode | None]:
        """How to find `obj` (a UiSelector, or the name of a UiObject handed out earlier) again."""
        if isinstance(obj, str):
            found = self._names.get(obj)
            if found is None:
                raise RpcError(-32001, NOT_FOUND, f"UiObject {obj} is not registered (removed or never made)")
            return found
        if not isinstance(obj, dict):
            raise RpcError(-32602, "method parameters invalid", f"not a selector: {obj!r}")
        return lambda windows: find_one(windows, obj)

    def find(self, sel: Any) -> AxNode | None:
        return self.resolver(sel)(self._windows())

    def must_find(self, sel: Any) -> AxNode:
        node = self.find(sel)
        if node is None:
            raise not_found(sel)
        return node

    def name(self, resolve: Callable[[list[AxNode]], AxNode | None]) -> str:
        """Register a UiObject the way the jar does (a UUID naming a lazily re-resolved object)."""
        if resolve(self._windows()) is None:
            raise RpcError(-32001, NOT_FOUND, "UiObject not found")
        name = str(uuid.uuid4())
        self._names[name] = resolve
        return name

    def remove(self, args: list[Any]) -> None:
        self._names.pop(str(args[0]), None)

    def wait(self, args: list[Any], *, gone: bool) -> bool:
        sel = args[0]
        timeout_s = (int(args[1]) if len(args) > 1 else 0) / 1000
        deadline = device_time(self.device) + timeout_s
        while True:
            present = self.find(sel) is not None
            if present != gone:
                return True
            if device_time(self.device) >= deadline:
                return False
            device_pause(self.device, min(_WAIT_POLL_S, max(0.0, deadline - device_time(self.device))))

    def child_by(self, args: list[Any], what: str) -> str:
        """childByText / childByDescription(collection, childPattern, text[, allowScrollSearch]):
        the first childPattern match under the collection whose own text (description) or any
        descendant's equals `text`, as UiCollection.getChildByText does; with allowScrollSearch the
        collection is scrolled through first, as UiScrollable's variant does."""
        collection, pattern, wanted = args[0], args[1], str(args[2])
        scroll = bool(args[3]) if len(args) > 3 else False

        def attr(n: AxNode) -> str:
            return n.text if what == "text" else n.content_desc

        def resolve(windows: list[AxNode]) -> AxNode | None:
            holder = find_one(windows, collection)
            for row in descendants(holder, pattern) if holder is not None else []:
                if any(attr(n) == wanted for n in row.walk()):
                    return row
            return None

        if scroll and resolve(self._windows()) is None:
            self._scroll_until(collection, lambda: resolve(self._windows()) is not None)
        if resolve(self._windows()) is None:
            raise RpcError(-32001, NOT_FOUND, f"for {what}= \"{wanted}\"")
        return self.name(resolve)

    def child_by_instance(self, args: list[Any]) -> str:
        collection, pattern, inst = args[0], args[1], int(args[2])

        def resolve(windows: list[AxNode]) -> AxNode | None:
            holder = find_one(windows, collection)
            rows = descendants(holder, pattern) if holder is not None else []
            return rows[inst] if 0 <= inst < len(rows) else None

        return self.name(resolve)

    def relative(self, args: list[Any], kind: str) -> str:
        base, pattern = self.resolver(args[0]), args[1]

        def resolve(windows: list[AxNode]) -> AxNode | None:
            node = base(windows)
            if node is None:
                return None
            scope = node.parent if kind == "sibling" else node
            rows = descendants(scope, pattern) if scope is not None else []
            return rows[selector_instance(pattern)] if 0 <= selector_instance(pattern) < len(rows) else None

        return self.name(resolve)

    def get_parent(self, args: list[Any]) -> str:
        base = self.resolver(args[0])

        def resolve(windows: list[AxNode]) -> AxNode | None:
            node = base(windows)
            return node.parent if node is not None else None

        self.must_find(args[0])
        return self.name(resolve)

    def _scroll_until(self, scrollable: Any, found: Callable[[], bool]) -> None:
        for forward in (False, True):
            for _ in range(30):
                moved = self.scroll_once(self.must_find(scrollable), vertical=True, forward=forward, fling=False)
                if found():
                    return
                if not moved:
                    break

    def scroll_once(self, node: AxNode, *, vertical: bool, forward: bool, fling: bool) -> bool:
        """One swipe inside a scrollable; True when the content moved."""
        left, top, right, bottom = node.bounds
        cx, cy = node.center
        # UiScrollable keeps a 10% dead zone at each edge (swipeDeadZonePercentage)
        near, far = (0.2, 0.8) if not fling else (0.1, 0.9)
        if vertical:
            start, end = top + (bottom - top) * far, top + (bottom - top) * near
            coords = (cx, start, cx, end) if forward else (cx, end, cx, start)
        else:
            start, end = left + (right - left) * far, left + (right - left) * near
            coords = (start, cy, end, cy) if forward else (end, cy, start, cy)
        before = signature(self._windows())
        self._swipe_px(*coords, 5 if fling else 55)
        return signature(self._windows()) != before

    def scroll(self, args: list[Any], *, forward: bool, fling: bool = False) -> bool:
        node = self.must_find(args[0])
        vertical = bool(args[1]) if len(args) > 1 else True
        return self.scroll_once(node, vertical=vertical, forward=forward, fling=fling)

    def scroll_to_edge(self, args: list[Any], *, forward: bool, fling: bool = False) -> bool:
        vertical = bool(args[1]) if len(args) > 1 else True
        max_swipes = int(args[2]) if len(args) > 2 else 30
        for _ in range(max(1, max_swipes)):
            node = self.must_find(args[0])
            if not self.scroll_once(node, vertical=vertical, forward=forward, fling=fling):
                break
        return True

    def scroll_to(self, args: list[Any]) -> bool:
        # UiScrollable.scrollIntoView: look, rewind to the beginning, then page forward looking
        scrollable, target = args[0], args[1]
        vertical = bool(args[2]) if len(args) > 2 else True
        if self.find(target) is not None:
            return True
        for forward in (False, True):
            for _ in range(30):
                node = self.must_find(scrollable)
                moved = self.scroll_once(node, vertical=vertical, forward=forward, fling=False)
                if forward and self.find(target) is not None:
                    return True
                if not moved:
                    break
        return self.find(target) is not None
