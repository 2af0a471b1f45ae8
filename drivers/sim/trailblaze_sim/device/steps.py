"""Running an app spec's steps on a simulated device: navigation (`go`, `reset`, `back`), state and
field assignments, dialogs, snackbars and toasts, blocking waits, `if` / `require`, logs, and the
back and edit keys; `{templates}` and conditions read the state names (`state.*`, `screen.*`,
`field.*`, `item.*`, `device.*`, `clock`).

`StepInterpreter` is a mixin of `SimulatedDevice`, which owns the state declared here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
    Step,
    ToastStep,
    ToggleStep,
    WaitStep,
)
from trailblaze_sim.device.state import Pending, ScreenInstance
from trailblaze_sim.model import SimClock

__all__ = ["StepInterpreter"]

_TEMPLATE = re.compile(r"\{([A-Za-z_][\w.]*)\}")


class StepInterpreter:
    """The step-running half of `SimulatedDevice`."""

    spec: AppSpec
    clock: SimClock
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

    if TYPE_CHECKING:  # defined by SimulatedDevice

        def _instance(self, name: str, params: dict[str, Any]) -> ScreenInstance: ...
        def _write_log(self, level: str, tag: str, message: str, *, pid: int | None = None) -> None: ...
        def _log_tag(self) -> str: ...
        def _go_home(self) -> None: ...
        def _focused_field(self) -> ElementSpec | None: ...
        def _fields_of(self, screen: str) -> list[ElementSpec]: ...
        def _time_of_day(self) -> str: ...

    # --- steps ----------------------------------------------------------------------------------
    def _run(self, steps: list[Step], item: dict[str, str] | None) -> None:
        queue = list(steps)
        while queue:
            step = queue.pop(0)
            if isinstance(step, IfStep):
                queue[:0] = step.then if self._test(step.if_, item) else step.else_
            elif isinstance(step, WaitStep):
                self._pending = Pending(
                    self.clock.now() + step.wait, queue, self._render(step.progress, item), item
                )
                self._keyboard = False
                return
            elif isinstance(step, RequireStep):
                if not self._stack or not self._stack[-1].fields.get(step.require, "").strip():
                    self._assign(step.error, step.message, item)
                    self._write_log("W", self._log_tag(), f"{step.require}: {step.message}")
                    return
            else:
                self._apply(step, item)

    def _apply(self, step: Step, item: dict[str, str] | None) -> None:
        if isinstance(step, GoStep):
            params = {k: self._render(v, item) for k, v in step.params.items()}
            self._navigate(lambda: self._stack.append(self._instance(step.go, params)))
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
            if self._stack:
                self._stack[-1].dialog = step.dialog
                self._keyboard = False
        elif isinstance(step, CloseDialogStep):
            if self._stack:
                self._stack[-1].dialog = None
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
            if self._stack:
                self._stack[-1].fields[step.clear] = ""
        elif isinstance(step, LogStep):
            if self._running:
                self._write_log(step.level, step.tag or self._log_tag(), self._render(step.log, item))

    def _navigate(self, change: Any) -> None:
        change()
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
        elif self._stack and self._stack[-1].dialog:
            self._stack[-1].dialog = None
        else:
            self._pop()

    def _edit_key(self, key: str) -> None:
        spec = self._focused_field()
        if spec is None:
            return
        fields = self._stack[-1].fields
        value = fields.get(self._focus, "")
        if key == "delete":
            fields[self._focus] = value[:-1]
        elif key == "enter" and spec.role == "multiline_field":
            fields[self._focus] = value + "\n"
        elif key == "enter":
            self._run(list(spec.on_submit), None)
        elif key == "tab":
            ids = [f.id for f in self._fields_of(self._stack[-1].name)]
            if self._focus in ids:
                self._focus = ids[(ids.index(self._focus) + 1) % len(ids)]

    # --- state names ----------------------------------------------------------------------------
    def _lookup(self, name: str, item: dict[str, str] | None) -> Any:
        if name == "clock":
            return self._time_of_day()
        scope, _, key = name.partition(".")
        top = self._stack[-1] if self._stack else None
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
        return ""

    def _assign(self, name: str, value: Any, item: dict[str, str] | None) -> None:
        scope, _, key = name.partition(".")
        if scope == "state":
            self._state[key] = value
            self.app_data.save_prefs(self._state)
        elif scope == "screen" and self._stack:
            self._stack[-1].locals[key] = value
        elif scope == "field" and self._stack:
            self._stack[-1].fields[key] = str(value)

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
