"""Figure: wall time of `trailblaze --help` (goal ≤ 0.3 s) and of `import trailblaze`.

Runs each command N times in a fresh interpreter and prints the median and the best run in ms, plus
the heavy SDK modules that the import pulled in (should be none).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

N = 15


def _time(argv: list[str]) -> list[float]:
    out = []
    for _ in range(N):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    py = sys.executable
    rows = {
        "python -c pass (interpreter floor)": _time([py, "-c", "pass"]),
        "import trailblaze": _time([py, "-c", "import trailblaze"]),
        "trailblaze --help": _time([py, "-m", "trailblaze", "--help"]),
    }
    for name, ms in rows.items():
        print(f"{name:40s} median {statistics.median(ms):7.1f} ms   best {min(ms):7.1f} ms   (n={N})")
    heavy = subprocess.run(
        [py, "-c", "import sys, trailblaze.cli.main; print(sorted(m for m in sys.modules if m.split('.')[0] in "
         "{'anthropic','uiautomator2','adbutils','wda','requests','httpx','PIL','lxml','pydantic'}))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    print(f"heavy modules imported by the CLI at --help: {heavy}")


if __name__ == "__main__":
    main()
