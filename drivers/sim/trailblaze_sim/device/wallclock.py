"""The simulated device's wall clock: the time of day the status bar, `{clock}` and the device log show."""

from __future__ import annotations

import time

from trailblaze_sim.model import RealClock, SimClock

__all__ = ["WallClock"]


class WallClock:
    """Time of day on top of the device's clock: the real one with a `RealClock`, else starting at
    09:41:00 so that tests see stable text."""

    def __init__(self, clock: SimClock) -> None:
        self.clock = clock
        if isinstance(clock, RealClock):
            local = time.localtime()
            self.base = local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec + (time.time() % 1) - clock.now()
        else:
            self.base = 9 * 3600 + 41 * 60 - clock.now()

    def seconds(self) -> float:
        """Seconds since midnight (not wrapped at 24 h)."""
        return self.base + self.clock.now()

    def text(self) -> str:
        """HH:MM:SS."""
        total = int(self.base + self.clock.now()) % 86400
        return f"{total // 3600:02d}:{total // 60 % 60:02d}:{total % 60:02d}"
