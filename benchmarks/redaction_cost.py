"""Issue 31 item 8: what registered secrets cost a replay (goal: 1,000 secrets < 10 % over none).

Replays a trail (default `trails/login.trail.yaml`, as in the issue) on the simulated phone with
`trailblaze replay --secret-file`, once with no extra secrets and once each with 200 and 1,000
random ones (the trails' own `password` is always there), and prints the wall time of each run
(the best of `--runs`). Every secret is redacted from every file, console line and report the run
writes, so the cost grows with the text written; this measures it end to end, in a fresh process
each time (the redactor is process-wide).

Run: python benchmarks/redaction_cost.py [--runs 3] [--counts 0,200,1000] [--trail PATH]
(with PYTHONPATH=<a checkout> it measures that checkout's trailblaze instead)
"""

from __future__ import annotations

import argparse
import random
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def _secret_file(folder: Path, count: int) -> Path:
    rng = random.Random(count)
    alphabet = string.ascii_letters + string.digits + "!#%&*+-_.@"
    lines = ["password=hunter2"]
    lines += [
        f"S{i}={''.join(rng.choice(alphabet) for _ in range(rng.randint(8, 24)))}" for i in range(count)
    ]
    path = folder / f"{count}.env"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def _replay(folder: Path, secrets: Path, trail: str) -> float:
    out = folder / "out"
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", "replay", trail, "--device", "sim:android",
         "--secret-file", str(secrets), "--report", str(out / "report.html"), "--junit", str(out / "junit.xml")],
        cwd=folder, capture_output=True, text=True, check=False,
    )  # fmt: skip
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(
            f"replay failed (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--counts", default="0,200,1000")
    parser.add_argument("--trail", default=str(_ROOT / "trails" / "login.trail.yaml"))
    args = parser.parse_args()
    counts = [int(c) for c in args.counts.split(",")]
    print(
        f"Replay of {args.trail} on sim:android with N extra secrets (best of {args.runs} runs)", flush=True
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = {count: _secret_file(folder, count) for count in counts}
        times: dict[int, list[float]] = {count: [] for count in counts}
        for _ in range(args.runs):  # interleaved, so a busy spell of the machine hits every count alike
            for count in counts:
                times[count].append(_replay(folder, files[count], args.trail))
    base = min(times[counts[0]])
    for count in counts:
        best = min(times[count])
        median = sorted(times[count])[len(times[count]) // 2]
        print(
            f"{count:>6} secrets  best {best:6.2f} s  median {median:6.2f} s  "
            f"({(best / base - 1) * 100:+.0f} % over the first, best against best)",
            flush=True,
        )


if __name__ == "__main__":
    main()
