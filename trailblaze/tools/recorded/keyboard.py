"""The tools that type, erase and press keys: their params and handlers (see the package's docstring)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.tools.lookup import ToolContext

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


def _press(key: Any) -> Callable[[Driver], None]:
    return lambda d: d.press_key(key)


@defines(InputText, "action", source="core")
def _input_text(run: ToolContext, p: InputText) -> ToolResult:
    run.session.act(lambda d: d.input_text(p.text), observe=False)  # the next tool's look settles it
    if p.hideKeyboardAfter and run.session.screen().keyboard_shown:
        run.session.act(lambda d: d.hide_keyboard())
        return ToolResult("OK", f"typed {p.text!r} and hid the keyboard")
    return ToolResult("OK", f"typed {p.text!r}")


@defines(EraseText, "action", source="core")
def _erase_text(run: ToolContext, p: EraseText) -> ToolResult:
    n = p.charactersToErase
    run.session.act(lambda d: d.erase_text(n))
    return ToolResult("OK", "erased the field" if n is None else f"erased {n} characters")


@defines(HideKeyboard, "action", source="core")
def _hide_keyboard(run: ToolContext, p: HideKeyboard) -> ToolResult:
    if not run.session.screen().keyboard_shown:
        return ToolResult("OK", "the keyboard was not shown")
    run.session.act(lambda d: d.hide_keyboard())
    return ToolResult("OK", "hid the keyboard")


@defines(PressBack, "action", source="core")
def _press_back(run: ToolContext, p: PressBack) -> ToolResult:
    run.act(_press("BACK"))
    return ToolResult("OK", "pressed BACK")


@defines(PressKey, "action", source="core")
def _press_key(run: ToolContext, p: PressKey) -> ToolResult:
    run.act(_press(p.keyCode))
    return ToolResult("OK", f"pressed {p.keyCode}")
