"""The shared results store on a real PostgreSQL server (tests/support/postgres.py): the done-when
scenario's flaky trail and gate, concurrent writers, import twice, and a password that never shows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import copy_example, trailblaze
from tests.support.mutants import MUTANTS_DIR
from tests.support.postgres import PASSWORD, postgres_server
from tests.support.results import eight_writers

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    with postgres_server() as url:
        yield url


def test_a_trail_that_failed_once_is_flaky_and_gated_on_postgresql(
    pg_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_SHA", "9a8b7c6d5e4f")
    monkeypatch.setenv("TRAILBLAZE_RESULTS", pg_url)
    copy_example("login.trail.yaml", tmp_path)
    runs = {"1": "sim:android", "2": f"sim:android:{MUTANTS_DIR / 'inbox-heading.yaml'}", "3": "sim:android"}
    for run, device in runs.items():
        done = trailblaze(
            "replay", "login.trail.yaml", "--device", device, "--secret", "password=hunter2", "--element-timeout",
            "1", "--run-dir", f"runs/{run}", cwd=tmp_path,
        )  # fmt: skip
        assert "results not stored" not in done.stderr and PASSWORD not in done.stdout + done.stderr, (
            done.stderr
        )
        gate = trailblaze("results", "--gate", "--trail", "demo/login", cwd=tmp_path)
        assert gate.returncode == (1 if run == "2" else 0), gate.stderr
    flaky = trailblaze("results", "--flaky", cwd=tmp_path)
    assert "demo/login on sim:android: flake rate 33% over 3 runs" in flaky.stdout, flaky.stderr
    again = trailblaze("results", "import", "runs", cwd=tmp_path)
    assert again.stdout.strip() == "imported 3 runs: 0 new trail results", again.stderr
    (tmp_path / "x").mkdir()
    bad = trailblaze("results", "import", "x", cwd=tmp_path)
    assert bad.returncode == 2 and PASSWORD not in bad.stderr


def test_eight_concurrent_writers_on_postgresql_lose_and_duplicate_nothing(pg_url: str) -> None:
    eight_writers(pg_url)
