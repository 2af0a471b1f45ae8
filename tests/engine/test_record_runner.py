"""`record_trail` in process: replay vs. agent, saving rules, statuses, the run directory."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.engine.options import RunInputs
from trailblaze.engine.record import RecordOptions, record_trail
from trailblaze.llm.client import LLMClient
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import load_run
from trailblaze.testing import ScriptedLLM, tool
from trailblaze.testing.demo_policy import demo_llm
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import load_trail

LOGIN = """\
# hand-written comment that must survive
config:
  id: demo/login-short
trail:
  - step: Launch the demo app with a clean state
    recording:
      ios:
        - launchApp: {appId: dev.trailblaze.demo}   # an iOS recording made elsewhere
  - step: Type user@example.com into the Email field
  - step: Type the password from the secret `password` into the Password field
  - step: Tap the "Sign in" button
  - verify: The Inbox screen is shown with the heading "Inbox"
"""


@pytest.fixture(scope="module")
def session() -> Iterator[DeviceSession]:
    with open_device("sim:android", latency="zero", resolve_timeout=1.0) as s:
        yield s


def no_llm() -> LLMClient:
    raise AssertionError("a fully recorded trail must not construct an LLM client")


@pytest.mark.slow
def test_records_then_replays_without_an_llm(session: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "login.trail.yaml"
    path.write_text(LOGIN)
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")
    first = record_trail(path, session, demo_llm, inputs=RunInputs(secrets={"password": "hunter2"}), rundir=run)
    assert first.status == "passed", first.error
    assert [s.status for s in first.steps] == ["passed"] * 5
    assert all(s.mode == "agent" and s.recording_written for s in first.steps)
    # written only after the proof replay relaunched the app and replayed all 5 steps with no LLM
    assert first.verification == "verified" and first.proof is not None
    assert [(s.mode, s.status) for s in first.proof.steps] == [("replay", "passed")] * 5
    assert first.proof.usage.llm_calls == 0 and first.proof.directory == first.directory + "/proof"
    text = path.read_text()
    assert text.startswith("# hand-written comment that must survive\n")
    assert "- launchApp: {appId: dev.trailblaze.demo}   # an iOS recording made elsewhere" in text
    assert "{{password}}" in text and "hunter2" not in text
    trail = load_trail(path)
    assert all(step.recording_for("android-phone") for step in trail.steps)
    assert trail.steps[0].recording_for("ios-iphone")[0].params == {"appId": "dev.trailblaze.demo"}  # type: ignore[index]

    # A second run replays every step: no LLM, the file is untouched.
    before = path.read_bytes()
    second = record_trail(path, session, no_llm, inputs=RunInputs(secrets={"password": "hunter2"}), rundir=run)
    assert second.status == "passed"
    assert [s.mode for s in second.steps] == ["replay"] * 5
    assert path.read_bytes() == before
    run.finish()
    log = load_run(tmp_path / "run")
    assert len(log.trails) == 2 and log.usage.llm_calls == first.usage.llm_calls > 0
    step = log.trails[0].steps[2]
    assert step.llm_calls and step.llm_calls[0].transcript
    transcript = json.loads((tmp_path / "run" / step.llm_calls[0].transcript).read_text())
    assert (tmp_path / "run" / (step.screenshot_before or "")).is_file()
    images = [b for m in transcript["request"]["messages"] for b in m["content"] if b["type"] == "image"]
    assert images and images[0]["file"].endswith(".jpg") and "data_base64" not in images[0]
    for file in (tmp_path / "run").rglob("*"):
        if file.is_file():
            assert b"hunter2" not in file.read_bytes(), file


def test_failed_step_writes_nothing_and_skips_the_rest(session: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n  - step: Launch the demo app with a clean state\n  - step: Tap Logout\n  - verify: Something\n"
    )
    before = path.read_bytes()
    llm = ScriptedLLM(
        [
            tool("launchApp", appId="dev.trailblaze.demo", launchMode="CLEAR_STATE"),
            tool("objectiveStatus", status="COMPLETED", explanation="launched"),
            tool("objectiveStatus", status="FAILED", explanation="there is no Logout"),
        ]
    )
    record = record_trail(path, session, lambda: llm, options=RecordOptions(screenshots=False))
    assert record.status == "failed"
    assert [s.status for s in record.steps] == ["passed", "failed", "skipped"]
    assert record.error is not None and "step 2 ('Tap Logout'): there is no Logout" in record.error
    # recordings are written only after the proof replay of a passed record: step 1's is not kept
    assert path.read_bytes() == before
    assert record.verification is None and record.proof is None and record.heal_diff is None


def test_recordable_false_runs_the_agent_and_is_never_written(session: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n  - step: Launch the demo app with a clean state\n    recordable: false\n"
        "    recording:\n      android:\n        - pressBack\n"
    )
    before = path.read_bytes()
    llm = ScriptedLLM(
        [tool("launchApp", appId="dev.trailblaze.demo"), tool("objectiveStatus", status="COMPLETED", explanation="ok")]
    )
    record = record_trail(path, session, lambda: llm, options=RecordOptions(screenshots=False))
    assert record.status == "passed" and record.steps[0].status == "passed-ai"
    assert path.read_bytes() == before


def test_rerecord_replaces_this_family_only(session: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n  - step: Launch the demo app\n    recording:\n"
        "      android:\n        - pressBack\n      ios:\n        - pressBack\n"
    )
    llm = ScriptedLLM(
        [tool("launchApp", appId="dev.trailblaze.demo"), tool("objectiveStatus", status="COMPLETED", explanation="ok")]
    )
    record = record_trail(path, session, lambda: llm, options=RecordOptions(screenshots=False, rerecord=True))
    assert record.status == "passed"
    trail = load_trail(path)
    assert [c.name for c in trail.steps[0].recording_for("android") or []] == ["launchApp"]
    assert [c.name for c in trail.steps[0].recording_for("ios") or []] == ["pressBack"]


@pytest.mark.slow
def test_failing_replay_names_the_step_and_suggests_rerecord(session: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n  - step: Tap Nowhere\n    recording:\n      android:\n"
        "        - tapOnElementBySelector:\n            nodeSelector:\n"
        "              androidAccessibility: {textRegex: Nowhere}\n"
    )
    record = record_trail(path, session, no_llm, options=RecordOptions(screenshots=False))
    assert record.status == "failed"
    error = record.steps[0].error or ""
    assert "t.trail.yaml:2 step 1 ('Tap Nowhere')" in error and "NOT_FOUND" in error and "--rerecord" in error
