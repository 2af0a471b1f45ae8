"""Trailblaze's older, Maestro-lowered tools (read-compat, docs/adr/0012-read-compat-tools.md): read and
replayed with Maestro's matching, never written by our recorder. Each is one `ToolDef`.
"""

from __future__ import annotations

from collections.abc import Callable

from trailblaze.screen.resolve import describe_selector
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.lookup import (
    CompatQuery,
    ToolContext,
    assert_gone,
    compat_query,
    describe,
    find_compat,
    maestro_text,
    tap_at,
    text_selector,
)
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.recorded import compat as rt
from trailblaze.tools.tooldef import Kind, ToolDef, ToolResult, defines

__all__: list[str] = []


def _compat(params: type[RecordedToolParams], kind: Kind) -> Callable[[Callable[..., ToolResult]], ToolDef]:
    return defines(params, kind, source="read-compat", block_status="read-only")


def _tap_compat(run: ToolContext, q: CompatQuery, long_press: bool) -> ToolResult:
    node, outcome = find_compat(run, q)
    return outcome if node is None else tap_at(run, node, long_press)


def _assert_visible_compat(run: ToolContext, q: CompatQuery) -> ToolResult:
    node, outcome = find_compat(run, q)
    if node is None:
        return ToolResult("NOT_VISIBLE", outcome.message)
    return ToolResult("OK", f"{describe(node)} is visible")


def _legacy_selector(run: ToolContext, sel: rt.LegacyElementSelector, *, shown: bool = False) -> NodeSelector:
    """Trailblaze's older Maestro-shaped `selector` as a `nodeSelector` for this platform (with the
    raw `textRegex` values when `shown`, for messages)."""
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


@_compat(rt.TapOnElementWithText, "action")
def _tap_with_text(run: ToolContext, p: rt.TapOnElementWithText) -> ToolResult:
    q = compat_query(
        run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index, contains=True
    )
    return _tap_compat(run, q, False)


@_compat(rt.TapOnElementWithAccessibilityText, "action")
def _tap_with_accessibility_text(run: ToolContext, p: rt.TapOnElementWithAccessibilityText) -> ToolResult:
    q = compat_query(
        run, p.accessibilityText, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index
    )
    return _tap_compat(run, q, False)


@_compat(rt.AssertVisibleWithText, "assertion")
def _assert_visible_with_text(run: ToolContext, p: rt.AssertVisibleWithText) -> ToolResult:
    q = compat_query(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _assert_visible_compat(run, q)


@_compat(rt.AssertVisibleWithAccessibilityText, "assertion")
def _assert_visible_with_accessibility_text(
    run: ToolContext, p: rt.AssertVisibleWithAccessibilityText
) -> ToolResult:
    q = compat_query(
        run, p.accessibilityText, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index
    )
    return _assert_visible_compat(run, q)


@_compat(rt.AssertVisibleWithResourceId, "assertion")
def _assert_visible_with_resource_id(run: ToolContext, p: rt.AssertVisibleWithResourceId) -> ToolResult:
    q = compat_query(
        run, p.accessibilityText, ident=p.resourceId, enabled=p.enabled, selected=p.selected, index=p.index
    )
    return _assert_visible_compat(run, q)


@_compat(rt.AssertNotVisibleBySelector, "assertion")
def _assert_not_visible_by_selector(run: ToolContext, p: rt.AssertNotVisibleBySelector) -> ToolResult:
    if p.nodeSelector is not None:
        return assert_gone(run, p.nodeSelector, describe_selector(p.nodeSelector), p.timeoutMs)
    assert p.selector is not None  # the model requires one of the two
    try:
        selector = _legacy_selector(run, p.selector)
        shown = describe_selector(_legacy_selector(run, p.selector, shown=True))
    except ValueError as exc:
        return ToolResult("ERROR", f"bad params for assertNotVisibleBySelector: selector: {exc}")
    return assert_gone(run, selector, shown, p.timeoutMs)


@_compat(rt.LongPressOnElementWithText, "action")
def _long_press_with_text(run: ToolContext, p: rt.LongPressOnElementWithText) -> ToolResult:
    q = compat_query(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _tap_compat(run, q, True)
