"""Trailblaze's older, Maestro-lowered tools (read-compat, docs/adr/0012-read-compat-tools.md):
their params and handlers, read and replayed with Maestro's matching, never written by our recorder (see the package's docstring).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator

from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.params import RecordedToolParams, numbers_as_text
from trailblaze.tools.tooldef import Handler, Kind, ToolDef, ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.tools.compat_lookup import CompatQuery
    from trailblaze.tools.lookup import ToolContext

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


def _compat(params: type[RecordedToolParams], kind: Kind) -> Callable[[Handler], ToolDef]:
    return defines(params, kind, source="read-compat", block_status="read-only")


def _tap_compat(run: ToolContext, q: CompatQuery, long_press: bool) -> ToolResult:
    from trailblaze.tools.compat_lookup import find_compat
    from trailblaze.tools.lookup import tap_at

    node, outcome = find_compat(run, q)
    return outcome if node is None else tap_at(run, node, long_press)


def _assert_visible_compat(run: ToolContext, q: CompatQuery) -> ToolResult:
    from trailblaze.tools.compat_lookup import find_compat
    from trailblaze.tools.lookup import describe

    node, outcome = find_compat(run, q)
    if node is None:
        return ToolResult("NOT_VISIBLE", outcome.message)
    return ToolResult("OK", f"{describe(node)} is visible")


def _legacy_selector(run: ToolContext, sel: LegacyElementSelector, *, shown: bool = False) -> NodeSelector:
    """Trailblaze's older Maestro-shaped `selector` as a `nodeSelector` for this platform (with the
    raw `textRegex` values when `shown`, for messages)."""
    from trailblaze.screen.maestro_text import maestro_text
    from trailblaze.tools.lookup import text_selector

    if run.platform == "ios" and sel.checked is not None:
        raise ValueError("`checked` in a legacy selector is not supported on iOS")
    pattern = sel.textRegex
    if pattern is not None and not shown:
        pattern = maestro_text(pattern, contains=False)[0]
    branch = text_selector(run, pattern, ident=sel.idRegex, enabled=sel.enabled, selected=sel.selected)
    out = branch.model_dump(exclude_none=True)
    key = "iosMaestro" if run.platform == "ios" else "androidMaestro"
    out.setdefault(key, {})
    out[key].update({k: v for k, v in (("checked", sel.checked), ("focused", sel.focused)) if v is not None})
    if not out[key]:
        del out[key]
    for rel in ("below", "above", "leftOf", "rightOf", "childOf", "containsChild"):
        sub = getattr(sel, rel)
        if sub is not None:
            out[rel] = _legacy_selector(run, sub, shown=shown).model_dump(exclude_none=True)
    if sel.containsDescendants:
        out["containsDescendants"] = [
            _legacy_selector(run, s, shown=shown).model_dump(exclude_none=True)
            for s in sel.containsDescendants
        ]
    if sel.index is not None:
        out["index"] = sel.index
    return NodeSelector.model_validate(out)


@_compat(TapOnElementWithText, "action")
def _tap_with_text(run: ToolContext, p: TapOnElementWithText) -> ToolResult:
    from trailblaze.tools.compat_lookup import compat_query

    q = compat_query(
        run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index, contains=True
    )
    return _tap_compat(run, q, False)


@_compat(TapOnElementWithAccessibilityText, "action")
def _tap_with_accessibility_text(run: ToolContext, p: TapOnElementWithAccessibilityText) -> ToolResult:
    from trailblaze.tools.compat_lookup import compat_query

    q = compat_query(
        run, p.accessibilityText, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index
    )
    return _tap_compat(run, q, False)


@_compat(AssertVisibleWithText, "assertion")
def _assert_visible_with_text(run: ToolContext, p: AssertVisibleWithText) -> ToolResult:
    from trailblaze.tools.compat_lookup import compat_query

    q = compat_query(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _assert_visible_compat(run, q)


@_compat(AssertVisibleWithAccessibilityText, "assertion")
def _assert_visible_with_accessibility_text(
    run: ToolContext, p: AssertVisibleWithAccessibilityText
) -> ToolResult:
    from trailblaze.tools.compat_lookup import compat_query

    q = compat_query(
        run, p.accessibilityText, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index
    )
    return _assert_visible_compat(run, q)


@_compat(AssertVisibleWithResourceId, "assertion")
def _assert_visible_with_resource_id(run: ToolContext, p: AssertVisibleWithResourceId) -> ToolResult:
    from trailblaze.tools.compat_lookup import compat_query

    q = compat_query(
        run, p.accessibilityText, ident=p.resourceId, enabled=p.enabled, selected=p.selected, index=p.index
    )
    return _assert_visible_compat(run, q)


@_compat(AssertNotVisibleBySelector, "assertion")
def _assert_not_visible_by_selector(run: ToolContext, p: AssertNotVisibleBySelector) -> ToolResult:
    from trailblaze.screen.resolve import describe_selector
    from trailblaze.tools.lookup import assert_gone

    if p.nodeSelector is not None:
        return assert_gone(run, p.nodeSelector, describe_selector(p.nodeSelector), p.timeoutMs)
    assert p.selector is not None  # the model requires one of the two
    try:
        selector = _legacy_selector(run, p.selector)
        shown = describe_selector(_legacy_selector(run, p.selector, shown=True))
    except ValueError as exc:
        return ToolResult("ERROR", f"bad params for assertNotVisibleBySelector: selector: {exc}")
    return assert_gone(run, selector, shown, p.timeoutMs)


@_compat(LongPressOnElementWithText, "action")
def _long_press_with_text(run: ToolContext, p: LongPressOnElementWithText) -> ToolResult:
    from trailblaze.tools.compat_lookup import compat_query

    q = compat_query(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _tap_compat(run, q, True)
