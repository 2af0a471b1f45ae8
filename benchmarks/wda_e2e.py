"""facebook-wda's own e2e suite against the simulated WebDriverAgent.

Starts one simulated iPhone running benchmarks/data/wda_e2e_app.yaml (the suite's test app as an app
spec), points the suite at it (`DEVICE_URL`) and runs it with pytest, printing its pass count. The
suite itself is not part of this repository: pass the folder that holds a checkout's
`e2e_benchmarks/` (https://github.com/openatx/facebook-wda). Needs `jsonschema` (the suite uses it).
Run: `python benchmarks/wda_e2e.py PATH/TO/facebook-wda [--fresh]` (`--fresh`: a new simulator per
test file).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from trailblaze_sim import create_device, load_app_spec
from trailblaze_sim.server.wda import WdaSimServer

APP = Path(__file__).resolve().parent / "data" / "wda_e2e_app.yaml"


def _run(checkout: Path, targets: list[str]) -> subprocess.CompletedProcess[str]:
    with WdaSimServer(create_device("ios", app=load_app_spec(APP))) as server:
        env = {**os.environ, "DEVICE_URL": server.url}
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *targets],
            cwd=checkout,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )


def main(argv: list[str]) -> int:
    if not argv or not (Path(argv[0]) / "e2e_benchmarks").is_dir():
        print("usage: python benchmarks/wda_e2e.py PATH/TO/facebook-wda [--fresh]", file=sys.stderr)
        return 2
    checkout = Path(argv[0]).resolve()
    (checkout / "e2e_benchmarks" / "__init__.py").touch()  # the suite imports `.constant`
    if "--fresh" in argv:
        files = sorted(str(p.relative_to(checkout)) for p in (checkout / "e2e_benchmarks").glob("test_*.py"))
        results = [_run(checkout, [f]) for f in files]
    else:
        results = [_run(checkout, ["e2e_benchmarks"])]
    for result in results:
        lines = [ln for ln in result.stdout.splitlines() if ln.startswith(("FAILED", "ERROR"))]
        print("\n".join(lines + [result.stdout.strip().splitlines()[-1]]))
    return 0 if all(r.returncode == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
