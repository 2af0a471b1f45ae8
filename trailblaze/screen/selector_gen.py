"""Selector generation: from the node the agent chose to the simplest selector that finds it again.

`generate_selector` first hit-tests the node's centre (`hit_test`) so the recording describes what
the OS would actually touch, then `selector_for` walks the durability cascade, each candidate checked
to match exactly one node with the real resolver:

1. attributes: resource id → content description / label → text → hint → class + state, as the
   smallest subset of the node's own fields that is unique (ties broken by that order);
2. relations to a uniquely identifiable neighbour: a child / descendant it contains, an ancestor it
   is inside, then the nearest neighbours above / below / left / right;
3. `index` among the matches of its full identity.

A node under a dialog or the keyboard (`trailblaze.screen.occlusion`) gets no selector and is no anchor.
Uniqueness is checked with the resolver's preference for uncovered matches, and the attribute
search only takes subsets whose match set (covered nodes included) is the node alone, so a selector
found there does not rely on the preference.

Because the smallest unique subset is taken, no field that is not needed for uniqueness survives
(the "minimiser" is built into the search). Literal values are regex-escaped (`Forgot password\\?`),
except the dots of resource ids and class names, written as Trailblaze writes them
(`com.example:id/sign_in`), which can only match themselves in practice — uniqueness is verified.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations
from typing import Any

from trailblaze.screen.hierarchy import Hierarchy, Node
from trailblaze.screen.occlusion import covers
from trailblaze.screen.resolve import _above, _below, _left_of, _right_of, branch_predicates, resolve
from trailblaze.screen.selector import NodeSelector

__all__ = ["generate_selector", "hit_test", "literal", "selector_for", "tap_target"]

_META = frozenset("\\.^$*+?{}[]|()")
_META_NO_DOT = _META - {"."}
_MAX_SUBSET = 4
_MAX_NEIGHBOURS = 12

Field = tuple[int, str, Any]
"""(durability rank, selector key, value)."""


def literal(value: str, *, keep_dots: bool = False) -> str:
    """`value` as a full-match regex that matches only itself (escapes only regex metacharacters)."""
    meta = _META_NO_DOT if keep_dots else _META
    if not any(ch in meta for ch in value):
        return value
    return "".join("\\" + ch if ch in meta else ch for ch in value)


# --------------------------------------------------------------------------------------------------
# Hit testing


def _consumes_touch(node: Node) -> bool:
    if node.platform == "ios":
        return node.clickable or node.editable
    return node.clickable or node.long_clickable or node.checkable or node.editable


def _paint_order(node: Node, x: float, y: float, out: list[Node]) -> None:
    # Touch dispatch only descends into views that contain the point; siblings paint in drawing order.
    if not (node.visible and node.visible_bounds.contains(x, y)):
        return
    out.append(node)
    children = node.children
    if len(children) > 1:
        children = sorted(children, key=lambda c: c.drawing_order)
    for child in children:
        _paint_order(child, x, y, out)


def _window_z(hierarchy: Hierarchy, root: Node) -> tuple[int, float, int]:
    kind = hierarchy.window_kind(root)
    rank = {"app": 0, "system": 1, "ime": 2}[kind]
    # Among app windows a dialog or popup is smaller than the activity it covers.
    return (rank, -root.visible_bounds.area, root.window)


def hit_test(hierarchy: Hierarchy, x: float, y: float) -> Node | None:
    """The node a tap at (x, y) lands on, as the OS routes it.

    Android: the topmost window containing the point; inside it the last-painted view containing the
    point that consumes touches (clickable, long-clickable, checkable or editable), else the
    last-painted view. iOS: the last-painted interactive element (button, cell, switch, field, …)
    across the windows, else the last-painted accessible element, else the last-painted element.
    Web: as iOS, over every element containing the point in document order.
    """
    if hierarchy.platform == "android":
        for root in sorted(hierarchy.roots, key=lambda r: _window_z(hierarchy, r), reverse=True):
            hits: list[Node] = []
            _paint_order(root, x, y, hits)
            if hits:
                return _pick(hits)
        return None
    hits = []
    if hierarchy.platform == "web":
        # A web element may sit outside its parent's box (absolute positioning): every element
        # containing the point counts, document order standing in for paint order.
        hits = [n for n in hierarchy.nodes if n.visible and n.visible_bounds.contains(x, y)]
    else:
        for root in hierarchy.roots:
            _paint_order(root, x, y, hits)
    if not hits:
        return None
    picked = _pick(hits)
    if not _consumes_touch(picked):
        for node in reversed(hits):
            if node.accessible:
                return node
    return picked


def _pick(hits: list[Node]) -> Node:
    for node in reversed(hits):
        if _consumes_touch(node):
            return node
    return hits[-1]


# --------------------------------------------------------------------------------------------------
# Generation


def generate_selector(node: Node, hierarchy: Hierarchy, *, use_hit_test: bool = True) -> NodeSelector | None:
    """The simplest selector that finds what a tap on `node` touches, or None (record `tapOnPoint`).

    With `use_hit_test`, the node under `node`'s centre that takes the touch is described instead,
    provided a tap on that node's own centre lands on it too (a huge clickable backdrop whose centre
    is elsewhere is not what the user meant; the chosen node is described then).
    """
    target = tap_target(node, hierarchy) if use_hit_test else node
    return selector_for(target, hierarchy)


def tap_target(node: Node, hierarchy: Hierarchy) -> Node:
    """The node a tap on `node`'s centre lands on, as `generate_selector` describes it.

    That is the hit-tested node, provided a tap on that node's own centre lands on it too (a huge
    clickable backdrop whose centre is elsewhere is not what the user meant); else `node` itself.
    """
    if not node.is_visible:
        return node
    hit = hit_test(hierarchy, *node.center)
    if hit is not None and hit is not node and hit_test(hierarchy, *hit.center) is hit:
        return hit
    return node


def selector_for(node: Node, hierarchy: Hierarchy) -> NodeSelector | None:
    """The simplest selector that matches exactly `node` (no hit-testing); None if it is not visible
    or is covered by a dialog or the keyboard (a tap there would land on the cover)."""
    covers(hierarchy)
    if not node.is_visible or node.covered_by is not None:
        return None
    fields = _fields(node)
    attr = _attribute_selector(node, hierarchy, fields, _MAX_SUBSET)
    if attr is not None:
        return attr
    bases = _bases(node, hierarchy, fields)
    for relation in _relations(node, hierarchy):
        for base in bases:
            candidate = NodeSelector.model_validate({**base, **relation})
            if _unique(candidate, node, hierarchy):
                return candidate
    identity = [f for f in fields if f[0] <= 4]
    if not identity:
        return None
    base_sel = _make(node, identity)
    matches = resolve(base_sel, hierarchy)
    for position, match in enumerate(matches):
        if match is node:
            candidate = _make(node, identity, index=position)
            return candidate if _unique(candidate, node, hierarchy) else None
    return None


def _fields(node: Node) -> list[Field]:
    out: list[Field] = []
    if node.platform == "android":
        if node.resource_id:
            out.append((0, "resourceIdRegex", literal(node.resource_id, keep_dots=True)))
        if node.label:
            out.append((1, "contentDescriptionRegex", literal(node.label)))
        if node.text:
            out.append((2, "textRegex", literal(node.text)))
        if node.hint:
            out.append((3, "hintTextRegex", literal(node.hint)))
        if node.class_name:
            out.append((4, "classNameRegex", literal(node.class_name, keep_dots=True)))
        if node.checkable:
            out.append((5, "isChecked", node.checked))
        if node.selected:
            out.append((6, "isSelected", True))
        if node.focused:
            out.append((7, "isFocused", True))
        out.append((8, "isEnabled", node.enabled))
        out.append((9, "isClickable", node.clickable))
        out.append((10, "isCheckable", node.checkable))
        if node.scrollable:
            out.append((11, "isScrollable", True))
        if node.password:
            out.append((12, "isPassword", True))
        return out
    if node.platform == "web":
        # Trailblaze's web branch: role + accessible name and test ids, never CSS.
        if node.resource_id:
            out.append((0, "dataTestId", node.resource_id))
        if node.label:
            out.append((1, "ariaNameRegex", literal(node.label)))
        out.append((4, "ariaRole", node.class_name))
        level = (node.extra or {}).get("level")
        if level:
            out.append((5, "headingLevel", int(level)))
        return out
    if node.resource_id:
        out.append((0, "resourceIdRegex", literal(node.resource_id)))
    if node.label:
        out.append((1, "accessibilityTextRegex", literal(node.label)))
    if node.text and node.text != node.label:
        out.append((2, "textRegex", literal(node.text)))
    if node.hint:
        out.append((3, "hintTextRegex", literal(node.hint)))
    out.append((4, "classNameRegex", node.class_name))
    if node.focused:
        out.append((7, "focused", True))
    if node.selected:
        out.append((6, "selected", True))
    out.append((8, "enabled", node.enabled))
    out.sort(key=lambda f: f[0])
    return out


def _branch(node: Node) -> str:
    if node.platform == "web":
        return "web"
    return "androidAccessibility" if node.platform == "android" else "iosMaestro"


def _spec(node: Node, fields: Iterable[Field]) -> dict[str, Any]:
    return {_branch(node): {key: value for _, key, value in fields}}


def _make(node: Node, fields: Iterable[Field], index: int | None = None) -> NodeSelector:
    spec: dict[str, Any] = _spec(node, fields)
    if index is not None:
        spec["index"] = index
    return NodeSelector.model_validate(spec)


def _unique(selector: NodeSelector, node: Node, hierarchy: Hierarchy) -> bool:
    found = resolve(selector, hierarchy)
    return len(found) == 1 and found[0] is node


def _match_set(node: Node, field: Field, hierarchy: Hierarchy) -> frozenset[int]:
    """Ids of the visible nodes a one-field selector matches (cached per capture)."""
    cache: dict[tuple[str, str, Any], frozenset[int]] = hierarchy.memo.setdefault("gen_sets", {})
    key = (_branch(node), field[1], field[2])
    found = cache.get(key)
    if found is None:
        preds = branch_predicates(_make(node, [field]))
        found = frozenset(id(n) for n in hierarchy.visible_nodes() if all(p(n) for p in preds))
        cache[key] = found
    return found


def _subsets(fields: list[Field], max_size: int) -> Iterator[tuple[Field, ...]]:
    """Subsets holding at least one identifying (non-state) field: smallest first, then by rank."""
    for size in range(1, min(max_size, len(fields)) + 1):
        combos = [c for c in combinations(fields, size) if c[0][0] <= 4]
        combos.sort(key=lambda c: tuple(f[0] for f in c))
        yield from combos


def _attribute_selector(
    node: Node, hierarchy: Hierarchy, fields: list[Field], max_size: int
) -> NodeSelector | None:
    me = id(node)
    sets = {f[1]: _match_set(node, f, hierarchy) for f in fields}
    for combo in _subsets(fields, max_size):
        matched = sets[combo[0][1]]
        for f in combo[1:]:
            matched = matched & sets[f[1]]
            if len(matched) <= 1:
                break
        if len(matched) == 1 and me in matched:
            candidate = _make(node, combo)
            if _unique(candidate, node, hierarchy):
                return candidate
    return None


def _bases(node: Node, hierarchy: Hierarchy, fields: list[Field]) -> list[dict[str, Any]]:
    """The two most selective small attribute sets to combine with a relation."""
    me = id(node)
    scored: list[tuple[int, int, tuple[int, ...], tuple[Field, ...]]] = []
    sets = {f[1]: _match_set(node, f, hierarchy) for f in fields}
    for combo in _subsets(fields, 2):
        matched = sets[combo[0][1]]
        for f in combo[1:]:
            matched = matched & sets[f[1]]
        if me in matched:
            scored.append((len(matched), len(combo), tuple(f[0] for f in combo), combo))
    scored.sort(key=lambda s: s[:3])
    return [_spec(node, s[3]) for s in scored[:2]]


def _anchor_spec(node: Node, hierarchy: Hierarchy) -> dict[str, Any] | None:
    cache: dict[int, dict[str, Any] | None] = hierarchy.memo.setdefault("gen_anchors", {})
    if id(node) in cache:
        return cache[id(node)]
    spec: dict[str, Any] | None = None
    if node.is_visible and node.covered_by is None:
        identifying = [f for f in _fields(node) if f[0] <= 4]
        found = _attribute_selector(node, hierarchy, identifying, 2)
        if found is not None:
            spec = found.to_yaml_dict()
    cache[id(node)] = spec
    return spec


def _relations(node: Node, hierarchy: Hierarchy) -> Iterator[dict[str, Any]]:
    # Something it contains ("the row containing 'Message 3'") is the most durable neighbour.
    for child in node.children:
        spec = _anchor_spec(child, hierarchy)
        if spec is not None:
            yield {"containsChild": spec}
    descendants = [d for d in node.walk() if d is not node and d.parent is not node and d.is_visible]
    for desc in descendants[:_MAX_NEIGHBOURS]:
        spec = _anchor_spec(desc, hierarchy)
        if spec is not None:
            yield {"containsDescendants": [spec]}
    for ancestor in node.ancestors():
        spec = _anchor_spec(ancestor, hierarchy)
        if spec is not None:
            yield {"childOf": spec}
            break
    cx, cy = node.center
    neighbours = [
        n
        for n in hierarchy.visible_nodes()
        if n is not node and n.window == node.window and n.parent is not None
    ]
    neighbours.sort(key=lambda n: (n.center[0] - cx) ** 2 + (n.center[1] - cy) ** 2)
    tried = 0
    for other in neighbours:
        if tried >= _MAX_NEIGHBOURS:
            break
        spec = _anchor_spec(other, hierarchy)
        if spec is None:
            continue
        tried += 1
        for key, test in (("below", _below), ("above", _above), ("rightOf", _right_of), ("leftOf", _left_of)):
            if test(node, other):
                yield {key: spec}
