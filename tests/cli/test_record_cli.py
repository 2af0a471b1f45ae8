"""`trailblaze record` end to end: a subprocess, the simulator through the real clients, the real
`anthropic` SDK against `FakeMessagesAPI` answering with the demo policy."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.record import nl_copy, record
from trailblaze.testing import Delay, FakeError, FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import load_trail

pytestmark = pytest.mark.slow


def tools_of(path: Path, classifier: str) -> list[dict[str, Any]]:
    trail = load_trail(path)
    out = []
    for step in trail.steps:
        out += [c.to_data() for c in step.recording_for(classifier) or []]
    return out


def no_secret_anywhere(api: FakeMessagesAPI, run_dir: Path) -> None:
    for body in api.bodies:
        assert "hunter2" not in str(body)
    files = [f for f in run_dir.rglob("*") if f.is_file()]
    assert files
    for file in files:
        assert b"hunter2" not in file.read_bytes(), file


def test_record_android_then_ios(api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail = nl_copy("archive-message.trail.yaml", tmp_path)
    run = tmp_path / "run-android"
    done = record(api, str(trail), "--device", "sim:android", "--secret", "password=hunter2", "--run-dir", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "7/7 steps passed" in done.stdout and "LLM calls" in done.stdout
    android = tools_of(trail, "android")
    names = [next(iter(t)) for t in android]
    assert names.count("tapOnElementBySelector") >= 4 and "tapOnPoint" not in names
    assert {"inputText": {"text": "{{password}}", "reason": "next: type {{password}}"}} in android
    assert "assertNotVisibleWithText" in names and "assertVisibleBySelector" in names
    text = trail.read_text()
    assert "ref:" not in text and "hunter2" not in text
    no_secret_anywhere(api, run)
    bodies = api.bodies
    assert all(b["tool_choice"]["type"] == "any" for b in bodies)
    assert all({t["name"] for t in b["tools"]} >= {"objectiveStatus", "assertVisible"} for b in bodies)
    assert all(b["messages"][-1]["content"][-1]["type"] == "image" for b in bodies)
    assert all(b["system"][-1].get("cache_control") for b in bodies)

    android_bytes = trail.read_text().split("\n")
    api.requests.clear()
    run_ios = tmp_path / "run-ios"
    done = record(api, str(trail), "--device", "sim:ios", "--secret", "password=hunter2", "--run-dir", str(run_ios))
    assert done.returncode == 0, done.stdout + done.stderr
    assert tools_of(trail, "android") == android  # untouched
    ios = tools_of(trail, "ios")
    assert any("iosMaestro" in str(t) for t in ios) and "androidAccessibility" not in str(ios)
    assert {"inputText": {"text": "{{password}}", "reason": "next: type {{password}}"}} in ios
    assert len(trail.read_text().split("\n")) > len(android_bytes)
    no_secret_anywhere(api, run_ios)


def test_no_screenshots_and_rate_limit_and_overload_retries(api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail = nl_copy("login.trail.yaml", tmp_path)
    api.enqueue(FakeError.rate_limited(), FakeError.overloaded())
    done = record(
        api, str(trail), "--device", "sim:android", "--secret", "password=hunter2", "--no-screenshots",
        "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    statuses = [r.path for r in api.requests]
    assert len(statuses) >= 3
    bodies = api.bodies
    # the two refused attempts were retried by the SDK with the same body
    assert bodies[0] == bodies[1] == bodies[2]
    assert not any(b["type"] == "image" for body in bodies for m in body["messages"] for b in m["content"] if isinstance(b, dict))
    assert tools_of(trail, "android")


def test_ctrl_c_leaves_the_trail_byte_identical(api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail = nl_copy("login.trail.yaml", tmp_path)
    original = trail.read_bytes()
    calls = {"n": 0}

    def slow_at_step_two(body: dict[str, Any]) -> Any:
        if "Type user@example.com" in str(body["messages"][0]):
            calls["n"] += 1
            if calls["n"] == 2:
                return Delay(30)
        return demo_policy(body)

    api.policy = slow_at_step_two
    env = {**os.environ, "ANTHROPIC_BASE_URL": api.url}
    proc = subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "record", str(trail), "--device", "sim:android", "--secret",
         "password=hunter2", "--run-dir", str(tmp_path / "run")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while calls["n"] < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    after_step_one = trail.read_bytes()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    # recordings are written only after the proof replay: step 1's solved recording is not kept either
    assert trail.read_bytes() == after_step_one == original
    assert load_trail(trail).steps[0].recording is None
    assert not list(tmp_path.glob(".*.tmp"))


def test_exit_codes_for_usage_and_llm_errors(tmp_path: Path) -> None:
    trail = nl_copy("login.trail.yaml", tmp_path)
    with FakeMessagesAPI(policy=demo_policy, api_key="right-key") as api:
        missing = record(api, str(tmp_path / "nope.trail.yaml"), "--device", "sim:android")
        assert missing.returncode == 2 and "no trail file" in missing.stderr
        bad = record(api, str(trail), "--device", "sim:android", "--memory", "novalue")
        assert bad.returncode == 2 and "KEY=VALUE" in bad.stderr
        unauthorized = record(api, str(trail), "--device", "sim:android", "--run-dir", str(tmp_path / "run"))
        assert unauthorized.returncode == 3, unauthorized.stdout + unauthorized.stderr
        assert "rejected the credentials" in unauthorized.stderr
    assert load_trail(trail).steps[0].recording is None
