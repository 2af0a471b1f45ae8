"""Speed of the simulated iOS device behind its WebDriverAgent server.

Prints the server-side cost of `GET /source` on the demo Inbox (device tree + WDA mapping + XML), and
requests per second for `source()` and `tap()` through the unmodified facebook-wda client over a
real socket. Run: `python benchmarks/sim_ios.py`.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import wda

from trailblaze_sim import create_device
from trailblaze_sim.faults import LATENCY_PROFILES, Conditions
from trailblaze_sim.ios.source import build_snapshot
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.wda import WdaSimServer


def _ms(fn: Callable[[], object], n: int) -> tuple[float, float]:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples), min(samples)


def _rate(fn: Callable[[], object], seconds: float = 2.0) -> float:
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        fn()
        n += 1
    return n / (time.perf_counter() - t0)


def main() -> None:
    clock = ManualClock()
    device = create_device("ios", app="demo", clock=clock)
    with WdaSimServer(device) as server:
        s = wda.Client(server.url).session()
        s(id="email").set_text("ann@example.com")
        s(id="password").set_text("hunter2")
        s(id="sign_in").click()
        clock.advance(1.0)
        assert s(id="messages").exists, "not on the Inbox"

        tree = device.tree()
        app = device.current_app()

        def render_only() -> str:
            return build_snapshot(tree, app, screen_width=390, screen_height=844).xml()

        def full_source() -> object:
            # Everything the server does for GET /source except the socket: routing, faults, tree, XML, JSON.
            return server.handle("GET", "/source?format=xml", b"")

        xml = render_only()
        med, best = _ms(full_source, 200)
        rmed, rbest = _ms(render_only, 200)
        tmed, tbest = _ms(device.tree, 200)
        print(f"inbox source: {xml.count('<XCUIElementType')} elements, {len(xml)} chars")
        print(f"server-side GET /source (route + tree + map + XML + envelope): median {med:.2f} ms, best {best:.2f} ms (goal <= 5 ms)")
        print(f"  of which device.tree(): median {tmed:.2f} ms; WDA mapping + XML: median {rmed:.2f} ms (best {rbest:.2f})")
        print(f"client source() through facebook-wda: {_rate(s.source):.0f} req/s")
        x, y = 65, 785  # the Inbox tab: tapping it keeps the screen unchanged
        print(f"client tap() through facebook-wda: {_rate(lambda: s.tap(x, y)):.0f} req/s")
        print(f"client find s(id='compose').exists: {_rate(lambda: s(id='compose').exists):.0f} req/s")
        assert s(id="messages").exists, "the tap benchmark left the Inbox"
    _gesture_durations()


def _gesture_durations() -> None:
    """A 2 s press-and-drag (`swipe(..., duration=2)`) takes its time with `realistic`, none with `zero`."""
    for name in ("zero", "realistic"):
        conditions = Conditions(latency=LATENCY_PROFILES[name])
        device = create_device("ios", app="demo", clock=ManualClock(), conditions=conditions)
        with WdaSimServer(device, conditions=conditions) as server:
            s = wda.Client(server.url).session()
            t0 = time.perf_counter()
            s.swipe(195, 600, 195, 200, 2.0)
            took = time.perf_counter() - t0
            print(f"swipe with a 2 s press, {name} profile: {took:.2f} s "
                  f"(device gesture time {server.stats.gesture_seconds:.2f} s)")


if __name__ == "__main__":
    main()
