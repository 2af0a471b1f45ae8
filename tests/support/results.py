"""Writers for the results store's concurrency tests (SQLite and PostgreSQL): eight processes, each
adding runs of its own and the same runs every other one adds."""

from __future__ import annotations

import multiprocessing

from trailblaze.results.store import Rows, open_store


def _rows(run: int, trails: int = 5) -> Rows:
    key = f"run-{run}"
    rows = Rows(run=(key, key, f"2026-01-01T00:00:{run % 60:02d}Z", "replay", "c0ffee", "main", None))
    for t in range(trails):
        rows.trails.append(
            (key, f"trail-{t}", "sim:android", 1, 1, 1, f"t{t}.trail.yaml", "sim:android", "android", "", "passed",
             rows.run[2], "c0ffee", "main", 100.0, None, None, None, 0, 0, None)
        )  # fmt: skip
    return rows


def _write(path: str, worker: int) -> None:
    with open_store(path) as store:
        for n in range(25):
            store.add([_rows(worker * 1000 + n), _rows(n)])  # `_rows(n)`: every worker adds these too


def eight_writers(location: str) -> None:
    """Eight processes add 25 runs of their own each, and the same 25 runs every other one adds."""
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_write, args=(location, w)) for w in range(1, 9)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(120)
    assert [p.exitcode for p in workers] == [0] * 8
    with open_store(location) as store:
        assert store.rows("SELECT COUNT(*) FROM runs WHERE run_key LIKE 'run-%'") == [(8 * 25 + 25,)]
        assert store.rows("SELECT COUNT(*) FROM trail_results WHERE run_key LIKE 'run-%'") == [
            ((8 * 25 + 25) * 5,)
        ]


