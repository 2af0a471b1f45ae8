"""A natural-language trail that changes the app's state (archive a message, switch on Dark mode)
records, proves and replays twice in a row on one simulator: the model's `launchApp` without a mode
is a clean start, as in replay (issue 25, item 1). The real `anthropic` SDK talks to
`FakeMessagesAPI`, whose demo model omits `launchMode`; the simulator runs in this process and every
command reaches it as a real device would (adb server port / WDA URL)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import load_trail
from trailblaze_sim.runtime import start_simulator

pytestmark = pytest.mark.slow

TRAIL = """\
config:
  id: demo/first-hour
  context: The password for the demo account is provided as the secret `password`.
trail:
  - step: Launch the demo app and sign in as user@example.com with the password from the secret `password`
  - step: Open "Message 25"
  - step: Tap "Archive"
  - verify: The snackbar "Message archived" is visible
  - step: Open the "Settings" tab in the bottom navigation
  - step: Turn on the "Dark mode" switch
  - verify: The "Dark mode" switch is on
"""


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(policy=demo_policy) as server:
        yield server


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, "--secret", "password=hunter2", env=env, timeout=300)


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_trail_that_changes_the_app_records_proves_and_replays_twice(
    api: FakeMessagesAPI, tmp_path: Path, platform: str
) -> None:
    trail = tmp_path / "first-hour.trail.yaml"
    trail.write_text(TRAIL)
    sim = start_simulator(platform, "demo")
    try:
        env = {**os.environ, "COLUMNS": "250", "ANTHROPIC_BASE_URL": api.url}
        env.pop("ANTHROPIC_API_KEY", None)
        if platform == "android":
            env["ANDROID_ADB_SERVER_PORT"] = str(sim.port)
            device = "android"
        else:
            device = "ios:" + sim.device_specs()[0][0]
        done = _run(env, "record", str(trail), "--device", device, "--run-dir", str(tmp_path / "rec"))
        out = done.stdout + done.stderr
        assert done.returncode == 0, out
        assert "verified by replay" in out
        launches = [
            tool.params
            for tool in load_trail(trail).steps[0].recording_for(platform) or []
            if tool.name == "launchApp"
        ]
        assert [p.get("launchMode") for p in launches] == ["CLEAR_STATE"]
        launched = [
            b["input"] for body in api.bodies for m in body["messages"] if m["role"] == "assistant"
            for b in m["content"] if b.get("type") == "tool_use" and b["name"] == "launchApp"
        ]  # fmt: skip
        assert launched and all("launchMode" not in args for args in launched)  # the model named no mode
        for n in (1, 2):
            again = _run(env, "replay", str(trail), "--device", device, "--run-dir", str(tmp_path / f"replay{n}"))
            assert again.returncode == 0, f"replay {n}: " + again.stdout + again.stderr
        assert len(api.requests) == len(api.bodies) and api.requests  # replays asked no model
    finally:
        sim.stop()
