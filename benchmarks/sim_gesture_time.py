"""Issue 13 item 4 figure: how long timed gestures take on the simulated Android phone, per latency
profile. uiautomator2's `swipe(..., duration=2.0)` and `drag(..., duration=1.0)` must take their
time under `realistic` (as on a phone) and return at once under `zero` (the tests' profile).

Usage: python benchmarks/sim_gesture_time.py
"""

from __future__ import annotations

import time

import adbutils
import uiautomator2 as u2

from trailblaze_sim import create_device
from trailblaze_sim.faults import LATENCY_PROFILES, Conditions
from trailblaze_sim.server.adb import AndroidSimServer


def _gestures(d: u2.Device) -> tuple[float, float, float]:
    out = []
    for action in (
        lambda: d.swipe(540, 1800, 540, 600, duration=2.0),
        lambda: d.drag(540, 1800, 540, 600, duration=1.0),
        lambda: d.shell("input swipe 540 1800 540 600 500"),
    ):
        start = time.perf_counter()
        action()
        out.append(time.perf_counter() - start)
    return out[0], out[1], out[2]


def main() -> None:
    for name in ("zero", "realistic"):
        conditions = Conditions(latency=LATENCY_PROFILES[name])
        device = create_device("android", conditions=conditions)
        with AndroidSimServer(device, conditions=conditions) as server:
            d = u2.connect(adbutils.AdbClient("127.0.0.1", server.port).device(device.serial))
            swipe, drag, shell = _gestures(d)
            d.stop_uiautomator(wait=False)
        print(
            f"{name:>9}: swipe(duration=2.0) {swipe:.2f} s, drag(duration=1.0) {drag:.2f} s, "
            f"`input swipe … 500` {shell:.2f} s"
        )


if __name__ == "__main__":
    main()
