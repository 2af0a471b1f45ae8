"""Selector regexes with a time bound: a trail's pattern can never hang a run.

Python's `re` backtracks, so a pattern like `(a|aa)+c` takes exponential time on a long value, and a
selector is polled against every node of every dump until its timeout. Patterns that cannot blow
up — no repeated group, no backreference, at most two choice points — run on `re` (the fast common
case: recorded ids and texts); every other pattern runs on the `regex` engine with a timeout per
value (results cached per value), and a timeout raises `PatternTooSlow` naming the pattern
(docs/adr/0018).

Semantics stay Python's `re` syntax, full match, `.` matching newlines; a value that does not compile
matches literally. Java's literal quotes `\\Q…\\E` (what Trailblaze's `Regex.escape` writes into its
recordings) are read as the literal text between them (docs/adr/0039-web-node-selector.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from trailblaze.errors import TrailFailed

if TYPE_CHECKING:
    import regex

__all__ = ["MATCH_TIMEOUT_S", "PatternTooSlow", "compile_pattern", "full_match", "matcher"]

# One value of one node: a sane pattern takes microseconds on a UI string, so this only stops runaways.
MATCH_TIMEOUT_S = 0.1


class PatternTooSlow(TrailFailed):
    """A selector regex took longer than `MATCH_TIMEOUT_S` on one value: it backtracks catastrophically."""

    def __init__(self, pattern: str, field: str | None) -> None:
        where = f" in {field}" if field else ""
        super().__init__(
            f"regex '{pattern}'{where} took too long to match (over {MATCH_TIMEOUT_S:g} s on one value); "
            "simplify it: nested repeats such as (a+)+ or (a|aa)+ backtrack exponentially"
        )
        self.pattern = pattern


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The compiled full-match pattern for a selector value; invalid regexes match literally."""
    source = _java_quotes(pattern) if "\\Q" in pattern else pattern
    try:
        return re.compile(source, re.DOTALL)
    except re.error:
        return re.compile(re.escape(pattern), re.DOTALL)


def _java_quotes(pattern: str) -> str:
    """`pattern` with each Java quote `\\Q…\\E` (to the end when `\\E` is missing) as the escaped literal;
    an escaped backslash (`\\\\Q`) starts none."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("\\Q", i):
            end = pattern.find("\\E", i + 2)
            stop = n if end < 0 else end
            out.append(re.escape(pattern[i + 2 : stop]))
            i = n if end < 0 else end + 2
        elif pattern[i] == "\\":
            out.append(pattern[i : i + 2])
            i += 2
        else:
            out.append(pattern[i])
            i += 1
    return "".join(out)


def matcher(pattern: str, field: str | None = None) -> Callable[[str], bool]:
    """A full-match test for `pattern`; `field` names it in the error (e.g. `textRegex`).

    The test raises `PatternTooSlow` when one value takes longer than `MATCH_TIMEOUT_S`.
    """
    compiled = compile_pattern(pattern)
    if _cannot_blow_up(compiled.pattern):
        return lambda value: compiled.fullmatch(value) is not None
    source = compiled.pattern

    def match(value: str) -> bool:
        try:
            return _bounded_match(source, value)
        except TimeoutError:
            raise PatternTooSlow(pattern, field) from None

    return match


def full_match(pattern: str, value: str, field: str | None = None) -> bool:
    """Whether `pattern` matches all of `value` (see `matcher`)."""
    return matcher(pattern, field)(value)


@lru_cache(maxsize=8192)
def _bounded_match(pattern: str, value: str) -> bool:
    # cached: the same values come back poll after poll, and a timed match costs ~20x an untimed one
    return _bounded(pattern).fullmatch(value, timeout=MATCH_TIMEOUT_S) is not None


@lru_cache(maxsize=1024)
def _bounded(pattern: str) -> regex.Pattern[str]:
    import regex  # only patterns that may backtrack badly need it

    return regex.compile(pattern, regex.DOTALL | regex.VERSION0)


@lru_cache(maxsize=4096)
def _cannot_blow_up(pattern: str) -> bool:
    """No repeated group, no backreference, and at most two choice points (repeats `* + ? {}`, `|`).

    Exponential backtracking needs a repeated group or a run of choices (`a?a?a?…aaa`, `(a|a)(a|a)…`);
    with two choice points a failing match tries at most a quadratic number of paths. Conservative:
    a literal `{` counts as a repeat.
    """
    choices = 0
    in_class = False
    previous = ""  # the previous token: "(", ")", "repeat" or "" (anything else)
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        token = ""
        if c == "\\":
            if not in_class and i + 1 < n and (pattern[i + 1].isdigit() or pattern[i + 1] in "gk"):
                return False  # a backreference (\1, \g<1>, \k<name> in regex)
            i += 2
            previous = ""
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "^":
                i += 1
            if pattern[i + 1 : i + 2] == "]":  # `[]...]`: a literal `]` first in the class
                i += 1
        elif c == "(":
            if pattern[i + 1 : i + 4] == "?P=":
                return False  # (?P=name) backreference
            token = "("
        elif c == ")":
            token = ")"
        elif c == "?" and previous == "(":
            pass  # `(?:`, `(?i:`, `(?P<name>`: group syntax, not a repeat
        elif c in "*+?{":
            if previous == ")":
                return False
            if previous != "repeat":  # `*?`, `++`: a lazy / possessive mark on the same repeat
                choices += 1
            token = "repeat"
        elif c == "|":
            choices += 1
        previous = token
        i += 1
    return choices <= 2
