"""The test suite's two tiers (issue 39 item 5): the fast tier's wall time and the tests in it that
take more than a second, which should carry `@pytest.mark.slow`.

    python benchmarks/tiers.py                   # runs the fast tier: pytest -n 2 -m "not slow"
    python benchmarks/tiers.py --junit run.xml   # reads a run you already have (any tier)

A test's time is its setup, call and teardown together, as pytest's JUnit XML gives it. A test
measured over `--over` seconds (default 1) with no `slow` marker is listed with its time: mark it
(or make it faster) so the fast tier stays short. Timings on a loaded machine run long; measure
when it is quiet.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _times(junit: Path) -> dict[str, float]:
    """node id (file::test[param]) → seconds, from pytest's JUnit XML."""
    times: dict[str, float] = defaultdict(float)
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "")
        parts = module.split(".")
        # classname is the dotted module path, then a class when the test is a method
        path_parts = [p for p in parts if not p[:1].isupper()]
        classes = [p for p in parts if p[:1].isupper()]
        node = "/".join(path_parts) + ".py::" + "::".join([*classes, case.get("name", "")])
        times[node] += float(case.get("time", "0") or 0)
    return dict(times)


def _slow_ids() -> set[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow", "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return {line.strip() for line in done.stdout.splitlines() if "::" in line}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--junit", type=Path, help="read this JUnit XML instead of running the fast tier")
    parser.add_argument("--over", type=float, default=1.0, help="seconds above which a test is slow (default 1)")
    parser.add_argument("--workers", default="2", help="pytest-xdist workers for the fast tier (default 2)")
    args = parser.parse_args()

    wall: float | None = None
    if args.junit is None:
        junit = Path(tempfile.mkdtemp(prefix="tiers-")) / "fast.xml"
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-n", args.workers, "-m", "not slow", "-p", "no:cacheprovider",
             f"--junitxml={junit}"],
            cwd=ROOT, check=False,
        )  # fmt: skip
        wall = time.monotonic() - started
    else:
        junit = args.junit
    times = _times(junit)
    slow = _slow_ids()
    over = sorted(((t, n) for n, t in times.items() if t > args.over and n not in slow), reverse=True)
    fast = [t for n, t in times.items() if n not in slow]
    print(f"tests measured: {len(times)}; in the fast tier: {len(fast)} ({sum(fast):.0f} s of test time)")
    if wall is not None:
        print(f"fast tier wall time with -n {args.workers}: {wall:.0f} s")
    print(f"fast-tier tests over {args.over:g} s with no slow marker: {len(over)}")
    for t, n in over:
        print(f"  {t:6.2f} s  {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
