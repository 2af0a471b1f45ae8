"""Record once, replay on every device: the example trails, recorded on the default phone, on every
bundled device profile and modifier of the simulators (docs/guides/every-device.md).

Prints three tables:
- passes per cell: each example trail replayed (zero latency, `password=hunter2`, no LLM, nothing
  written back) on each profile, on sim:android and sim:ios, with the targets replay scrolled into view;
- mutants per cell: every app mutant (tests/data/mutants/) replayed with the trails it contradicts on
  each profile; a kill is a failure at the contradicted verify step, a false pass is a green replay;
- replay time on `small` against `phone` for the same trail (the `realistic` latency profile, so
  each device round trip and each scroll costs what it costs on a phone), the median of `--repeat` runs.

Run: python benchmarks/device_matrix.py [--profile P ...] [--repeat N] [--no-timing | --timing-only] [--workers N]
Exit status: 0 when every trail passes in every cell and every mutant is killed in every cell, else 1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))

from tests.support.mutants import (  # noqa: E402 — the repo root goes on sys.path first
    PLATFORMS,
    Job,
    Outcome,
    example_trails,
    load_manifest,
    mutant_jobs,
    mutant_path,
    replay_job,
    run_jobs,
    verdict,
)

CELLS = ("", "small", "large", "tablet", "landscape", "large-font", "dark", "small+large-font", "tablet+dark")
"""The profiles: the default phone, each bundled profile, each modifier on the phone, and two compositions."""


def _name(profile: str) -> str:
    return profile or "phone"


def _short(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def passes(trails: list[Path], cells: list[str], workers: int) -> bool:
    jobs = [Job(t, "demo", p, c) for c in cells for p in PLATFORMS for t in trails]
    t0 = time.perf_counter()
    out = run_jobs(jobs, workers=workers)
    print(f"Passes — {len(trails)} example trails × {len(cells)} profiles × 2 platforms = {len(jobs)} replays "
          f"({time.perf_counter() - t0:.0f} s)\n")  # fmt: skip
    print(f"{'profile':<18} {'android passed':>15} {'scrolls':>8} {'ios passed':>11} {'scrolls':>8}")
    failures: list[str] = []
    for cell in cells:
        row = [f"{_name(cell):<18}"]
        for platform in PLATFORMS:
            mine = [(j, o) for j, o in out.items() if j.profile == cell and j.platform == platform]
            ok = sum(o.status == "passed" for _, o in mine)
            scrolls = sum(o.scrolls for _, o in mine)
            width = 15 if platform == "android" else 11
            row.append(f"{f'{ok}/{len(mine)}':>{width}} {scrolls:>8}")
            failures += [f"{j.label}: {_short(o.error)}" for j, o in mine if o.status != "passed"]
        print(" ".join(row))
    total = sum(o.status == "passed" for o in out.values())
    print(f"\npassed: {total}/{len(out)}")
    for line in failures:
        print("  FAILED " + line)
    return total == len(out)


def mutants(trails: list[Path], cells: list[str], workers: int) -> bool:
    manifest = load_manifest()
    jobs = [j for c in cells for j in mutant_jobs(manifest, trails, cross=False, profile=c)]
    t0 = time.perf_counter()
    out = run_jobs(jobs, workers=workers)
    print(
        f"\nMutants — {len(jobs)} replays of a trail on a mutant that contradicts it ({time.perf_counter() - t0:.0f} s)\n"
    )
    print(f"{'profile':<18} {'android killed':>15} {'ios killed':>11} {'false passes':>13}")
    all_killed, odd = True, []
    for cell in cells:
        row, false = [f"{_name(cell):<18}"], 0
        for platform in PLATFORMS:
            killed = pairs = 0
            for name, c in manifest.pairs():
                trail = next((t for t in trails if t.name == c.trail), None)
                if trail is None:
                    continue
                o: Outcome = out[Job(trail, str(mutant_path(name)), platform, cell)]
                v = verdict(o, c)
                pairs += 1
                killed += v == "killed"
                false += o.status == "passed"
                if v != "killed":
                    odd.append(f"{name} {c.label} {_name(cell)} {platform}: {v}: {_short(o.error)}")
            all_killed &= killed == pairs
            width = 15 if platform == "android" else 11
            row.append(f"{f'{killed}/{pairs}':>{width}}")
        row.append(f"{false:>13}")
        print(" ".join(row))
    for line in odd:
        print("  NOT KILLED " + line)
    return all_killed


def timing(trails: list[Path], repeat: int) -> None:
    """Replays each trail on `phone` and `small` in turn (never concurrently: they would share the CPU)."""
    print(f"\nReplay time, small against phone — realistic latency, median of {repeat}\n")
    print(
        f"{'trail':<32} {'platform':<8} {'phone s':>8} {'small s':>8} {'ratio':>6} {'scrolls on small':>17}"
    )
    ratios: list[float] = []
    sums = {"": 0.0, "small": 0.0}
    for platform in PLATFORMS:
        for trail in trails:
            med: dict[str, float] = {}
            scrolls = 0
            for cell in ("", "small"):
                runs = []
                for _ in range(repeat):
                    o = replay_job(Job(trail, "demo", platform, cell), latency="realistic")
                    if o.status != "passed":
                        print(f"  {trail.name} {platform} {_name(cell)}: {o.status}: {_short(o.error)}")
                    runs.append(o.seconds)
                    scrolls = o.scrolls if cell else scrolls
                med[cell] = statistics.median(runs)
                sums[cell] += med[cell]
            ratio = med["small"] / med[""]
            ratios.append(ratio)
            print(
                f"{trail.name:<32} {platform:<8} {med['']:>8.2f} {med['small']:>8.2f} {ratio:>6.2f} {scrolls:>17}"
            )
    print(f"\nworst ratio {max(ratios):.2f}; all trails {sums['small']:.1f} s on small / {sums['']:.1f} s on phone "
          f"= {sums['small'] / sums['']:.2f}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--profile", nargs="+", default=None, help="the cells to run (default: all); phone is ''"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--timing-only", action="store_true", help="only the small-against-phone times")
    args = parser.parse_args(argv)
    cells = [("" if p == "phone" else p) for p in args.profile] if args.profile else list(CELLS)
    trails = example_trails()
    ok = True
    if not args.timing_only:
        ok = passes(trails, cells, args.workers)
        ok = mutants(trails, cells, args.workers) and ok
    if not args.no_timing:
        timing(trails, args.repeat)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
