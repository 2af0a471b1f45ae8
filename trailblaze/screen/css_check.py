"""A check of a CSS selector's shape before any browser sees it, so that a trail with a broken
`cssSelector` fails at load with `file:line:col` instead of mid-run.

It is deliberately conservative: it rejects only what every CSS engine rejects (unbalanced brackets
or quotes, a dangling combinator, an empty alternative), never a selector a browser or Playwright's
CSS extensions would take. The browser's own parser has the last word at run time.
"""

from __future__ import annotations

__all__ = ["css_problem"]

_CLOSE = {")": "(", "]": "["}
_COMBINATORS = (">", "+", "~", ",")


def css_problem(css: str) -> str | None:
    """What is wrong with `css` in one phrase (`unclosed '['`), or None when it may be CSS."""
    if not css.strip():
        return "it is empty"
    stack: list[str] = []
    quote = ""
    escaped = False
    outside: list[str] = []  # the characters outside strings, to look at the combinators
    for char in css:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "([":
            stack.append(char)
        elif char in _CLOSE:
            if not stack or stack[-1] != _CLOSE[char]:
                return f"unexpected {char!r}"
            stack.pop()
        if not quote:
            outside.append(char if not stack else " ")
    if quote:
        return f"unclosed {quote} quote"
    if stack:
        return f"unclosed {stack[-1]!r}"
    text = "".join(outside).strip()
    if text.endswith(_COMBINATORS):
        return f"it ends with {text[-1]!r}"
    if any(not part.strip() for part in text.split(",")):
        return "an empty selector between commas"
    return None
