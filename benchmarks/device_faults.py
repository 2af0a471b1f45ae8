"""Transient device faults (issue 38 item 6, ADR 0057): the example trails replayed on simulated
phones whose every request has a chance (default 1 in 30) of a dropped connection, a 500 / JSON-RPC
error, an empty dump or a 2 s stall; prints replays, faults injected, hiccups retried, false failures
and the time the faults cost.

The replays alternate between sim:android and sim:ios and run in parallel in this process, WORKERS
simulated devices at a time (half of each platform), each device with its own seeded fault draw.
The same replays run once more with no faults, and the difference in wall time is the extra time.

Usage: python benchmarks/device_faults.py [--replays N] [--rate R] [--workers W] [--seed S] [--stall S]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from trailblaze.device.devices import open_device
from trailblaze.engine.replay import build_memory, replay_trail
from trailblaze.errors import TrailblazeError
from trailblaze.trail.model import load_trail
from trailblaze_sim.faults import Conditions

_ROOT = Path(__file__).resolve().parents[1]
_PLATFORMS = ("android", "ios")


@dataclass
class Tally:
    """What one pass over the replays gave."""

    replays: int = 0
    failures: list[str] = field(default_factory=list)
    hiccups: int = 0
    injected: Counter[str] = field(default_factory=Counter)
    wall_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _jobs(replays: int, trails: list[Path]) -> dict[str, list[Path]]:
    """`replays` trail replays, alternating platforms and cycling through the trails."""
    jobs: dict[str, list[Path]] = {p: [] for p in _PLATFORMS}
    for i in range(replays):
        jobs[_PLATFORMS[i % 2]].append(trails[(i // 2) % len(trails)])
    return jobs


def _worker(platform: str, queue: list[Path], conditions: Conditions, tally: Tally, queue_lock: threading.Lock) -> None:
    session = None
    try:
        while True:
            with queue_lock:
                if not queue:
                    return
                path = queue.pop(0)
            if session is None:
                session = open_device(f"sim:{platform}", latency=conditions)  # type: ignore[arg-type]
            trail = load_trail(path)
            try:
                record = replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))
                failure = None if record.status.startswith("passed") else f"{record.error}"
                hiccups = record.hiccups
            except TrailblazeError as exc:  # an infrastructure error ends the replay (exit 3)
                failure, hiccups = exc.message, 0
                session.close()
                session = None
            with tally.lock:
                tally.replays += 1
                tally.hiccups += hiccups
                if failure is not None:
                    tally.failures.append(f"{platform} {path.name}: {failure}")
    finally:
        if session is not None:
            session.close()
        with tally.lock:
            tally.injected.update(conditions.injected)


def run_pass(trails: list[Path], replays: int, workers: int, rate: float, seed: int, stall_s: float) -> Tally:
    """One pass: `replays` replays on `workers` simulated devices at once, faulted at `rate`."""
    tally = Tally()
    jobs = _jobs(replays, trails)
    locks = {p: threading.Lock() for p in _PLATFORMS}
    threads = []
    for i in range(max(2, workers)):
        platform = _PLATFORMS[i % 2]
        conditions = Conditions(fault_rate=rate, seed=seed + i, stall_s=stall_s)
        threads.append(
            threading.Thread(
                target=_worker, args=(platform, jobs[platform], conditions, tally, locks[platform]), daemon=True
            )
        )
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    tally.wall_s = time.perf_counter() - started
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replays", type=int, default=100, help="trail replays in all (default 100)")
    parser.add_argument("--rate", type=float, default=1 / 30, help="each request's chance of a fault (1/30)")
    parser.add_argument("--workers", type=int, default=4, help="simulated devices replaying at once (4)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first device's fault draw (1)")
    parser.add_argument("--stall", type=float, default=2.0, help="seconds a stalled request answers late (2)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        # the examples' own tools (settings-dark-mode signs in with `demo_signIn`)
        shutil.copytree(_ROOT / "trails" / "tools", Path(tmp) / "tools", ignore=shutil.ignore_patterns("__pycache__"))
        trails = []
        for source in sorted((_ROOT / "trails").glob("*.trail.yaml")):
            (Path(tmp) / source.name).write_bytes(source.read_bytes())
            trails.append(Path(tmp) / source.name)
        clean = run_pass(trails, args.replays, args.workers, 0.0, args.seed, args.stall)
        faulted = run_pass(trails, args.replays, args.workers, args.rate, args.seed, args.stall)
    injected = sum(faulted.injected.values())
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(faulted.injected.items()))
    extra = faulted.wall_s - clean.wall_s
    print(f"Device faults — example trails on sim:android and sim:ios, {args.workers} devices at once, "
          f"1 request in {round(1 / args.rate) if args.rate else 0} faulted (seed {args.seed})")  # fmt: skip
    print(f"replays:         {faulted.replays}")
    print(f"faults injected: {injected} ({kinds})")
    print(f"retried:         {faulted.hiccups} device hiccups")
    print(f"false failures:  {len(faulted.failures)}")
    print(f"extra time:      {extra:+.1f} s ({faulted.wall_s:.1f} s against {clean.wall_s:.1f} s with no faults, "
          f"{extra / max(1, faulted.replays):+.2f} s per replay)")  # fmt: skip
    for line in clean.failures:
        print(f"  (with no faults) {line}")
    for line in faulted.failures:
        print(f"  {line}")
    return 1 if faulted.failures or clean.failures else 0


if __name__ == "__main__":
    sys.exit(main())
