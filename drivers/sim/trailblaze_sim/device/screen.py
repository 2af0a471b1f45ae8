"""What a simulated device shows of its app: the back stack of screen instances, focus and keyboard,
the snackbar and a pending blocking step, with the questions every other part asks about them (the
split panes shown, the dialog's and the focused field's screen, the keyboard's frame).

`Screen` is a component of `SimulatedDevice`; the lifecycle, the steps, the tree and touches share
it by reference.
"""

from __future__ import annotations

from typing import Any

from trailblaze_sim.app.spec import FIELD_ROLES, AppSpec, ElementSpec, SplitSpec
from trailblaze_sim.device.display import Display
from trailblaze_sim.device.state import Pending, ScreenInstance
from trailblaze_sim.model import Frame

__all__ = ["Screen"]


class Screen:
    """The app's working UI state on one device (empty while the app is not running)."""

    def __init__(self, spec: AppSpec, display: Display) -> None:
        self.spec = spec
        self.display = display
        self.foreground = False
        self.stack: list[ScreenInstance] = []
        self.focus = ""
        """The focused field's id (in `focus_owner()`), or empty."""
        self.keyboard = False
        self.snackbar: tuple[str, float] | None = None
        """Its text and when it goes (device time)."""
        self.pending: Pending | None = None

    def clear(self) -> None:
        """Nothing on screen, as after the app stopped."""
        self.foreground = False
        self.stack = []
        self.focus = ""
        self.keyboard = False
        self.snackbar = None
        self.pending = None

    # --- split panes ----------------------------------------------------------------------------
    def split(self) -> tuple[ScreenInstance, SplitSpec] | None:
        """The primary pane's screen instance and the split while the top screen shows beside it."""
        if not self.foreground or len(self.stack) < 2:
            return None
        how = self.spec.screens[self.stack[-1].name].split
        if how is None or self.display.screen_width < how.min_width or self.stack[-2].name != how.primary:
            return None
        return self.stack[-2], how

    def shown(self) -> list[ScreenInstance]:
        """The screen instances on screen, the top one first."""
        if not self.foreground or not self.stack:
            return []
        split = self.split()
        return [self.stack[-1]] + ([split[0]] if split is not None else [])

    # --- dialogs, fields and the keyboard -------------------------------------------------------
    def dialog_owner(self) -> ScreenInstance | None:
        return next((s for s in self.shown() if s.dialog), None)

    def dialog_spec(self) -> Any:
        owner = self.dialog_owner()
        if owner is None:
            return None
        return self.spec.screens[owner.name].dialogs.get(owner.dialog or "")

    def fields_of(self, screen: str) -> list[ElementSpec]:
        out: list[ElementSpec] = []
        platform = self.display.platform

        def visit(el: ElementSpec) -> None:
            if platform not in el.platforms:
                return
            if el.role in FIELD_ROLES:
                out.append(el)
            for child in el.children:
                visit(child)

        for el in self.spec.screens[screen].elements:
            visit(el)
        return out

    def focus_owner(self) -> ScreenInstance | None:
        """The shown screen with the focused field (the top one when both panes have a field of that id)."""
        if not self.focus:
            return None
        for instance in self.shown():
            if any(f.id == self.focus for f in self.fields_of(instance.name)):
                return instance
        return None

    def focused_field(self) -> ElementSpec | None:
        owner = self.focus_owner()
        if owner is None or self.pending is not None:
            return None
        return next(f for f in self.fields_of(owner.name) if f.id == self.focus)

    def keyboard_frame(self) -> Frame | None:
        """The on-screen keyboard's frame (points) while it is shown, else None."""
        if not (self.keyboard and self.foreground and self.focus):
            return None
        d = self.display
        p = d.profile
        bottom = d.screen_height - p.inset_bottom if d.platform == "android" else d.screen_height
        return Frame(0, bottom - p.keyboard_height, d.screen_width, p.keyboard_height)
