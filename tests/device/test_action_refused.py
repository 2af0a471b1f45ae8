"""Typing with nothing focused is the tool's failure (exit 1), not a broken device (exit 3): the iOS
simulator answers as WebDriverAgent does ("The on-screen keyboard must be present …"), through the
unmodified facebook-wda client."""

from __future__ import annotations

import pytest

from tests.support.cli import trailblaze


@pytest.mark.slow
def test_typing_with_nothing_focused_fails_the_tool_not_the_device() -> None:
    done = trailblaze("tool", "{inputText: {text: hi}}", "--device", "sim:ios")
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        done.stdout
        == "ERROR typing text failed: nothing focused (no on-screen keyboard); tap a text field first\n"
    )
    assert done.stderr == ""
