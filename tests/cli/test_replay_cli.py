"""`trailblaze replay` end to end: a subprocess, the simulator through the real clients, and (for
self-heal / recording) the real `anthropic` SDK against `FakeMessagesAPI` answering with the demo policy."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import copy_example, trailblaze
from tests.support.paths import ROOT
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import load_trail

pytestmark = pytest.mark.slow
EXAMPLES = sorted(p.name for p in (ROOT / "trails").glob("*.trail.yaml"))


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(policy=demo_policy) as server:
        yield server


def test_the_readme_command_passes_with_no_llm_reachable(tmp_path: Path) -> None:
    """`ANTHROPIC_BASE_URL` points at a closed port: a fully recorded trail never needs it."""
    done = trailblaze(
        "replay", str(ROOT / "trails"), "--device", "sim:android", "--secret", "password=hunter2",
        "--report", str(tmp_path / "report.html"), "--junit", str(tmp_path / "junit.xml"),
        "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    web = len(list((ROOT / "trails" / "web").glob("*.trail.yaml")))  # skipped on a phone
    assert f"{len(EXAMPLES) + web} trails: {len(EXAMPLES)} passed, {web} skipped" in done.stdout
    assert (tmp_path / "report.html").stat().st_size > 10_000
    assert 'failures="0"' in (tmp_path / "junit.xml").read_text()
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["usage"]["llm_calls"] == 0
    assert sorted(t["status"] for t in run["trails"]) == ["passed"] * len(EXAMPLES) + ["skipped"] * web


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_v2_fails_at_login_then_self_heals(platform: str, api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    before = trail.read_bytes()
    device = f"sim:{platform}:demo@v2"
    common = ["--device", device, "--secret", "password=hunter2"]
    # The renamed button never appears, however long one waits: 1 s proves it as well as the default 5 s.
    fail_fast = ["--element-timeout", "1"]
    failed = trailblaze(
        "replay", str(trail), *common, *fail_fast, "--report", str(tmp_path / "r1"),
        "--junit", str(tmp_path / "j1.xml"), "--run-dir", str(tmp_path / "run1"), base_url=api.url,
    )  # fmt: skip
    assert failed.returncode == 1, failed.stdout + failed.stderr
    out = failed.stdout
    assert 'login.trail.yaml:67 step 4 (\'Tap the "Sign in" button\')' in out and "tapOnElementBySelector" in out
    assert "sign_in" in out and '"Log in" (id log_in)' in out
    assert not api.requests and trail.read_bytes() == before
    assert (tmp_path / "r1" / "report.html").is_file() and "<failure" in (tmp_path / "j1.xml").read_text()
    # the keyboard covered the form: the report marks the replayer's own hideKeyboard as such
    assert 'src-auto" title="added by the replayer' in (tmp_path / "r1" / "report.html").read_text()

    healed = trailblaze(
        "replay", str(trail), *common, *fail_fast, "--self-heal", "--report", str(tmp_path / "r2.html"),
        "--junit", str(tmp_path / "j2.xml"), "--run-dir", str(tmp_path / "run2"), base_url=api.url,
    )  # fmt: skip
    assert healed.returncode == 0, healed.stdout + healed.stderr
    assert "passed-with-self-heal" in healed.stdout and api.requests
    new_id = "dev.trailblaze.demo:id/log_in" if platform == "android" else "log_in"
    old_id = new_id.replace("log_in", "sign_in")
    assert f"-                resourceIdRegex: {old_id}" in healed.stdout
    assert f"+                resourceIdRegex: {new_id}" in healed.stdout
    # the file changed exactly as the printed diff says
    diff = (tmp_path / "run2" / "01-login-trail" / "trail.diff").read_text()
    after = trail.read_text().splitlines()
    expected = [line[1:] for line in before.decode().splitlines()]
    assert len(after) == len(expected)
    changed = [(a, b) for a, b in zip(before.decode().splitlines(), after, strict=True) if a != b]
    assert changed == [(f"                resourceIdRegex: {old_id}", f"                resourceIdRegex: {new_id}")]
    assert diff.count("\n-  ") == 1 and diff.count("\n+  ") == 1
    run = json.loads((tmp_path / "run2" / "run.json").read_text())
    assert run["trails"][0]["status"] == "passed-with-self-heal" and run["trails"][0]["heal_diff"] == diff
    assert (tmp_path / "r2.html").is_file() and "passed-with-self-heal" in (tmp_path / "j2.xml").read_text()
    other = "ios" if platform == "android" else "android"
    assert load_trail(trail).steps[3].recording_for(other) == load_trail(ROOT / "trails" / "login.trail.yaml").steps[3].recording_for(other)
    # the healed file now replays on v2 with no LLM
    again = trailblaze("replay", str(trail), *common, "--run-dir", str(tmp_path / "run3"))
    assert again.returncode == 0, again.stdout + again.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    missing = trailblaze("replay", str(tmp_path / "nope.trail.yaml"), "--device", "sim:android")
    assert missing.returncode == 2 and "no trail file" in missing.stderr
    trail = copy_example("login.trail.yaml", tmp_path)
    tags = trailblaze("replay", str(trail), "--device", "sim:android", "--tags", "nothing-has-this")
    assert tags.returncode == 2 and "no trail is tagged" in tags.stderr
    bad = tmp_path / "bad.trail.yaml"
    bad.write_text("trail:\n  - stepp: x\n")
    broken = trailblaze("replay", str(bad), "--device", "sim:android")
    assert broken.returncode == 2 and "bad.trail.yaml:2" in broken.stderr


def _start(args: list[str], base_url: str = "http://127.0.0.1:9") -> subprocess.Popen[str]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": base_url, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "trailblaze", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _interrupt_after_first_step(proc: subprocess.Popen[str]) -> tuple[str, str]:
    assert proc.stdout is not None
    seen = ""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        seen += line
        if not line or " 1 step " in line:
            break
    assert " 1 step " in seen, seen
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return seen + out, err


def test_ctrl_c_mid_replay_keeps_the_trail_and_writes_the_run_log(tmp_path: Path) -> None:
    trail = copy_example("search.trail.yaml", tmp_path)
    before = trail.read_bytes()
    proc = _start(["replay", str(trail), "--device", "sim:android", "--secret", "password=hunter2",
                   "--run-dir", str(tmp_path / "run"), "--junit", str(tmp_path / "j.xml")])  # fmt: skip
    out, err = _interrupt_after_first_step(proc)
    assert proc.returncode == 130, out + err
    assert trail.read_bytes() == before
    # the step that was running reads `interrupted`, and the run says where it is kept
    assert " failed, " not in out and "Aborted." not in err, out + err
    assert f"interrupted (Ctrl-C) — run directory {tmp_path / 'run'}; report: trailblaze report" in out, out
    assert err.strip().endswith("Interrupted."), err
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["trails"][0]["steps"][0]["status"] == "passed"
    assert (tmp_path / "j.xml").is_file()


def test_ctrl_c_mid_record_keeps_the_trail(api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail = copy_example("search.trail.yaml", tmp_path)
    before = trail.read_bytes()  # fully recorded: `--rerecord` solves every step again
    proc = _start(["record", str(trail), "--rerecord", "--device", "sim:android", "--secret", "password=hunter2",
                   "--run-dir", str(tmp_path / "run")], base_url=api.url)  # fmt: skip
    out, err = _interrupt_after_first_step(proc)
    assert proc.returncode == 130, out + err
    assert f"interrupted (Ctrl-C) — run directory {tmp_path / 'run'}" in out and "Aborted." not in err, out + err
    # step 1's recording was re-solved identically (the same policy), so the bytes are unchanged
    assert trail.read_bytes() == before
    assert json.loads((tmp_path / "run" / "run.json").read_text())["trails"][0]["steps"]


def _without_reason(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_reason(v) for k, v in value.items() if k != "reason"}
    if isinstance(value, list):
        return [_without_reason(v) for v in value]
    return value


def test_committed_recordings_are_what_record_produces(api: FakeMessagesAPI, tmp_path: Path) -> None:
    """Re-record NL-only copies of every example on both platforms: same tools, modulo `reason`.

    Each platform records its own copies, both at once (two `trailblaze record` processes against the
    same model endpoint); recording one platform after the other into one file is
    `test_record_cli.py::test_record_android_then_ios`.
    """
    platforms = ("android", "ios")
    copies: dict[str, list[str]] = {}
    for platform in platforms:
        (tmp_path / platform).mkdir()
        shutil.copytree(ROOT / "trails" / "tools", tmp_path / platform / "tools", ignore=shutil.ignore_patterns("__pycache__"))
        for name in EXAMPLES:
            data = yaml.safe_load((ROOT / "trails" / name).read_text())
            for step in data["trail"]:
                # A `runTrail` recording is composed by hand (the agent does not offer it): keep it.
                tools = [t for ts in (step.get("recording") or {}).values() for t in ts]
                if not any("runTrail" in t for t in tools):
                    step.pop("recording", None)
                else:
                    step["recording"] = {platform: step["recording"][platform]}
            (tmp_path / platform / name).write_text(yaml.safe_dump(data, sort_keys=False))
            copies.setdefault(platform, []).append(str(tmp_path / platform / name))
    procs = {
        platform: _start(["record", *copies[platform], "--device", f"sim:{platform}", "--secret", "password=hunter2",
                          "--run-dir", str(tmp_path / f"run-{platform}")], base_url=api.url)  # fmt: skip
        for platform in platforms
    }
    for proc in procs.values():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, out + err
    for name in EXAMPLES:
        committed = yaml.safe_load((ROOT / "trails" / name).read_text())["trail"]
        for platform in platforms:
            fresh = yaml.safe_load((tmp_path / platform / name).read_text())["trail"]
            # exactly this platform's committed recording, and nothing else
            assert _without_reason([s.get("recording") for s in fresh]) == _without_reason(
                [{platform: s["recording"][platform]} if "recording" in s else None for s in committed]
            ), (platform, name)


def test_step_line_counts_the_recording_apart_from_the_replayers_own_calls() -> None:
    from trailblaze.cli.console import step_line as _step_line
    from trailblaze.output.runlog import StepRecord, ToolRecord

    rec = StepRecord(index=3, kind="step", text="Tap", mode="replay", status="failed", duration_ms=800)
    rec.tools = [ToolRecord(name="hideKeyboard", status="OK", source="auto"),
                 ToolRecord(name="tapOnElementBySelector", status="NOT_FOUND")]  # fmt: skip
    assert "failed, replayed 1 tool (+ hideKeyboard), 0.8 s" in _step_line(rec)
    rec.tools = rec.tools[1:]
    assert "failed, replayed 1 tool, 0.8 s" in _step_line(rec)
