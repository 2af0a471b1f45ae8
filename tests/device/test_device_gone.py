"""A device that is really gone ends the run in bounded time with exit 3 (ADR 0057): each read is sent
again a few times, then the device counts as gone and nothing else waits for it.

The device is a foreground `trailblaze sim` in a process of its own, killed (SIGKILL, as a phone
pulled off the cable) while `trailblaze replay` of every example trail is on its first step."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import copy_example

pytestmark = pytest.mark.slow
BOUND_S = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "COLUMNS": "200", "PYTHONUNBUFFERED": "1", **extra}


def _wait_for(proc: subprocess.Popen[str], mark: str) -> None:
    assert proc.stdout is not None
    seen = ""
    while mark not in seen:
        line = proc.stdout.readline()
        assert line, seen
        seen += line


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_device_pulled_mid_run_fails_it_within_30_s_with_exit_3(platform: str, tmp_path: Path) -> None:
    for name in ("login.trail.yaml", "search.trail.yaml", "sign-out.trail.yaml", "archive-message.trail.yaml"):
        copy_example(name, tmp_path)
    port = _free_port()
    sim = subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "sim", platform, "--port", str(port)],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    replay: subprocess.Popen[str] | None = None
    try:
        _wait_for(sim, f"127.0.0.1:{port}")
        if platform == "android":  # no real adb server may start in its place
            env, device = _env(ANDROID_ADB_SERVER_PORT=str(port), ADBUTILS_ADB_PATH="/bin/false"), "android"
        else:
            env, device = _env(), f"ios:http://127.0.0.1:{port}"
        replay = subprocess.Popen(
            [sys.executable, "-m", "trailblaze", "replay", str(tmp_path), "--device", device,
             "--secret", "password=hunter2", "--run-dir", str(tmp_path / "run"),
             "--report", str(tmp_path / "report"), "--junit", str(tmp_path / "junit.xml")],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        _wait_for(replay, " 1 step ")
        sim.send_signal(signal.SIGKILL)
        pulled = time.monotonic()
        _, err = replay.communicate(timeout=120)
        took = time.monotonic() - pulled
    finally:
        for proc in (replay, sim):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert replay.returncode == 3, err
    assert took <= BOUND_S, f"{took:.1f} s after the device went"
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    assert (tmp_path / "report" / "report.html").is_file() and "<error" in (tmp_path / "junit.xml").read_text()
