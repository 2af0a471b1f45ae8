"""Maestro's element selectors on trailblaze's hierarchy, with Maestro's matching rules.

- `text` matches an element's text, hint or accessibility text (Android content description, iOS
  label): a regex matching the whole value, ignoring case, `.` matching newlines — or the value equal
  to the text as written (so `Sign in (beta)` works although it is not the regex it looks like).
- `id` matches the whole resource id or the part after its last `/` (`email` for
  `com.example:id/email`), as a whole-value regex ignoring case; on iOS, the accessibility identifier.
- `enabled` / `checked` / `focused` / `selected` are state filters; `below` / `above` / `leftOf` /
  `rightOf` / `childOf` / `containsChild` / `containsDescendants` are nested selectors.
- Among several matches Maestro takes the deepest ones (an element and its parent both showing the
  text: the child), then the `index`-th top-to-bottom, else the first clickable one, else the first.

The match set comes from `trailblaze.screen.resolve` (visible elements, uncovered ones first); this module
builds the platform's Maestro-shaped `nodeSelector` and picks among its matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze.maestro.commands import as_bool, as_int
from trailblaze.screen.selector import NodeSelector

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Node

__all__ = ["Query", "query", "regex_hint", "text_pattern"]

_RELATIONS = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild")
_STATES = ("enabled", "checked", "focused", "selected")


def text_pattern(text: str) -> str:
    """Maestro's text match as one full-match regex: the regex ignoring case, or the literal text."""
    literal = re.escape(text)
    try:
        re.compile(text)
    except re.error:
        return f"(?is:{literal})"
    return f"(?is:(?:{text})|(?:{literal}))" if text != literal else f"(?is:{literal})"


_META = ".^$*+?()[]{}|\\"


def regex_hint(text: str) -> str | None:
    """Why a failing text selector may not mean what it looks like: Maestro matches `text` as a
    regular expression, so `Sign out?` also matches "Sign out". None when `text` has no regex
    character (or is no valid regex, so it only matches as written)."""
    at = next((i for i, c in enumerate(text) if c in _META), None)
    if at is None:
        return None
    try:
        re.compile(text)
    except re.error:
        return None
    char, before = text[at], text[at - 1] if at > 0 else ""
    what = {
        "?": f"makes the `{before}` optional" if before else "makes what comes before it optional",
        "*": f"repeats the `{before}` any number of times, none included"
        if before
        else "repeats what comes before it",
        "+": f"repeats the `{before}`" if before else "repeats what comes before it",
        ".": "matches any character",
        "(": "starts a group (the parentheses are not matched)",
        ")": "ends a group (the parentheses are not matched)",
        "[": "starts a set of characters, any one of which matches",
        "]": "ends a set of characters",
        "{": "starts a repeat count",
        "}": "ends a repeat count",
        "|": "means or",
        "^": "anchors at the start",
        "$": "anchors at the end",
        "\\": "escapes the next character",
    }[char]
    literal = "".join(f"\\{c}" if c in _META else c for c in text)
    return (
        f"'{text}' is a regular expression (Maestro matches text as one): `{char}` {what}; "
        f"write `{literal}` to match it literally"
    )


@dataclass(frozen=True)
class Query:
    """One Maestro selector for one platform: what `trailblaze.screen.resolve` matches, then how to pick."""

    selector: NodeSelector
    index: int | None
    deepest: bool
    shown: str
    size: tuple[int | None, int | None, int] = (None, None, 0)
    hint: str | None = None
    """Said when the selector fails: its text is a regular expression (`regex_hint`)."""
    """Maestro's `width` / `height` (pixels) and `tolerance`: the element's size within it."""
    """The selector as the flow wrote it, for messages."""

    def pick(self, nodes: list[Node]) -> Node | None:
        """The element Maestro acts on among `nodes` (resolve's top-to-bottom order), or None."""
        width, height, tolerance = self.size
        if width is not None:
            nodes = [n for n in nodes if abs(n.bounds.width - width) <= tolerance]
        if height is not None:
            nodes = [n for n in nodes if abs(n.bounds.height - height) <= tolerance]
        if self.deepest:
            inner = {id(a) for n in nodes for a in n.ancestors()}
            nodes = [n for n in nodes if id(n) not in inner]
        if self.index is not None:
            return nodes[self.index] if 0 <= self.index < len(nodes) else None
        clickable = [n for n in nodes if n.clickable]
        ranked = clickable or nodes
        return ranked[0] if ranked else None

    def found(self) -> Callable[[list[Node]], bool]:
        return lambda nodes: self.pick(nodes) is not None


def query(fields: dict[str, Any], platform: str) -> Query:
    """The `Query` for a Maestro selector's fields on `platform` (`android` or `ios`).

    Raises:
        ValueError: a field value this platform cannot match (e.g. a non-numeric index).
    """
    index = fields.get("index")
    number = None if index is None else as_int(index)
    if index is not None and number is None:
        raise ValueError(f"index is a number, found {index!r}")
    return Query(
        selector=NodeSelector.model_validate(_selector(fields, platform)),
        index=number,
        deepest="text" in fields or "id" in fields,
        shown=describe(fields),
        size=(_number(fields, "width"), _number(fields, "height"), _number(fields, "tolerance") or 0),
        hint=regex_hint(str(fields["text"])) if fields.get("text") is not None else None,
    )


def _number(fields: dict[str, Any], key: str) -> int | None:
    if fields.get(key) is None:
        return None
    value = as_int(fields[key])
    if value is None:
        raise ValueError(f"{key} is a number, found {fields[key]!r}")
    return value


def describe(fields: dict[str, Any]) -> str:
    """`text "Sign in", below text "Email"` — a Maestro selector in a few words."""
    parts = [f"{k} {fields[k]!r}" for k in ("text", "id") if fields.get(k) is not None]
    parts += [f"{k}={fields[k]}" for k in (*_STATES, "index", "width", "height") if fields.get(k) is not None]
    for rel in _RELATIONS:
        sub = fields.get(rel)
        if sub is not None:
            parts.append(f"{rel} ({describe(sub) if isinstance(sub, dict) else repr(sub)})")
    subs = fields.get("containsDescendants")
    if isinstance(subs, list) and subs:
        inner = "; ".join(describe(d) if isinstance(d, dict) else repr(d) for d in subs)
        parts.append(f"containsDescendants ({inner})")
    return ", ".join(parts) or "any element"


def _selector(fields: dict[str, Any] | str, platform: str) -> dict[str, Any]:
    if isinstance(fields, str):
        fields = {"text": fields}
    branch: dict[str, Any] = {}
    if fields.get("text") is not None:
        branch["textRegex"] = text_pattern(str(fields["text"]))
    if fields.get("id") is not None:
        pattern = text_pattern(str(fields["id"]))
        branch["resourceIdRegex" if platform == "ios" else "idRegex"] = pattern
    for state in _STATES:
        if fields.get(state) is not None:
            want = as_bool(fields[state])
            if want is None:
                raise ValueError(f"{state} is true or false, found {fields[state]!r}")
            branch[state] = want
    out: dict[str, Any] = {"iosMaestro" if platform == "ios" else "androidMaestro": branch}
    for rel in _RELATIONS:
        if fields.get(rel) is not None:
            out[rel] = _selector(fields[rel], platform)
    if fields.get("containsDescendants"):
        out["containsDescendants"] = [_selector(s, platform) for s in fields["containsDescendants"]]
    return out
