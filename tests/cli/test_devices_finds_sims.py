"""`trailblaze devices` in another terminal finds a `trailblaze sim` running in the foreground and says
how to reach it (issue 48 item 7), where it used to say "no device connected"."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow
def test_devices_names_a_running_simulator_and_its_port(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_RUNTIME_DIR": str(tmp_path), "ANDROID_ADB_SERVER_PORT": "9"}  # no adb there
    sim = subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "sim", "android", "--port", "0"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert sim.stdout is not None
        port = re.search(r"ANDROID_ADB_SERVER_PORT=(\d+)", sim.stdout.readline())
        assert port is not None
        done = subprocess.run(
            [sys.executable, "-m", "trailblaze", "devices"], env=env, capture_output=True, text=True, timeout=60
        )
        assert f"`trailblaze sim android` is running (pid {sim.pid}): " in done.stdout, done.stdout + done.stderr
        assert f"export ANDROID_ADB_SERVER_PORT={port[1]}" in done.stdout
        assert "no device connected" not in done.stdout
    finally:
        sim.send_signal(signal.SIGINT)  # Ctrl-C: the simulator stops and takes its note away
        sim.communicate(timeout=20)
    assert not list((tmp_path / "trailblaze" / "sims").glob("*.json"))
    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", "devices"], env=env, capture_output=True, text=True, timeout=60
    )
    assert "no device connected" in done.stdout


def test_a_note_of_a_dead_simulator_is_ignored_and_removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trailblaze.device.sim_registry import SimNote, announced, running_simulators

    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    folder = tmp_path / "trailblaze" / "sims"
    with announced("ios", "simulated ios WebDriverAgent at http://127.0.0.1:1"):
        stale = folder / f"{dead.stdout.strip()}.json"
        stale.write_text(SimNote(platform="android", pid=int(dead.stdout), how_to_connect="x").model_dump_json())
        (folder / "junk.json").write_text("{not json")
        assert [(n.platform, n.pid) for n in running_simulators()] == [("ios", os.getpid())]
        assert not stale.exists()
        assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert running_simulators() == []
