"""Issue 40 item 4: what a trail's storyboard costs.

The example trails in `trails/` are replayed once by the CLI on the simulated phone (screenshots of
every step, the default), then each trail's storyboard is encoded again from that run directory
`--reps` times: the median milliseconds per trail and per frame, and the file's size. The replay
itself does not wait for it (storyboards are encoded on a worker of their own while the next trail
runs), so this is the CPU a run spends on them, not time added to a trail.

Run: python benchmarks/storyboard.py [--platform android] [--reps 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--platform", choices=["android", "ios"], default="android")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    from trailblaze.output.runlog import load_run
    from trailblaze.output.storyboard import write_storyboard

    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        env = {**os.environ, "COLUMNS": "200"}
        done = subprocess.run(
            [sys.executable, "-m", "trailblaze", "replay", str(_ROOT / "trails"), "--device", f"sim:{args.platform}",
             "--secret", "password=hunter2", "--run-dir", str(run)],
            env=env, capture_output=True, text=True, cwd=tmp,
        )  # fmt: skip
        if done.returncode not in (0, 1):
            sys.exit(done.stdout + done.stderr)
        print(f"storyboards of the example trails on sim:{args.platform}, median of {args.reps}:")
        print(f"{'trail':<28} {'frames':>6} {'ms/trail':>9} {'ms/frame':>9} {'KB':>6}")
        totals = []
        for trail in load_run(run).trails:
            if trail.storyboard is None:
                continue
            times = []
            for _ in range(args.reps):
                t0 = time.perf_counter()
                name = write_storyboard(run, trail)
                times.append((time.perf_counter() - t0) * 1000)
            assert name is not None
            frames = sum(s.status not in ("skipped", "not-run") for s in trail.steps)
            ms = statistics.median(times)
            totals.append(ms)
            size = (run / name).stat().st_size / 1024
            print(f"{(trail.id or trail.path)[:28]:<28} {frames:>6} {ms:>9.1f} {ms / frames:>9.1f} {size:>6.0f}")
        if totals:
            print(f"mean: {statistics.mean(totals):.1f} ms per trail")


if __name__ == "__main__":
    main()
