"""`trailblaze record`'s proof replay, `--step` / `--from`, and the recording diff, end to end: a
subprocess, the simulators through the real clients, the real `anthropic` SDK against
`FakeMessagesAPI` answering with the demo policy."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.paths import ROOT
from trailblaze.llm.prompts import OBJECTIVE_HEADER
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import load_trail

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow
LOGIN_STEPS = [
    "Launch the demo app with a clean state",
    "Type user@example.com into the Email field",
    "Type the password from the secret `password` into the Password field",
    'Tap the "Sign in" button',
    'The Inbox screen is shown with the heading "Inbox"',
]


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(policy=demo_policy) as server:
        yield server


def record(api: FakeMessagesAPI | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "250"}
    env.pop("ANTHROPIC_API_KEY", None)
    if api is not None:
        env["ANTHROPIC_BASE_URL"] = api.url
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", "record", *args, "--secret", "password=hunter2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def stale_archive_copy(tmp_path: Path) -> Path:
    """The archive example with its first step (launch + sign in) recorded for Android but launching
    without CLEAR_STATE, every other step natural language only. The agent records "open Message 3,
    archive it" fine — but the archive persists in the app, so after a relaunch Message 3 is gone and
    step 3's recording cannot replay."""
    data = yaml.safe_load((ROOT / "trails" / "archive-message.trail.yaml").read_text())
    first = data["trail"][0]["recording"]
    launch = first["android"][0]["launchApp"]
    launch["launchMode"] = "FORCE_RESTART"  # (an omitted launchMode would clear the state)
    launch["reason"] = "launch (keeps the app's data)"
    first.pop("ios")
    for step in data["trail"][1:]:
        step.pop("recording", None)
    target = tmp_path / "archive.trail.yaml"
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    return target


def objectives(api: FakeMessagesAPI) -> list[str]:
    """The step objective of every request the model received."""
    out = []
    for body in api.bodies:
        texts = [
            block["text"]
            for message in body["messages"]
            for block in (message["content"] if isinstance(message["content"], list) else [])
            if block.get("type") == "text" and block["text"].startswith(OBJECTIVE_HEADER)
        ]
        assert texts, body["messages"][0]
        out.append(texts[0])
    return out


def step_of(objective: str) -> int:
    """Which login step (1-based) an objective asks for."""
    hits = [i + 1 for i, text in enumerate(LOGIN_STEPS) if text in objective]
    assert len(hits) == 1, objective
    return hits[0]


def recordings(path: Path) -> list[dict[str, Any]]:
    return [
        {key: [t.to_data() for t in tools] for key, tools in (step.recording or {}).items()}
        for step in load_trail(path).steps
    ]


def run_log(run: Path) -> dict[str, Any]:
    return json.loads((run / "run.json").read_text())  # type: ignore[no-any-return]


def test_a_recording_that_does_not_replay_after_a_relaunch_is_not_written(
    api: FakeMessagesAPI, tmp_path: Path
) -> None:
    trail = stale_archive_copy(tmp_path)
    before = trail.read_bytes()
    run = tmp_path / "run"
    done = record(api, str(trail), "--device", "sim:android", "--element-timeout", "1", "--run-dir", str(run))
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert trail.read_bytes() == before  # byte-identical: nothing new written
    assert "proof replay" in out
    assert (
        "step 3 ('Open \"Message 3\"'): recorded tool 1 of 1 tapOnElementBySelector failed: NOT_FOUND" in out
    )
    assert "re-record --step 3" in out
    assert "recorded 6 steps · NOT verified: step 3 did not replay; nothing was written" in out
    assert "7/7 steps passed, 1 not verified by the proof replay," in out
    assert "archive.trail.yaml not changed; the rejected recording" in out and "+      - tapOnElementBySelector:" in out

    log = run_log(run)
    [rec] = log["trails"]
    assert rec["status"] == "failed" and rec["verification"] == "failed"
    assert re.match(r"proof replay: archive.trail.yaml:\d+ step 3", rec["error"])
    assert not any(s["recording_written"] for s in rec["steps"])  # nothing was written
    proof = rec["proof"]
    assert [s["status"] for s in proof["steps"]] == ["passed", "passed", "failed"] + ["skipped"] * 4
    assert all(s["mode"] == "replay" for s in proof["steps"][:3])
    assert proof["usage"]["llm_calls"] == 0 and log["usage"]["llm_calls"] == len(api.requests) == 6
    assert proof["directory"] == rec["directory"] + "/proof"
    assert (run / proof["steps"][2]["screenshot_after"]).is_file()
    assert proof["steps"][2]["screenshot_after"].startswith(proof["directory"] + "/")
    # the rejected change is kept in the run directory
    kept = (run / rec["directory"] / "recording.diff").read_text()
    assert kept == rec["heal_diff"] and "containsChild" in kept

    report = subprocess.run(
        [sys.executable, "-m", "trailblaze", "report", str(run)], capture_output=True, text=True, timeout=60
    )
    assert report.returncode == 0, report.stderr
    html = (run / "report.html").read_text()
    assert 'id="trail-1-proof"' in html and "Proof replay" in html
    assert "Recording NOT written (the proof replay failed)" in html
    assert 'id="trail-1-proof-step-2"' in html


def test_keep_unverified_writes_and_marks_no_verify_skips(api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail = stale_archive_copy(tmp_path)
    run = tmp_path / "run"
    done = record(
        api, str(trail), "--device", "sim:android", "--element-timeout", "1", "--keep-unverified",
        "--run-dir", str(run),
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "NOT verified: step 3 did not replay; written anyway (--keep-unverified)" in out
    assert "archive.trail.yaml was updated:" in out
    assert all(step.recording_for("android") is not None for step in load_trail(trail).steps)
    log = run_log(run)
    assert "--keep-unverified" in log["command"]
    [rec] = log["trails"]
    assert rec["verification"] == "unverified" and rec["status"] == "failed"
    assert all(s["recording_written"] for s in rec["steps"][1:])
    subprocess.run([sys.executable, "-m", "trailblaze", "report", str(run)], check=True, timeout=60)
    assert "unverified — NOT verified: step 3 did not replay" in (run / "report.html").read_text()

    again = stale_archive_copy(tmp_path)
    api.requests.clear()
    run2 = tmp_path / "run2"
    done = record(api, str(again), "--device", "sim:android", "--no-verify", "--run-dir", str(run2))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "recorded 6 steps · not verified (--no-verify)" in done.stdout
    assert all(step.recording_for("android") is not None for step in load_trail(again).steps)
    [rec] = run_log(run2)["trails"]
    assert rec["verification"] == "skipped" and rec["proof"] is None


def test_verified_record_prints_and_keeps_its_diff_ios(api: FakeMessagesAPI, tmp_path: Path) -> None:
    data = yaml.safe_load((ROOT / "trails" / "login.trail.yaml").read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    trail = tmp_path / "login.trail.yaml"
    trail.write_text(yaml.safe_dump(data, sort_keys=False))
    run = tmp_path / "run"
    done = record(api, str(trail), "--device", "sim:ios", "--run-dir", str(run))
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "proof replay (relaunched, recordings only, no LLM):" in out
    assert "recorded 5 steps · verified by replay in " in out
    assert "login.trail.yaml was updated:" in out
    [rec] = run_log(run)["trails"]
    assert rec["verification"] == "verified" and rec["status"] == "passed"
    assert [s["status"] for s in rec["proof"]["steps"]] == ["passed"] * 5
    assert [s["mode"] for s in rec["proof"]["steps"]] == ["replay"] * 5
    assert rec["proof"]["usage"]["llm_calls"] == 0
    diff = (run / rec["directory"] / "recording.diff").read_text()
    assert diff.startswith("--- a/login.trail.yaml\n+++ b/login.trail.yaml\n")
    for line in diff.splitlines()[2:]:
        assert line in out  # printed as it was kept
    assert "+    ios:" in diff and "resourceIdRegex: password" in diff and "hunter2" not in diff
    assert all(step.recording_for("ios") for step in load_trail(trail).steps)
    subprocess.run([sys.executable, "-m", "trailblaze", "report", str(run)], check=True, timeout=60)
    html = (run / "report.html").read_text()
    assert 'id="trail-1-proof"' in html and "verified — verified by replay in" in html
    assert "Trail file changes (record)" in html


def stale_step_three(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The login example (5 steps, recorded for both platforms) whose step 3 Android recording is an
    older, still working one (another reason text); and the file's recordings."""
    text = (ROOT / "trails" / "login.trail.yaml").read_text()
    old = "            reason: 'next: field Password'\n"
    assert text.count(old) == 2
    text = text.replace(old, "            reason: an older recording\n", 1)
    trail = tmp_path / "login.trail.yaml"
    trail.write_text(text)
    return trail, recordings(trail)


def test_step_re_records_only_that_step(api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail, before = stale_step_three(tmp_path)
    run = tmp_path / "run"
    done = record(api, str(trail), "--device", "sim:android", "--step", "3", "--run-dir", str(run))
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    asked = [step_of(o) for o in objectives(api)]
    assert asked and set(asked) == {3}  # the model saw step 3 only
    after = recordings(trail)
    for i in (0, 1, 3, 4):
        assert after[i] == before[i], i
    assert after[2]["ios"] == before[2]["ios"]
    assert after[2]["android"] != before[2]["android"]
    assert after[2]["android"][0]["tapOnElementBySelector"]["reason"] == "next: field Password"
    assert "recorded 1 step · verified by replay in" in out
    modes = [s["mode"] for s in run_log(run)["trails"][0]["steps"]]
    assert modes == ["replay", "replay", "agent", "replay", "replay"]


def test_from_re_records_the_rest(api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail, before = stale_step_three(tmp_path)
    done = record(
        api, str(trail), "--device", "sim:android", "--from", "4", "--run-dir", str(tmp_path / "run")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert {step_of(o) for o in objectives(api)} == {4, 5}
    assert recordings(trail)[:3] == before[:3]  # step 3's older recording kept (and replayed)
    assert "recorded 2 steps · verified by replay in" in done.stdout


def test_step_usage_errors(tmp_path: Path) -> None:
    trail, _ = stale_step_three(tmp_path)
    before = trail.read_bytes()
    other = tmp_path / "other.trail.yaml"
    other.write_bytes(before)
    cases = [
        (["--step", "6"], "--step 6: login.trail.yaml has 5 steps, numbered 1 to 5 as replay prints them"),
        (["--from", "9"], "--from 9: login.trail.yaml has 5 steps"),
        (["--step", "0"], "0"),
        (["--step", "2", "--rerecord"], "--rerecord re-solves every step"),
        (["--step", "2", str(other)], "pass exactly one trail file (got 2)"),
        (
            ["--no-verify", "--keep-unverified"],
            "--keep-unverified keeps recordings the proof replay rejected",
        ),
    ]
    for extra, message in cases:
        done = record(None, str(trail), "--device", "sim:android", *extra)
        assert done.returncode == 2, (extra, done.stdout + done.stderr)
        assert message in done.stderr, (extra, done.stderr)
        assert "Traceback" not in done.stderr
    nl = tmp_path / "nl.trail.yaml"
    nl.write_text("trail:\n  - step: Launch the demo app\n  - step: Tap Sign in\n")
    done = record(None, str(nl), "--device", "sim:android", "--step", "2")
    assert done.returncode == 2
    assert "step 1 of nl.trail.yaml has no android recording to reach step 2; add --step 1" in done.stderr
    assert trail.read_bytes() == before


# --- the pytest API ----------------------------------------------------------------------------------------

PYTEST_PROJECT = """\
import pytest

from trailblaze.testing.demo_policy import demo_llm


@pytest.fixture(scope="session")
def trailblaze_session_args():
    return {"resolve_timeout": 1.0}


@pytest.fixture
def llm():
    return demo_llm()
"""

RECORD_TESTS = """\
from pathlib import Path

SECRETS = {"password": "hunter2"}


def test_record_is_verified_before_it_is_saved(trail_runner):
    result = trail_runner.record("login.trail.yaml", secrets=SECRETS)
    result.assert_passed()
    assert result.record.verification == "verified", result.record.verification_note
    assert [s.mode for s in result.record.proof.steps] == ["replay"] * 5
    assert "recording:" in Path("login.trail.yaml").read_text()


def test_a_recording_that_does_not_replay_is_not_saved(trail_runner):
    trail_runner.tool("launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}")
    before = Path("archive.trail.yaml").read_bytes()
    result = trail_runner.record("archive.trail.yaml", secrets=SECRETS)
    assert result.status == "failed" and result.record.verification == "failed"
    assert Path("archive.trail.yaml").read_bytes() == before
    assert "proof replay step 3 (step): Open \\"Message 3\\"" in result.diagnostic
    assert "NOT verified: step 3 did not replay; nothing was written" in result.diagnostic


def test_keep_unverified_and_no_verify(trail_runner):
    trail_runner.tool("launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}")
    result = trail_runner.record("archive.trail.yaml", secrets=SECRETS, keep_unverified=True)
    assert result.record.verification == "unverified" and not result.passed
    assert "tapOnElementBySelector" in Path("archive.trail.yaml").read_text()
    trail_runner.tool("launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}")
    skipped = trail_runner.record("again.trail.yaml", secrets=SECRETS, verify=False)
    assert skipped.passed and skipped.record.verification == "skipped" and skipped.record.proof is None
"""


def test_trail_runner_record_verifies(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makeconftest(PYTEST_PROJECT)
    data = yaml.safe_load((ROOT / "trails" / "login.trail.yaml").read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    (pytester.path / "login.trail.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    stale = stale_archive_copy(tmp_path).read_bytes()
    (pytester.path / "archive.trail.yaml").write_bytes(stale)
    (pytester.path / "again.trail.yaml").write_bytes(stale)
    pytester.makepyfile(test_record=RECORD_TESTS)
    result = pytester.runpytest_subprocess(
        "test_record.py", "-v", "--device", "sim:android", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=3)


def test_device_dying_during_the_proof_writes_nothing(tmp_path: Path) -> None:
    from trailblaze.device.devices import open_device
    from trailblaze.engine.options import RunInputs
    from trailblaze.engine.record import record_trail
    from trailblaze.errors import DeviceError
    from trailblaze.output.events import RunEvents
    from trailblaze.output.rundir import RunDir
    from trailblaze.testing.demo_policy import demo_llm
    from trailblaze.tools.memory import Memory
    from trailblaze_sim.faults import Conditions

    data = yaml.safe_load((ROOT / "trails" / "login.trail.yaml").read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    path = tmp_path / "login.trail.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    before = path.read_bytes()
    conditions = Conditions()
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")

    class OfflineMidProof(RunEvents):
        def proof_step_done(self, record: Any) -> None:  # the device goes offline in the middle of the proof
            conditions.offline_after_request = conditions.requests + 2

    with open_device("sim:android", latency=conditions, resolve_timeout=1.0) as session:  # type: ignore[arg-type]
        with pytest.raises(DeviceError) as caught:
            record_trail(
                path,
                session,
                demo_llm,
                inputs=RunInputs(secrets={"password": "hunter2"}),
                rundir=run,
                progress=OfflineMidProof(),
            )
    line = path.read_text().splitlines().index("- step: Type user@example.com into the Email field") + 1
    assert caught.value.exit_code == 3 and f"login.trail.yaml:{line} step 2" in caught.value.message
    assert path.read_bytes() == before
    [rec] = run_log(tmp_path / "run")["trails"]
    assert rec["status"] == "error" and rec["verification"] == "failed"
    assert rec["error"].startswith(f"proof replay: login.trail.yaml:{line} step 2")
    assert rec["proof"]["status"] == "error" and not any(s["recording_written"] for s in rec["steps"])
