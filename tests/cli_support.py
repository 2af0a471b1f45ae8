"""Running the `trailblaze` command in a subprocess, with no real LLM endpoint or API key."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

NO_LLM = "http://127.0.0.1:9"
"""A closed port: a run that needed the model would fail to reach it."""


def trailblaze(
    *args: str, base_url: str = NO_LLM, timeout: float = 180, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m trailblaze ARGS` (in `cwd`) with `ANTHROPIC_BASE_URL=base_url` and no API key."""
    env = {**os.environ, "ANTHROPIC_BASE_URL": base_url, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "trails"
_COPYING = threading.Lock()


def copy_example(name: str, tmp_path: Path) -> Path:
    """The example and, next to it, the demo's custom tools (trails/tools/) and the trails it runs
    with `runTrail`."""
    target = tmp_path / name
    text = (EXAMPLES_DIR / name).read_text(encoding="utf-8")
    target.write_text(text, encoding="utf-8")
    with _COPYING:  # examples are copied from several threads; tools are loaded once per folder
        if not (tmp_path / "tools").exists():
            shutil.copytree(
                EXAMPLES_DIR / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__")
            )
    for sub in sorted(set(re.findall(r"runTrail:\s*\n\s*path:\s*(\S+)", text))):
        if not (tmp_path / sub).exists():
            copy_example(sub, tmp_path)
    return target
