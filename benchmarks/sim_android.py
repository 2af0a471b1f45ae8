"""Android simulator performance: server-side dump time and client round trips per second.

Run: `python benchmarks/sim_android.py [--n 200]`. Prints one line per figure. The dump is the demo
app's Inbox screen; round trips go through the unmodified uiautomator2 + adbutils clients over real
sockets (each u2 call = a `host:version` connection + a `tcp:9008` connection + one HTTP request;
adbutils itself sleeps 10 ms when it closes an adb connection, which bounds the rate).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import adbutils
import uiautomator2 as u2

from trailblaze_sim import create_device
from trailblaze_sim.android.hierarchy import build_windows, render_hierarchy
from trailblaze_sim.android.u2 import U2Service
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.adb import AndroidSimServer


def _inbox_device() -> SimulatedDevice:
    clock = ManualClock()
    dev = create_device("android", clock=clock)
    dev.set_text(next(n for n in dev.tree().walk() if n.id == "email"), "ada@example.com")
    dev.set_text(next(n for n in dev.tree().walk() if n.id == "password"), "hunter2")
    dev.hide_keyboard()
    sign_in = next(n for n in dev.tree().walk() if n.id == "sign_in")
    dev.tap(*sign_in.frame.center)
    clock.advance(1.0)
    assert dev.screen_name == "inbox", dev.screen_name
    return dev


def _ms(samples: list[float]) -> str:
    s = sorted(samples)
    return f"median {statistics.median(s) * 1000:.2f} ms, p95 {s[int(len(s) * 0.95) - 1] * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200, help="iterations per figure")
    n = parser.parse_args().n

    dev = _inbox_device()
    xml = render_hierarchy(build_windows(dev))
    nodes = xml.count("<node ")
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        render_hierarchy(build_windows(dev))
        samples.append(time.perf_counter() - t)
    print(f"server dump (Inbox, {nodes} nodes, {len(xml)} chars): {_ms(samples)}")

    service = U2Service(dev, dev.conditions)
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "dumpWindowHierarchy", "params": [False, 50]}
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        service.handle_rpc(rpc)
        samples.append(time.perf_counter() - t)
    print(f"server dumpWindowHierarchy RPC incl. model tree: {_ms(samples)}")

    with AndroidSimServer(dev) as server:
        d: Any = u2.connect(adbutils.AdbClient("127.0.0.1", server.port).device(dev.serial))
        try:
            calls: list[tuple[str, Callable[[], object]]] = [
                ("dump_hierarchy", lambda: d.dump_hierarchy()),
                ("click(x, y)", lambda: d.click(900, 330)),  # the clock label: inert
                ("selector exists", lambda: d(text="Message 1").exists()),
            ]
            for label, call in calls:
                call()
                t = time.perf_counter()
                for _ in range(n):
                    call()
                elapsed = time.perf_counter() - t
                print(f"client {label}: {n / elapsed:.0f} req/s ({elapsed / n * 1000:.1f} ms per call)")
        finally:
            d.stop_uiautomator(wait=False)


if __name__ == "__main__":
    main()
