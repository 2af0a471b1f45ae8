"""`trailblaze record` in a subprocess against `FakeMessagesAPI` with the demo policy, for the tests of
recording (tests/cli/test_record_cli.py, tests/cli/test_record_dialog.py, tests/screen/test_occlusion.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support.paths import TRAILS
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    """`FakeMessagesAPI` answering with the demo policy."""
    with FakeMessagesAPI(policy=demo_policy) as server:
        yield server


def nl_copy(name: str, tmp_path: Path) -> Path:
    """A copy of an example trail with every recording removed (natural language only)."""
    data = yaml.safe_load((TRAILS / name).read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    target = tmp_path / name
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    return target


def record(api: FakeMessagesAPI, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`trailblaze record ARGS` in a subprocess, its model calls going to `api`."""
    env = {**os.environ, "ANTHROPIC_BASE_URL": api.url, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", "record", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
