"""Figure: wall time of `pytest trails/ --device sim:android -n N` for N = 1, 2, 4, and the start-up cost.

Copies the example trails (with their tools and conftest.py) to a temporary folder and runs pytest on
them in a fresh interpreter per N (pytest-xdist workers, each starting its own simulated phone), with
`--trailblaze-report` so that the trails' own replay time is known. Prints per N: the wall time, the
speed-up over -n 1 and its efficiency (speed-up / N); then what a run pays besides replaying:

- session start: `pytest trails/ --collect-only` (interpreter, plugins, collecting the trails);
- device start: opening `sim:android` in-process (simulator + uiautomator2 handshake), once per worker;
- per trail: what is left of the wall time without xdist (`-n 0`) after those and the trails' replay
  time, divided by the number of trails (fixtures, run directory, report writing).

The machine's core count and load average are printed too: on a shared machine the figures scale with
the load. `--copies K` runs K copies of every example (distinct ids) for more items per worker.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _project(root: Path, copies: int) -> int:
    trails = root / "trails"
    shutil.copytree(REPO / "trails", trails, ignore=shutil.ignore_patterns("__pycache__"))
    examples = sorted(trails.glob("*.trail.yaml"))
    for k in range(2, copies + 1):
        for path in examples:
            text = re.sub(r"^(  id: \S+)$", rf"\1-copy{k}", path.read_text(), count=1, flags=re.M)
            (trails / f"{path.name.removesuffix('.trail.yaml')}-copy{k}.trail.yaml").write_text(text)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return len(list(trails.glob("*.trail.yaml")))


def _pytest(root: Path, *args: str) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "trails", "-q", *args], cwd=root, capture_output=True, text=True
    )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"pytest {' '.join(args)} failed (exit {result.returncode}):\n{result.stdout[-2000:]}")
    return wall


def _device_start(repeat: int = 3) -> float:
    code = (
        "import time; from trailblaze.devices import open_device\n"
        "t = time.perf_counter()\n"
        "with open_device('sim:android') as s: s.screen()\n"
        "print(time.perf_counter() - t)\n"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(repeat)
    ]
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2,4", help="the -n values (default 1,2,4)")
    parser.add_argument("--copies", type=int, default=1, help="copies of every example trail (default 1)")
    options = parser.parse_args()
    workers = [int(n) for n in options.workers.split(",")]
    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="tb-workers-") as tmp:
        root = Path(tmp)
        count = _project(root, options.copies)
        collect = _pytest(root, "--collect-only")
        device = _device_start()
        walls: dict[int, float] = {}
        for n in [0, *workers]:
            walls[n] = _pytest(
                root, "--device", "sim:android", "-n", str(n), "--trailblaze-report", f"report-{n}"
            )
        run = json.loads((root / "report-0" / "run.json").read_text())
        replay_s = sum(t["duration_ms"] for t in run["trails"]) / 1000
        print(f"pytest trails/ --device sim:android: {count} trails")
        print(f"  no xdist (-n 0): {walls[0]:6.1f} s wall")
        base = walls[workers[0]]
        for n in workers:
            speedup = base / walls[n]
            print(
                f"  -n {n}: {walls[n]:6.1f} s wall   speed-up {speedup:4.2f}x   efficiency {speedup / n:4.0%}"
            )
        per_trail = (walls[0] - collect - device - replay_s) / count
        print(f"session start (pytest --collect-only): {collect:.2f} s")
        print(f"device start (open sim:android, once per worker): {device:.2f} s")
        print(
            f"replay time of the trails themselves (-n 0): {replay_s:.1f} s, {replay_s / count:.2f} s per trail"
        )
        print(
            f"start-up cost per trail (-n 0 wall - session start - device start - replay) / trails: {per_trail:.2f} s"
        )


if __name__ == "__main__":
    main()
