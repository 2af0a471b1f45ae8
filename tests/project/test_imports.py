"""The core stays light: importing it (or running `--help`) pulls in no device or LLM SDK."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("anthropic", "uiautomator2", "adbutils", "wda", "requests", "httpx", "trailblaze_sim")


def test_import_trailblaze_loads_no_sdk() -> None:
    code = (
        "import sys, trailblaze, trailblaze.cli.main;"
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


def test_a_replay_does_not_import_the_recording_machinery() -> None:
    """Start-up (issue 29): `trailblaze replay` imports the commands, which must not pull in the proof
    replay and assertion mutation that only recording uses."""
    code = (
        "import sys, trailblaze.engine.commands, trailblaze.cli.main;"
        "print(','.join(m for m in ('trailblaze.engine.proof', 'trailblaze.mutation.mutants', 'trailblaze.agent.loop') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_tool_and_message_models_are_built_on_first_use() -> None:
    """The ~70 recorded tools' params models and the LLM message models are built when a run first
    uses them, not at import (pydantic `defer_build`): a replay builds the few it replays."""
    code = (
        "import trailblaze.tools.builtin as builtin, trailblaze.llm.client as llm; builtin.builtin_defs();"
        "from trailblaze.tools.params import RecordedToolParams;"
        "from trailblaze.tools.recorded import gestures as rt;"
        "built = [c.__name__ for c in RecordedToolParams.__subclasses__() if c.__pydantic_complete__];"
        "built += [m.__name__ for m in (llm.Message, llm.LLMRequest, llm.LLMResponse) if m.__pydantic_complete__];"
        "rt.TapOnPoint.model_validate({'x': 1, 'y': 2});"
        "print(','.join(built), rt.TapOnPoint.__pydantic_complete__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
