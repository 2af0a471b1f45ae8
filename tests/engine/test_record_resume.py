"""Record keeps what it paid for (issue 40, item 3): a record that stops at step N keeps the recordings of
steps 1..N-1 in a draft beside the trail, `record --resume` continues from it with no model call for
them and still proves the whole trail, a refused record says the file is not changed, and a fully
recorded trail has nothing to record. `trailblaze record` runs in a subprocess; the real `anthropic`
SDK talks to `FakeMessagesAPI` answering with the demo policy, and every request's objective is kept."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import run_cli
from trailblaze.llm.prompts import OBJECTIVE_HEADER
from trailblaze.testing import FakeError, FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.testing.messages_api import Reply
from trailblaze.trail.model import load_trail

pytestmark = pytest.mark.slow
STEPS = [
    "Launch the demo app with a clean state",
    "Type user@example.com into the Email field",
    "Type the password from the secret `password` into the Password field",
    'Tap the "Sign in" button',
]
VERIFY = 'The Inbox screen is shown with the heading "Inbox"'


class Model:
    """The demo model, the objective of every request it answered, and a step it fails on."""

    def __init__(self) -> None:
        self.objectives: list[str] = []
        self.down_at: str | None = None
        """While set, a request for this objective gets HTTP 500 (the SDK retries, then gives up)."""

    def __call__(self, body: dict[str, Any]) -> Reply | None:
        objective = _objective(body)
        self.objectives.append(objective)
        if objective == self.down_at:
            return FakeError.server_error()
        return demo_policy(body)


def _objective(body: dict[str, Any]) -> str:
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            text = block.get("text", "") if isinstance(block, dict) else ""
            if text.startswith(OBJECTIVE_HEADER):
                return text.split("\n", 2)[-1].split(": ", 1)[-1].partition("\n\n")[0].strip()
    return ""


@pytest.fixture
def model() -> Iterator[tuple[Model, FakeMessagesAPI]]:
    policy = Model()
    with FakeMessagesAPI(policy=policy) as api:
        yield policy, api


def _write(path: Path, steps: list[str]) -> None:
    data = {
        "config": {"id": "demo/login", "context": "The password is provided as the secret `password`."},
        "trail": [*({"step": s} for s in steps), {"verify": VERIFY}],
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _record(api: FakeMessagesAPI, trail: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": api.url, "COLUMNS": "400"}
    env.pop("ANTHROPIC_API_KEY", None)
    return run_cli(
        "record", trail.name, "--device", "sim:android", "--secret", "password=hunter2", *args,
        env=env, cwd=trail.parent, timeout=240,
    )  # fmt: skip


def _paste(api: FakeMessagesAPI, out: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Runs the first suggested command in `out` (between backticks) as a person pastes it: the secret
    it names comes from its environment variable (issue 48 item 3)."""
    command = shlex.split(re.findall(r"`(trailblaze [^`]+)`", out)[0])
    env = {**os.environ, "ANTHROPIC_BASE_URL": api.url, "COLUMNS": "400", "TRAILBLAZE_SECRET_PASSWORD": "hunter2"}
    env.pop("ANTHROPIC_API_KEY", None)
    assert command[0] == "trailblaze", command
    return run_cli(*command[1:], env=env, cwd=cwd, timeout=240)


def test_a_failed_step_keeps_the_paid_steps_and_resume_pays_only_for_the_rest(
    model: tuple[Model, FakeMessagesAPI], tmp_path: Path
) -> None:
    policy, api = model
    trail = tmp_path / "login.trail.yaml"
    _write(trail, [*STEPS[:3], 'Tap the "Nonexistent" button', STEPS[3]])
    before = trail.read_bytes()
    done = _record(api, trail)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    draft = tmp_path / "login.trail.yaml.draft"
    assert (
        f"login.trail.yaml not changed; the steps the model solved are kept in {draft.name}: "
        "`trailblaze record login.trail.yaml --device sim:android --secret password --resume` replays them with no "
        "model calls and records the rest"
    ) in out
    assert trail.read_bytes() == before  # refused: the file is as it was
    kept = load_trail(draft)  # the draft is the trail with the solved steps' recordings
    assert [bool(s.recording_for("android")) for s in kept.steps] == [True, True, True, False, False, False]
    assert "hunter2" not in draft.read_text()
    assert set(STEPS[:3]) <= set(policy.objectives)  # paid for once

    # the person fixes step 4 (drops it) and resumes: steps 1-3 cost nothing
    _write(trail, STEPS)
    policy.objectives.clear()
    done = _paste(api, out, tmp_path)  # the hint, as printed
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert f"resuming from {draft.name}: steps 1-3 replay what an earlier record solved (no model calls)" in out
    assert set(policy.objectives) == {STEPS[3], VERIFY}, policy.objectives
    assert "recorded 5 steps (3 from the draft) · verified by replay" in out
    assert all(s.recording_for("android") for s in load_trail(trail).steps)
    assert not draft.exists()  # written: the draft is spent

    # a fully recorded trail: nothing to record, no device, no model, no run directory
    policy.objectives.clear()
    runs = sorted((tmp_path / ".trailblaze" / "runs").iterdir())
    done = _record(api, trail)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == (
        "login.trail.yaml: nothing to record: every step has an android recording; replay it with "
        "`trailblaze replay login.trail.yaml --device sim:android --secret password`, or solve steps again with "
        "--step N or --rerecord"
    )
    assert policy.objectives == [] and sorted((tmp_path / ".trailblaze" / "runs").iterdir()) == runs
    done = _paste(api, done.stdout, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert policy.objectives == []  # a replay: no model


def test_an_endpoint_that_gives_up_mid_record_keeps_the_steps_before(
    model: tuple[Model, FakeMessagesAPI], tmp_path: Path
) -> None:
    policy, api = model
    trail = tmp_path / "login.trail.yaml"
    _write(trail, STEPS)
    before = trail.read_bytes()
    policy.down_at = STEPS[2]
    done = _record(api, trail, "--llm-retries", "0")
    out = done.stdout + done.stderr
    assert done.returncode == 3, out
    assert "login.trail.yaml not changed; the steps the model solved are kept in login.trail.yaml.draft" in out
    assert trail.read_bytes() == before
    policy.down_at = None
    policy.objectives.clear()
    done = _record(api, trail, "--resume")
    assert done.returncode == 0, done.stdout + done.stderr
    assert STEPS[0] not in policy.objectives and STEPS[1] not in policy.objectives
    assert STEPS[2] in policy.objectives


def test_resume_needs_a_draft_and_a_plain_record(model: tuple[Model, FakeMessagesAPI], tmp_path: Path) -> None:
    _, api = model
    trail = tmp_path / "login.trail.yaml"
    _write(trail, STEPS)
    done = _record(api, trail, "--resume")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: no draft of login.trail.yaml to resume (login.trail.yaml.draft does not exist): a record that "
        "stops part-way keeps one; drop --resume to record from the start"
    )
    done = _record(api, trail, "--resume", "--rerecord")
    assert done.returncode == 2 and "--resume continues a record from the steps its draft kept" in done.stderr
