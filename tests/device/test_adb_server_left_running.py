"""`--device android` with no phone leaves nothing running (issue 40, item 6): adbutils starts its own adb
server when none answers, and trailblaze stops it again when it found no device or only listed them. A
server that was already running stays. The real adb (Debian's `adb`) runs on a port of its own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.system_tools import require

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _gone(port: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not _listening(port):
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def adb_port() -> Iterator[tuple[str, int]]:
    """A port no adb server uses yet, and the real adb; whatever runs on it afterwards is stopped."""
    adb = require("adb", why="the real adb server is what adbutils starts")
    port = _free_port()
    yield adb, port
    subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True, timeout=20)


def _trailblaze(adb: str, port: int, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(port), "ADBUTILS_ADB_PATH": adb, "COLUMNS": "300"}
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_replay_with_no_phone_stops_the_adb_server_it_started(adb_port: tuple[str, int], tmp_path: Path) -> None:
    adb, port = adb_port
    done = _trailblaze(
        adb, port, "replay", str(ROOT / "trails" / "login.trail.yaml"), "--device", "android",
        "--secret", "password=hunter2", "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    assert (
        f"error: no android device on adb server 127.0.0.1:{port}: connect a phone or start an emulator, "
        "or use the simulated phone: --device sim:android"
    ) in done.stderr
    assert _gone(port), "the adb server adbutils started is still running"


def test_listing_devices_stops_the_adb_server_it_started(adb_port: tuple[str, int]) -> None:
    adb, port = adb_port
    done = _trailblaze(adb, port, "devices")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no device connected" in done.stdout
    assert _gone(port), "the adb server adbutils started is still running"


def test_a_server_that_was_running_stays(adb_port: tuple[str, int]) -> None:
    adb, port = adb_port
    subprocess.run([adb, "-P", str(port), "start-server"], capture_output=True, timeout=20, check=True)
    assert _listening(port)
    done = _trailblaze(adb, port, "devices")
    assert done.returncode == 0, done.stdout + done.stderr
    time.sleep(0.3)
    assert _listening(port), "trailblaze stopped an adb server it did not start"
