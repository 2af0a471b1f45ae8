"""Figures for issue 12 items 12 and 15 (ADR 0019): lost heals under concurrency, reports on connect failure.

1. ROUNDS rounds of 4 concurrent `trailblaze replay --self-heal` runs (two on sim:android:demo@v2, two on
   sim:ios:demo@v2) on one copy of trails/login.trail.yaml, against the local Messages-API fake. After each
   round both platforms' heals must be in the file; prints how many of the 2 x ROUNDS heals were lost.
2. N replays of two trails on `android` with a closed adb port and --report/--junit: prints in how many
   of them both files were written and name the error.

Usage: python benchmarks/faults.py [ROUNDS] [N]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import load_trail

ROOT = Path(__file__).resolve().parents[1]
LOGIN = ROOT / "trails" / "login.trail.yaml"


def _heals(rounds: int, work: Path) -> tuple[int, int, float]:
    lost = failed = 0
    t0 = time.perf_counter()
    with FakeMessagesAPI(policy=demo_policy) as api:
        env = {**os.environ, "ANTHROPIC_BASE_URL": api.url}
        env.pop("ANTHROPIC_API_KEY", None)
        for n in range(rounds):
            trail = work / f"login-{n}.trail.yaml"
            trail.write_bytes(LOGIN.read_bytes())
            procs = [
                subprocess.Popen(
                    [sys.executable, "-m", "trailblaze", "replay", str(trail), "--device", f"sim:{platform}:demo@v2",
                     "--secret", "password=hunter2", "--element-timeout", "1", "--self-heal",
                     "--run-dir", str(work / f"run-{n}-{i}")],  # fmt: skip
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for i, platform in enumerate(("android", "ios", "android", "ios"))
            ]
            failed += sum(proc.wait(timeout=300) != 0 for proc in procs)
            step = load_trail(trail).steps[3].recording or {}
            lost += "dev.trailblaze.demo:id/log_in" not in str(step.get("android"))
            lost += "'log_in'" not in str(step.get("ios"))
    return lost, failed, time.perf_counter() - t0


def _connect_failures(n: int, work: Path) -> int:
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": "9", "ADBUTILS_ADB_PATH": "/bin/false"}
    written = 0
    for i in range(n):
        report, junit = work / f"report-{i}.html", work / f"junit-{i}.xml"
        done = subprocess.run(
            [sys.executable, "-m", "trailblaze", "replay", str(LOGIN), str(ROOT / "trails" / "search.trail.yaml"),
             "--device", "android", "--secret", "password=hunter2", "--report", str(report), "--junit", str(junit),
             "--run-dir", str(work / f"down-{i}")],  # fmt: skip
            env=env,
            capture_output=True,
            text=True,
        )
        ok = done.returncode == 3 and report.is_file() and junit.is_file()
        written += ok and "no adb server" in report.read_text() and junit.read_text().count("<error ") == 2
    return written


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        lost, failed, seconds = _heals(rounds, work)
        print(f"concurrent self-heals: {rounds} rounds x 4 runs, {lost} of {2 * rounds} platform heals lost, "
              f"{failed} runs not exit 0, {seconds:.0f} s")  # fmt: skip
        written = _connect_failures(n, work)
        print(f"device cannot connect: --report and --junit written with the error in {written} of {n} runs")


if __name__ == "__main__":
    main()
