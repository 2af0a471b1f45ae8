"""The results store end to end (issue 47): replays add to it, `trailblaze results` shows a trail that
failed once on a mutant as flaky, `--gate` fails after the failing run and passes after a passing one,
`results import` adds nothing twice, and a store that cannot be written never changes a run's result."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.support.cli import copy_example, trailblaze
from tests.support.mutants import MUTANTS_DIR

pytestmark = pytest.mark.slow
COMMIT = "4f1c2e9a7b0d"
MUTANT = f"sim:android:{MUTANTS_DIR / 'inbox-heading.yaml'}"


def _replay(tmp_path: Path, run: str, device: str, *extra: str) -> int:
    done = trailblaze(
        "replay", "login.trail.yaml", "--device", device, "--secret", "password=hunter2", "--element-timeout", "1",
        "--run-dir", f"runs/{run}", *extra, cwd=tmp_path,
    )  # fmt: skip
    assert "Traceback" not in done.stderr and "results not stored" not in done.stderr, done.stderr
    return done.returncode


def test_a_trail_that_failed_once_on_a_mutant_is_flaky_and_the_gate_follows_the_latest_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_SHA", COMMIT)
    monkeypatch.setenv("GITHUB_REF_NAME", "main")
    monkeypatch.delenv("TRAILBLAZE_RESULTS", raising=False)
    copy_example("login.trail.yaml", tmp_path)
    assert _replay(tmp_path, "1", "sim:android") == 0
    assert _replay(tmp_path, "2", MUTANT) == 1
    gate = trailblaze("results", "--gate", cwd=tmp_path)
    assert gate.returncode == 1, gate.stderr
    assert "gate: demo/login on sim:android: latest run failed (commit 4f1c2e9a7b)" in gate.stderr
    assert _replay(tmp_path, "3", "sim:android") == 0
    assert (tmp_path / ".trailblaze" / "results.db").is_file()  # the default store, beside the runs

    flaky = trailblaze("results", "--flaky", cwd=tmp_path)
    assert flaky.returncode == 0, flaky.stderr
    assert "demo/login on sim:android: flake rate 33% over 3 runs" in flaky.stdout
    assert f"commit {COMMIT[:10]}: passed 2, failed 1; last failure at step 5" in flaky.stdout
    gate = trailblaze("results", "--gate", cwd=tmp_path)
    assert gate.returncode == 0 and "gate passed: 1 trail × device pair" in gate.stdout, gate.stderr
    strict = trailblaze("results", "--gate", "--max-flake-rate", "0.2", cwd=tmp_path)
    assert strict.returncode == 1
    assert "flake rate 33% over 3 runs is above --max-flake-rate 0.2" in strict.stderr

    (row,) = json.loads(trailblaze("results", "--json", cwd=tmp_path).stdout)
    assert row["latest"] == "passed" and row["runs"] == 3 and round(row["pass_rate"], 2) == 0.67
    assert row["failing_step"].startswith("step 5: ") and row["last_failure"]["commit"] == COMMIT
    md = trailblaze("results", "--markdown", cwd=tmp_path).stdout
    assert md.startswith("| trail | device | latest |") and "**Flaky:** `demo/login` on `sim:android`" in md
    quarantine = trailblaze("results", "--suggest-quarantine", cwd=tmp_path).stdout
    assert '# login.trail.yaml: add under config:\n  quarantine: "flaky on sim:android' in quarantine
    assert "no results match" in trailblaze("results", "--device", "sim:ios", cwd=tmp_path).stdout

    # the report: each trail's last outcomes on its device, and how often its failing step failed
    shown = trailblaze("report", "runs/2", "-o", "r2.html", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    page = (tmp_path / "r2.html").read_text()
    assert page.count('<i class="cell s-') == 3 and "last 3 runs on this device" in page
    assert f"failed in 1 of the last 3 runs, first at {COMMIT[:10]}" in page
    merged = trailblaze("report", "--merge", "runs/1", "runs/2", "runs/3", "-o", "merged.html", cwd=tmp_path)
    assert (
        merged.returncode == 0
        and (tmp_path / "merged.html").read_text().count("last 3 runs on this device") == 3
    )
    plain = trailblaze(
        "report", "runs/2", "-o", "plain.html", cwd=tmp_path, env={"TRAILBLAZE_RESULTS": "off"}
    )
    assert plain.returncode == 0 and "History" not in (tmp_path / "plain.html").read_text()
    assert (
        0 < len(page.encode()) - (tmp_path / "plain.html").stat().st_size <= 2048
    )  # per trail, with history on

    # the runs' artifacts imported (again, and into a fresh store): each result counted once
    again = trailblaze("results", "import", "runs", cwd=tmp_path)
    assert again.stdout.strip() == "imported 3 runs: 0 new trail results", again.stderr
    fresh = tmp_path / "fresh.db"
    first = trailblaze(
        "results", "import", "runs/1", "runs/2", "runs/3", "--results", str(fresh), cwd=tmp_path
    )
    assert first.stdout.strip() == "imported 3 runs: 3 new trail results", first.stderr
    with sqlite3.connect(fresh) as db:
        assert db.execute(
            "SELECT COUNT(*), SUM(commit_sha = ?) FROM trail_results", (COMMIT,)
        ).fetchone() == (3, 3)
        assert db.execute("SELECT COUNT(*) FROM step_results").fetchone()[0] == 3 * 5


def test_a_store_that_cannot_be_written_is_a_warning_and_the_run_still_passes(tmp_path: Path) -> None:
    copy_example("login.trail.yaml", tmp_path)
    (tmp_path / "blocker").write_text("a file, not a folder")
    done = trailblaze(
        "replay", "login.trail.yaml", "--device", "sim:android", "--secret", "password=hunter2",
        "--run-dir", "runs/1", "--results", "blocker/results.db", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "results not stored" in x]
    assert line.startswith("warning: results not stored in blocker/results.db: ")
    off = trailblaze(
        "replay", "login.trail.yaml", "--device", "sim:android", "--secret", "password=hunter2",
        "--run-dir", "runs/2", "--results", "off", cwd=tmp_path,
    )  # fmt: skip
    assert off.returncode == 0 and not (tmp_path / ".trailblaze").exists()
