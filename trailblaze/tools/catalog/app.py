"""Trailblaze's catalog tools for the app, its text fields, the clipboard and the network: each one's params (Trailblaze's names, fields and defaults) and its handler.

Semantics come from block/trailblaze's tool classes (`trailblaze-common/.../toolcalls/commands/`);
docs/trailblaze-catalog.md lists each one and where it differs here. A handler imports what it runs on
when it runs: reading a trail imports this module for the params of the tools it names (start-up).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from pydantic import Field

from trailblaze.tools.catalog import ANDROID, catalog_tool
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

__all__: list[str] = []


class ClearText(RecordedToolParams):
    """Erase every character of the focused field (its length read from the screen; 500 if unknown)."""

    tool_name = "clearText"


@catalog_tool(ClearText, "action")
def _clear_text(run: ToolContext, p: ClearText) -> ToolResult:
    focused = [n for n in run.session.settle().nodes if n.focused and n.text and n.text != n.hint]
    if not focused and not any(n.focused for n in run.session.screen().nodes):
        # no focused field in the dump: the driver clears whatever field has the keyboard, if any
        run.session.act(lambda d: d.erase_text(None))
        return ToolResult("OK", "cleared the focused field")
    count = len(focused[-1].text) if focused else 0
    if count:
        run.session.act(lambda d: d.erase_text(count))
    return ToolResult("OK", f"cleared the field ({count} characters)")


class InputTextRandom(RecordedToolParams):
    """Type `prefix` + `digitCount` random digits and remember the value as `variable`."""

    tool_name = "inputTextRandom"
    variable: str = Field(min_length=1)
    prefix: str = "TBZ-"
    digitCount: int = Field(default=6, ge=1, le=64)
    hideKeyboardAfter: bool = True


@catalog_tool(InputTextRandom, "action")
def _input_text_random(run: ToolContext, p: InputTextRandom) -> ToolResult:
    digits = "".join(random.choice("0123456789") for _ in range(p.digitCount))
    value = p.prefix + digits
    run.session.act(lambda d: d.input_text(value))
    if p.hideKeyboardAfter and run.session.screen().keyboard_shown:
        run.session.act(lambda d: d.hide_keyboard())
    run.memory.remember(p.variable, value)
    return ToolResult("OK", f"typed {value!r} and remembered it as {p.variable}")


class OpenUrl(RecordedToolParams):
    """Open a URL (a deep link) on the device."""

    tool_name = "openUrl"
    url: str = Field(min_length=1)


@catalog_tool(OpenUrl, "action")
def _open_url(run: ToolContext, p: OpenUrl) -> ToolResult:
    from trailblaze.device.driver import SupportsOpenUrl

    driver = run.session.driver
    if not isinstance(driver, SupportsOpenUrl):
        return ToolResult("UNSUPPORTED", f"this {run.platform} driver cannot open URLs")
    opened: list[bool] = []
    run.session.act(lambda d: opened.append(driver.open_url(p.url)))
    if not opened or not opened[0]:
        return ToolResult("NOT_FOUND", f"no app on the device handles {p.url}")
    return ToolResult("OK", f"opened {p.url}")


class StopApp(RecordedToolParams):
    """Stop (force-stop / terminate) an app."""

    tool_name = "stopApp"
    appId: str = Field(min_length=1)


@catalog_tool(StopApp, "action")
def _stop_app(run: ToolContext, p: StopApp) -> ToolResult:
    run.session.act(lambda d: d.stop_app(p.appId))
    return ToolResult("OK", f"stopped {p.appId}")


class ClearAppData(RecordedToolParams):
    """Clear an app's data (stops it)."""

    tool_name = "mobile_clearAppData"
    appId: str = Field(min_length=1)


@catalog_tool(ClearAppData, "action")
def _clear_app_data(run: ToolContext, p: ClearAppData) -> ToolResult:
    run.session.act(lambda d: d.clear_app(p.appId))
    return ToolResult("OK", f"cleared the data of {p.appId}")


class SetClipboard(RecordedToolParams):
    """Put text on the device clipboard."""

    tool_name = "mobile_setClipboard"
    text: str


@catalog_tool(SetClipboard, "other")
def _set_clipboard(run: ToolContext, p: SetClipboard) -> ToolResult:
    from trailblaze.device.driver import SupportsClipboard

    driver = run.session.driver
    if not isinstance(driver, SupportsClipboard):
        return ToolResult("UNSUPPORTED", f"this {run.platform} driver has no clipboard access")
    driver.set_clipboard(p.text)
    return ToolResult("OK", f"set the clipboard to {p.text!r}")


class PasteClipboard(RecordedToolParams):
    """Type the device clipboard's text into the focused field (an empty clipboard fails)."""

    tool_name = "mobile_pasteClipboard"


@catalog_tool(PasteClipboard, "action")
def _paste_clipboard(run: ToolContext, p: PasteClipboard) -> ToolResult:
    from trailblaze.device.driver import SupportsClipboard

    driver = run.session.driver
    if not isinstance(driver, SupportsClipboard):
        return ToolResult("UNSUPPORTED", f"this {run.platform} driver has no clipboard access")
    text = driver.get_clipboard()
    if not text:
        return ToolResult("ERROR", "mobile_pasteClipboard: device clipboard is empty. Call mobile_setClipboard first")
    run.session.act(lambda d: d.input_text(text))
    return ToolResult("OK", f"pasted {text!r}")


class ListInstalledApps(RecordedToolParams):
    """List the installed apps' ids (`{"appIds": [...]}`)."""

    tool_name = "mobile_listInstalledApps"


@catalog_tool(ListInstalledApps, "other", platforms=ANDROID)
def _list_apps(run: ToolContext, p: ListInstalledApps) -> ToolResult:
    from trailblaze.device.driver import SupportsAppList

    driver = run.session.driver
    if not isinstance(driver, SupportsAppList):
        return ToolResult("UNSUPPORTED", (
            f"this {run.platform} driver cannot list installed apps (WebDriverAgent has no such call)"
        ))
    apps = sorted(driver.list_apps())
    return ToolResult("OK", '{"appIds": [' + ", ".join(f'"{a}"' for a in apps) + "]}")


class NetworkConnection(RecordedToolParams):
    """Turn the network on or off (airplane mode)."""

    tool_name = "networkConnection"
    connected: bool


@catalog_tool(NetworkConnection, "action", platforms=frozenset())
def _network(run: ToolContext, p: NetworkConnection) -> ToolResult:
    return ToolResult(
        "UNSUPPORTED",
        "networkConnection (airplane mode) is not supported by the uiautomator2 / WDA drivers",
    )
