"""Figure: wall time of `pytest trails/ --device sim:android -n N` for N = 1, 2, 4, and the start-up cost.

Copies the example trails (with their tools and conftest.py) to a temporary folder and runs pytest on
them in a fresh interpreter per N (pytest-xdist workers, each starting its own simulated phone), with
`--trailblaze-report` so that the trails' own replay time is known. Prints per N: the wall time, the
speed-up over -n 1 and its efficiency (speed-up / N); then what a run pays besides replaying:

- per trail: a trail item's time in pytest's JUnit (setup + call + teardown) minus the trail's own
  replay time in `run.json` (fixtures, run directory), median and worst over the trails;
- device start: opening `sim:android` in-process (simulator + uiautomator2 handshake), once per worker;
- session start: `pytest trails/ --collect-only` (interpreter, plugins, collecting the trails), and
  what the run without xdist spends outside its items (that, plus writing the merged report).

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
import xml.etree.ElementTree as ET
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
        "import time; from trailblaze.device.devices import open_device\n"
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
            extra = ["--junitxml", "junit-0.xml"] if n == 0 else []
            walls[n] = _pytest(
                root, "--device", "sim:android", "-n", str(n), "--trailblaze-report", f"report-{n}", *extra
            )
        run = json.loads((root / "report-0" / "run.json").read_text())
        replay = {t["id"]: t["duration_ms"] / 1000 for t in run["trails"]}
        items = {
            c.get("name"): float(c.get("time") or 0) for c in ET.parse(root / "junit-0.xml").iter("testcase")
        }
        overhead = [items[name] - seconds for name, seconds in replay.items() if name in items]
        print(f"pytest trails/ --device sim:android: {count} trails")
        print(f"  no xdist (-n 0): {walls[0]:6.1f} s wall")
        base = walls[workers[0]]
        for n in workers:
            speedup = base / walls[n]
            print(
                f"  -n {n}: {walls[n]:6.1f} s wall   speed-up {speedup:4.2f}x   efficiency {speedup / n:4.0%}"
            )
        print(
            f"replay time of the trails themselves: {sum(replay.values()):.1f} s, {statistics.mean(replay.values()):.2f} s per trail"
        )
        print(
            f"start-up cost per trail (pytest item time - its replay time): median {statistics.median(overhead):.3f} s, "
            f"max {max(overhead):.3f} s (the first item also opens the device)"
        )
        print(f"device start (open sim:android, once per worker): {device:.2f} s")
        print(f"session start (pytest --collect-only): {collect:.2f} s")
        print(
            f"session cost outside the items (-n 0 wall - item times: start-up, collection, device, the merged report): "
            f"{walls[0] - sum(items.values()):.1f} s"
        )


if __name__ == "__main__":
    main()
