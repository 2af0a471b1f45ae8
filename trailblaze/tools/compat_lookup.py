"""The read-compat lookups: Trailblaze's older, Maestro-lowered tools find their element with Maestro's
matching and picking (`CompatQuery`), on top of the shared lookups of `trailblaze.tools.lookup`
(docs/adr/0012-read-compat-tools.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trailblaze.screen.maestro_text import maestro_text
from trailblaze.screen.resolve import describe_selector
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.lookup import ToolContext, candidates, scroll_note, text_selector
from trailblaze.tools.scroll_into_view import Scrolled, resolve_in_view
from trailblaze.tools.tooldef import ToolResult

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Node

__all__ = ["CompatQuery", "compat_query", "find_compat"]


@dataclass(frozen=True)
class CompatQuery:
    """One read-compat lookup: Maestro's matching and picking on top of a Maestro-shaped selector."""

    selector: NodeSelector
    """The match set: text / label / hint (case-insensitive, regex or literal), id and state flags."""
    shown: NodeSelector
    """The same lookup with the raw values, for messages and near-miss ranking."""
    index: int | None
    exact: Callable[[Node], bool]

    def pick(self, nodes: list[Node]) -> Node | None:
        """The node Trailblaze would act on: the deepest matches, then the `index`-th of them
        (top-to-bottom), or else the first preferring exact-case full matches, then clickable ones."""
        inner = {id(a) for n in nodes for a in n.ancestors()}
        deepest = [n for n in nodes if id(n) not in inner]
        if self.index:
            return deepest[self.index] if self.index < len(deepest) else None
        ranked = sorted(deepest, key=lambda n: (not self.exact(n), not n.clickable))
        return ranked[0] if ranked else None

    def describe(self) -> str:
        sel = describe_selector(self.shown)
        return f"{sel} index={self.index}" if self.index else sel


def compat_query(
    run: ToolContext,
    text: str | None,
    *,
    ident: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
    index: int | None = None,
    contains: bool = False,
) -> CompatQuery:
    pattern, exact = maestro_text(text, contains=contains) if text is not None else (None, lambda n: True)
    return CompatQuery(
        selector=text_selector(run, pattern, ident=ident, enabled=enabled, selected=selected),
        shown=text_selector(run, text, ident=ident, enabled=enabled, selected=selected),
        index=index,
        exact=exact,
    )


def find_compat(run: ToolContext, q: CompatQuery) -> tuple[Node | None, ToolResult]:
    def picked(nodes: list[Node]) -> bool:
        return q.pick(nodes) is not None

    scrolled: Scrolled | None = None
    if q.index:  # the index counts the matches on screen, which scrolling changes
        res = run.session.resolve(q.selector, until=picked)
    else:
        res, scrolled = resolve_in_view(run.session, q.selector, until=picked)
    searched = scroll_note(run, scrolled)
    node = q.pick(res.nodes)
    if node is not None:
        return node, ToolResult("OK", "")
    found = f"{len(res.nodes)} match but there is no index {q.index}" if res.nodes else "nothing matches"
    return None, ToolResult(
        "NOT_FOUND",
        f"no element matches {q.describe()} after {res.waited_s:.1f} s{searched} ({found}); "
        f"{candidates(q.shown, res.hierarchy)}",
    )
