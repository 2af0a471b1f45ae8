"""The app's device log in a run: marks, per-step reads, and what a platform without one says.

A session owns one `AppLogs`. The run directory marks the log when the run starts (one read) and,
at the end of a step that needs it (`--device-logs always`, or a failed step with the default
`on-failure`), reads the app's lines since the last read into `step-NN-log.txt`; nothing is read
for a passing step by default. The log probes (`readLogs`, `assertLogContains`) read through the
same object. A driver without `SupportsAppLogs` (iOS: WebDriverAgent has no app log) gets a note
saying so instead of a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

from trailblaze.device.driver import AppLog, SupportsAppLogs

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver

__all__ = ["DEVICE_LOG_MODES", "TAIL_LINES", "AppLogs", "DeviceLogMode", "no_log_reason"]

DeviceLogMode = Literal["off", "on-failure", "always"]
DEVICE_LOG_MODES: tuple[str, ...] = get_args(DeviceLogMode)
TAIL_LINES = 50
"""Lines of the app log the failure text shows (the file keeps them all)."""


def no_log_reason(platform: str) -> str:
    """Why a device of `platform` whose driver has no `SupportsAppLogs` shows no app log."""
    if platform == "ios":
        return (
            "no app log: WebDriverAgent offers no access to the app's log (reading it needs the host: "
            "`xcrun simctl spawn booted log stream` on a Simulator, `idevicesyslog` on a phone)"
        )
    return f"no app log: this {platform} driver cannot read the device log"


class AppLogs:
    """One session's view of the app log."""

    def __init__(self, driver: Driver) -> None:
        self._driver = driver
        self.app_id: str | None = None
        """The app `launchApp` started last: its log is read even after it crashed."""
        self._start: str | None = None
        self._cursor: str | None = None
        self._steps: dict[int, str | None] = {}

    @property
    def supported(self) -> bool:
        return isinstance(self._driver, SupportsAppLogs)

    def start(self) -> None:
        """Mark the log: what was written before is not this run's (one read of the device log)."""
        self._steps.clear()
        if isinstance(self._driver, SupportsAppLogs):
            self._start = self._cursor = self._driver.log_mark()

    def mark_step(self, index: int) -> None:
        """Step `index` starts: `readLogs sinceStep` reads from here. Exact when the last step's
        lines were read (`--device-logs always`); otherwise the last read, or the run's start."""
        self._steps[index] = self._cursor

    def app(self) -> str | None:
        return self.app_id or self._driver.current_app()

    def read_step(self, app_id: str) -> AppLog:
        """The app's lines since the last `read_step` (or the run's start); moves the cursor."""
        assert isinstance(self._driver, SupportsAppLogs)
        log = self._driver.app_log(app_id, self._cursor)
        self._cursor = log.mark
        return log

    def read(self, app_id: str, since_step: int | None = None) -> AppLog:
        """The app's lines since step `since_step` started (0-based) or, without it, since the run
        started (all the device holds when no run marked it)."""
        assert isinstance(self._driver, SupportsAppLogs)
        since = self._steps.get(since_step, self._start) if since_step is not None else self._start
        return self._driver.app_log(app_id, since)
