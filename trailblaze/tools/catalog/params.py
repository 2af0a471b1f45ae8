"""Params of Trailblaze's catalog tools, with Trailblaze's names, fields and defaults.

Semantics come from block/trailblaze's tool classes (`trailblaze-common/.../toolcalls/commands/`);
docs/trailblaze-catalog.md lists each one and where it differs here.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.params import RecordedToolParams


class Tap(RecordedToolParams):
    """Tap (or long-press) the element with this ref on the current screen (refs are stable across
    captures of the same screen); Trailblaze records it as its selector form."""

    tool_name = "tap"
    ref: str = Field(min_length=1)
    longPress: bool = False


class LongPress(RecordedToolParams):
    """Long-press the element with this ref on the current screen."""

    tool_name = "longPress"
    ref: str = Field(min_length=1)


class AssertVisible(RecordedToolParams):
    """Assert the element with this ref is on the current screen (showing `expectedText`, if given)."""

    tool_name = "assertVisible"
    ref: str = Field(min_length=1)
    expectedText: str | None = None


class DragTo(RecordedToolParams):
    """Drag the element with `ref` onto the element `toRef`, or to the point (`toX`, `toY`)."""

    tool_name = "dragTo"
    ref: str = Field(min_length=1)
    toRef: str | None = None
    toX: int | None = Field(default=None, ge=0)
    toY: int | None = Field(default=None, ge=0)
    durationMs: int = Field(default=1000, ge=0)

    @model_validator(mode="after")
    def _one_target(self) -> DragTo:
        if (self.toRef is None) == (self.toX is None or self.toY is None):
            raise ValueError("dragTo takes either toRef or both toX and toY")
        return self


class TapOn(RecordedToolParams):
    """Tap the one element `selector` matches, at `relativePoint` ("x%,y%" of its bounds) or its centre."""

    tool_name = "tapOn"
    selector: NodeSelector
    relativePoint: str | None = Field(default=None, pattern=r"^\s*-?\d+(\.\d+)?%?\s*,\s*-?\d+(\.\d+)?%?\s*$")
    longPress: bool = False


class DragByPoints(RecordedToolParams):
    """Drag a finger between absolute points, slowly (`durationMs`)."""

    tool_name = "dragByPoints"
    startX: int = Field(ge=0)
    startY: int = Field(ge=0)
    endX: int = Field(ge=0)
    endY: int = Field(ge=0)
    durationMs: int = Field(default=1000, ge=0)


class SwipeWithRelativeCoordinates(RecordedToolParams):
    """Swipe from `startRelative` to `endRelative` ("x%,y%" of the screen, or of the element showing
    `swipeOnElementText`)."""

    tool_name = "swipeWithRelativeCoordinates"
    startRelative: str = Field(pattern=r"^\s*\d+(\.\d+)?%?\s*,\s*\d+(\.\d+)?%?\s*$")
    endRelative: str = Field(pattern=r"^\s*\d+(\.\d+)?%?\s*,\s*\d+(\.\d+)?%?\s*$")
    swipeOnElementText: str | None = None
    durationMs: int | None = Field(default=None, ge=0)


class TapOnAccessibilityNode(RecordedToolParams):
    """Tap the first node matching the patterns (Trailblaze's Android accessibility driver only)."""

    tool_name = "tapOnAccessibilityNode"
    contentDescriptionRegex: str | None = None
    textRegex: str | None = None
    classNameRegex: str | None = None
    resourceIdRegex: str | None = None
    longPress: bool = False

    @model_validator(mode="after")
    def _needs_text(self) -> TapOnAccessibilityNode:
        if self.contentDescriptionRegex is None and self.textRegex is None:
            raise ValueError("tapOnAccessibilityNode needs contentDescriptionRegex or textRegex")
        return self


class LongPressElementWithAccessibilityText(RecordedToolParams):
    """Long-press the element whose content description / label (or text) is `accessibilityText`."""

    tool_name = "longPressElementWithAccessibilityText"
    accessibilityText: str
    id: str | None = None
    index: int | None = Field(default=None, ge=0)
    enabled: bool | None = None
    selected: bool | None = None


class ClearText(RecordedToolParams):
    """Erase every character of the focused field (its length read from the screen; 500 if unknown)."""

    tool_name = "clearText"


class InputTextRandom(RecordedToolParams):
    """Type `prefix` + `digitCount` random digits and remember the value as `variable`."""

    tool_name = "inputTextRandom"
    variable: str = Field(min_length=1)
    prefix: str = "TBZ-"
    digitCount: int = Field(default=6, ge=1, le=64)
    hideKeyboardAfter: bool = True


class OpenUrl(RecordedToolParams):
    """Open a URL (a deep link) on the device."""

    tool_name = "openUrl"
    url: str = Field(min_length=1)


class StopApp(RecordedToolParams):
    """Stop (force-stop / terminate) an app."""

    tool_name = "stopApp"
    appId: str = Field(min_length=1)


class ClearAppData(RecordedToolParams):
    """Clear an app's data (stops it)."""

    tool_name = "mobile_clearAppData"
    appId: str = Field(min_length=1)


class SetClipboard(RecordedToolParams):
    """Put text on the device clipboard."""

    tool_name = "mobile_setClipboard"
    text: str


class PasteClipboard(RecordedToolParams):
    """Type the device clipboard's text into the focused field (an empty clipboard fails)."""

    tool_name = "mobile_pasteClipboard"


class ListInstalledApps(RecordedToolParams):
    """List the installed apps' ids (`{"appIds": [...]}`)."""

    tool_name = "mobile_listInstalledApps"


class NetworkConnection(RecordedToolParams):
    """Turn the network on or off (airplane mode)."""

    tool_name = "networkConnection"
    connected: bool


class TakeSnapshot(RecordedToolParams):
    """Capture the screen under `screenName` (kept in the run's report)."""

    tool_name = "takeSnapshot"
    screenName: str = Field(min_length=1)
    description: str | None = None


class WaitForChange(RecordedToolParams):
    """Wait until the screen changes and then stays quiet for `quietWindowMs`; without a change
    within `timeoutMs` it fails only when `requireChange`."""

    tool_name = "waitForChange"
    timeoutMs: int = Field(default=8000, ge=0, le=600_000)
    quietWindowMs: int = Field(default=300, ge=0, le=60_000)
    requireChange: bool = True


class RequestDetailedViewHierarchy(RecordedToolParams):
    """The full view hierarchy, offscreen elements included, as the tool's result."""

    tool_name = "requestDetailedViewHierarchy"


class AssertEquals(RecordedToolParams):
    """Assert two texts are equal after `{{memory}}` interpolation."""

    tool_name = "assertEquals"
    actual: str
    expected: str


class AssertNotEquals(RecordedToolParams):
    """Assert two texts differ after `{{memory}}` interpolation."""

    tool_name = "assertNotEquals"
    actual: str
    expected: str


class AssertMath(RecordedToolParams):
    """Evaluate an arithmetic `expression` and compare it with `expected` (±0.0001). `[[prompt]]`
    parts ask an LLM for a number on the screen, so they cannot replay without one."""

    tool_name = "assertMath"
    expression: str = Field(min_length=1)
    expected: str


class DumpMemory(RecordedToolParams):
    """Show the run's memory (secrets redacted)."""

    tool_name = "dumpMemory"


class _NeedsLlm(RecordedToolParams):
    prompt: str


class RememberText(_NeedsLlm):
    """An LLM reads `prompt`'s answer off the screen into `variable` (needs an LLM even on replay)."""

    tool_name = "rememberText"
    variable: str = Field(min_length=1)


class RememberNumber(_NeedsLlm):
    """`rememberText` that keeps the first number of the answer (needs an LLM even on replay)."""

    tool_name = "rememberNumber"
    variable: str = Field(min_length=1)


class RememberWithAi(_NeedsLlm):
    """A free-form LLM answer about the screen into `variable` (needs an LLM even on replay)."""

    tool_name = "rememberWithAi"
    variable: str = Field(min_length=1)


class AssertWithAi(_NeedsLlm):
    """An LLM judges `prompt` against the screen (needs an LLM even on replay)."""

    tool_name = "assertWithAi"


class AssertWaypoint(RecordedToolParams):
    """Assert the screen is a Trailblaze waypoint (waypoint files are not supported here)."""

    tool_name = "assertWaypoint"
    waypoint: str
    timeoutMs: int = Field(default=5000, ge=0)
    pollIntervalMs: int = Field(default=250, ge=0)


class FindMatches(RecordedToolParams):
    """The elements `selector` matches (polling up to `timeoutMs` for at least one); never fails for
    none: a query for scripted flows, not an assertion."""

    tool_name = "findMatches"
    selector: NodeSelector
    timeoutMs: int | None = Field(default=None, le=600_000)


class WaitUntilNotVisible(RecordedToolParams):
    """Wait up to `timeoutMs` for `nodeSelector` to match nothing; answers `true` / `false`."""

    tool_name = "waitUntilNotVisible"
    nodeSelector: NodeSelector
    timeoutMs: int | None = Field(default=None, ge=0, le=600_000)
