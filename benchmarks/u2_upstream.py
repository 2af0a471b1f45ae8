"""uiautomator2's own device tests against the simulated phone.

The maintainers run `demo_tests/` against a phone with their test app (com.example.u2testdemo) and
`mobile_tests/` against one with Appium's ApiDemos. This starts one simulated phone per folder, running
that app as an app spec (benchmarks/data/u2_testdemo_app.yaml, u2_apidemos_app.yaml) with timed
gestures as `trailblaze sim android` serves them, points the folder at it the way adbutils finds a
phone (`ANDROID_ADB_SERVER_PORT`), and runs it with pytest and the installed uiautomator2 client,
printing each folder's failures and pass count. The tests themselves are not part of this
repository: pass a checkout of https://github.com/openatx/uiautomator2.
Run: `python benchmarks/u2_upstream.py PATH/TO/uiautomator2 [demo_tests|mobile_tests ...]`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from trailblaze_sim.runtime import sim_conditions, start_simulator

DATA = Path(__file__).resolve().parent / "data"
SUITES = {"demo_tests": DATA / "u2_testdemo_app.yaml", "mobile_tests": DATA / "u2_apidemos_app.yaml"}


def _run(folder: Path, app: Path) -> subprocess.CompletedProcess[str]:
    sim = start_simulator("android", str(app), latency=sim_conditions("zero", timed_gestures=True))
    try:
        env = {
            **os.environ,
            "ANDROID_ADB_SERVER_PORT": str(sim.port),
            "ANDROID_SERIAL": sim.devices[0].serial,
        }
        # run outside the checkout, so its own (asset-less) uiautomator2 package is not the one imported
        with tempfile.TemporaryDirectory() as cwd:
            return subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "-p",
                    "no:randomly",
                    str(folder),
                ],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=1200,
            )
    finally:
        sim.stop()


def main(argv: list[str]) -> int:
    if not argv or not all((Path(argv[0]) / s).is_dir() for s in SUITES):
        print("usage: python benchmarks/u2_upstream.py PATH/TO/uiautomator2 [SUITE ...]", file=sys.stderr)
        return 2
    checkout = Path(argv[0]).resolve()
    wanted = argv[1:] or list(SUITES)
    codes = []
    for suite in wanted:
        result = _run(checkout / suite, SUITES[suite])
        lines = [ln for ln in result.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
        tail = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-2000:]
        print(f"{suite}:\n" + "\n".join(lines + [tail]))
        codes.append(result.returncode)
    return 0 if all(c == 0 for c in codes) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
