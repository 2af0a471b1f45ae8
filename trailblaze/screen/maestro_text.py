"""Maestro's text matching, as Trailblaze's read-compat tools and the catalog's text lookups use it:
a value matches when the pattern matches it whole, or equals it literally, ignoring case
(docs/adr/0012-read-compat-tools.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from trailblaze.screen.patterns import full_match

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Node

__all__ = ["maestro_text"]


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def maestro_text(text: str, *, contains: bool) -> tuple[str, Callable[[Node], bool]]:
    """Maestro's text pattern for `text` and the exact-match test used to prefer among matches.

    Maestro matches a value when the regex matches it whole or the value equals the pattern
    literally, ignoring case; Trailblaze's `tapOnElementWithText` also accepts the literal text
    anywhere inside a longer one.
    """
    literal = re.escape(text)
    alts = [text, literal] if _compiles(text) and text != literal else [literal]
    exact = "|".join(f"(?:{a})" for a in alts)
    if contains:
        alts.append(f".*{literal}.*")
    pattern = "(?i:" + "|".join(f"(?:{a})" for a in alts) + ")"

    def is_exact(node: Node) -> bool:
        return any(full_match(exact, v, "text") for v in (node.text, node.label, node.hint) if v)

    return pattern, is_exact
