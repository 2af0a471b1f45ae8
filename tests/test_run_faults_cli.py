"""Runs that end early still leave CI what it reads (issue 12 items 15 and 16, ADR 0019).

A device that cannot connect still gets `--report` and `--junit` written, every time, with the
error; an interrupted run (SIGINT, SIGKILL) reads `interrupted` in run.json and its reports, and a
second Ctrl-C during the clean-up still exits 130.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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
