"""Running the `trailblaze` command in a subprocess, with no real LLM endpoint or API key."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import TRAILS

NO_LLM = "http://127.0.0.1:9"
"""A closed port: a run that needed the model would fail to reach it."""


def trailblaze(
    *args: str, base_url: str = NO_LLM, timeout: float = 180, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m trailblaze ARGS` (in `cwd`) with `ANTHROPIC_BASE_URL=base_url`, no API key, and `env` added."""
    env = {**os.environ, "ANTHROPIC_BASE_URL": base_url, "COLUMNS": "200", **(env or {})}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


EXAMPLES_DIR = TRAILS
_COPYING = threading.RLock()
"""Examples are copied from several threads into one folder, and a copy also copies the trails it runs:
one lock around the whole copy, so no thread reads a file another is still writing."""


def copy_example(name: str, tmp_path: Path) -> Path:
    """The example and, next to it, the demo's custom tools (trails/tools/) and the trails it runs
    with `runTrail`. A file already copied is left alone: another thread may be replaying it."""
    target = tmp_path / name
    text = (EXAMPLES_DIR / name).read_text(encoding="utf-8")
    with _COPYING:
        if not target.exists():
            partial = target.with_name(target.name + ".partial")
            partial.write_text(text, encoding="utf-8")
            partial.replace(target)  # whole or absent, never empty, to a reader outside the lock
        if not (tmp_path / "tools").exists():
            shutil.copytree(
                EXAMPLES_DIR / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__")
            )
        for sub in sorted(set(re.findall(r"runTrail:\s*\n\s*path:\s*(\S+)", text))):
            copy_example(sub, tmp_path)
    return target


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m trailblaze ARGS` with the given environment (this process's by default), a minute at most."""
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args], capture_output=True, text=True, timeout=60, env=env or dict(os.environ)
    )


@pytest.fixture(params=["android", "ios"])
def external_sim(request: pytest.FixtureRequest) -> Iterator[tuple[str, dict[str, str]]]:
    """`trailblaze sim PLATFORM` as a subprocess; yields the --device spec and the environment."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "sim", request.param, "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        env = dict(os.environ)
        if request.param == "android":
            port = re.search(r"ANDROID_ADB_SERVER_PORT=(\d+)", line)
            assert port, line
            env["ANDROID_ADB_SERVER_PORT"] = port.group(1)
            yield "android", env
        else:
            url = re.search(r"(http://127\.0\.0\.1:\d+)", line)
            assert url, line
            yield f"ios:{url.group(1)}", env
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
