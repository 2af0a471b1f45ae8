"""`trailblaze record` (tests/support/cli.py: in the test process) against `FakeMessagesAPI` with the demo policy, for the tests of
recording (tests/cli/test_record_cli.py, tests/cli/test_record_dialog.py, tests/screen/test_occlusion.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support.cli import trailblaze
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
    """`trailblaze record ARGS`, its model calls going to `api`."""
    return trailblaze("record", *args, base_url=api.url, timeout=timeout)
