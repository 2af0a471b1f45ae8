"""Running an app spec's steps on a simulated device: navigation (`go`, `reset`, `back`), state and
field assignments, dialogs, snackbars and toasts, blocking waits, `if` / `require`, logs, and the
back and edit keys; `{templates}` and conditions read the state names (`state.*`, `screen.*`,
`field.*`, `item.*`, `device.*`, `clock`).

`StepInterpreter` is a component of `SimulatedDevice`: it owns the app's persistent state and data,
changes the shared `Screen` and asks `AppLifecycle` to go home or write to the log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from trailblaze_sim.app.data import AppDataDir, NetworkState
from trailblaze_sim.app.spec import (
    AppSpec,
    BackStep,
    ClearStep,
    CloseDialogStep,
    Condition,
    DialogStep,
    FocusStep,
    GoStep,
    HideKeyboardStep,
    IfStep,
    LogStep,
    RemoveStep,
    RequireStep,
    ResetStep,
    SetStep,
    SnackbarStep,
    Step,
    ToastStep,
    ToggleStep,
    WaitStep,
)
from trailblaze_sim.device.lifecycle import AppLifecycle
from trailblaze_sim.device.screen import Screen
from trailblaze_sim.device.state import Pending, ScreenInstance
from trailblaze_sim.device.wallclock import WallClock
from trailblaze_sim.model import SimClock

__all__ = ["StepInterpreter"]

_TEMPLATE = re.compile(r"\{([A-Za-z_][\w.]*)\}")


class StepInterpreter:
    """Runs the app's steps; owns the app's persistent state (`state.*`) and its data lists."""

    def __init__(
        self,
        spec: AppSpec,
        clock: SimClock,
        screen: Screen,
        apps: AppLifecycle,
        network: NetworkState,
        app_data: AppDataDir,
        wall: WallClock,
    ) -> None:
        self.spec = spec
        self.clock = clock
        self.screen = screen
        self.apps = apps
        self.network = network
        self.app_data = app_data
        self.wall = wall
        self.toast_sink: Callable[[str, float], None] | None = None
        """Where the app's toasts go (Android's SystemUI, set by the u2 server): (text, seconds)."""
        self.scope: ScreenInstance | None = None
        """The screen instance `screen.*` / `field.*` and screen-level steps address when it is not the
        top one: a split's primary pane while its elements are built or its actions run."""
        self.state: dict[str, Any] = {}
        self.data: dict[str, list[dict[str, str]]] = {}
        self.reset_data()

    def reset_data(self) -> None:
        """The app's state and data as freshly installed (signed out, all messages back)."""
        self.state = dict(self.spec.state)
        self.data = {k: v.generate() for k, v in self.spec.data.items()}
        self.app_data.reset(self.data)

    def tick(self) -> None:
        """Runs the blocking steps that are due and drops an expired snackbar."""
        screen = self.screen
        now = self.clock.now()
        while screen.pending is not None and now >= screen.pending.due:
            pending, screen.pending = screen.pending, None
            self.run(pending.steps, pending.item, pending.screen)
        if screen.snackbar is not None and now >= screen.snackbar[1]:
            screen.snackbar = None

    # --- steps ----------------------------------------------------------------------------------
    def _current(self) -> ScreenInstance | None:
        if self.scope is not None:
            return self.scope
        stack = self.screen.stack
        return stack[-1] if stack else None

    @contextmanager
    def scoped(self, screen: ScreenInstance | None) -> Iterator[None]:
        """Address `screen` instead of the top one (no-op for the top one, so a phone, which shows
        only the top screen, behaves exactly as before splits existed)."""
        outer = self.scope
        stack = self.screen.stack
        if screen is not None and stack and screen is not stack[-1]:
            self.scope = screen
        try:
            yield
        finally:
            self.scope = outer

    def run(
        self, steps: list[Step], item: dict[str, str] | None, screen: ScreenInstance | None = None
    ) -> None:
        with self.scoped(screen):
            self._run_steps(steps, item)

    def _run_steps(self, steps: list[Step], item: dict[str, str] | None) -> None:
        queue = list(steps)
        while queue:
            step = queue.pop(0)
            if isinstance(step, IfStep):
                queue[:0] = step.then if self.test(step.if_, item) else step.else_
            elif isinstance(step, WaitStep):
                self.screen.pending = Pending(
                    self.clock.now() + step.wait, queue, self.render(step.progress, item), item, self.scope
                )
                self.screen.keyboard = False
                return
            elif isinstance(step, RequireStep):
                current = self._current()
                if current is None or not current.fields.get(step.require, "").strip():
                    self.assign(step.error, step.message, item)
                    self.apps.write_log("W", self.apps.log_tag(), f"{step.require}: {step.message}")
                    return
            else:
                self._apply(step, item)

    def _apply(self, step: Step, item: dict[str, str] | None) -> None:
        if isinstance(step, GoStep):
            params = {k: self.render(v, item) for k, v in step.params.items()}
            # Beside its primary pane a screen is the detail pane: opening another screen that splits
            # with the same primary replaces it (selecting another message) rather than stacking up.
            split, target = self.screen.split(), self.spec.screens[step.go].split
            replace = (
                split is not None
                and target is not None
                and target.primary == split[0].name
                and self.screen.display.screen_width >= target.min_width
            )
            keep = len(self.screen.stack) - 1 if replace else len(self.screen.stack)
            self.navigate(
                lambda: self.screen.stack.__setitem__(slice(keep, None), [ScreenInstance.new(step.go, params)])
            )
        elif isinstance(step, ResetStep):
            params = {k: self.render(v, item) for k, v in step.params.items()}
            stack = self.screen.stack
            self.navigate(lambda: stack.__setitem__(slice(None), [ScreenInstance.new(step.reset, params)]))
        elif isinstance(step, BackStep):
            self._pop()
        elif isinstance(step, SetStep):
            for name, value in step.set.items():
                self.assign(name, self.render(value, item) if isinstance(value, str) else value, item)
        elif isinstance(step, ToggleStep):
            self.assign(step.toggle, not self.lookup(step.toggle, item), item)
        elif isinstance(step, SnackbarStep):
            self.screen.snackbar = (self.render(step.snackbar, item), self.clock.now() + step.seconds)
        elif isinstance(step, ToastStep):
            if self.toast_sink is not None:
                self.toast_sink(self.render(step.toast, item), step.seconds)
        elif isinstance(step, DialogStep):
            current = self._current()
            if current is not None:
                current.dialog = step.dialog
                self.screen.keyboard = False
        elif isinstance(step, CloseDialogStep):
            current = self._current()
            if current is not None:
                current.dialog = None
        elif isinstance(step, RemoveStep):
            value = self.render(step.value, item)
            items = self.data.get(step.remove, [])
            self.data[step.remove] = [i for i in items if i.get(step.key) != value]
            self.app_data.archive(step.remove, step.key, value)
        elif isinstance(step, FocusStep):
            self.screen.focus = step.focus
            self.screen.keyboard = True
        elif isinstance(step, HideKeyboardStep):
            self.screen.keyboard = False
        elif isinstance(step, ClearStep):
            current = self._current()
            if current is not None:
                current.fields[step.clear] = ""
        elif isinstance(step, LogStep):
            if self.apps.running:
                self.apps.write_log(step.level, step.tag or self.apps.log_tag(), self.render(step.log, item))

    def navigate(self, change: Any) -> None:
        change()
        # The pane the action started in may be gone; later steps address the new top, as on a phone.
        self.scope = None
        self.screen.focus = ""
        self.screen.keyboard = False

    def _pop(self) -> None:
        if len(self.screen.stack) > 1:
            self.navigate(self.screen.stack.pop)
            return
        stack = self.screen.stack
        top = stack[-1] if stack else None
        spec = self.spec.screens.get(top.name) if top else None
        if spec is not None and spec.back_to:
            self.navigate(lambda: stack.__setitem__(slice(None), [ScreenInstance.new(spec.back_to, {})]))
        else:
            self.apps.go_home()

    def back_key(self) -> None:
        if not self.screen.foreground:
            return
        if self.screen.keyboard and self.screen.focus:
            self.screen.keyboard = False
        elif self.screen.pending is not None:
            return
        elif (owner := self.screen.dialog_owner()) is not None:
            owner.dialog = None
        else:
            self._pop()

    def edit_key(self, key: str) -> None:
        spec = self.screen.focused_field()
        owner = self.screen.focus_owner()
        if spec is None or owner is None:
            return
        fields = owner.fields
        value = fields.get(self.screen.focus, "")
        if key == "delete":
            fields[self.screen.focus] = value[:-1]
        elif key == "enter" and spec.role == "multiline_field":
            fields[self.screen.focus] = value + "\n"
        elif key == "enter":
            self.run(list(spec.on_submit), None, owner)
        elif key == "tab":
            ids = [f.id for f in self.screen.fields_of(owner.name)]
            if self.screen.focus in ids:
                self.screen.focus = ids[(ids.index(self.screen.focus) + 1) % len(ids)]

    # --- state names ----------------------------------------------------------------------------
    def lookup(self, name: str, item: dict[str, str] | None) -> Any:
        if name == "clock":
            return self.wall.text()
        scope, _, key = name.partition(".")
        top = self._current()
        if scope == "state":
            return self.state.get(key, "")
        if scope == "screen":
            return top.locals.get(key, "") if top else ""
        if scope == "field":
            return top.fields.get(key, "") if top else ""
        if scope == "item":
            return (item or {}).get(key, "")
        if scope == "device" and key in ("online", "wifi", "data", "airplane"):
            return getattr(self.network, key)
        if name == "device.launches":
            return self.apps.launches
        if name == "device.dark":  # the system's dark theme (the `dark` profile modifier)
            return self.screen.display.profile.dark
        if name == "device.tablet":
            return self.screen.display.profile.tablet
        return ""

    def assign(self, name: str, value: Any, item: dict[str, str] | None) -> None:
        scope, _, key = name.partition(".")
        if scope == "state":
            self.state[key] = value
            self.app_data.save_prefs(self.state)
        elif scope == "screen" and (current := self._current()) is not None:
            current.locals[key] = value
        elif scope == "field" and (current := self._current()) is not None:
            current.fields[key] = str(value)

    def render(self, template: str, item: dict[str, str] | None) -> str:
        if "{" not in template:
            return template
        return _TEMPLATE.sub(lambda m: _text(self.lookup(m.group(1), item)), template)

    def test(self, cond: Condition, item: dict[str, str] | None) -> bool:
        value = self.lookup(cond.var, item)
        if cond.equals is not None:
            result = _text(value) == _text(cond.equals)
        elif cond.empty is not None:
            result = (_text(value) == "") == cond.empty
        else:
            result = bool(value) and value != "false"
        return result != cond.negate


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
