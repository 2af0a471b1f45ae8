"""Under CI=true `trailblaze replay` keeps only failing steps' screenshots by default, says so, and a
retried trail still keeps every step's (issue 27 item 6, docs/adr/0048-ci-defaults-and-release.md). Locally: every step's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import trailblaze
from tests.support.paths import DATA
from trailblaze.engine.ci_defaults import CI_SCREENSHOTS_NOTE, default_screenshots, in_ci

pytest_plugins = ["pytester"]

READY = DATA / "ci" / "ready.trail.yaml"
# "Ready" shows on the app's second cold start only: attempt 1 fails at step 2, attempt 2 passes
FLAKY_APP = f"sim:android:{DATA / 'sim' / 'second_launch.yaml'}"


@pytest.mark.parametrize(
    ("value", "ci"),
    [("true", True), ("True", True), ("1", True), (" yes ", True), ("on", True),
     ("false", False), ("0", False), ("", False), (None, False)],
)  # fmt: skip
def test_ci_is_read_from_the_ci_variable(value: str | None, ci: bool) -> None:
    environ = {} if value is None else {"CI": value}
    assert in_ci(environ) is ci
    assert default_screenshots(environ) == ("failures" if ci else "steps")


def _replay(tmp_path: Path, *args: str) -> tuple[str, dict[str, Any]]:
    run = tmp_path / "run"
    done = trailblaze("replay", str(READY), "--device", FLAKY_APP, "--retries", "1", "--element-timeout", "1",
                      "--run-dir", str(run), *args)  # fmt: skip
    assert done.returncode == 0 and "1 trail: 1 flaky" in done.stdout, done.stdout + done.stderr
    return done.stderr, json.loads((run / "run.json").read_text())


def _shots(trail: dict[str, Any]) -> list[bool]:
    return [bool(step["screenshot_after"]) for step in trail["steps"]]


@pytest.mark.slow
def test_in_ci_only_a_failing_step_is_pictured_and_a_retry_pictures_every_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    stderr, run = _replay(tmp_path)
    assert CI_SCREENSHOTS_NOTE in stderr
    assert run["screenshots"] == "failures"
    (trail,) = run["trails"]
    (first,) = trail["attempts"]
    assert [s["status"] for s in first["steps"]] == ["passed", "failed"]
    assert _shots(first) == [False, True]  # the first attempt: the failing step's picture only
    assert _shots(trail) == [True, True]  # the retry: every step's, to compare with the failure
    # every step keeps its dump; only the screen before the first attempt's trail is not read
    assert [bool(s["hierarchy_after"]) for s in first["steps"] + trail["steps"]] == [True] * 4
    assert first["steps"][0]["hierarchy_before"] is None and trail["steps"][0]["hierarchy_before"]
    assert all((tmp_path / "run" / s["screenshot_after"]).is_file() for s in trail["steps"])
    # the recorded command re-runs what ran, CI or not
    command = run["command"]
    assert command[command.index("--screenshots") + 1] == "failures"


@pytest.mark.slow
def test_in_ci_screenshots_steps_keeps_every_step_and_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    stderr, run = _replay(tmp_path, "--screenshots", "steps")
    assert "CI=true" not in stderr
    (trail,) = run["trails"]
    assert _shots(trail["attempts"][0]) == [True, True] and _shots(trail) == [True, True]


@pytest.mark.slow
def test_outside_ci_every_step_is_pictured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "false")
    stderr, run = _replay(tmp_path)
    assert "CI=true" not in stderr and run["screenshots"] == "steps"
    (trail,) = run["trails"]
    assert _shots(trail["attempts"][0]) == [True, True] and _shots(trail) == [True, True]
    assert trail["attempts"][0]["steps"][0]["hierarchy_before"] and trail["steps"][0]["hierarchy_before"]


@pytest.mark.slow
def test_in_pytest_failures_is_the_default_and_a_retry_pictures_every_step(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest="[pytest]\naddopts = -p no:cacheprovider\n")
    (pytester.path / "trails").mkdir()
    (pytester.path / "trails" / "ready.trail.yaml").write_bytes(READY.read_bytes())
    pytester.makeconftest(
        "import pytest\n\n@pytest.fixture(scope='session')\n"
        "def trailblaze_session_args():\n    return {'resolve_timeout': 1.0}\n"
    )
    report = pytester.path / "report"
    result = pytester.runpytest_subprocess(
        "trails", "--device", FLAKY_APP, "--trailblaze-retries", "1", f"--trailblaze-report={report}"
    )
    assert result.ret == 0, "\n".join(result.outlines)
    run = json.loads((report / "run.json").read_text())
    assert run["screenshots"] == "failures"
    (trail,) = run["trails"]
    (first,) = trail["attempts"]
    assert _shots(first) == [False, True] and _shots(trail) == [True, True]
