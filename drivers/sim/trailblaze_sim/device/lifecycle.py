"""The app's life on a simulated device: launching it (cold or warm), stopping it, clearing its data,
going home, starting one of its activities, and what the system says about it (current app, app
state, the ActivityManager lines in the device log).

`AppLifecycle` is a mixin of `SimulatedDevice`, which owns the state declared here.
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, Any

from trailblaze.errors import DeviceError
from trailblaze_sim.app.data import AppDataDir
from trailblaze_sim.app.spec import AppSpec
from trailblaze_sim.device.log import DeviceLog
from trailblaze_sim.device.profile import LAUNCHER_ID
from trailblaze_sim.device.state import Pending, ScreenInstance
from trailblaze_sim.model import AppInfo, Platform, SimClock

__all__ = ["AppLifecycle"]

_PIDS = itertools.count(4211)
_SYSTEM_SERVER_PID = 601


class AppLifecycle:
    """The app-lifecycle half of `SimulatedDevice`."""

    spec: AppSpec
    platform: Platform
    serial: str
    app: AppInfo
    clock: SimClock
    log: DeviceLog
    app_data: AppDataDir
    _lock: threading.RLock
    _tod_base: float
    _running: bool
    _foreground: bool
    _pid: int
    _launches: int
    _stack: list[ScreenInstance]
    _focus: str
    _keyboard: bool
    _snackbar: tuple[str, float] | None
    _pending: Pending | None
    _state: dict[str, Any]
    _data: dict[str, list[dict[str, str]]]

    if TYPE_CHECKING:  # defined by SimulatedDevice and its other halves

        def _action(self) -> None: ...
        def _tick(self) -> None: ...
        def _navigate(self, change: Any) -> None: ...

    def current_app(self) -> AppInfo | None:
        with self._lock:
            self._tick()
            if not self._foreground:
                return None
            return AppInfo(
                app_id=self.app.app_id, name=self.app.name, activity=self._top_activity(), pid=self._pid
            )

    def _app_info(self) -> AppInfo:
        return AppInfo(app_id=self.app.app_id, name=self.app.name, activity=self.app.activity, pid=self._pid)

    def _top_activity(self) -> str:
        """The activity of the screen on top (the app's own activity for screens that name none)."""
        if self._running and self._stack:
            return self.spec.screens[self._stack[-1].name].activity or self.app.activity
        return self.app.activity

    def _full_activity(self, activity: str) -> str:
        return self.app.app_id + activity if activity.startswith(".") else activity

    def start_activity(self, app_id: str, activity: str) -> bool:
        with self._lock:
            self._action()
            self._check_app(app_id)
            wanted = self._full_activity(activity)
            if wanted == self._full_activity(self.app.activity):
                self._launch()
                return True
            screen = next(
                (
                    n
                    for n, s in self.spec.screens.items()
                    if s.activity and self._full_activity(s.activity) == wanted
                ),
                None,
            )
            if screen is None:
                return False
            # a standard-launch-mode activity: a new instance on top of the task (the task alone when cold)
            fresh = not self._running
            self._launch(screen)
            if not fresh:
                self._navigate(lambda: self._stack.append(self._instance(screen, {})))
            return True

    def installed_apps(self) -> list[AppInfo]:
        with self._lock:
            return [self._app_info()]

    def app_state(self, app_id: str) -> int:
        """XCUIApplicationState: 1 not running, 2 background suspended, 4 running foreground."""
        with self._lock:
            self._tick()
            if app_id == LAUNCHER_ID[self.platform]:
                return 2 if self._foreground else 4
            if app_id != self.app.app_id or not self._running:
                return 1
            return 4 if self._foreground else 2

    def launch(self, app_id: str, *, stop_first: bool = False, boot: bool = False) -> None:
        """`boot`: the app the phone starts with, which `{device.launches}` does not count."""
        with self._lock:
            self._action()
            self._check_app(app_id)
            if stop_first:
                self._terminate()
            self._launch()
            if boot:
                self._launches = 0

    def terminate(self, app_id: str) -> None:
        with self._lock:
            self._action()
            self._check_app(app_id)
            self._terminate()

    def clear_app_data(self, app_id: str) -> None:
        """Stops the app and resets its state to a fresh install (signed out, all messages back)."""
        with self._lock:
            self._action()
            self._check_app(app_id)
            self._terminate()
            self._reset_data()

    def go_home(self) -> None:
        with self._lock:
            self._action()
            self._go_home()

    def _check_app(self, app_id: str) -> None:
        if app_id != self.app.app_id:
            raise DeviceError(
                f"app {app_id!r} is not installed on {self.serial}; installed: {self.app.app_id}"
            )

    def _reset_data(self) -> None:
        self._state: dict[str, Any] = dict(self.spec.state)
        self._data: dict[str, list[dict[str, str]]] = {k: v.generate() for k, v in self.spec.data.items()}
        self.app_data.reset(self._data)

    def _launch(self, screen: str | None = None) -> None:
        if not self._running:
            self._running = True
            self._launches += 1
            self._pid = next(_PIDS)
            self._stack = [self._instance(screen or self.spec.launch, {})]
            app_id = self.app.app_id
            self._write_log(
                "I",
                "ActivityManager",
                f"Start proc {self._pid}:{app_id}/u0a190 for top-activity {{{app_id}/{app_id}{self.app.activity}}}",
                pid=_SYSTEM_SERVER_PID,
            )
            self._write_log("I", self._log_tag(), f"{self.app.name} started (screen {self.spec.launch})")
        self._foreground = True

    def _log_tag(self) -> str:
        return self.app.name.replace(" ", "") or "App"

    def _write_log(self, level: str, tag: str, message: str, *, pid: int | None = None) -> None:
        self.log.write(self._tod_base + self.clock.now(), self._pid if pid is None else pid, level, tag, message)

    def _terminate(self) -> None:
        if self._running:
            self._write_log(
                "I", "ActivityManager", f"Force stopping {self.app.app_id} appid=10190 user=0", pid=_SYSTEM_SERVER_PID
            )
        self._running = False
        self._foreground = False
        self._pid = 0
        self._stack = []
        self._focus = ""
        self._keyboard = False
        self._snackbar = None
        self._pending = None

    def _go_home(self) -> None:
        self._foreground = False
        self._keyboard = False

    def _instance(self, name: str, params: dict[str, Any]) -> ScreenInstance:
        return ScreenInstance(name=name, locals={"name": name, "error": "", **params})
