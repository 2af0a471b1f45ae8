"""Mutant kill rate: does a green replay mean the app does what the trail says?

Replays every example trail on every app mutant (tests/data/mutants/, one changed fact each) and on
`demo@restyled`, on sim:android and sim:ios (zero latency, `password=hunter2`), and prints:
- the kill table: for each (mutant, contradicted verify step, platform) whether the replay failed at
  that verify step (killed), passed (survived), failed before it (broke early: the mutant broke
  what the trail's actions need) or failed after it;
- the kill rate;
- the false failures: any failure on demo@restyled, and any failure of a trail on a mutant that
  contradicts none of its steps.

Run: python benchmarks/mutant_kills.py [--trail PATH ...] [--workers N]
  --trail PATH   replay these trails instead of trails/*.trail.yaml (e.g. freshly recorded ones);
                 they are matched to the manifest by file name (`login.trail.yaml`).
Exit status: 0 when every contradicted pair is killed and nothing fails falsely, else 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))

from tests.support.mutants import (  # noqa: E402 — the repo root goes on sys.path first
    RESTYLED,
    Job,
    Manifest,
    Outcome,
    example_trails,
    load_manifest,
    mutant_jobs,
    mutant_path,
    restyled_jobs,
    run_jobs,
    verdict,
)


def _where(out: Outcome) -> str:
    if out.status == "error":
        return f"error: {out.error}"
    return f"{out.status} at step {'>'.join(map(str, out.failed_at))}" if out.failed_at else out.status


def _short(text: str, limit: int = 110) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def report(manifest: Manifest, trails: list[Path], outcomes: dict[Job, Outcome]) -> bool:
    """Prints the tables; True when every pair is killed and nothing fails falsely."""
    by_name = {t.name: t for t in trails}
    kills = total = 0
    early: list[str] = []
    print(f"{'mutant':<27} {'contradicted step':<34} {'android':<13} {'ios':<13}")
    for name, c in manifest.pairs():
        trail = by_name.get(c.trail)
        if trail is None:
            continue
        cells = []
        for platform in ("android", "ios"):
            out = outcomes[Job(trail, str(mutant_path(name)), platform)]
            v = verdict(out, c)
            total += 1
            kills += v == "killed"
            cells.append(v)
            if v in ("broke early", "failed later"):
                early.append(f"{name} {c.label} {platform}: {_where(out)}: {_short(out.error)}")
        print(f"{name:<27} {c.label:<34} {cells[0]:<13} {cells[1]:<13}")
    rate = kills / total if total else 0.0
    print(f"\nkill rate: {kills}/{total} = {rate:.0%}")
    if early:
        print("\nnot a kill although the replay failed (broke early = bad mutant):")
        for line in early:
            print("  " + line)
    false: list[str] = []
    for job, out in outcomes.items():
        mutant = Path(job.app).stem if job.app.endswith(".yaml") else None
        contradicted = mutant is not None and manifest.contradiction(mutant, job.trail.name) is not None
        if out.status != "passed" and not contradicted:
            false.append(f"{job.label}: {_where(out)}: {_short(out.error)}")
    restyled = [j for j in outcomes if j.app == RESTYLED]
    others = len(outcomes) - len(restyled) - total
    print(
        f"\nfalse failures: {len(false)} (of {len(restyled)} replays on {RESTYLED} and {others} non-contradicting mutant replays)"
    )
    for line in false:
        print("  " + line)
    return kills == total and not false


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--trail", nargs="+", type=Path, default=None, metavar="PATH")
    parser.add_argument("--workers", type=int, default=8)
    args = parser.parse_args(argv)
    trails = [p.resolve() for p in args.trail] if args.trail else example_trails()
    for path in trails:
        if not path.is_file():
            print(f"mutant_kills: {path}: no such trail file", file=sys.stderr)
            return 2
    manifest = load_manifest()
    jobs = mutant_jobs(manifest, trails, cross=True) + restyled_jobs(trails)
    print(
        f"Mutant kills — {len(trails)} trails × ({len(manifest.mutants)} mutants + {RESTYLED}) × 2 platforms = {len(jobs)} replays"
    )
    t0 = time.perf_counter()
    outcomes = run_jobs(jobs, workers=args.workers)
    print(f"({time.perf_counter() - t0:.0f} s)\n")
    return 0 if report(manifest, trails, outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
