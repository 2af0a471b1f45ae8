"""Typed parameters of the tools a trail can record, keyed by their Trailblaze names.

A recording stores a tool as `{toolName: {params}}`. For the names below the params are validated
against these models when a trail loads (unknown keys, wrong types and out-of-range enums are
errors); any other name is a custom tool whose params are kept verbatim. Field names are the YAML
keys, so a validation error location is also a path in the file. `{{var}}` templates are plain text
here: they are interpolated at dispatch, never at load.

Each model here is the params of one `ToolDef`, defined with its handler in `trailblaze.tools.core`
(read-compat ones in `trailblaze.tools.compat`); `trailblaze.tools.builtin` collects them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from trailblaze.device.permissions import check_permission_key
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.params import RecordedToolParams, numbers_as_text

__all__ = [
    "AssertNotVisibleBySelector",
    "AssertNotVisibleWithText",
    "AssertVisibleBySelector",
    "AssertVisibleWithAccessibilityText",
    "AssertVisibleWithResourceId",
    "AssertVisibleWithText",
    "Direction",
    "EraseText",
    "HideKeyboard",
    "InputText",
    "KeyCode",
    "LaunchApp",
    "LaunchMode",
    "LegacyElementSelector",
    "LongPressOnElementWithText",
    "PressBack",
    "PressKey",
    "RecordedToolParams",
    "RememberTextBySelector",
    "RunTrail",
    "ScrollUntilTextIsVisible",
    "Swipe",
    "TapOnElementBySelector",
    "TapOnElementWithAccessibilityText",
    "TapOnElementWithText",
    "TapOnPoint",
    "Wait",
]

Direction = Literal["UP", "DOWN", "LEFT", "RIGHT"]
"""Finger direction of a swipe; for scrolling, DOWN reveals content further down."""
LaunchMode = Literal["FORCE_RESTART", "RESUME", "CLEAR_STATE"]
PermissionValue = Literal["allow", "deny", "unset"]
KeyCode = Literal["BACK", "ENTER", "HOME", "BACKSPACE", "TAB"]


class TapOnElementBySelector(RecordedToolParams):
    """Tap the one element matching `nodeSelector` (polls until it appears)."""

    tool_name = "tapOnElementBySelector"
    nodeSelector: NodeSelector
    longPress: bool = False


class TapOnPoint(RecordedToolParams):
    """Tap absolute screen coordinates; recorded only when no selector can identify the element."""

    tool_name = "tapOnPoint"
    x: int = Field(ge=0)
    y: int = Field(ge=0)
    longPress: bool = False


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


class Swipe(RecordedToolParams):
    """Swipe the finger in `direction`, on `nodeSelector` if given, else mid-screen."""

    tool_name = "swipe"
    direction: Direction = "DOWN"
    nodeSelector: NodeSelector | None = None
    swipeOnElementText: str | None = None
    """Swipe on the element showing this text (Trailblaze's text form of `nodeSelector`)."""


class ScrollUntilTextIsVisible(RecordedToolParams):
    """Scroll until an element with `text` is visible."""

    tool_name = "scrollUntilTextIsVisible"
    text: str = ""
    textRegex: str | None = None
    """A full-match pattern for the text; wins over `text`."""
    direction: Direction = "DOWN"
    index: int | None = Field(default=None, ge=0)
    id: str | None = None
    visibilityPercentage: int | None = Field(default=None, ge=0, le=100)
    centerElement: bool | None = None
    scrollStartPosition: Literal["CENTER", "TOP", "BOTTOM"] | None = None

    @model_validator(mode="after")
    def _something_to_find(self) -> ScrollUntilTextIsVisible:
        if not self.text and self.textRegex is None and self.id is None:
            raise ValueError("scrollUntilTextIsVisible needs text, textRegex or id")
        return self


class LaunchApp(RecordedToolParams):
    """Launch the app; Trailblaze's `REINSTALL` is read as `CLEAR_STATE`, which is also the default
    when a trail omits `launchMode`, as in Trailblaze (docs/adr/0033-device-logs-install-permissions.md).
    `permissions` (Maestro's form) grants / revokes runtime permissions before the app starts."""

    tool_name = "launchApp"
    appId: str
    launchMode: LaunchMode = "CLEAR_STATE"
    permissions: dict[str, PermissionValue] | None = None

    @field_validator("permissions")
    @classmethod
    def _known_permissions(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        for key in value or {}:
            check_permission_key(key)
        return value

    @field_validator("launchMode", mode="before")
    @classmethod
    def _reinstall_is_clear_state(cls, value: Any) -> Any:
        return "CLEAR_STATE" if value == "REINSTALL" else value


class PressBack(RecordedToolParams):
    """Android back key; the navigation bar's back button on iOS."""

    tool_name = "pressBack"


class PressKey(RecordedToolParams):
    """Press a hardware or keyboard key."""

    tool_name = "pressKey"
    keyCode: KeyCode


class AssertVisibleBySelector(RecordedToolParams):
    """Assert the element matching `nodeSelector` is visible (optionally with `expectedText`)."""

    tool_name = "assertVisibleBySelector"
    nodeSelector: NodeSelector
    expectedText: str | None = None
    """The text the element shows (trimmed, case-sensitive; its text, label or iOS value)."""
    timeoutMs: int | None = Field(default=None, ge=0)
    textMatchMode: Literal["EXACT", "PREFIX", "REGEX"] | None = None
    """How `expectedText` compares: EXACT (default), PREFIX, or REGEX (full match) — a recording
    widens a text only this way, deliberately (docs/adr/0038-assertions-pin-facts.md)."""


class AssertNotVisibleWithText(RecordedToolParams):
    """Assert no visible element shows `text`."""

    tool_name = "assertNotVisibleWithText"
    text: str
    index: int | None = Field(default=None, ge=0)
    id: str | None = None
    enabled: bool | None = None
    selected: bool | None = None


class RememberTextBySelector(RecordedToolParams):
    """Store the text of the element matching `nodeSelector` in memory as `variable`."""

    tool_name = "rememberTextBySelector"
    nodeSelector: NodeSelector
    variable: str = Field(min_length=1)


class Wait(RecordedToolParams):
    """Wait for a fixed time."""

    tool_name = "wait"
    timeToWaitInSeconds: float = Field(default=5, ge=0)


ArgValue = str | int | float | bool


class RunTrail(RecordedToolParams):
    """Run another trail's steps here, with its own `config.args` (ADR 0021).

    `path` is relative to the calling trail's folder; `args` values may use the caller's `{{templates}}`.
    """

    tool_name = "runTrail"
    path: str = Field(min_length=1)
    args: dict[str, ArgValue] | None = None


# --- read-compat: older Trailblaze recordings ------------------------------------------------------
#
# Trailblaze lowers these to a Maestro `ElementSelector`; `trailblaze.tools.execute` keeps that meaning
# (see docs/adr/0012-read-compat-tools.md): `text` and `accessibilityText` both match an element's
# text, label / content description or hint / placeholder, `id` / `resourceId` its resource id or
# accessibility identifier, and `index` picks among the matches top-to-bottom (Trailblaze writes it
# as a number or, for some tools, a numeric string; 0 means "not given").


def _index(value: Any) -> Any:
    """Trailblaze types `index` as a string on some tools (`index: "1"`); accept both spellings."""
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return value


CompatIndex = Annotated[
    int | None,
    BeforeValidator(_index),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": "^[0-9]+$"},
                {"type": "null"},
            ]
        }
    ),
]
"""A 0-based `index` written as a number or a numeric string."""


class _CompatTarget(RecordedToolParams):
    index: CompatIndex = Field(default=None, ge=0)
    id: str | None = None
    enabled: bool | None = None
    selected: bool | None = None


class _TextTarget(_CompatTarget):
    text: str


class TapOnElementWithText(_TextTarget):
    """Tap the element showing `text`: a full match, else the literal text inside a longer one
    (Trailblaze read-compat)."""

    tool_name = "tapOnElementWithText"


class LongPressOnElementWithText(_TextTarget):
    """Long-press the element showing `text` (Trailblaze read-compat)."""

    tool_name = "longPressOnElementWithText"


class AssertVisibleWithText(_TextTarget):
    """Assert an element showing `text` is visible (Trailblaze read-compat)."""

    tool_name = "assertVisibleWithText"


class TapOnElementWithAccessibilityText(_CompatTarget):
    """Tap the element whose label / content description (or text) is `accessibilityText`
    (Trailblaze read-compat)."""

    tool_name = "tapOnElementWithAccessibilityText"
    accessibilityText: str


class AssertVisibleWithAccessibilityText(_CompatTarget):
    """Assert an element with label / content description (or text) `accessibilityText` is visible
    (Trailblaze read-compat)."""

    tool_name = "assertVisibleWithAccessibilityText"
    accessibilityText: str


class AssertVisibleWithResourceId(RecordedToolParams):
    """Assert an element with resource id / accessibility identifier `resourceId` (and text
    `accessibilityText`, if given) is visible (Trailblaze read-compat)."""

    tool_name = "assertVisibleWithResourceId"
    resourceId: str
    accessibilityText: str | None = None
    index: CompatIndex = Field(default=None, ge=0)
    enabled: bool | None = None
    selected: bool | None = None


class LegacyElementSelector(BaseModel):
    """Trailblaze's older Maestro-shaped `selector` (read for `assertNotVisibleBySelector`).

    `textRegex` has Maestro's meaning (text, label or hint); `idRegex` matches the resource id or
    accessibility identifier. Trailblaze's `size`, `traits` and `css` are not supported.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    textRegex: str | None = None
    idRegex: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _numbers_as_text(cls, data: Any) -> Any:
        return numbers_as_text(cls, data)

    index: CompatIndex = Field(default=None, ge=0)
    enabled: bool | None = None
    selected: bool | None = None
    checked: bool | None = None
    focused: bool | None = None
    below: LegacyElementSelector | None = None
    above: LegacyElementSelector | None = None
    leftOf: LegacyElementSelector | None = None
    rightOf: LegacyElementSelector | None = None
    childOf: LegacyElementSelector | None = None
    containsChild: LegacyElementSelector | None = None
    containsDescendants: list[LegacyElementSelector] | None = None


class AssertNotVisibleBySelector(RecordedToolParams):
    """Assert no visible element matches `nodeSelector` (or the older `selector`) within
    `timeoutMs` (read-compat)."""

    tool_name = "assertNotVisibleBySelector"
    nodeSelector: NodeSelector | None = None
    selector: LegacyElementSelector | None = None
    timeoutMs: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one_selector(self) -> AssertNotVisibleBySelector:
        if self.nodeSelector is None and self.selector is None:
            raise ValueError("assertNotVisibleBySelector needs a nodeSelector (or the older selector)")
        return self
