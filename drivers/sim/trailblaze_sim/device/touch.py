"""Touches on a simulated device: taps, double taps, long presses, pinches and swipes, hit-tested
against the tree the device last laid out (clipping and modals honoured); a swipe scrolls the list
under its start point.

`TouchInput` is a component of `SimulatedDevice`, which holds the device's lock and ticks its
clock before each touch; it owns the last tap.
"""

from __future__ import annotations

from trailblaze_sim.device.lifecycle import AppLifecycle
from trailblaze_sim.device.screen import Screen
from trailblaze_sim.device.state import Built
from trailblaze_sim.device.steps import StepInterpreter
from trailblaze_sim.device.tree import TreeBuilder
from trailblaze_sim.model import Frame, SimClock, SimNode

__all__ = ["TouchInput"]

_DOUBLE_TAP_S = 0.3  # Android's ViewConfiguration.getDoubleTapTimeout()
_DOUBLE_TAP_SLOP = 24.0  # points, about Android's double-tap slop


class TouchInput:
    """Touches on one device; remembers the last tap (for double taps)."""

    def __init__(
        self, clock: SimClock, screen: Screen, tree: TreeBuilder, steps: StepInterpreter, apps: AppLifecycle
    ) -> None:
        self.clock = clock
        self.screen = screen
        self.display = screen.display
        self.tree = tree
        self.steps = steps
        self.apps = apps
        self.last_tap: tuple[float, float, float] | None = None
        """(device time, x, y) of the last tap that was not part of a double tap."""

    def tap(self, x: float, y: float) -> None:
        """A tap; a second one within 0.3 s (device time) and 24 pt of the last is a double tap
        when the element under it has `on_double_tap` (how Android clients send double taps)."""
        now = self.clock.now()
        last, self.last_tap = self.last_tap, (now, x, y)
        if (
            last is not None
            and now - last[0] <= _DOUBLE_TAP_S
            and abs(x - last[1]) < _DOUBLE_TAP_SLOP
            and abs(y - last[2]) < _DOUBLE_TAP_SLOP
            and self._double_tap_handler(x, y)
        ):
            self.last_tap = None
            return
        self._touch(x, y, long=False)

    def long_press(self, x: float, y: float) -> None:
        self._touch(x, y, long=True)

    def double_tap(self, x: float, y: float) -> None:
        """An element's `on_double_tap` when it has one (the deepest under the finger), else two taps."""
        self.last_tap = None
        if self._double_tap_handler(x, y):
            return
        self._touch(x, y, long=False)
        self.steps.tick()
        self._touch(x, y, long=False)

    def _double_tap_handler(self, x: float, y: float) -> bool:
        """Runs the `on_double_tap` of the deepest element under (x, y) that has one."""
        if self.screen.pending is not None or not self.screen.foreground:
            return False
        kb = self.screen.keyboard_frame()
        if kb is not None and kb.contains(x, y):
            return False
        built = self.tree.build()
        for node in reversed(self._hit_path(built, x, y)):
            binding = built.bindings.get(id(node))
            if binding is not None and binding.double_steps:
                self.steps.run(list(binding.double_steps), binding.item, binding.screen)
                return True
        return False

    def swipe(self, x1: float, y1: float, x2: float, y2: float) -> None:
        """A finger moving from (x1, y1) to (x2, y2); scrolls the list under the start point."""
        if self.screen.pending is not None or not self.screen.foreground:
            return
        built = self.tree.build()
        path = self._hit_path(built, x1, y1)
        for node in reversed(path):
            binding = built.bindings.get(id(node))
            if binding is not None and binding.list_key:
                # The list's own screen: in a split it may be the primary pane's, not the top one.
                owner = binding.screen or self.screen.stack[-1]
                offset = owner.scroll.get(binding.list_key, 0.0) + (y1 - y2)
                owner.scroll[binding.list_key] = min(max(0.0, offset), binding.max_scroll)
                return

    def _touch(self, x: float, y: float, *, long: bool) -> None:
        if self.screen.pending is not None and self.screen.foreground:
            return  # a blocking progress indicator swallows touches
        kb = self.screen.keyboard_frame()
        if kb is not None and kb.contains(x, y):
            return
        built = self.tree.build()
        path = self._hit_path(built, x, y)
        for node in reversed(path):
            binding = built.bindings.get(id(node))
            if binding is None:
                continue
            if binding.launch:
                if not long:
                    self.apps.launch()
                return
            if binding.field_id:
                self.screen.focus = binding.field_id
                self.screen.keyboard = True
                return
            # A switch's own `on_tap` replaces its toggle (a switch wired to the wrong setting).
            if binding.bind and not long and not binding.steps:
                with self.steps.scoped(binding.screen):
                    self.steps.assign(binding.bind, not self.steps.lookup(binding.bind, binding.item), binding.item)
                return
            steps = binding.long_steps if long else binding.steps
            if steps:
                self.steps.run(list(steps), binding.item, binding.screen)
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

        screen = Frame(0, 0, self.display.screen_width, self.display.screen_height)
        return descend(root, screen) or []


def _intersect(a: Frame, b: Frame) -> Frame:
    x, y = max(a.x, b.x), max(a.y, b.y)
    return Frame(x, y, max(0.0, min(a.right, b.right) - x), max(0.0, min(a.bottom, b.bottom) - y))
