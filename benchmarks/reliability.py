"""Reliability: every example trail replayed N times (default 20) per platform on the `realistic`
latency profile with a UI that keeps animating for 300 ms after every action; prints the failures.

Run: python benchmarks/reliability.py [RUNS] [ANIMATION_MS] [TRAIL_GLOB]   (defaults 20, 300, all)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from trailblaze.device.devices import open_device
from trailblaze.engine.replay import build_memory, replay_trail
from trailblaze.trail.model import load_trail
from trailblaze_sim.faults import LATENCY_PROFILES, Conditions

_ROOT = Path(__file__).resolve().parents[1]


def run(platform: str, runs: int, animate_ms: int = 300, only: str = "*") -> list[str]:
    """Replays every example (matching `only`) `runs` times on one simulated device; returns one line
    per failure."""
    failures: list[str] = []
    conditions = Conditions(latency=LATENCY_PROFILES["realistic"], animate_after_action_ms=animate_ms, seed=7)
    with tempfile.TemporaryDirectory() as tmp, open_device(f"sim:{platform}", latency=conditions) as session:
        # the examples' own tools (settings-dark-mode signs in with `demo_signIn`)
        shutil.copytree(_ROOT / "trails" / "tools", Path(tmp) / "tools", ignore=shutil.ignore_patterns("__pycache__"))
        for source in sorted((_ROOT / "trails").glob(f"{only}.trail.yaml")):
            path = Path(tmp) / source.name
            path.write_bytes(source.read_bytes())
            for i in range(runs):
                trail = load_trail(path)
                record = replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))
                if record.status != "passed":
                    failures.append(f"{platform} {source.name} run {i + 1}: {record.error}")
    return failures


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    animate_ms = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    only = sys.argv[3] if len(sys.argv) > 3 else "*"
    print(f"Reliability — examples {only!r} × {runs} runs, realistic latency, UI animating {animate_ms} ms after actions")
    for platform in ("android", "ios"):
        t0 = time.perf_counter()
        failures = run(platform, runs, animate_ms, only)
        total = runs * len(list((_ROOT / "trails").glob(f"{only}.trail.yaml")))
        print(f"{platform:<8} {len(failures)}/{total} replays failed ({time.perf_counter() - t0:.0f} s)")
        for line in failures:
            print("  " + line)


if __name__ == "__main__":
    main()
