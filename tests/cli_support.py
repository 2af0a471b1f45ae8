"""Running the `trailblaze` command in a subprocess, with no real LLM endpoint or API key."""

from __future__ import annotations

import os
import subprocess
import sys

NO_LLM = "http://127.0.0.1:9"
"""A closed port: a run that needed the model would fail to reach it."""


def trailblaze(*args: str, base_url: str = NO_LLM, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`python -m trailblaze ARGS` with `ANTHROPIC_BASE_URL=base_url` and no API key."""
    env = {**os.environ, "ANTHROPIC_BASE_URL": base_url, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args], env=env, capture_output=True, text=True, timeout=timeout
    )
