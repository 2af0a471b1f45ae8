"""The Android driver's `input_text` with non-ASCII text, on both paths uiautomator2 takes on a phone:
through u2's AdbKeyboard IME when it is installed (a base64 broadcast), and through the clipboard
when it is not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.device import Rig, install_adb_keyboard, rig
from trailblaze_sim.model import ManualClock

TEXT = "Grüße, 東京 🚀"


@pytest.fixture(params=["ime", "clipboard"])
def typing(request: pytest.FixtureRequest) -> Iterator[tuple[Rig, str]]:
    with rig("android", clock=ManualClock()) as r:
        if request.param == "ime":
            install_adb_keyboard(r)  # a phone prepared as u2 users do
        yield r, request.param


def _field_text(r: Rig, short_id: str) -> str:
    node = r.by_id(short_id)
    return "" if node.text == node.hint else str(node.text)


def test_non_ascii_text_arrives_intact(typing: tuple[Rig, str]) -> None:
    r, path = typing
    d = r.driver
    d.tap(*r.by_id("email").center)
    d.input_text(TEXT)
    d.input_text("!")  # appends, like a person typing
    assert _field_text(r, "email") == TEXT + "!"
    # which path carried it: the fallback pastes through the clipboard, the IME never touches it
    assert r.device.clipboard == ("" if path == "ime" else "!")
    adb_log = list(r.sim._servers[0].log)  # type: ignore[attr-defined]
    broadcasts = [line for line in adb_log if "ADB_KEYBOARD_INPUT_TEXT" in line]
    assert len(broadcasts) == (2 if path == "ime" else 0)
