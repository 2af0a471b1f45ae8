"""The results store at scale (issue 47): adding 1,000 runs of 100 trails on 2 devices (200,000 trail
results, 5 steps each) to SQLite, `trailblaze results` over them, and 8 concurrent writers adding
runs (each also adding a run every other writer adds: an import racing its own job) on SQLite — and
on PostgreSQL when `--postgres URL` is given —, and how much the HTML report grows per trail with
history on (a run of 100 trails, each with 20 earlier outcomes in the store, against the same report
with the store off).

Run: python benchmarks/results_store.py [--runs N] [--postgres postgresql://USER:PW@HOST:PORT/DB]
Prints the figures; targets: add ≤ 20 s, results ≤ 1 s, 0 rows lost or duplicated, ≤ 2 KB per trail.
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


def concurrent(location: str, runs: int = 5) -> tuple[int, int, int]:
    """(rows stored, rows wanted, rows stored twice) after 8 writers added their runs at once."""
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_writer, args=(location, w, runs)) for w in range(1, 9)]
    for p in workers:
        p.start()
    for p in workers:
        p.join()
    with open_store(location) as store:
        have, distinct = store.rows(
            "SELECT COUNT(*), COUNT(DISTINCT run_key || '|' || trail || '|' || device || '|' || attempt)"
            " FROM trail_results WHERE run_key LIKE 'w%' OR run_key LIKE 'shared%'"
        )[0]
    want = (8 * runs + runs) * TRAILS * len(DEVICES)
    return int(distinct), want, int(have) - int(distinct)


def report_growth(folder: Path, history_runs: int = 20) -> tuple[int, int]:
    """(bytes per trail the report grows by with history on, trails): the same run of `TRAILS` trails
    reported with the store holding `history_runs` earlier outcomes of each, and with no store."""
    from trailblaze.output.report import write_html_report
    from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, write_run
    from trailblaze.results.history import report_history

    location = str(folder / "history.db")
    with open_store(location) as store:
        for n in range(history_runs):
            rows = run_rows(n, "h")
            rows.run = (rows.run[0], f"20261128-{n:06d}", *rows.run[2:])  # run ids as `replay` names them
            store.add([rows])
    run = RunRecord(run_id="20261128-999999", started_at="2026-12-01T00:00:00Z", device="sim:android")
    for t in range(TRAILS):
        failing = t % 10 == 0  # a tenth fail at the step their history failed at: it says how often
        steps = [
            StepRecord(index=s, kind="step", text=f"step {s + 1}", duration_ms=200.0,
                       status="failed" if failing and s == 3 else "passed")
            for s in range(STEPS)
        ]  # fmt: skip
        run.trails.append(
            TrailRecord(path=f"trails/t{t}.trail.yaml", id=f"trail-{t:03d}", device="sim:android",
                        platform="android", status="failed" if failing else "passed", steps=steps)
        )  # fmt: skip
    write_run(run, folder / "run")
    plain = write_html_report(folder / "run", folder / "plain.html").stat().st_size
    with report_history(location) as lookup:
        with_history = write_html_report(folder / "run", folder / "history.html", history=lookup).stat().st_size
    return (with_history - plain) // TRAILS, TRAILS


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
        have, want, twice = concurrent(str(Path(tmp) / "concurrent.db"))
        print(f"sqlite: 8 concurrent writers: {have:,} of {want:,} rows ({want - have:,} lost, {twice:,} duplicated)")
        growth, trails = report_growth(Path(tmp))
        print(f"report: {growth:,} bytes per trail more with history on (20 outcomes each, {trails} trails; target ≤ 2,048)")
    if args.postgres:
        have, want, twice = concurrent(args.postgres)
        print(f"postgresql: 8 concurrent writers: {have:,} of {want:,} rows ({want - have:,} lost, {twice:,} duplicated)")


if __name__ == "__main__":
    main()
