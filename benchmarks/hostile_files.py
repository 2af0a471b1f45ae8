"""Figure: time and peak memory of `validate` and `replay` on every hostile trail file (goal: < 5 s,
< 300 MB each).

The corpus is `trailblaze.testing.hostile_files` (billion laughs, deep nesting, huge files, lone
surrogates, escape sequences, catastrophic regexes, binary junk, FIFOs, …). Each command runs in a
fresh interpreter; the peak resident set size is the child's `ru_maxrss` (`wait4`), the time is
wall-clock including interpreter start. `replay` uses `--device sim:android --element-timeout 0.5`.

Run: python benchmarks/hostile_files.py [--validate-only]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from trailblaze.testing.hostile_files import write_corpus

GOAL_S = 5.0
GOAL_MB = 300.0


def _measure(argv: list[str], cwd: Path) -> tuple[int, float, float, str]:
    """(exit code, seconds, peak RSS in MB, last output line) of one child process."""
    env = {**os.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    t0 = time.perf_counter()
    child = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)  # reaped here, so its own rusage is at hand
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - t0
    lines = out.decode("utf-8", "replace").strip().splitlines()
    return child.returncode, seconds, usage.ru_maxrss / 1024, (lines[-1] if lines else "")[:70]


def main() -> None:
    validate_only = "--validate-only" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        cases = write_corpus(folder)
        commands = {"validate": lambda p: [sys.executable, "-m", "trailblaze", "validate", str(p)]}
        if not validate_only:
            commands["replay"] = lambda p: [
                sys.executable, "-m", "trailblaze", "replay", str(p), "--device", "sim:android",
                "--element-timeout", "0.5", "--run-dir", str(folder / f"run-{p.name}"),
            ]  # fmt: skip
        worst: dict[str, tuple[float, float]] = {}
        print(f"{len(cases)} hostile files; per command: exit code, wall time, peak RSS")
        print(f"{'file':<26} {'command':<9} {'exit':>4} {'time s':>7} {'peak MB':>8}  last line")
        for case in cases:
            for name, argv in commands.items():
                code, seconds, rss, last = _measure(argv(case.path), folder)
                t, m = worst.get(name, (0.0, 0.0))
                worst[name] = (max(t, seconds), max(m, rss))
                print(f"{case.name:<26} {name:<9} {code:>4} {seconds:>7.2f} {rss:>8.1f}  {last}")
        for name, (t, m) in worst.items():
            ok = "ok" if t < GOAL_S and m < GOAL_MB else "OVER GOAL"
            print(
                f"max over {len(cases)} files, {name}: {t:.2f} s, {m:.1f} MB peak RSS ({ok}; goal < {GOAL_S:g} s, < {GOAL_MB:g} MB)"
            )


if __name__ == "__main__":
    main()
