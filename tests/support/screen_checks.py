"""Checks over any screen, shared by the tests of the compact view and of selectors and by the demo-app
round trip (tests/screen/test_selectors_demo.py): parametrise them over any `Hierarchy`."""

from __future__ import annotations

from trailblaze.screen.compact import compact_view
from trailblaze.screen.hierarchy import Hierarchy
from trailblaze.screen.occlusion import covers
from trailblaze.screen.resolve import resolve
from trailblaze.screen.selector_gen import generate_selector, hit_test, selector_for


def covers_every_interactive_node(h: Hierarchy) -> list[str]:
    """Visible interactive nodes of the app windows that have no ref (parametrise over any capture).

    A node under a dialog or the keyboard has a ref only among the hidden ones (`view.covered`)."""
    view = compact_view(h)
    with_ref = {id(n) for n in view.refs.values()}
    hidden = {id(n) for n in view.covered.values()}
    missing = []
    for node in h.visible_nodes():
        if h.window_kind(node) != "app" or not node.interactive:
            continue
        if node.covered:
            if id(node) not in hidden:
                missing.append(f"{node!r} (covered, no hidden ref)")
            continue
        if any(a.short_class in ("StatusBar", "Keyboard") for a in node.ancestors()):
            continue
        if id(node) not in with_ref:
            missing.append(repr(node))
    return missing



def round_trip(h: Hierarchy) -> tuple[int, list[str]]:
    """Checks every visible interactive node: its selector resolves to exactly it (a covered node
    gets none).

    Returns the number checked and a description of every miss. Parametrise over any `Hierarchy`.
    """
    misses: list[str] = []
    checked = 0
    covers(h)
    for node in h.visible_nodes():
        if not node.interactive:
            continue
        checked += 1
        if node.covered:
            # Under a dialog or the keyboard: a tap would land on the cover, so no selector at all.
            if selector_for(node, h) is not None or generate_selector(node, h) is not None:
                misses.append(f"{node!r}: covered by {node.covered_by} but got a selector")
            continue
        sel = selector_for(node, h)
        found = resolve(sel, h) if sel is not None else []
        if found != [node]:
            misses.append(f"{node!r}: {sel.to_yaml_dict() if sel else None} -> {found}")
        hit_sel = generate_selector(node, h)
        target = hit_test(h, *node.center)
        if hit_sel is None or len(resolve(hit_sel, h)) != 1:
            misses.append(f"{node!r}: hit-tested selector {hit_sel} is not unique (hit {target!r})")
    return checked, misses
