"""UiSelector as u2.jar reads it: matching a selector against the accessibility windows, the
`objInfo` of a node, and the JSON-RPC errors a failed lookup answers (`UiObjectNotFoundException`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from trailblaze_sim.android.hierarchy import AxNode

__all__ = [
    "NOT_FOUND",
    "RpcError",
    "descendants",
    "find_nodes",
    "find_one",
    "not_found",
    "obj_info",
    "selector_instance",
    "signature",
]

NOT_FOUND = "androidx.test.uiautomator.UiObjectNotFoundException"


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def not_found(sel: Any) -> RpcError:
    return RpcError(-32001, NOT_FOUND, f"UiSelector{_describe(sel)}")


def _describe(sel: Any) -> str:
    if not isinstance(sel, dict):
        return f"[{sel}]"
    keys = [k for k in sel if k not in ("mask", "childOrSibling", "childOrSiblingSelector")]
    return "[" + ", ".join(f"{_java_const(k)}={sel[k]}" for k in keys) + "]"


def _java_const(name: str) -> str:
    """`textContains` → `TEXT_CONTAINS`, as UiSelector.toString spells its criteria."""
    return _UPPER.sub(lambda m: "_" + m.group(1), name).upper()


_UPPER = re.compile(r"([A-Z])")


# --- UiSelector matching ----------------------------------------------------------------------

Matcher = Callable[[AxNode], bool]


def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise RpcError(-32001, "java.util.regex.PatternSyntaxException", f"{exc}: {pattern}") from exc


def _str_checks(name: str, value: Any, attr: Callable[[AxNode], str]) -> Matcher:
    s = str(value)
    if name.endswith("Contains"):
        return lambda n: s in attr(n)
    if name.endswith("StartsWith"):
        return lambda n: attr(n).startswith(s)
    if name.endswith("Matches"):
        rx = _regex(s)
        return lambda n: rx.fullmatch(attr(n)) is not None
    return lambda n: attr(n) == s


_STRING_FIELDS: list[tuple[int, str, Callable[[AxNode], str]]] = [
    (0x01, "text", lambda n: n.text),
    (0x02, "textContains", lambda n: n.text),
    (0x04, "textMatches", lambda n: n.text),
    (0x08, "textStartsWith", lambda n: n.text),
    (0x10, "className", lambda n: n.class_name),
    (0x20, "classNameMatches", lambda n: n.class_name),
    (0x40, "description", lambda n: n.content_desc),
    (0x80, "descriptionContains", lambda n: n.content_desc),
    (0x100, "descriptionMatches", lambda n: n.content_desc),
    (0x200, "descriptionStartsWith", lambda n: n.content_desc),
    (0x80000, "packageName", lambda n: n.package),
    (0x100000, "packageNameMatches", lambda n: n.package),
    (0x200000, "resourceId", lambda n: n.resource_id),
    (0x400000, "resourceIdMatches", lambda n: n.resource_id),
]
_BOOL_FIELDS: list[tuple[int, str, Callable[[AxNode], bool]]] = [
    (0x400, "checkable", lambda n: n.checkable),
    (0x800, "checked", lambda n: n.checked),
    (0x1000, "clickable", lambda n: n.clickable),
    (0x2000, "longClickable", lambda n: n.long_clickable),
    (0x4000, "scrollable", lambda n: n.scrollable),
    (0x8000, "enabled", lambda n: n.enabled),
    (0x10000, "focusable", lambda n: n.focusable),
    (0x20000, "focused", lambda n: n.focused),
    (0x40000, "selected", lambda n: n.selected),
]
_MASK_INDEX = 0x800000
_MASK_INSTANCE = 0x1000000


def _compile(sel: dict[str, Any]) -> Matcher:
    mask = int(sel.get("mask", 0))
    checks: list[Matcher] = []
    for bit, name, attr in _STRING_FIELDS:
        if mask & bit and name in sel:
            checks.append(_str_checks(name, sel[name], attr))
    for bit, name, battr in _BOOL_FIELDS:
        if mask & bit and name in sel:
            want = bool(sel[name])
            checks.append(lambda n, a=battr, w=want: a(n) == w)  # type: ignore[misc]
    if mask & _MASK_INDEX and "index" in sel:
        idx = int(sel["index"])
        checks.append(lambda n: n.index == idx)
    return lambda n: all(c(n) for c in checks)


def selector_instance(sel: dict[str, Any]) -> int:
    if int(sel.get("mask", 0)) & _MASK_INSTANCE:
        return int(sel.get("instance", 0))
    return 0


def find_nodes(windows: list[AxNode], sel: dict[str, Any]) -> list[AxNode]:
    """Every node a UiSelector matches, in document order, before the final `instance` is applied.

    `child` searches the matched nodes' descendants, `sibling` (`fromParent`) the other nodes under
    their parent; an `instance` on an intermediate level picks that one match before descending.
    """
    if not isinstance(sel, dict):
        raise RpcError(-32602, "method parameters invalid", f"not a selector: {sel!r}")
    levels: list[dict[str, Any]] = [sel]
    kinds = list(sel.get("childOrSibling") or [])
    levels.extend(sel.get("childOrSiblingSelector") or [])
    matches = [n for root in windows for n in root.walk() if _compile(sel)(n)]
    for depth, (kind, sub) in enumerate(zip(kinds, levels[1:], strict=False)):
        # the level we are leaving may pin one instance
        if int(levels[depth].get("mask", 0)) & _MASK_INSTANCE:
            inst = selector_instance(levels[depth])
            matches = matches[inst : inst + 1]
        match = _compile(sub)
        seen: set[int] = set()
        nxt: list[AxNode] = []
        for node in matches:
            if kind == "sibling":
                scope = node.parent.walk()[1:] if node.parent is not None else []
            else:
                scope = node.walk()[1:]
            for cand in scope:
                if id(cand) not in seen and match(cand):
                    seen.add(id(cand))
                    nxt.append(cand)
        matches = nxt
    return matches


def find_one(windows: list[AxNode], sel: Any) -> AxNode | None:
    nodes = find_nodes(windows, sel)
    levels = [sel, *(sel.get("childOrSiblingSelector") or [])]
    inst = selector_instance(levels[-1])
    return nodes[inst] if 0 <= inst < len(nodes) else None


def _rect(bounds: tuple[int, int, int, int]) -> dict[str, int]:
    left, top, right, bottom = bounds
    return {"bottom": bottom, "left": left, "right": right, "top": top}


def obj_info(node: AxNode) -> dict[str, Any]:
    """The `ObjInfo` bean the jar returns for a UiObject."""
    rect = _rect(node.bounds)
    return {
        "bounds": rect,
        "checkable": node.checkable,
        "checked": node.checked,
        "childCount": len(node.children),
        "className": node.class_name,
        "clickable": node.clickable,
        "contentDescription": node.content_desc or None,
        "enabled": node.enabled,
        "focusable": node.focusable,
        "focused": node.focused,
        "longClickable": node.long_clickable,
        "packageName": node.package,
        "resourceName": node.resource_id or None,
        "scrollable": node.scrollable,
        "selected": node.selected,
        "text": node.text,
        "visibleBounds": rect,
    }


def signature(windows: list[AxNode]) -> list[tuple[str, str, tuple[int, int, int, int]]]:
    return [(n.text, n.content_desc, n.bounds) for n in windows[0].walk()] if windows else []


def descendants(holder: AxNode, pattern: Any) -> list[AxNode]:
    """The nodes under `holder` a UiSelector pattern matches, in document order (its own
    `instance` is not applied: callers pick from the list)."""
    if not isinstance(pattern, dict):
        raise RpcError(-32602, "method parameters invalid", f"not a selector: {pattern!r}")
    sub = {k: v for k, v in pattern.items() if k not in ("instance",)}
    sub["mask"] = int(pattern.get("mask", 0)) & ~_MASK_INSTANCE
    wrapper = AxNode(0, "", "", "", "", "", holder.bounds)
    wrapper.children = holder.children
    return [n for n in find_nodes([wrapper], sub) if n is not wrapper]
