"""Selector resolution: which visible nodes of a `Hierarchy` a `NodeSelector` matches.

Semantics (recorded in docs/adr/0004-node-model-and-selectors.md):

- Every regex is a **full match** (`re.fullmatch`, `.` also matches newlines). A value that does not
  compile as a regex matches literally. Compiled patterns are cached. Matching runs on the `regex`
  engine with a time bound per value (`trailblaze.screen.patterns`): a pattern that backtracks
  catastrophically (`(a|aa)+c`) raises `PatternTooSlow` naming it instead of hanging the run.
- `resourceIdRegex` / `idRegex` match the full Android id (`com.example:id/sign_in`) **or** its name
  after `:id/` (`sign_in`), so `sign_in`, `.*sign_in` and `com.example:id/sign_in` all work.
  `classNameRegex` likewise matches the full class or the short one (`Button`).
- `androidAccessibility.textRegex` matches the text only; the Maestro-shaped branches keep Maestro's
  meaning of text: `androidMaestro.textRegex` matches text, content description or hint, and
  `iosMaestro.textRegex` the value, label or placeholder (`accessibilityTextRegex` the label only).
- Android branches match Android nodes only, `iosMaestro` iOS nodes only.
- Relations: `below` / `above` / `leftOf` / `rightOf` hold when the node's centre lies beyond the
  anchor's edge (below: centre y ≥ anchor bottom, …) for at least one anchor; `childOf` = a
  descendant of an anchor; `containsChild` = has an anchor as a direct child;
  `containsDescendants` = every listed selector matches some descendant.
- `web.cssSelector` is matched by the browser, in the live page the capture came from (the driver
  sets `Hierarchy.css_query`), and ANDed with the branch's other fields; with no page it matches
  nothing.
- Only visible nodes match (flagged visible, non-empty on screen), anchors included. Results are
  ordered top-to-bottom, then left-to-right, then document order; `index` picks one of them.
- Uncovered matches win: when some matches lie under a dialog or the keyboard
  (`trailblaze.screen.occlusion`) and some do not, the covered ones are dropped before `index` applies, so
  `Sign out` with the confirm dialog open is the dialog's button, not the one behind it
  (docs/adr/0014-occlusion.md). When every match is covered they are kept, and a tap on one is
  refused with the reason.
- `resolve_anywhere` is the one exception to "only visible nodes": it matches every node of the dump,
  on screen or not (a list row laid out below the fold), so a lookup can scroll its target into view
  (`trailblaze.tools.scroll_into_view`). Its anchors come from every node too, spatial relations
  compare whole bounds, and neither occlusion nor `index` applies (an index counts on-screen matches).
"""

from __future__ import annotations

from collections.abc import Callable

from trailblaze.screen.hierarchy import Hierarchy, Node, Rect
from trailblaze.screen.occlusion import covers
from trailblaze.screen.patterns import compile_pattern, matcher
from trailblaze.screen.selector import (
    AndroidAccessibilitySelector,
    AndroidMaestroSelector,
    IosMaestroSelector,
    NodeSelector,
    WebSelector,
)

__all__ = [
    "EXTRA_FIELD_ATTRS",
    "branch_predicates",
    "compile_pattern",
    "css_matches",
    "describe_selector",
    "missing_attributes",
    "resolve",
    "resolve_anywhere",
    "sort_key",
]

Predicate = Callable[[Node], bool]


def sort_key(node: Node) -> tuple[float, float, int]:
    """Top-to-bottom, then left-to-right, then document order."""
    vb = node.visible_bounds
    return (vb.top, vb.left, node.order)


def _full(pattern: str, field: str | None) -> Callable[[str], bool]:
    return matcher(pattern, field)


def _id_matcher(pattern: str, field: str) -> Predicate:
    match = _full(pattern, field)

    def pred(node: Node) -> bool:
        rid = node.resource_id
        if match(rid):
            return True
        pos = rid.find(":id/")
        return pos >= 0 and match(rid[pos + 4 :])

    return pred


def _class_matcher(pattern: str) -> Predicate:
    match = _full(pattern, "classNameRegex")
    return lambda node: match(node.class_name) or match(node.short_class)


def _attr(getter: Callable[[Node], str], pattern: str, field: str) -> Predicate:
    match = _full(pattern, field)
    return lambda node: match(getter(node))


def _flag(getter: Callable[[Node], bool], expected: bool) -> Predicate:
    return lambda node: getter(node) == expected


def _android_accessibility(sel: AndroidAccessibilitySelector) -> list[Predicate]:
    preds: list[Predicate] = [lambda n: n.platform == "android"]
    if sel.resourceIdRegex is not None:
        preds.append(_id_matcher(sel.resourceIdRegex, "resourceIdRegex"))
    if sel.textRegex is not None:
        preds.append(_attr(lambda n: n.text, sel.textRegex, "textRegex"))
    if sel.contentDescriptionRegex is not None:
        preds.append(_attr(lambda n: n.label, sel.contentDescriptionRegex, "contentDescriptionRegex"))
    if sel.hintTextRegex is not None:
        preds.append(_attr(lambda n: n.hint, sel.hintTextRegex, "hintTextRegex"))
    if sel.classNameRegex is not None:
        preds.append(_class_matcher(sel.classNameRegex))
    flags: list[tuple[bool | None, Callable[[Node], bool]]] = [
        (sel.isEnabled, lambda n: n.enabled),
        (sel.isClickable, lambda n: n.clickable),
        (sel.isCheckable, lambda n: n.checkable),
        (sel.isChecked, lambda n: n.checked),
        (sel.isSelected, lambda n: n.selected),
        (sel.isFocused, lambda n: n.focused),
        (sel.isScrollable, lambda n: n.scrollable),
        (sel.isPassword, lambda n: n.password),
    ]
    preds.extend(_flag(getter, want) for want, getter in flags if want is not None)
    if sel.isEditable is not None:
        want_editable = sel.isEditable
        preds.append(lambda n: _editable(n) == want_editable)
    for name, attrs in EXTRA_FIELD_ATTRS.items():
        wanted = getattr(sel, name)
        if wanted is not None:
            preds.append(_extra_matcher(name, attrs, wanted))
    return preds


EXTRA_FIELD_ATTRS: dict[str, tuple[str, ...]] = {
    "uniqueId": ("unique-id",),
    "composeTestTagRegex": ("test-tag",),
    "labeledByTextRegex": ("labeled-by",),
    "stateDescriptionRegex": ("state-description",),
    "paneTitleRegex": ("pane-title",),
    "roleDescriptionRegex": ("role-description",),
    "isHeading": ("heading",),
    "isMultiLine": ("multi-line", "multiline"),
    "inputType": ("input-type",),
    "collectionItemRowIndex": ("collection-item-row-index",),
    "collectionItemColumnIndex": ("collection-item-column-index",),
}
"""`androidAccessibility` fields a stock uiautomator2 dump lacks, and the dump attributes they read
when a dump carries them (`isEditable` reads `editable`, else the class)."""

_EDITABLE_CLASSES = ("EditText", "AutoCompleteTextView", "SearchAutoComplete")


def _editable(node: Node) -> bool:
    raw = node.extra.get("editable") if node.extra else None
    if raw is not None:
        return raw == "true"
    return node.short_class in _EDITABLE_CLASSES


def _extra_value(node: Node, attrs: tuple[str, ...]) -> str | None:
    if not node.extra:
        return None
    for attr in attrs:
        value = node.extra.get(attr)
        if value is not None:
            return value
    return None


def _extra_matcher(name: str, attrs: tuple[str, ...], wanted: str | bool | int) -> Predicate:
    if isinstance(wanted, bool):
        text = "true" if wanted else "false"
        return lambda n: _extra_value(n, attrs) == text
    if isinstance(wanted, int):
        number = str(wanted)
        return lambda n: _extra_value(n, attrs) == number
    if name == "uniqueId":
        return lambda n: _extra_value(n, attrs) == wanted
    match = _full(wanted, name)

    def pred(node: Node) -> bool:
        value = _extra_value(node, attrs)
        return value is not None and match(value)

    return pred


def missing_attributes(selector: NodeSelector, hierarchy: Hierarchy) -> list[str]:
    """`field (attribute)` for each field of the selector (and its relations) that no node of this dump
    carries the attribute for: such a selector cannot match here, and the failure should say why."""
    out: list[str] = []
    branch = selector.androidAccessibility
    if branch is not None:
        for name, attrs in EXTRA_FIELD_ATTRS.items():
            if getattr(branch, name) is None:
                continue
            if not any(n.extra and any(a in n.extra for a in attrs) for n in hierarchy.nodes):
                out.append(f"{name} (`{attrs[0]}`)")
    subs = [getattr(selector, r) for r in ("below", "above", "leftOf", "rightOf", "childOf", "containsChild")]
    for sub in [*subs, *(selector.containsDescendants or ())]:
        if sub is not None:
            out.extend(m for m in missing_attributes(sub, hierarchy) if m not in out)
    return out


def _android_maestro(sel: AndroidMaestroSelector) -> list[Predicate]:
    # Maestro's web driver matches text and ids as its Android one does: a Maestro web flow (`url:`)
    # selects the page's elements with this branch too.
    preds: list[Predicate] = [lambda n: n.platform in ("android", "web")]
    if sel.idRegex is not None:
        preds.append(_id_matcher(sel.idRegex, "idRegex"))
    if sel.textRegex is not None:
        match = _full(sel.textRegex, "textRegex")
        preds.append(lambda n: match(n.text) or match(n.label) or match(n.hint))
    if sel.contentDescriptionRegex is not None:
        preds.append(_attr(lambda n: n.label, sel.contentDescriptionRegex, "contentDescriptionRegex"))
    if sel.hintTextRegex is not None:
        preds.append(_attr(lambda n: n.hint, sel.hintTextRegex, "hintTextRegex"))
    if sel.classNameRegex is not None:
        preds.append(_class_matcher(sel.classNameRegex))
    flags: list[tuple[bool | None, Callable[[Node], bool]]] = [
        (sel.enabled, lambda n: n.enabled),
        (sel.checked, lambda n: n.checked),
        (sel.focused, lambda n: n.focused),
        (sel.selected, lambda n: n.selected),
        (sel.clickable, lambda n: n.clickable),
    ]
    preds.extend(_flag(getter, want) for want, getter in flags if want is not None)
    return preds


def _ios_maestro(sel: IosMaestroSelector) -> list[Predicate]:
    preds: list[Predicate] = [lambda n: n.platform == "ios"]
    if sel.resourceIdRegex is not None:
        preds.append(_attr(lambda n: n.resource_id, sel.resourceIdRegex, "resourceIdRegex"))
    if sel.accessibilityTextRegex is not None:
        preds.append(_attr(lambda n: n.label, sel.accessibilityTextRegex, "accessibilityTextRegex"))
    if sel.textRegex is not None:
        match = _full(sel.textRegex, "textRegex")
        preds.append(lambda n: match(n.text) or match(n.label) or match(n.hint))
    if sel.hintTextRegex is not None:
        preds.append(_attr(lambda n: n.hint, sel.hintTextRegex, "hintTextRegex"))
    if sel.classNameRegex is not None:
        preds.append(_class_matcher(sel.classNameRegex))
    flags: list[tuple[bool | None, Callable[[Node], bool]]] = [
        (sel.focused, lambda n: n.focused),
        (sel.selected, lambda n: n.selected),
        (sel.enabled, lambda n: n.enabled),
        (sel.checked, lambda n: n.checked),
    ]
    preds.extend(_flag(getter, want) for want, getter in flags if want is not None)
    return preds


def _web(sel: WebSelector) -> list[Predicate]:
    preds: list[Predicate] = [lambda n: n.platform == "web"]
    if sel.ariaRole is not None:
        role = sel.ariaRole
        preds.append(lambda n: n.class_name == role)
    if sel.ariaNameRegex is not None:
        preds.append(_attr(lambda n: n.label, sel.ariaNameRegex, "ariaNameRegex"))
    if sel.ariaDescriptorRegex is not None:
        preds.append(_attr(lambda n: f'{n.class_name} "{n.label}"', sel.ariaDescriptorRegex, "ariaDescriptorRegex"))
    if sel.headingLevel is not None:
        level = str(sel.headingLevel)
        preds.append(lambda n: n.class_name == "heading" and (n.extra or {}).get("level") == level)
    if sel.dataTestId is not None:
        test_id = sel.dataTestId
        preds.append(lambda n: n.resource_id == test_id)
    web_flags: list[tuple[bool | None, Callable[[Node], bool]]] = [
        (sel.checked, lambda n: n.checked),
        (sel.selected, lambda n: n.selected),
        (sel.enabled, lambda n: n.enabled),
    ]
    preds.extend(_flag(getter, want) for want, getter in web_flags if want is not None)
    return preds


def branch_predicates(selector: NodeSelector) -> list[Predicate]:
    """The attribute tests of the selector's driver branch (empty when it has none)."""
    if selector.web is not None:
        return _web(selector.web)
    if selector.androidAccessibility is not None:
        return _android_accessibility(selector.androidAccessibility)
    if selector.androidMaestro is not None:
        return _android_maestro(selector.androidMaestro)
    if selector.iosMaestro is not None:
        return _ios_maestro(selector.iosMaestro)
    return []


def _below(node: Node, anchor: Node) -> bool:
    return _beneath(node.center, anchor.visible_bounds)


def _above(node: Node, anchor: Node) -> bool:
    return _over(node.center, anchor.visible_bounds)


def _left_of(node: Node, anchor: Node) -> bool:
    return _leftward(node.center, anchor.visible_bounds)


def _right_of(node: Node, anchor: Node) -> bool:
    return _rightward(node.center, anchor.visible_bounds)


def _beneath(point: tuple[float, float], anchor: Rect) -> bool:
    return point[1] >= anchor.bottom


def _over(point: tuple[float, float], anchor: Rect) -> bool:
    return point[1] <= anchor.top


def _leftward(point: tuple[float, float], anchor: Rect) -> bool:
    return point[0] <= anchor.left


def _rightward(point: tuple[float, float], anchor: Rect) -> bool:
    return point[0] >= anchor.right


def resolve(selector: NodeSelector, hierarchy: Hierarchy) -> list[Node]:
    """The visible nodes the selector matches, top-to-bottom then left-to-right.

    With `index` set, at most one node: the index-th of the ordered matches.
    """
    candidates = _matching(selector, hierarchy, _sorted_visible(hierarchy), anywhere=False)
    if len(candidates) > 1 and covers(hierarchy):
        uncovered = [n for n in candidates if n.covered_by is None]
        if uncovered:
            candidates = uncovered
    if selector.web is not None and selector.web.nthIndex is not None:
        nth = selector.web.nthIndex
        candidates = candidates[nth : nth + 1]
    if selector.index is not None:
        return candidates[selector.index : selector.index + 1]
    return candidates


def resolve_anywhere(selector: NodeSelector, hierarchy: Hierarchy) -> list[Node]:
    """Every node the selector matches, on screen or not, ordered by their whole bounds (top-to-bottom,
    then left-to-right); `index` and occlusion are not applied."""
    everything = hierarchy.memo.get("sorted_all")
    if everything is None:
        everything = sorted(hierarchy.nodes, key=lambda n: (n.bounds.top, n.bounds.left, n.order))
        hierarchy.memo["sorted_all"] = everything
    return _matching(selector, hierarchy, everything, anywhere=True)


def _matching(
    selector: NodeSelector, hierarchy: Hierarchy, candidates: list[Node], *, anywhere: bool
) -> list[Node]:
    """The `candidates` the selector's attributes, CSS and relations match (no occlusion, no index)."""
    preds = branch_predicates(selector)
    if preds:
        candidates = [n for n in candidates if all(p(n) for p in preds)]
    if selector.web is not None and selector.web.cssSelector is not None and candidates:
        matched = css_matches(hierarchy, selector.web.cssSelector)
        candidates = [n for n in candidates if n.order in matched]
    if candidates:
        candidates = _apply_relations(selector, hierarchy, candidates, anywhere=anywhere)
    return candidates


def css_matches(hierarchy: Hierarchy, css: str) -> frozenset[int]:
    """Orders of the nodes `css` matches in the live page the capture came from (asked once per
    capture); none without a page (`Hierarchy.css_query`)."""
    key = f"css\0{css}"
    found = hierarchy.memo.get(key)
    if found is None:
        query = hierarchy.css_query
        found = frozenset(query(css)) if query is not None else frozenset()
        hierarchy.memo[key] = found
    return found


def _sorted_visible(hierarchy: Hierarchy) -> list[Node]:
    cached = hierarchy.memo.get("sorted_visible")
    if cached is None:
        covers(hierarchy)  # marks `covered_by` on the nodes callers get back
        cached = sorted(hierarchy.visible_nodes(), key=sort_key)
        hierarchy.memo["sorted_visible"] = cached
    return cached


def _apply_relations(
    selector: NodeSelector, hierarchy: Hierarchy, nodes: list[Node], *, anywhere: bool
) -> list[Node]:
    find = resolve_anywhere if anywhere else resolve
    spatial = (
        (selector.below, _beneath),
        (selector.above, _over),
        (selector.leftOf, _leftward),
        (selector.rightOf, _rightward),
    )
    for rel, test in spatial:
        if rel is None:
            continue
        anchors = find(rel, hierarchy)
        # Off screen a node has no visible part: its whole bounds place it.
        if anywhere:
            nodes = [n for n in nodes if any(a is not n and test(n.bounds.center, a.bounds) for a in anchors)]
        else:
            nodes = [
                n for n in nodes if any(a is not n and test(n.center, a.visible_bounds) for a in anchors)
            ]
        if not nodes:
            return nodes
    if selector.childOf is not None:
        parents = {id(a) for a in find(selector.childOf, hierarchy)}
        nodes = [n for n in nodes if any(id(p) in parents for p in n.ancestors())]
    if selector.containsChild is not None:
        with_child = {id(c.parent) for c in find(selector.containsChild, hierarchy) if c.parent is not None}
        nodes = [n for n in nodes if id(n) in with_child]
    for sub in selector.containsDescendants or ():
        holders = {id(a) for c in find(sub, hierarchy) for a in c.ancestors()}
        nodes = [n for n in nodes if id(n) in holders]
    return nodes


def describe_selector(selector: NodeSelector) -> str:
    """A one-line rendering for error messages, e.g. `androidAccessibility{textRegex=Sign in}`."""
    parts: list[str] = []
    for key, value in selector.to_yaml_dict().items():
        if isinstance(value, dict) and key in ("androidAccessibility", "androidMaestro", "iosMaestro", "web"):
            inner = ", ".join(f"{k}={v}" for k, v in value.items())
            parts.append(f"{key}{{{inner}}}")
        elif isinstance(value, dict):
            parts.append(f"{key}({describe_selector(NodeSelector.model_validate(value))})")
        elif isinstance(value, list):
            inner = "; ".join(describe_selector(NodeSelector.model_validate(v)) for v in value)
            parts.append(f"{key}[{inner}]")
        else:
            parts.append(f"{key}={value}")
    return " ".join(parts)
