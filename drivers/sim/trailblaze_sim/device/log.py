"""The log buffer of a simulated phone: what the app (and the system on its behalf) writes.

The app model writes lines on launch, stop, and wherever its spec has a `log:` step; the Android
simulator serves them through `adb logcat` (`android_logcat`). Each line carries the writer's pid, so
`logcat --pid` picks one app run. Timestamps are the device's time of day in seconds.
"""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass

__all__ = ["LEVELS", "DeviceLog", "LogEntry"]

LEVELS = "VDIWEF"
"""Android priorities, lowest first: Verbose, Debug, Info, Warn, Error, Fatal."""


@dataclass(frozen=True)
class LogEntry:
    seconds: float
    """Device time of day (seconds since midnight, with fraction)."""
    pid: int
    tid: int
    level: str
    """One of LEVELS."""
    tag: str
    message: str


class DeviceLog:
    """A bounded ring of log lines (oldest dropped first, like logcat's main buffer). Thread-safe."""

    def __init__(self, limit: int = 5000) -> None:
        self._entries: collections.deque[LogEntry] = collections.deque(maxlen=limit)
        self._lock = threading.Lock()
        self._written = 0

    def write(
        self, seconds: float, pid: int, level: str, tag: str, message: str, tid: int | None = None
    ) -> None:
        if level not in LEVELS:
            raise ValueError(f"log level {level!r}: use one of {', '.join(LEVELS)}")
        with self._lock:
            for line in message.splitlines() or [""]:
                self._entries.append(LogEntry(seconds, pid, pid if tid is None else tid, level, tag, line))
                self._written += 1

    def entries(self) -> list[LogEntry]:
        with self._lock:
            return list(self._entries)

    @property
    def written(self) -> int:
        """Lines written since the device started (clearing does not reset it): a cursor for followers."""
        with self._lock:
            return self._written

    def since(self, cursor: int) -> tuple[list[LogEntry], int]:
        """Lines written after `cursor` (a previous `written`) that are still held, and the new cursor."""
        with self._lock:
            new = max(0, min(self._written - cursor, len(self._entries)))
            return list(self._entries)[len(self._entries) - new :], self._written

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
