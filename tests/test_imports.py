"""The core stays light: importing it (or running `--help`) pulls in no device or LLM SDK."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("anthropic", "uiautomator2", "adbutils", "wda", "requests", "httpx", "trailblaze_sim")


def test_import_trailblaze_loads_no_sdk() -> None:
    code = (
        "import sys, trailblaze, trailblaze.cli;"
        f"bad=[m for m in {HEAVY!r} if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_help_runs() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "trailblaze", "--help"], capture_output=True, text=True, check=True
    )
    assert "Record and replay" in out.stdout
