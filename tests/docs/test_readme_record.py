"""The docs' "record without a key" commands (docs/guides/recording.md) run as written: `trailblaze sim
llm` in one process, the page's shell block in another (only the port is swapped for a free one)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.doc_examples import doc_section
from trailblaze.output.runlog import load_run
from trailblaze.trail.model import load_trail

pytestmark = pytest.mark.slow


def readme_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", doc_section("record-demo"), re.DOTALL)


def test_readme_record_block_runs_as_written(tmp_path: Path) -> None:
    server_block, script = readme_blocks()
    server = server_block.strip()
    assert server.startswith("trailblaze sim llm --port ") and "\n" not in server
    port = server.rsplit(" ", 1)[-1]
    assert f"ANTHROPIC_BASE_URL=http://127.0.0.1:{port} trailblaze record" in script

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("ANTHROPIC_API_KEY", None)
    proc = subprocess.Popen(
        server.replace(f"--port {port}", "--port 0"),  # a free port: tests may run in parallel
        shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        found = re.match(r"ANTHROPIC_BASE_URL=(http://127\.0\.0\.1:\d+) trailblaze record TRAIL", first)
        assert found, first + (proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        done = subprocess.run(
            ["bash", "-e", "-c", script.replace(f"http://127.0.0.1:{port}", found[1])],
            cwd=tmp_path, env={**env, "COLUMNS": "200"}, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the shell and the server it started (their own group)
        proc.wait(timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "4/4 steps passed" in done.stdout and "1 passed" in done.stdout

    trail = load_trail(tmp_path / "first.trail.yaml")
    assert all(step.recording_for("android-phone") for step in trail.steps)
    runs = sorted((tmp_path / ".trailblaze" / "runs").iterdir())
    assert len(runs) == 2
    recorded, replayed = (load_run(r).trails[0] for r in runs)
    assert recorded.mode == "record" and recorded.status == "passed" and recorded.usage.llm_calls >= 4
    assert replayed.mode == "replay" and replayed.status == "passed" and replayed.usage.llm_calls == 0


def test_sim_llm_on_a_busy_port_is_a_one_line_usage_error() -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "trailblaze", "sim", "llm", "--port", str(port)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"error: cannot listen on 127.0.0.1:{port}") and "--port" in done.stderr
    assert done.stderr.count("\n") == 1 and not done.stdout
