"""The facts a `verify:` step states, and whether its recorded assertions check every one.

A step that quotes text (`The snackbar "Message archived" is visible`) or names a state (`the "Dark
mode" switch is on`, `checked`, `disabled`, `selected`) states facts a replay must check. `stated_facts`
reads them from the step's text; `uncovered` says which of them no recorded assertion checks:

- a quoted text is covered by an assertion that names it: its `expectedText`, a text field of its
  selector (relations included), or the text of a text assertion (`assertNotVisibleWithText`,
  `web_verifyTextVisible`, a probe's expected value …);
- a state is covered by an assertion that pins that state (`isChecked: true`, `checked: false`, …) on
  an element that also names the quoted text the state belongs to (the nearest quote before it in the
  same clause), or on any element when the state has no quote of its own.

Used by the agent (a COMPLETED that leaves a fact uncovered is refused, naming it), `trailblaze
validate` (warnings at `file:line:col`), `trailblaze check` and the MCP server.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze.screen.patterns import PatternTooSlow, full_match

if TYPE_CHECKING:
    from trailblaze.trail.model import ToolCall

__all__ = ["Fact", "assertion_calls", "stated_facts", "uncovered"]

_QUOTE = re.compile(r'"([^"\n]+)"|\u201c([^\u201d\n]+)\u201d')
# A state word after a verb that states it ("is on", "stays off", "are checked", "turned on"), ending
# the clause: "is on the screen" is a place, not a state.
_STATE = re.compile(
    r"\b(?:is|are|be|stays?|remains?|was|were|shows? as|switched|turned|now)\s+(?:now\s+|still\s+)?"
    r"(not\s+selected|unselected|unchecked|checked|ticked|unticked|selected|enabled|disabled|on|off)"
    r"(?=\s*(?:$|[,.;:!)]|\band\b|\bbut\b|\bwhile\b|\bthen\b))",
    re.IGNORECASE,
)
_STATES: dict[str, tuple[str, bool]] = {
    "on": ("checked", True),
    "checked": ("checked", True),
    "ticked": ("checked", True),
    "off": ("checked", False),
    "unchecked": ("checked", False),
    "unticked": ("checked", False),
    "selected": ("selected", True),
    "not selected": ("selected", False),
    "unselected": ("selected", False),
    "enabled": ("enabled", True),
    "disabled": ("enabled", False),
}
_STATE_FIELDS = {
    "checked": ("isChecked", "checked"),
    "selected": ("isSelected", "selected"),
    "enabled": ("isEnabled", "enabled"),
}
_NOT_TEXT = frozenset(
    {"reason", "reasoning", "resourceIdRegex", "idRegex", "classNameRegex", "ref", "db", "file"}
)
_CLAUSE_BREAK = re.compile(r"[,;.]\s|\band\b|\bbut\b", re.IGNORECASE)


@dataclass(frozen=True)
class Fact:
    """One fact a step states: a quoted text, a state (of the quoted text before it), or both."""

    text: str | None
    state: tuple[str, bool] | None
    offset: int
    """Where in the step's text the fact is stated (for `file:line:col`)."""

    def describe(self) -> str:
        if self.state is None:
            return f'"{self.text}"'
        name, value = self.state
        word = {
            "checked": ("on", "off"),
            "selected": ("selected", "not selected"),
            "enabled": ("enabled", "disabled"),
        }
        said = word[name][0 if value else 1]
        return f'"{self.text}" is {said}' if self.text else f"{said} ({name}: {str(value).lower()})"


def stated_facts(text: str) -> list[Fact]:
    """The quoted texts and named states of a `verify:` step's text, in order."""
    quotes = [(m.start(), m.group(1) or m.group(2)) for m in _QUOTE.finditer(text)]
    facts: list[Fact] = []
    stated_with_state: set[int] = set()
    for m in _STATE.finditer(text):
        if any(start <= m.start() < start + len(q) + 2 for start, q in quotes):
            continue  # a state word inside a quote is text, not a state
        state = _STATES[" ".join(m.group(1).lower().split())]
        before = [(start, q) for start, q in quotes if start < m.start()]
        subject = None
        if before:
            start, q = before[-1]
            between = text[start + len(q) + 2 : m.start()]
            if not _CLAUSE_BREAK.search(between):
                subject = (start, q)
        if subject is not None:
            stated_with_state.add(subject[0])
            facts.append(Fact(subject[1], state, subject[0]))
        else:
            facts.append(Fact(None, state, m.start(1)))
    for start, q in quotes:
        if start not in stated_with_state:
            facts.append(Fact(q, None, start))
    return sorted(facts, key=lambda f: f.offset)


def assertion_calls(calls: Sequence[ToolCall]) -> list[ToolCall]:
    """The calls of a recording that check something (assertion kinds and custom `verify` tools)."""
    from trailblaze.tools.registry import TOOL_KINDS

    return [c for c in calls if TOOL_KINDS.get(c.name, "assertion") == "assertion"]


def uncovered(text: str, calls: Sequence[ToolCall]) -> list[Fact]:
    """The facts `text` states that none of `calls` (a step's recording) checks."""
    checks = assertion_calls(calls)
    return [f for f in stated_facts(text) if not any(_covers(c, f) for c in checks)]


def _covers(call: ToolCall, fact: Fact) -> bool:
    if fact.state is not None:
        name, value = fact.state
        if not any(_pins_state(branch, name, value) for branch in _branches(call.params)):
            return False
        if fact.text is None:
            return True
        return any(
            _pins_state(branch, name, value) and _names(fact.text, {**holder, **branch})
            for holder, branch in _selectors_with_params(call.params)
        )
    assert fact.text is not None
    return _names(fact.text, call.params)


def _names(quote: str, params: Any) -> bool:
    """Whether a string among `params` (a text, a pattern) checks `quote`."""
    for key, value in _strings(params):
        if key in _NOT_TEXT:
            continue
        if quote in value or quote in _unescape(value):
            return True
        if key.endswith("Regex") or key in ("expectedText", "textPattern"):
            try:
                if full_match(value, quote, key):
                    return True
            except PatternTooSlow:
                continue
    return False


def _strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)


def _unescape(pattern: str) -> str:
    return re.sub(r"\\(.)", r"\1", pattern)


def _branches(params: Any) -> Iterator[dict[str, Any]]:
    """Every selector branch among the params (relations included)."""
    if isinstance(params, dict):
        for key, value in params.items():
            if key in ("androidAccessibility", "androidMaestro", "iosMaestro", "web") and isinstance(
                value, dict
            ):
                yield value
            else:
                yield from _branches(value)
    elif isinstance(params, list):
        for v in params:
            yield from _branches(v)


def _selectors_with_params(params: Any) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(the call's own texts, a branch of its top selector): an `expectedText` belongs to the element
    the top selector's branch describes."""
    own = {k: v for k, v in params.items() if k in ("expectedText",)} if isinstance(params, dict) else {}
    for branch in _branches(params):
        yield own, branch


def _pins_state(branch: dict[str, Any], name: str, value: bool) -> bool:
    return any(branch.get(key) is value for key in _STATE_FIELDS[name])
