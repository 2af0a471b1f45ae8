"""Runs that end early still leave CI what it reads (issue 12 items 15 and 16, ADR 0019).

A device that cannot connect still gets `--report` and `--junit` written, every time, with the
error; an interrupted run (SIGINT, SIGKILL) reads `interrupted` in run.json and its reports, and a
second Ctrl-C during the clean-up still exits 130.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import ROOT

LOGIN = ROOT / "trails" / "login.trail.yaml"
SEARCH = ROOT / "trails" / "search.trail.yaml"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args],
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_a_device_that_cannot_connect_still_gets_both_reports_every_time(tmp_path: Path) -> None:
    closed = {"ANDROID_ADB_SERVER_PORT": "9", "ADBUTILS_ADB_PATH": "/bin/false"}  # nobody listens on 9
    written = 0
    rounds = 3
    for n in range(rounds):
        report, junit = tmp_path / f"r{n}" / "report.html", tmp_path / f"j{n}.xml"
        done = _cli(
            "replay", str(LOGIN), str(SEARCH), "--device", "android", "--secret", "password=hunter2",
            "--report", str(report), "--junit", str(junit), "--run-dir", str(tmp_path / f"run{n}"), env=closed,
        )  # fmt: skip
        assert done.returncode == 3, done.stdout + done.stderr
        assert "no adb server at 127.0.0.1:9" in done.stderr and "Traceback" not in done.stderr
        xml, html = junit.read_text(), report.read_text()
        assert xml.count('<error message="device android did not open, nothing ran: no adb server at 127.0.0.1:9') == 2 and 'errors="2"' in xml
        assert "no adb server at 127.0.0.1:9" in html and "login" in html and "hunter2" not in xml + html
        run = json.loads((tmp_path / f"run{n}" / "run.json").read_text())
        assert [t["status"] for t in run["trails"]] == ["error", "error"]
        written += 1
    assert written == rounds


def _start(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "replay", str(SEARCH), "--device", "sim:android",
         "--secret", "password=hunter2", "--run-dir", str(tmp_path / "run"), *extra],  # fmt: skip
        env={**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for_step_1(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    seen = ""
    while " 1 step " not in seen:
        line = proc.stdout.readline()
        assert line, seen
        seen += line


@pytest.mark.slow
def test_sigkill_leaves_a_run_that_reads_interrupted(tmp_path: Path) -> None:
    from trailblaze.output.runlog import load_run

    proc = _start(tmp_path)
    _wait_for_step_1(proc)
    proc.kill()
    proc.communicate(timeout=60)
    raw = json.loads((tmp_path / "run" / "run.json").read_text())
    assert raw["status"] == "running" and raw["pid"] == proc.pid and raw["trails"][0]["status"] == "running"
    run = load_run(tmp_path / "run")
    assert run.status == "interrupted" and run.trails[0].status == "interrupted"
    assert f"pid {proc.pid}" in (run.trails[0].error or "")
    done = _cli("report", str(tmp_path / "run"), "-o", str(tmp_path / "r.html"), "--junit", str(tmp_path / "j.xml"))
    assert done.returncode == 0, done.stderr
    assert "interrupted" in (tmp_path / "r.html").read_text()
    junit = (tmp_path / "j.xml").read_text()
    assert 'type="Interrupted"' in junit and 'errors="1"' in junit


@pytest.mark.slow
def test_ctrl_c_marks_the_run_interrupted(tmp_path: Path) -> None:
    proc = _start(tmp_path, "--junit", str(tmp_path / "j.xml"))
    _wait_for_step_1(proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["status"] == "interrupted" and run["trails"][0]["status"] == "interrupted"
    assert run["trails"][0]["error"] == "interrupted (Ctrl-C)"
    assert 'type="Interrupted"' in (tmp_path / "j.xml").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("gap", [0.0, 0.02, 0.1])
def test_more_ctrl_c_during_the_clean_up_still_exit_130(tmp_path: Path, gap: float) -> None:
    proc = _start(tmp_path, "--report", str(tmp_path / "r.html"), "--junit", str(tmp_path / "j.xml"))
    _wait_for_step_1(proc)
    for _ in range(20):  # keep pressing Ctrl-C until it is gone
        if proc.poll() is not None:
            break
        proc.send_signal(signal.SIGINT)
        time.sleep(gap or 0.005)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "interrupted"
    assert (tmp_path / "j.xml").is_file() and (tmp_path / "r.html").is_file()
