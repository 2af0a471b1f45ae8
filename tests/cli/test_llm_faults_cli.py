"""LLM endpoint faults seen from the command line (issue 12 items 13 and 14, ADR 0019).

`trailblaze record` against the local Messages-API fake through the real SDK: a malformed answer
and a hung endpoint are LLM infrastructure errors (exit 3) naming the step and the endpoint, and a
hung endpoint is bounded by `--llm-timeout` / `--llm-retries`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from trailblaze.testing import Delay, FakeMessagesAPI, RawBody

pytestmark = pytest.mark.slow

TRAIL = "trail:\n  - step: Tap the Sign in button\n"


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as server:
        yield server


def _record(api: FakeMessagesAPI, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    trail = tmp_path / "t.trail.yaml"
    trail.write_text(TRAIL)
    env = {**os.environ, "ANTHROPIC_BASE_URL": api.url, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", "record", str(trail), "--device", "sim:android",
         "--run-dir", str(tmp_path / "run"), *extra],  # fmt: skip
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("body", [b'{"id": "msg_1", "type": "message", "content": [{"ty', b'{"unexpected": true}'])
def test_a_malformed_answer_is_an_llm_error_naming_the_step_and_endpoint(
    api: FakeMessagesAPI, tmp_path: Path, body: bytes
) -> None:
    api.policy = lambda request: RawBody(body)
    done = _record(api, tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert "t.trail.yaml:2 step 1 ('Tap the Sign in button')" in done.stderr
    assert f"malformed answer from model endpoint {api.url}" in done.stderr


def test_a_hung_endpoint_is_bounded_by_the_llm_options(api: FakeMessagesAPI, tmp_path: Path) -> None:
    api.policy = lambda request: Delay(60)
    done = _record(api, tmp_path, "--llm-timeout", "0.3", "--llm-retries", "1")
    assert done.returncode == 3, done.stdout + done.stderr
    error = done.stderr
    assert "t.trail.yaml:2 step 1" in error and f"model endpoint {api.url} timed out (no answer within 0.3 s)" in error
    assert "after 1 retry" in error and "--llm-timeout" in error and "--llm-retries" in error
    assert len(api.requests) == 2  # one try and one retry, not the SDK's five


@pytest.mark.parametrize(
    ("args", "problem"),
    [(["--llm-timeout", "0"], "'--llm-timeout'"), (["--llm-retries", "-1"], "'--llm-retries'")],
)
def test_bad_llm_limits_are_usage_errors(api: FakeMessagesAPI, tmp_path: Path, args: list[str], problem: str) -> None:
    done = _record(api, tmp_path, *args)
    assert done.returncode == 2 and problem in done.stderr
