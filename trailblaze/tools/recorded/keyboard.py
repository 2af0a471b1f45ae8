"""Params of the tools that type, erase and press keys (see the package's docstring)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trailblaze.tools.params import RecordedToolParams

__all__ = ["EraseText", "HideKeyboard", "InputText", "KeyCode", "PressBack", "PressKey"]

KeyCode = Literal["BACK", "ENTER", "HOME", "BACKSPACE", "TAB"]


class InputText(RecordedToolParams):
    """Type text into the focused field; may contain `{{var}}` templates."""

    tool_name = "inputText"
    text: str
    hideKeyboardAfter: bool | None = None
    """Trailblaze hides the keyboard after typing unless this is false; we hide it only when it is
    true, so recordings made here keep the keyboard as the next step expects."""


class EraseText(RecordedToolParams):
    """Delete characters from the focused field (all of them when `charactersToErase` is absent)."""

    tool_name = "eraseText"
    charactersToErase: int | None = Field(default=None, ge=0)


class HideKeyboard(RecordedToolParams):
    """Dismiss the on-screen keyboard."""

    tool_name = "hideKeyboard"


class PressBack(RecordedToolParams):
    """Android back key; the navigation bar's back button on iOS."""

    tool_name = "pressBack"


class PressKey(RecordedToolParams):
    """Press a hardware or keyboard key."""

    tool_name = "pressKey"
    keyCode: KeyCode
