"""Device logs in every run (the app's logcat lines by pid, per step, in the run directory, the HTML
report and the failure text) and the log probes `readLogs` / `assertLogContains`, on the simulated
Android phone through the real uiautomator2 / adbutils clients; iOS says WebDriverAgent has none."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.support.device import Rig, rig
from tests.support.paths import ROOT
from trailblaze.cli.main import cli
from trailblaze.device.logs import DeviceLogMode
from trailblaze.device.session import DeviceSession
from trailblaze.engine.replay import replay_trail
from trailblaze.output.report import write_html_report
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import TrailRecord
from trailblaze.pytest._runner import failure_text
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import ToolCall, load_trail
from trailblaze.trail.variables import build_memory

REPO = ROOT
LOGIN = REPO / "trails" / "login.trail.yaml"
PKG = "dev.trailblaze.demo"
SECRETS = {"password": "hunter2", "account": "user@example.com"}


@pytest.fixture(scope="module")
def android() -> Iterator[Rig]:
    with rig("android") as r:
        yield r


def tool(session: DeviceSession, name: str, **params: Any) -> Any:
    return run_recorded_tool(session, ToolCall(name=name, params=params), Memory())


def _trail(folder: Path, last: str) -> Path:
    path = folder / "logged.trail.yaml"
    path.write_text(
        f"""\
config:
  title: Launch, then look for what is not there
trail:
  - step: Launch the app
    recording:
      android: [{{launchApp: {{appId: {PKG}, launchMode: CLEAR_STATE}}}}]
      ios: [{{launchApp: {{appId: {PKG}, launchMode: CLEAR_STATE}}}}]
  - verify: {last}
    recording:
      android: [{{assertVisibleWithText: {{text: Nowhere to be seen}}}}]
      ios: [{{assertVisibleWithText: {{text: Nowhere to be seen}}}}]
""",
        "utf-8",
    )
    return path


def _replay(
    session: DeviceSession, path: Path, run_dir: Path, mode: DeviceLogMode
) -> tuple[RunDir, TrailRecord]:
    trail = load_trail(path)
    memory = build_memory(trail, secrets=SECRETS)
    rundir = RunDir(run_dir, memory, command=["test"], device="sim:android")
    rundir.device_logs = mode
    record = replay_trail(trail, session, memory=memory, rundir=rundir, device="sim:android")
    rundir.finish()
    return rundir, record


def test_a_failing_replay_keeps_the_apps_log_beside_the_failed_step(android: Rig, tmp_path: Path) -> None:
    android.session.driver.shell("logcat -c")  # type: ignore[attr-defined]
    rundir, record = _replay(
        android.session, _trail(tmp_path, "A missing label shows"), tmp_path / "run", "on-failure"
    )
    assert record.status == "failed"
    launched, failed = record.steps
    assert launched.device_log is None and launched.status == "passed"  # on-failure: nothing read for it
    assert failed.device_log == "01-logged-trail/step-01-log.txt"
    text = (rundir.root / failed.device_log).read_text("utf-8")
    # every line of the app since the run started, by its pids: the one CLEAR_STATE stopped, the
    # ActivityManager lines naming it, the new process's start line
    assert text.count("Start proc ") == 1 and f":{PKG}/" in text and f"Force stopping {PKG}" in text
    assert "Demo    : Demo started (screen login)" in text
    assert all(line.split()[4] in "VDIWEF" for line in text.splitlines())

    report = write_html_report(rundir.root).read_text("utf-8")
    assert "App log" in report and "Demo started (screen login)" in report

    said = failure_text(record, rundir.root)
    assert "app log (" in said and "Demo started (screen login)" in said
    assert said.index("error:") < said.index("app log")
    saved = json.loads((rundir.root / "run.json").read_text("utf-8"))
    assert saved["trails"][0]["steps"][1]["device_log"] == failed.device_log


@pytest.mark.slow
def test_always_keeps_each_steps_own_lines_and_readlogs_reads_since_a_step(
    android: Rig, tmp_path: Path
) -> None:
    session = android.session
    login = load_trail(LOGIN)
    memory = build_memory(login, secrets=SECRETS)
    rundir = RunDir(tmp_path / "run", memory, command=["test"], device="sim:android")
    rundir.device_logs = "always"
    record = replay_trail(login, session, memory=memory, rundir=rundir)
    assert record.status == "passed", record.error
    logs = [(rundir.root / s.device_log).read_text("utf-8") if s.device_log else None for s in record.steps]
    assert "Demo started" in (logs[0] or "") and "Signed in" not in (logs[0] or "")
    assert logs[1] == "" and record.steps[1].device_log_note == f"{PKG} wrote no log lines in this step"
    # the account is a secret here: the file has it scrubbed
    assert "Signed in as {{account}}" in (logs[3] or "") and "Demo started" not in (logs[3] or "")
    assert "user@example.com" not in (logs[3] or "")

    since = tool(session, "readLogs", sinceStep=4)
    assert since.ok and "Signed in as {{account}}" in since.message and "Demo started" not in since.message
    grep = tool(session, "readLogs", grep="started")
    assert grep.ok and grep.message.startswith(f"1 {PKG} log lines matching /started/ since the run started")
    nothing = tool(session, "readLogs", grep="no such line")
    assert nothing.message == f"no {PKG} log lines matching /no such line/ since the run started"


@pytest.mark.slow
def test_assert_log_contains_finds_the_sign_in_line_and_a_missing_one_fails(
    android: Rig, tmp_path: Path
) -> None:
    session = android.session
    path = tmp_path / "login-logged.trail.yaml"
    path.write_text(
        LOGIN.read_text("utf-8")
        + "  - verify: The app logged the sign-in\n"
        + "    recording:\n      android:\n"
        + "        - assertLogContains: {pattern: 'Signed in as user@example\\.com', timeoutMs: 2000}\n",
        "utf-8",
    )
    trail = load_trail(path)
    record = replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))
    assert record.status == "passed", record.error
    found = record.steps[-1].tools[0]
    assert (
        found.status == "OK"
        and found.message.startswith(f"{PKG} logged: ")
        and "Signed in as" in found.message
    )

    missing = tool(session, "assertLogContains", pattern="Payment accepted", timeoutMs=200)
    assert missing.status == "NOT_FOUND"
    assert missing.message.startswith(f"no line of {PKG}'s log matches /Payment accepted/ after 0.2 s")
    assert "Signed in as user@example.com" in missing.message  # what the app did log, to compare with
    with pytest.raises(ValueError, match="'\\(unclosed' is not a regular expression"):
        ToolCall(name="assertLogContains", params={"pattern": "(unclosed"})


def test_ios_says_webdriveragent_has_no_app_log(tmp_path: Path) -> None:
    with rig("ios") as ios:
        rundir, record = _replay(
            ios.session, _trail(tmp_path, "A missing label shows"), tmp_path / "run", "always"
        )
        assert record.status == "failed"
        for step in record.steps:
            assert step.device_log is None
            assert step.device_log_note is not None
            assert step.device_log_note.startswith(
                "no app log: WebDriverAgent offers no access to the app's log"
            )
        assert "WebDriverAgent offers no access" in write_html_report(rundir.root).read_text("utf-8")
        assert "device log: no app log: WebDriverAgent" in failure_text(record, rundir.root)
        for name, params in (("readLogs", {}), ("assertLogContains", {"pattern": "x"})):
            result = tool(ios.session, name, **params)
            assert result.status == "UNSUPPORTED"
            assert result.message.startswith(f"{name}: WebDriverAgent has no access to app logs")
            assert "log stream" in result.message


def test_device_logs_takes_only_its_three_values() -> None:
    result = CliRunner().invoke(
        cli, ["replay", "x.trail.yaml", "--device", "sim:android", "--device-logs", "some"]
    )
    assert result.exit_code == 2 and "'some' is not one of 'off', 'on-failure', 'always'" in result.output
