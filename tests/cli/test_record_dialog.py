"""Recording through the "Sign out?" confirm dialog (issue 11's done-when, in small).

`trails/sign-out.trail.yaml` without its recordings is recorded by `trailblaze record` (a subprocess,
the real `anthropic` SDK against `FakeMessagesAPI` answering with the demo policy) on both simulated
platforms, then replayed twice by `trailblaze replay` with no model reachable. The dialog step's
recorded tap must land on the dialog's own button on the screen that step started on (the run
directory's saved dump), never on the `Sign out` button covered by the dialog.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.record import (
    api,  # noqa: F401 (a fixture, requested by name)
    nl_copy,
    record,
)
from trailblaze.screen.hierarchy import parse_hierarchy
from trailblaze.screen.occlusion import covers
from trailblaze.screen.resolve import resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze.testing import FakeMessagesAPI
from trailblaze.trail.model import load_trail

pytestmark = pytest.mark.slow
DIALOG_STEP = 3  # "Confirm signing out in the "Sign out?" dialog", 0-based


def replay_without_a_model(trail: Path, platform: str, run_dir: Path) -> subprocess.CompletedProcess[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    env = {**os.environ, "ANTHROPIC_BASE_URL": closed, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", "replay", str(trail), "--device", f"sim:{platform}",
         "--secret", "password=hunter2", "--run-dir", str(run_dir)],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_dialog_trail_records_no_covered_tap_and_replays_green(
    api: FakeMessagesAPI,  # noqa: F811
    platform: str,
    tmp_path: Path,
) -> None:
    trail = nl_copy("sign-out.trail.yaml", tmp_path)
    run = tmp_path / "record"
    done = record(
        api, str(trail), "--device", f"sim:{platform}", "--secret", "password=hunter2", "--run-dir", str(run)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "recorded 5 steps · verified by replay in" in done.stdout

    step = load_trail(trail).steps[DIALOG_STEP]
    assert step.text.startswith("Confirm signing out")
    taps = [c for c in step.recording_for(platform) or [] if c.name.startswith("tap")]
    assert [c.name for c in taps] == ["tapOnElementBySelector"], taps
    # The screen the dialog step started on: the dialog over Settings, the covered button still in it.
    steps = json.loads((run / "run.json").read_text())["trails"][0]["steps"]
    dump = run / next(s for s in steps if s["index"] == DIALOG_STEP - 1)["hierarchy_after"]
    screen = parse_hierarchy(dump.read_bytes())
    assert [c.describe() for c in covers(screen)] == ['Dialog "Sign out?"']
    behind = next(n for n in screen.nodes if n.short_id == "sign_out")
    assert behind.covered  # the Settings button is still in the dump, under the dialog
    targets = resolve(NodeSelector.model_validate(taps[0].params["nodeSelector"]), screen)
    assert [(n.short_id, n.covered) for n in targets] == [("confirm_sign_out", False)]

    for i in range(2):
        again = replay_without_a_model(trail, platform, tmp_path / f"replay-{i}")
        assert again.returncode == 0, again.stdout + again.stderr
        result = json.loads((tmp_path / f"replay-{i}" / "run.json").read_text())["trails"][0]
        assert result["status"] == "passed" and result["usage"]["llm_calls"] == 0
        assert [s["status"] for s in result["steps"]] == ["passed"] * 5
