"""The Appium guide's local path, followed as written (issue 48 item 1): its commands, run by a shell in
a fresh home, start the real Appium server (pinned in tests/data/appium) and `trailblaze sim android`, its
capabilities file is what the simulator printed, and its replay passes. Before the `ANDROID_HOME` step,
and without `appium:adbPort`, the refusal names the fix.

Two things differ from a person's terminal, each said where it happens: the ports (free ones instead of
15037 and 4723, so parallel tests never collide) and the trails (one example, `login`, not all of them).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support.appium import ensure_appium, free_port
from tests.support.cli import copy_example
from tests.support.paths import ROOT
from tests.support.system_tools import require

GUIDE = ROOT / "docs" / "guides" / "appium.md"


def _section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text.split("## A local Appium server\n", 1)[1].split("\n## ", 1)[0]


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", _section(), re.S)


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A person's fresh shell: its own HOME, `appium` on PATH (the pinned server, on a free port instead
    of 4723), no Android SDK and no adb server port in the environment."""
    require("adb", why="Appium's UiAutomator2 driver runs the real adb client")
    appium_home = ensure_appium()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    port = free_port()
    shim = bin_dir / "appium"
    shim.write_text(
        f"#!/bin/sh\nexec node {shlex.quote(str(appium_home / 'node_modules' / 'appium' / 'index.js'))} "
        f'--address 127.0.0.1 --port {port} --log-no-colors "$@"\n'
    )
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANDROID_", "TRAILBLAZE_SECRET_"))}
    env |= {"HOME": str(tmp_path / "home"), "PATH": f"{bin_dir}:{env['PATH']}", "APPIUM_HOME": str(appium_home),
            "APPIUM_PORT": str(port), "COLUMNS": "400"}  # fmt: skip
    (tmp_path / "home").mkdir()
    yield env


def _start(command: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(
            ["bash", "-c", command], env=env, cwd=env["HOME"], stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


def _wait_for(log: Path, pattern: str, proc: subprocess.Popen[bytes], timeout: float = 60) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text(errors="replace"))
        if found:
            return found
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        time.sleep(0.1)
    raise AssertionError(f"{pattern!r} not in {log}: {log.read_text(errors='replace')[-3000:]}")


def _replay(command: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    url = f"http://127.0.0.1:{env['APPIUM_PORT']}"
    argv = shlex.split(command.replace("http://127.0.0.1:4723", url).replace("trails/", "trails/login.trail.yaml"))
    assert argv[0] == "trailblaze"
    return subprocess.run(
        [sys.executable, "-m", *argv], env={**env, "TRAILBLAZE_SECRET_PASSWORD": "hunter2"}, cwd=cwd,
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip


@pytest.mark.slow
def test_the_local_appium_path_runs_as_the_guide_says(home: dict[str, str], tmp_path: Path) -> None:
    (setup, serve), (sim_command,), (replay,) = (b.strip().splitlines() for b in _blocks("bash"))
    assert sim_command == "trailblaze sim android --port 15037"
    sim_port = free_port()
    sim = _start(
        f"{sys.executable} -m {sim_command.replace('15037', str(sim_port))}", home, tmp_path / "sim.log"
    )
    try:
        printed = _wait_for(tmp_path / "sim.log", r"Appium capabilities of emulator-5554: (\{.*\})", sim)
        caps = yaml.safe_load(printed[1])
        guide = yaml.safe_load(_blocks("yaml")[0])
        assert caps == {**guide, "appium:adbPort": sim_port}  # the guide's file is what the simulator prints
        project = tmp_path / "project"
        (project / "trails").mkdir(parents=True)
        copy_example("login.trail.yaml", project / "trails")
        (project / "pixel.yaml").write_text(printed[1] + "\n", encoding="utf-8")

        # before the guide's ANDROID_HOME step: the refusal says what to set
        plain = _start("appium", home, tmp_path / "appium-plain.log")
        try:
            _wait_for(tmp_path / "appium-plain.log", r"Appium REST http interface listener started", plain)
            done = _replay(replay, home, project)
        finally:
            _stop(plain)
        assert done.returncode == 3, done.stdout + done.stderr
        assert "ANDROID_HOME" in done.stderr and "platform-tools/adb is the adb client" in done.stderr

        assert subprocess.run(["bash", "-c", setup], env=home, cwd=home["HOME"]).returncode == 0
        appium = _start(serve, home, tmp_path / "appium.log")
        try:
            _wait_for(tmp_path / "appium.log", r"Appium REST http interface listener started", appium)
            done = _replay(replay, home, project)
            assert done.returncode == 0, done.stdout + done.stderr + (tmp_path / "appium.log").read_text()[-3000:]
            assert "1 trail: 1 passed" in done.stdout, done.stdout
        finally:
            _stop(appium)
    finally:
        _stop(sim)


def test_a_phone_on_another_adb_server_gets_the_adb_port_hint() -> None:
    """Appium's own words when `appium:adbPort` is missing (it asked the adb server on 5037), as the real
    server says them after its 20 s device wait: the error names the capability to add."""
    from trailblaze.errors import DeviceError
    from trailblaze_appium.local_hints import with_local_hint

    said = DeviceError(
        "Appium at http://127.0.0.1:4723 refused the session: An unknown server-side error occurred while "
        "processing the command. Original error: Could not find a connected Android device in 20000ms"
    )
    hinted = with_local_hint(said, {"platformName": "Android", "appium:udid": "emulator-5554"})
    assert isinstance(hinted, DeviceError)
    assert hinted.message.endswith(
        "add `appium:adbPort: PORT` to the capabilities (docs/guides/appium.md#a-local-appium-server)"
    )
    with_port = with_local_hint(said, {"appium:adbPort": 15037})
    assert with_port.message.endswith("check that appium:udid is among `adb -P 15037 devices`")
    other = DeviceError("Appium refused the session: bad credentials")
    assert with_local_hint(other, {}) is other
