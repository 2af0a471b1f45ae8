"""The app's life on a simulated device: launching it (cold or warm), stopping it, going home, which
screen one of its activities opens, and what the system says about it (current app, app state, the
ActivityManager lines in the device log).

`AppLifecycle` is a component of `SimulatedDevice`: it owns the app's process (running, pid, launch
count) and changes the shared `Screen`.
"""

from __future__ import annotations

import itertools

from trailblaze.errors import DeviceError
from trailblaze_sim.app.spec import AppSpec
from trailblaze_sim.device.log import DeviceLog
from trailblaze_sim.device.profile import LAUNCHER_ID
from trailblaze_sim.device.screen import Screen
from trailblaze_sim.device.state import ScreenInstance
from trailblaze_sim.device.wallclock import WallClock
from trailblaze_sim.model import AppInfo, Platform

__all__ = ["AppLifecycle"]

_PIDS = itertools.count(4211)
_SYSTEM_SERVER_PID = 601


class AppLifecycle:
    """The app's process on one device."""

    def __init__(
        self, spec: AppSpec, platform: Platform, serial: str, screen: Screen, log: DeviceLog, wall: WallClock
    ) -> None:
        self.spec = spec
        self.platform: Platform = platform
        self.serial = serial
        self.app = AppInfo(app_id=spec.app_id, name=spec.name, activity=spec.activity)
        self.screen = screen
        self.log = log
        self.wall = wall
        self.running = False
        self.pid = 0
        self.launches = 0
        """Cold starts of the app on this device after the one it booted with; clearing the app's
        data does not reset it (`{device.launches}`)."""

    def current_app(self) -> AppInfo | None:
        if not self.screen.foreground:
            return None
        return AppInfo(app_id=self.app.app_id, name=self.app.name, activity=self._top_activity(), pid=self.pid)

    def app_info(self) -> AppInfo:
        return AppInfo(app_id=self.app.app_id, name=self.app.name, activity=self.app.activity, pid=self.pid)

    def _top_activity(self) -> str:
        """The activity of the screen on top (the app's own activity for screens that name none)."""
        stack = self.screen.stack
        if self.running and stack:
            return self.spec.screens[stack[-1].name].activity or self.app.activity
        return self.app.activity

    def _full_activity(self, activity: str) -> str:
        return self.app.app_id + activity if activity.startswith(".") else activity

    def activity_screen(self, activity: str) -> str | None:
        """The screen `activity` opens: empty for the app's own activity, None for one it does not have."""
        wanted = self._full_activity(activity)
        if wanted == self._full_activity(self.app.activity):
            return ""
        return next(
            (n for n, s in self.spec.screens.items() if s.activity and self._full_activity(s.activity) == wanted),
            None,
        )

    def app_state(self, app_id: str) -> int:
        """XCUIApplicationState: 1 not running, 2 background suspended, 4 running foreground."""
        if app_id == LAUNCHER_ID[self.platform]:
            return 2 if self.screen.foreground else 4
        if app_id != self.app.app_id or not self.running:
            return 1
        return 4 if self.screen.foreground else 2

    def check_app(self, app_id: str) -> None:
        if app_id != self.app.app_id:
            raise DeviceError(
                f"app {app_id!r} is not installed on {self.serial}; installed: {self.app.app_id}"
            )

    def launch(self, screen: str | None = None) -> None:
        """Brings the app to the front, starting it on `screen` (default the spec's) when it is not running."""
        if not self.running:
            self.running = True
            self.launches += 1
            self.pid = next(_PIDS)
            self.screen.stack = [ScreenInstance.new(screen or self.spec.launch, {})]
            app_id = self.app.app_id
            self.write_log(
                "I",
                "ActivityManager",
                f"Start proc {self.pid}:{app_id}/u0a190 for top-activity {{{app_id}/{app_id}{self.app.activity}}}",
                pid=_SYSTEM_SERVER_PID,
            )
            self.write_log("I", self.log_tag(), f"{self.app.name} started (screen {self.spec.launch})")
        self.screen.foreground = True

    def log_tag(self) -> str:
        return self.app.name.replace(" ", "") or "App"

    def write_log(self, level: str, tag: str, message: str, *, pid: int | None = None) -> None:
        self.log.write(self.wall.seconds(), self.pid if pid is None else pid, level, tag, message)

    def terminate(self) -> None:
        if self.running:
            self.write_log(
                "I", "ActivityManager", f"Force stopping {self.app.app_id} appid=10190 user=0", pid=_SYSTEM_SERVER_PID
            )
        self.running = False
        self.pid = 0
        self.screen.clear()

    def go_home(self) -> None:
        self.screen.foreground = False
        self.screen.keyboard = False
