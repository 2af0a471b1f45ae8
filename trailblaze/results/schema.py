"""The results store's tables, as numbered migrations both SQLite and PostgreSQL run.

A store records the migrations it has run in `schema_version`; opening it runs the ones it lacks, in
order, in one transaction. A store made by a newer trailblaze (a version this one does not know) is
refused rather than written to, so an old CI job cannot damage a shared store.

Every key is natural — (run, trail, device, attempt) — so `INSERT ... ON CONFLICT DO NOTHING` makes
adding a run twice (an import, a retried CI upload) add nothing twice, with no id to look up.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: runs and trail results
    (
        """CREATE TABLE runs (
            run_key TEXT PRIMARY KEY,
            run_id TEXT NOT NULL,
            started_at TEXT NOT NULL,
            source TEXT NOT NULL,
            commit_sha TEXT,
            branch TEXT,
            shard TEXT
        )""",
        """CREATE TABLE trail_results (
            run_key TEXT NOT NULL,
            trail TEXT NOT NULL,
            device TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            final INTEGER NOT NULL,
            attempts INTEGER NOT NULL,
            path TEXT NOT NULL,
            device_spec TEXT NOT NULL,
            platform TEXT NOT NULL,
            form_factor TEXT NOT NULL,
            status TEXT NOT NULL,
            started_at TEXT NOT NULL,
            commit_sha TEXT,
            branch TEXT,
            duration_ms DOUBLE PRECISION NOT NULL,
            failed_step INTEGER,
            failed_step_text TEXT,
            reason TEXT,
            heals INTEGER NOT NULL,
            hiccups INTEGER NOT NULL,
            quarantine TEXT,
            PRIMARY KEY (run_key, trail, device, attempt)
        )""",
        "CREATE INDEX trail_results_latest ON trail_results (final, trail, device, started_at)",
    ),
    # 2: the steps of each attempt (which step fails most, and since when)
    (
        """CREATE TABLE step_results (
            run_key TEXT NOT NULL,
            trail TEXT NOT NULL,
            device TEXT NOT NULL,
            attempt INTEGER NOT NULL,
            step INTEGER NOT NULL,
            text TEXT NOT NULL,
            status TEXT NOT NULL,
            mode TEXT NOT NULL,
            duration_ms DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (run_key, trail, device, attempt, step)
        )""",
    ),
)

SCHEMA_VERSION = len(MIGRATIONS)
