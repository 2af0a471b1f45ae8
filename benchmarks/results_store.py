"""The results store at scale (issue 47): adding 1,000 runs of 100 trails on 2 devices (200,000 trail
results, 5 steps each) to SQLite, `trailblaze results` over them, and 8 concurrent writers adding
runs (each also adding a run every other writer adds: an import racing its own job) on SQLite — and
on PostgreSQL when `--postgres URL` is given.

Run: python benchmarks/results_store.py [--runs N] [--postgres postgresql://USER:PW@HOST:PORT/DB]
Prints the figures; targets: add ≤ 20 s, results ≤ 1 s, 0 rows lost or duplicated.
"""

from __future__ import annotations

import argparse
import multiprocessing
import tempfile
import time
from pathlib import Path

from trailblaze.results.query import Filters, summaries
from trailblaze.results.store import Rows, open_store

TRAILS, DEVICES, STEPS = 100, ("sim:android", "sim:ios"), 5


def run_rows(run: int, tag: str = "") -> Rows:
    key = f"{tag}run-{run:05d}"
    at = (
        f"2026-{1 + run // 28000 % 12:02d}-{1 + run // 1000 % 28:02d}T{run // 60 % 24:02d}:{run % 60:02d}:00Z"
    )
    commit = f"c{run // 3:07d}"
    rows = Rows(run=(key, key, at, "replay", commit, "main", None))
    for t in range(TRAILS):
        for device in DEVICES:
            failed = (run * 7 + t) % 23 == 0
            rows.trails.append(
                (key, f"trail-{t:03d}", device, 1, 1, 1, f"trails/t{t}.trail.yaml", device, device[4:], "",
                 "failed" if failed else "passed", at, commit, "main", 1000.0 + t, 3 if failed else None,
                 "step 4" if failed else None, "not found" if failed else None, 0, 0, None)
            )  # fmt: skip
            rows.steps.extend(
                (key, f"trail-{t:03d}", device, 1, s, f"step {s + 1}", "failed" if failed and s == 3 else "passed",
                 "replay", 200.0)
                for s in range(STEPS)
            )  # fmt: skip
    return rows


def _writer(location: str, worker: int, runs: int) -> None:
    with open_store(location) as store:
        for n in range(runs):
            store.add([run_rows(worker * 100_000 + n, "w"), run_rows(n, "shared")])


def concurrent(location: str, runs: int = 5) -> tuple[int, int]:
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(location, w, runs)) for w in range(1, 9)]
    for p in workers:
        p.start()
    for p in workers:
        p.join()
    with open_store(location) as store:
        (have,) = store.rows(
            "SELECT COUNT(*) FROM trail_results WHERE run_key LIKE 'w%' OR run_key LIKE 'shared%'"
        )[0]
    want = (8 * runs + runs) * TRAILS * len(DEVICES)
    return int(have), want


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--postgres", default=None, metavar="URL")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        location = str(Path(tmp) / "results.db")
        started = time.perf_counter()
        with open_store(location) as store:
            for start in range(0, args.runs, 50):
                store.add([run_rows(n) for n in range(start, min(args.runs, start + 50))])
        added = time.perf_counter() - started
        results = args.runs * TRAILS * len(DEVICES)
        print(
            f"sqlite: added {results:,} trail results ({args.runs:,} runs, {STEPS} steps each) in {added:.1f} s"
        )
        with open_store(location, create=False) as store:
            started = time.perf_counter()
            found = summaries(store, Filters())
            took = time.perf_counter() - started
        print(f"sqlite: trailblaze results over them: {took:.2f} s ({len(found)} trail × device rows)")
        have, want = concurrent(str(Path(tmp) / "concurrent.db"))
        print(
            f"sqlite: 8 concurrent writers: {have:,} of {want:,} rows ({want - have:+,} lost, duplicates impossible by key)"
        )
    if args.postgres:
        have, want = concurrent(args.postgres)
        print(f"postgresql: 8 concurrent writers: {have:,} of {want:,} rows ({want - have:+,} lost)")


if __name__ == "__main__":
    main()
