"""A usage error raised inside `trail_runner` reaches the test as one clean error (issue 48 item 6): the
test's own line and the message with its hint, not the engine's frames it passed through."""

from __future__ import annotations

import pytest

from tests.support.paths import TRAILS

pytest_plugins = ["pytester"]

TEST = """
def test_login(trail_runner):
    trail_runner.replay("login.trail.yaml")
"""


@pytest.mark.slow
def test_a_missing_secret_is_one_clean_error(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRAILBLAZE_SECRET_PASSWORD", raising=False)
    pytester.makefile(".trail.yaml", login=(TRAILS / "login.trail.yaml").read_text())
    pytester.makepyfile(test_login=TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    failure = out.split("__ test_login __", 1)[1].split("short test summary", 1)[0]
    assert "unknown variable {{password}}" in failure and "pass --trailblaze-secret password=VALUE" in failure
    assert "trailblaze/engine" not in failure and "trailblaze/pytest" not in failure, failure
    assert len(failure.strip().splitlines()) < 15, failure
