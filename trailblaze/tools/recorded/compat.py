"""Params of Trailblaze's older, Maestro-lowered tools (read-compat, docs/adr/0012-read-compat-tools.md):
read and replayed, never written by our recorder (see the package's docstring).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.params import RecordedToolParams, numbers_as_text

__all__ = [
    "AssertNotVisibleBySelector",
    "AssertVisibleWithAccessibilityText",
    "AssertVisibleWithResourceId",
    "AssertVisibleWithText",
    "CompatIndex",
    "LegacyElementSelector",
    "LongPressOnElementWithText",
    "TapOnElementWithAccessibilityText",
    "TapOnElementWithText",
]

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
