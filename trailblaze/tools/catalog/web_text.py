"""Where a page shows a text, for `web_verifyTextVisible`: in one element, or across an element and its
children, as a reader (and Playwright's `getByText`) sees it.

`<p>Current value: <span>0</span></p>` shows "Current value: 0", but no node of the hierarchy holds
it: the walk keeps each element's own text. When no node's text or label contains the text, the
smallest visible, uncovered elements whose own and descendants' texts hold every word of it are
asked for their rendered text (`innerText`, a live call per element, so only a few of them); the
comparison stays case-sensitive, with whitespace collapsed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Hierarchy, Node

__all__ = ["node_showing"]

_MAX_ASKED = 8
"""Elements asked for their rendered text per look: the deepest candidates are few on a real page."""


def _norm(text: str) -> str:
    return " ".join(text.split())


def node_showing(screen: Hierarchy, text: str, inner_text: Callable[[int], str] | None) -> Node | None:
    """A visible, uncovered node showing `text`; across child elements only with `inner_text` (a page)."""
    want = _norm(text)
    visible = [n for n in screen.visible_nodes() if n.covered_by is None]
    for node in visible:
        if any(want in _norm(s) for s in (node.text, node.label)):
            return node
    if inner_text is None or not want:
        return None
    words = want.split()
    subtree: dict[int, str] = {}

    def text_under(node: Node) -> str:
        if node.order not in subtree:
            subtree[node.order] = " ".join([node.text, node.label, *(text_under(c) for c in node.children)])
        return subtree[node.order]

    holding = {n.order for n in visible if all(w in text_under(n) for w in words)}
    deepest = [n for n in visible if n.order in holding and not any(c.order in holding for c in n.children)]
    for node in deepest[:_MAX_ASKED]:
        if want in _norm(inner_text(node.order)):
            return node
    return None
