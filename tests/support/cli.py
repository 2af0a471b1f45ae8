"""Running the `trailblaze` command, with no real LLM endpoint or API key: in the test process by
default (tests/support/in_process.py), in a process of its own with `in_process=False`."""

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

from tests.support import in_process as _in_process
from tests.support.paths import TRAILS

NO_LLM = "http://127.0.0.1:9"
"""A closed port: a run that needed the model would fail to reach it."""


def trailblaze(
    *args: str,
    base_url: str = NO_LLM,
    timeout: float = 180,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    in_process: bool = True,
) -> subprocess.CompletedProcess[str]:
    """`python -m trailblaze ARGS` (in `cwd`) with `ANTHROPIC_BASE_URL=base_url`, no API key, and `env` added.

    Run in this process unless `in_process=False` (or another thread or call holds the process);
    `timeout` bounds only a real process."""
    env = {**os.environ, "ANTHROPIC_BASE_URL": base_url, "COLUMNS": "200", **(env or {})}
    env.pop("ANTHROPIC_API_KEY", None)
    return _run(args, env=env, cwd=cwd, timeout=timeout, in_process=in_process)


def _run(
    args: tuple[str, ...], *, env: dict[str, str], cwd: Path | None, timeout: float, in_process: bool
) -> subprocess.CompletedProcess[str]:
    if in_process and _in_process.can_run():
        return _in_process.run(args, env=env, cwd=cwd)
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


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
    in_process: bool = True,
) -> subprocess.CompletedProcess[str]:
    """`python -m trailblaze ARGS` with exactly the environment `env` (this process's by default), in
    `cwd`; a real process (`in_process=False`) gets `timeout` seconds."""
    return _run(args, env=env or dict(os.environ), cwd=cwd, timeout=timeout, in_process=in_process)


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
