"""The real `adb` command-line client (Debian package, /usr/bin/adb) against the fake adb server."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest

from tests.support.system_tools import require
from trailblaze_sim import create_device
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.adb import AndroidSimServer

# Debian's adb (what .ci/run installs); else the real adb binary that the adbutils wheel ships.
_WHEEL_ADB = Path(adbutils.__file__).parent / "binaries" / "adb"


@pytest.fixture
def server() -> Iterator[AndroidSimServer]:
    require("adb", _WHEEL_ADB, why="the real adb client check")  # skip before starting the server
    with AndroidSimServer(create_device("android", clock=ManualClock())) as srv:
        yield srv


def _adb(server: AndroidSimServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [require("adb", _WHEEL_ADB, why="the real adb client check"), "-P", str(server.port), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=20,
    )


def test_adb_devices_lists_the_simulator(server: AndroidSimServer) -> None:
    res = _adb(server, "devices")
    assert res.returncode == 0
    assert res.stdout == "List of devices attached\nemulator-5554\tdevice\n\n"
    assert "model:Pixel_7" in _adb(server, "devices", "-l").stdout


def test_adb_shell_getprop_prints_model(server: AndroidSimServer) -> None:
    res = _adb(server, "shell", "getprop", "ro.product.model")
    assert (res.returncode, res.stdout) == (0, "Pixel 7\n")
    # what the client sent: host:features, then a shell v2 service with options
    assert "host:features" in server.log
    assert "emulator-5554|shell,v2,TERM=xterm,raw:getprop ro.product.model" in server.log


def test_adb_shell_with_serial_exit_code_and_stderr(server: AndroidSimServer) -> None:
    res = _adb(server, "-s", "emulator-5554", "shell", "echo out; nosuch")
    assert (
        res.returncode == 127 and res.stdout == "out\n" and "nosuch: inaccessible or not found" in res.stderr
    )
    assert "host-serial:emulator-5554:features" in server.log
    assert _adb(server, "get-state").stdout == "device\n"
    bad = _adb(server, "-s", "emulator-9999", "shell", "true")
    assert bad.returncode != 0 and "not found" in bad.stderr


def test_adb_push_and_pull(server: AndroidSimServer, tmp_path: pytest.TempPathFactory) -> None:
    src = tmp_path / "in.txt"  # type: ignore[operator]
    src.write_bytes(b"payload\n")
    assert _adb(server, "push", str(src), "/data/local/tmp/in.txt").returncode == 0
    assert server.filesystem("emulator-5554").read("/data/local/tmp/in.txt") == b"payload\n"
    dst = tmp_path / "out.txt"  # type: ignore[operator]
    assert _adb(server, "pull", "/data/local/tmp/in.txt", str(dst)).returncode == 0
    assert dst.read_bytes() == b"payload\n"
