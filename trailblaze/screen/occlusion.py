"""Occlusion: which nodes of a `Hierarchy` sit under a dialog or the keyboard drawn above them.

A node is *covered* when a tap on its tap point (the centre of its visible part, the point every
tap uses) would land on something drawn above it (docs/adr/0014-occlusion.md):

- **Android** — every node of a window below a dialog or popup window (an app window smaller than
  the activity window it overlaps, with something to touch in it: its dimmed backdrop or
  touch-outside handling takes the tap wherever the point is), and every node of an app window
  whose tap point lies inside the IME window. System bars and non-interactive windows (toasts,
  tooltips) cover nothing.
- **iOS** — every node drawn before an `Alert` or `Sheet` (the modal's backdrop spans the screen),
  and every node drawn before the `Keyboard` whose tap point lies inside it.

A scrollable container still partly outside the keyboard is not covered: it is used by swiping in
its uncovered part, not by a tap at its centre.

`covers` computes this once per capture (memoised in `Hierarchy.memo`) and sets `Node.covered_by`;
every consumer (compaction, resolution, taps, selector generation) calls it before reading
`node.covered`. It is lazy so that a parse that nobody compacts or taps on pays nothing.
"""

from __future__ import annotations

from trailblaze.screen.hierarchy import Cover, Hierarchy, Node, Rect

__all__ = ["covers"]

_IOS_MODALS = frozenset({"XCUIElementTypeAlert", "XCUIElementTypeSheet"})
_KEYBOARD = "XCUIElementTypeKeyboard"
_MEMO = "covers"


def covers(hierarchy: Hierarchy) -> list[Cover]:
    """The dialogs and keyboards covering parts of this capture, topmost first; marks the nodes."""
    found: list[Cover] | None = hierarchy.memo.get(_MEMO)
    if found is None:
        if hierarchy.platform == "web":
            found = _web(hierarchy)
        else:
            found = _android(hierarchy) if hierarchy.platform == "android" else _ios(hierarchy)
        hierarchy.memo[_MEMO] = found
    return found


def _title(root: Node) -> str:
    """The first text a person reads in a dialog (its title)."""
    if root.platform == "ios" and root.label:
        return root.label
    for node in root.walk():
        if node.on_screen and (node.text or node.label):
            return " ".join((node.text or node.label).split())
    return ""


def _cover_all(nodes: list[Node], cover: Cover) -> None:
    for node in nodes:
        if node.covered_by is None:
            node.covered_by = cover
            if node.on_screen:
                cover.hidden += 1


def _cover_area(nodes: list[Node], cover: Cover) -> None:
    area = cover.area
    assert area is not None
    left, top, right, bottom = area
    for node in nodes:
        if node.covered_by is not None or not node.on_screen:
            continue
        vb = node.visible_bounds
        x = (vb.left + vb.right) / 2
        y = (vb.top + vb.bottom) / 2
        if not (left <= x < right and top <= y < bottom):
            continue
        if node.scrollable and (vb.top < top or vb.bottom > bottom or vb.left < left or vb.right > right):
            continue
        node.covered_by = cover
        cover.hidden += 1


# --------------------------------------------------------------------------------------------------
# Android: windows


def _interactive(root: Node) -> bool:
    return any(n.on_screen and n.interactive for n in root.walk())


def _overlaps(a: Rect, b: Rect) -> bool:
    return a.left < b.right and b.left < a.right and a.top < b.bottom and b.top < a.bottom


def _android(hierarchy: Hierarchy) -> list[Cover]:
    apps: list[Node] = []
    imes: list[Node] = []
    for root in hierarchy.roots:
        if not root.on_screen:
            continue
        kind = hierarchy.window_kind(root)
        if kind == "app":
            apps.append(root)
        elif kind == "ime":
            imes.append(root)
    if not imes and len(apps) < 2:
        return []  # the common case: one app window, no keyboard
    windows: dict[int, list[Node]] = {}
    for node in hierarchy.nodes:
        windows.setdefault(node.window, []).append(node)
    found: list[Cover] = []
    for ime in imes:
        keyboard = Cover("keyboard", ime, "", ime.visible_bounds)
        for root in apps:
            _cover_area(windows.get(root.window, []), keyboard)
        found.append(keyboard)
    if len(apps) > 1:
        # The activity is the largest app window; a smaller one over it is a dialog or popup. Larger
        # windows are lower: the smallest modal is on top and covers every window below it.
        ranked = sorted(apps, key=lambda r: (-r.visible_bounds.area, r.window))
        base = ranked[0]
        modals = [
            r
            for r in ranked[1:]
            if r.visible_bounds.area < base.visible_bounds.area
            and _overlaps(r.visible_bounds, base.visible_bounds)
            and _interactive(r)
        ]
        if modals:
            top = modals[-1]
            dialog = Cover("dialog", top, _title(top))
            for root in apps:
                if root is not top:
                    _cover_all(windows.get(root.window, []), dialog)
            found.insert(0, dialog)
    return [c for c in found if c.hidden]


# --------------------------------------------------------------------------------------------------
# iOS: later sibling subtrees


def _ios(hierarchy: Hierarchy) -> list[Cover]:
    nodes = hierarchy.nodes
    modal: Node | None = None
    keyboard: Node | None = None
    for node in nodes:
        cls = node.class_name
        if cls in _IOS_MODALS and node.on_screen:
            modal = node  # the last one in document order is drawn on top
        elif cls == _KEYBOARD and node.on_screen and keyboard is None:
            keyboard = node
    if modal is None and keyboard is None:
        return []
    found: list[Cover] = []
    if keyboard is not None:
        cover = Cover("keyboard", keyboard, "", keyboard.visible_bounds)
        _cover_area(_drawn_below(hierarchy, keyboard), cover)
        found.append(cover)
    if modal is not None:
        dialog = Cover("dialog", modal, _title(modal))
        _cover_all(_drawn_below(hierarchy, modal), dialog)
        found.insert(0, dialog)
    return [c for c in found if c.hidden]


def _drawn_below(hierarchy: Hierarchy, top: Node) -> list[Node]:
    """The app nodes drawn before `top` (document order), except the ones that contain it."""
    ancestors = {id(a) for a in top.ancestors()}
    below = hierarchy.nodes[: top.order]
    return [
        n
        for n in below
        if id(n) not in ancestors and n.parent is not None and hierarchy.window_kind(n) == "app"
    ]


# --------------------------------------------------------------------------------------------------
# Web: a modal dialog covers the whole page outside itself


def _web(hierarchy: Hierarchy) -> list[Cover]:
    modal: Node | None = None
    for node in hierarchy.nodes:
        if node.extra and node.extra.get("modal") == "true" and node.on_screen:
            modal = node  # the last one in document order is the one opened last, on top
    if modal is None:
        return []
    inside = {id(n) for n in modal.walk()} | {id(a) for a in modal.ancestors()}
    dialog = Cover("dialog", modal, modal.label or _title(modal))
    _cover_all([n for n in hierarchy.nodes if id(n) not in inside], dialog)
    return [dialog] if dialog.hidden else []
