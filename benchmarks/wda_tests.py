"""facebook-wda's own client tests (`tests/`, as its runtest.sh runs them) against the simulated
WebDriverAgent.

The maintainers run them against an iPhone whose Settings app is in Chinese; this starts one simulated
iPhone running benchmarks/data/wda_preferences_app.yaml (that Settings app as an app spec) with timed
gestures as `trailblaze sim ios` serves them, points the folder at it (`DEVICE_URL`) and runs it from
the folder with pytest and the installed facebook-wda client, printing its failures and pass count.
The tests that open Health or Safari find no such app: a simulated device runs one app spec. The tests
themselves are not part of this repository: pass a checkout of https://github.com/openatx/facebook-wda.
Run: `python benchmarks/wda_tests.py PATH/TO/facebook-wda`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from trailblaze_sim.runtime import sim_conditions, start_simulator

APP = Path(__file__).resolve().parent / "data" / "wda_preferences_app.yaml"


def main(argv: list[str]) -> int:
    if not argv or not (Path(argv[0]) / "tests" / "conftest.py").is_file():
        print("usage: python benchmarks/wda_tests.py PATH/TO/facebook-wda", file=sys.stderr)
        return 2
    tests = Path(argv[0]).resolve() / "tests"
    sim = start_simulator("ios", str(APP), latency=sim_conditions("zero", timed_gestures=True))
    try:
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "."],
            cwd=tests,
            env={**os.environ, "DEVICE_URL": f"http://{sim.host}:{sim.ports[0]}"},
            capture_output=True,
            text=True,
            timeout=900,
        )
    finally:
        sim.stop()
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    tail = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-2000:]
    print("\n".join(lines + [tail]))
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
