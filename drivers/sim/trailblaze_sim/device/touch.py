"""Touches on a simulated device: taps, double taps, long presses, pinches and swipes, hit-tested
against the tree the device last laid out (clipping and modals honoured); a swipe scrolls the list
under its start point.

`TouchInput` is a mixin of `SimulatedDevice`, which owns the state declared here.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from trailblaze_sim.device.state import Built, Pending, ScreenInstance
from trailblaze_sim.model import Frame, SimClock, SimNode

__all__ = ["TouchInput"]

_DOUBLE_TAP_S = 0.3  # Android's ViewConfiguration.getDoubleTapTimeout()
_DOUBLE_TAP_SLOP = 24.0  # points, about Android's double-tap slop


class TouchInput:
    """The touch half of `SimulatedDevice`."""

    clock: SimClock
    screen_width: int
    screen_height: int
    _lock: threading.RLock
    _foreground: bool
    _stack: list[ScreenInstance]
    _focus: str
    _keyboard: bool
    _pending: Pending | None
    _last_tap: tuple[float, float, float] | None

    if TYPE_CHECKING:  # defined by SimulatedDevice and its other halves

        def _action(self) -> None: ...
        def _tick(self) -> None: ...
        def _build(self) -> Built: ...
        def _keyboard_frame(self) -> Frame | None: ...
        def _launch(self, screen: str | None = None) -> None: ...
        def _run(
            self, steps: list[Any], item: dict[str, str] | None, screen: ScreenInstance | None = None
        ) -> None: ...
        def _scoped(self, screen: ScreenInstance | None) -> AbstractContextManager[None]: ...
        def _lookup(self, name: str, item: dict[str, str] | None) -> Any: ...
        def _assign(self, name: str, value: Any, item: dict[str, str] | None) -> None: ...

    def tap(self, x: float, y: float) -> None:
        """A tap; a second one within 0.3 s (device time) and 24 pt of the last is a double tap
        when the element under it has `on_double_tap` (how Android clients send double taps)."""
        with self._lock:
            self._action()
            now = self.clock.now()
            last, self._last_tap = self._last_tap, (now, x, y)
            if (
                last is not None
                and now - last[0] <= _DOUBLE_TAP_S
                and abs(x - last[1]) < _DOUBLE_TAP_SLOP
                and abs(y - last[2]) < _DOUBLE_TAP_SLOP
                and self._double_tap_handler(x, y)
            ):
                self._last_tap = None
                return
            self._touch(x, y, long=False)

    def long_press(self, x: float, y: float, duration: float = 0.5) -> None:
        with self._lock:
            self._action()
            self._touch(x, y, long=True)

    def double_tap(self, x: float, y: float) -> None:
        """An element's `on_double_tap` when it has one (the deepest under the finger), else two taps."""
        with self._lock:
            self._action()
            self._last_tap = None
            if self._double_tap_handler(x, y):
                return
            self._touch(x, y, long=False)
            self._tick()
            self._touch(x, y, long=False)

    def _double_tap_handler(self, x: float, y: float) -> bool:
        """Runs the `on_double_tap` of the deepest element under (x, y) that has one."""
        if self._pending is not None or not self._foreground:
            return False
        kb = self._keyboard_frame()
        if kb is not None and kb.contains(x, y):
            return False
        built = self._build()
        for node in reversed(self._hit_path(built, x, y)):
            binding = built.bindings.get(id(node))
            if binding is not None and binding.double_steps:
                self._run(list(binding.double_steps), binding.item, binding.screen)
                return True
        return False

    def pinch(self, x: float, y: float, scale: float) -> None:
        """Two fingers around (x, y); no app element zooms, so only the action itself registers."""
        with self._lock:
            self._action()

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.2) -> None:
        """A finger moving from (x1, y1) to (x2, y2); scrolls the list under the start point."""
        with self._lock:
            self._action()
            if self._pending is not None or not self._foreground:
                return
            built = self._build()
            path = self._hit_path(built, x1, y1)
            for node in reversed(path):
                binding = built.bindings.get(id(node))
                if binding is not None and binding.list_key:
                    # The list's own screen: in a split it may be the primary pane's, not the top one.
                    owner = binding.screen or self._stack[-1]
                    offset = owner.scroll.get(binding.list_key, 0.0) + (y1 - y2)
                    owner.scroll[binding.list_key] = min(max(0.0, offset), binding.max_scroll)
                    return

    def _touch(self, x: float, y: float, *, long: bool) -> None:
        if self._pending is not None and self._foreground:
            return  # a blocking progress indicator swallows touches
        kb = self._keyboard_frame()
        if kb is not None and kb.contains(x, y):
            return
        built = self._build()
        path = self._hit_path(built, x, y)
        for node in reversed(path):
            binding = built.bindings.get(id(node))
            if binding is None:
                continue
            if binding.launch:
                if not long:
                    self._launch()
                return
            if binding.field_id:
                self._focus = binding.field_id
                self._keyboard = True
                return
            # A switch's own `on_tap` replaces its toggle (a switch wired to the wrong setting).
            if binding.bind and not long and not binding.steps:
                with self._scoped(binding.screen):
                    self._assign(binding.bind, not self._lookup(binding.bind, binding.item), binding.item)
                return
            steps = binding.long_steps if long else binding.steps
            if steps:
                self._run(list(steps), binding.item, binding.screen)
                return
            if node.clickable and not long:
                return

    def _hit_path(self, built: Built, x: float, y: float) -> list[SimNode]:
        """The nodes under (x, y) from the root down to the deepest, honouring clipping and modals."""
        root = built.modal if built.modal is not None else built.root

        def descend(node: SimNode, clip: Frame) -> list[SimNode] | None:
            if not node.visible or not node.frame.contains(x, y) or not clip.contains(x, y):
                return None
            inner = _intersect(clip, node.frame) if node.scrollable else clip
            for child in reversed(node.children):
                found = descend(child, inner)
                if found is not None:
                    return [node, *found]
            return [node]

        screen = Frame(0, 0, self.screen_width, self.screen_height)
        return descend(root, screen) or []


def _intersect(a: Frame, b: Frame) -> Frame:
    x, y = max(a.x, b.x), max(a.y, b.y)
    return Frame(x, y, max(0.0, min(a.right, b.right) - x), max(0.0, min(a.bottom, b.bottom) - y))
