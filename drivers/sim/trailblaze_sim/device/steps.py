"""Running an app spec's steps on a simulated device: navigation (`go`, `reset`, `back`), state and
field assignments, dialogs, snackbars and toasts, blocking waits, `if` / `require`, logs, and the
back and edit keys; `{templates}` and conditions read the state names (`state.*`, `screen.*`,
`field.*`, `item.*`, `device.*`, `clock`).

`StepInterpreter` is a mixin of `SimulatedDevice`, which owns the state declared here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from trailblaze_sim.app.data import AppDataDir, NetworkState
from trailblaze_sim.app.spec import (
    AppSpec,
    BackStep,
    ClearStep,
    CloseDialogStep,
    Condition,
    DialogStep,
    ElementSpec,
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
    SplitSpec,
    Step,
    ToastStep,
    ToggleStep,
    WaitStep,
)
from trailblaze_sim.device.profile import DeviceProfile
from trailblaze_sim.device.state import Pending, ScreenInstance
from trailblaze_sim.model import SimClock

__all__ = ["StepInterpreter"]

_TEMPLATE = re.compile(r"\{([A-Za-z_][\w.]*)\}")


class StepInterpreter:
    """The step-running half of `SimulatedDevice`."""

    spec: AppSpec
    clock: SimClock
    screen_width: int
    profile: DeviceProfile
    network: NetworkState
    app_data: AppDataDir
    toast_sink: Callable[[str, float], None] | None
    _foreground: bool
    _running: bool
    _launches: int
    _stack: list[ScreenInstance]
    _focus: str
    _keyboard: bool
    _snackbar: tuple[str, float] | None
    _pending: Pending | None
    _data: dict[str, list[dict[str, str]]]
    _state: dict[str, Any]
    _scope: ScreenInstance | None = None
    """The screen instance `screen.*` / `field.*` and screen-level steps address when it is not the
    top one: a split's primary pane while its elements are built or its actions run."""

    if TYPE_CHECKING:  # defined by SimulatedDevice

        def _instance(self, name: str, params: dict[str, Any]) -> ScreenInstance: ...
        def _write_log(self, level: str, tag: str, message: str, *, pid: int | None = None) -> None: ...
        def _log_tag(self) -> str: ...
        def _go_home(self) -> None: ...
        def _focused_field(self) -> ElementSpec | None: ...
        def _fields_of(self, screen: str) -> list[ElementSpec]: ...
        def _time_of_day(self) -> str: ...
        def _split(self) -> tuple[ScreenInstance, SplitSpec] | None: ...
        def _dialog_owner(self) -> ScreenInstance | None: ...
        def _focus_owner(self) -> ScreenInstance | None: ...

    # --- steps ----------------------------------------------------------------------------------
    def _current(self) -> ScreenInstance | None:
        if self._scope is not None:
            return self._scope
        return self._stack[-1] if self._stack else None

    def _scoped(self, screen: ScreenInstance | None) -> AbstractContextManager[None]:
        """Address `screen` instead of the top one (no-op for the top one, so a phone, which shows
        only the top screen, behaves exactly as before splits existed)."""
        return self._scoping(screen)

    @contextmanager
    def _scoping(self, screen: ScreenInstance | None) -> Iterator[None]:
        outer = self._scope
        if screen is not None and self._stack and screen is not self._stack[-1]:
            self._scope = screen
        try:
            yield
        finally:
            self._scope = outer

    def _run(
        self, steps: list[Step], item: dict[str, str] | None, screen: ScreenInstance | None = None
    ) -> None:
        with self._scoped(screen):
            self._run_steps(steps, item)

    def _run_steps(self, steps: list[Step], item: dict[str, str] | None) -> None:
        queue = list(steps)
        while queue:
            step = queue.pop(0)
            if isinstance(step, IfStep):
                queue[:0] = step.then if self._test(step.if_, item) else step.else_
            elif isinstance(step, WaitStep):
                self._pending = Pending(
                    self.clock.now() + step.wait, queue, self._render(step.progress, item), item, self._scope
                )
                self._keyboard = False
                return
            elif isinstance(step, RequireStep):
                current = self._current()
                if current is None or not current.fields.get(step.require, "").strip():
                    self._assign(step.error, step.message, item)
                    self._write_log("W", self._log_tag(), f"{step.require}: {step.message}")
                    return
            else:
                self._apply(step, item)

    def _apply(self, step: Step, item: dict[str, str] | None) -> None:
        if isinstance(step, GoStep):
            params = {k: self._render(v, item) for k, v in step.params.items()}
            # Beside its primary pane a screen is the detail pane: opening another screen that splits
            # with the same primary replaces it (selecting another message) rather than stacking up.
            split, target = self._split(), self.spec.screens[step.go].split
            replace = (
                split is not None
                and target is not None
                and target.primary == split[0].name
                and self.screen_width >= target.min_width
            )
            keep = len(self._stack) - 1 if replace else len(self._stack)
            self._navigate(
                lambda: self._stack.__setitem__(slice(keep, None), [self._instance(step.go, params)])
            )
        elif isinstance(step, ResetStep):
            params = {k: self._render(v, item) for k, v in step.params.items()}
            self._navigate(lambda: self._stack.__setitem__(slice(None), [self._instance(step.reset, params)]))
        elif isinstance(step, BackStep):
            self._pop()
        elif isinstance(step, SetStep):
            for name, value in step.set.items():
                self._assign(name, self._render(value, item) if isinstance(value, str) else value, item)
        elif isinstance(step, ToggleStep):
            self._assign(step.toggle, not self._lookup(step.toggle, item), item)
        elif isinstance(step, SnackbarStep):
            self._snackbar = (self._render(step.snackbar, item), self.clock.now() + step.seconds)
        elif isinstance(step, ToastStep):
            if self.toast_sink is not None:
                self.toast_sink(self._render(step.toast, item), step.seconds)
        elif isinstance(step, DialogStep):
            current = self._current()
            if current is not None:
                current.dialog = step.dialog
                self._keyboard = False
        elif isinstance(step, CloseDialogStep):
            current = self._current()
            if current is not None:
                current.dialog = None
        elif isinstance(step, RemoveStep):
            value = self._render(step.value, item)
            items = self._data.get(step.remove, [])
            self._data[step.remove] = [i for i in items if i.get(step.key) != value]
            self.app_data.archive(step.remove, step.key, value)
        elif isinstance(step, FocusStep):
            self._focus = step.focus
            self._keyboard = True
        elif isinstance(step, HideKeyboardStep):
            self._keyboard = False
        elif isinstance(step, ClearStep):
            current = self._current()
            if current is not None:
                current.fields[step.clear] = ""
        elif isinstance(step, LogStep):
            if self._running:
                self._write_log(step.level, step.tag or self._log_tag(), self._render(step.log, item))

    def _navigate(self, change: Any) -> None:
        change()
        # The pane the action started in may be gone; later steps address the new top, as on a phone.
        self._scope = None
        self._focus = ""
        self._keyboard = False

    def _pop(self) -> None:
        if len(self._stack) > 1:
            self._navigate(self._stack.pop)
            return
        top = self._stack[-1] if self._stack else None
        screen = self.spec.screens.get(top.name) if top else None
        if screen is not None and screen.back_to:
            self._navigate(lambda: self._stack.__setitem__(slice(None), [self._instance(screen.back_to, {})]))
        else:
            self._go_home()

    def _back_key(self) -> None:
        if not self._foreground:
            return
        if self._keyboard and self._focus:
            self._keyboard = False
        elif self._pending is not None:
            return
        elif (owner := self._dialog_owner()) is not None:
            owner.dialog = None
        else:
            self._pop()

    def _edit_key(self, key: str) -> None:
        spec = self._focused_field()
        owner = self._focus_owner()
        if spec is None or owner is None:
            return
        fields = owner.fields
        value = fields.get(self._focus, "")
        if key == "delete":
            fields[self._focus] = value[:-1]
        elif key == "enter" and spec.role == "multiline_field":
            fields[self._focus] = value + "\n"
        elif key == "enter":
            self._run(list(spec.on_submit), None, owner)
        elif key == "tab":
            ids = [f.id for f in self._fields_of(owner.name)]
            if self._focus in ids:
                self._focus = ids[(ids.index(self._focus) + 1) % len(ids)]

    # --- state names ----------------------------------------------------------------------------
    def _lookup(self, name: str, item: dict[str, str] | None) -> Any:
        if name == "clock":
            return self._time_of_day()
        scope, _, key = name.partition(".")
        top = self._current()
        if scope == "state":
            return self._state.get(key, "")
        if scope == "screen":
            return top.locals.get(key, "") if top else ""
        if scope == "field":
            return top.fields.get(key, "") if top else ""
        if scope == "item":
            return (item or {}).get(key, "")
        if scope == "device" and key in ("online", "wifi", "data", "airplane"):
            return getattr(self.network, key)
        if name == "device.launches":
            return self._launches
        if name == "device.dark":  # the system's dark theme (the `dark` profile modifier)
            return self.profile.dark
        if name == "device.tablet":
            return self.profile.tablet
        return ""

    def _assign(self, name: str, value: Any, item: dict[str, str] | None) -> None:
        scope, _, key = name.partition(".")
        if scope == "state":
            self._state[key] = value
            self.app_data.save_prefs(self._state)
        elif scope == "screen" and (current := self._current()) is not None:
            current.locals[key] = value
        elif scope == "field" and (current := self._current()) is not None:
            current.fields[key] = str(value)

    def _render(self, template: str, item: dict[str, str] | None) -> str:
        if "{" not in template:
            return template
        return _TEMPLATE.sub(lambda m: _text(self._lookup(m.group(1), item)), template)

    def _test(self, cond: Condition, item: dict[str, str] | None) -> bool:
        value = self._lookup(cond.var, item)
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
