"""The results store itself: migrations, concurrent writers, bad locations and the URL's password."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support.cli import trailblaze
from tests.support.results import eight_writers
from trailblaze.errors import UsageError
from trailblaze.results.location import display_url, resolve_location
from trailblaze.results.schema import MIGRATIONS, SCHEMA_VERSION
from trailblaze.results.store import Store, open_store


def test_an_old_store_is_migrated_keeping_its_rows_and_a_newer_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:  # a store as the first schema version left it
        db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        for statement in MIGRATIONS[0]:
            db.execute(statement)
        db.execute("INSERT INTO schema_version VALUES (1)")
        db.execute("INSERT INTO runs VALUES ('k', 'r1', '2026-01-01T00:00:00Z', 'replay', NULL, NULL, NULL)")
    with open_store(str(path)) as store:
        assert store.version == SCHEMA_VERSION == 2
        assert store.rows("SELECT run_id FROM runs") == [("r1",)]
        assert store.rows("SELECT COUNT(*) FROM step_results") == [(0,)]
    with open_store(str(path)) as store:  # opening again migrates nothing twice
        assert store.rows("SELECT version FROM schema_version ORDER BY version") == [(1,), (2,)]
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO schema_version VALUES (99)")
    with pytest.raises(
        UsageError, match=r"schema version 99, newer than this trailblaze's 2; upgrade trailblaze"
    ):
        open_store(str(path))


def test_eight_concurrent_writers_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    eight_writers(str(tmp_path / "results.db"))


def test_the_location_comes_from_the_option_then_the_environment_then_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TRAILBLAZE_RESULTS", "shared.db")
    assert resolve_location("given.db") == "given.db"
    assert resolve_location(None) == "shared.db"
    assert resolve_location(None, "from-ini.db") == "from-ini.db"
    monkeypatch.setenv("TRAILBLAZE_RESULTS", "off")
    assert resolve_location(None) is None
    monkeypatch.delenv("TRAILBLAZE_RESULTS")
    assert resolve_location(None) == str(Path(".trailblaze") / "results.db")
    assert (
        display_url("postgresql://ci:s3cr3t-pw@db.example:5432/results")
        == "postgresql://ci:***@db.example:5432/results"
    )


def test_an_unreachable_postgresql_store_is_exit_3_without_its_password(tmp_path: Path) -> None:
    done = trailblaze("results", "--results", "postgresql://ci:s3cr3t-pw@127.0.0.1:9/results", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith(
        "error: cannot open the results store postgresql://ci:***@127.0.0.1:9/results: "
    )
    assert "s3cr3t-pw" not in done.stderr + done.stdout and "Traceback" not in done.stderr


def test_bad_locations_and_empty_gates_are_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRAILBLAZE_RESULTS", raising=False)
    missing = trailblaze("results", cwd=tmp_path)
    assert missing.returncode == 2 and "error: no results store at .trailblaze/results.db" in missing.stderr
    kind = trailblaze("results", "--results", "mysql://x@y/z", cwd=tmp_path)
    assert kind.returncode == 2 and "unknown store kind 'mysql'" in kind.stderr
    with open_store(str(tmp_path / "empty.db")) as store:
        assert isinstance(store, Store)
    gate = trailblaze("results", "--gate", "--results", str(tmp_path / "empty.db"), cwd=tmp_path)
    assert gate.returncode == 2 and "--gate: no results in" in gate.stderr
    since = trailblaze(
        "results", "--since", "yesterday", "--results", str(tmp_path / "empty.db"), cwd=tmp_path
    )
    assert since.returncode == 2 and "--since 'yesterday': not a time" in since.stderr
