"""Selectors the device can evaluate itself, so waiting for an element costs no hierarchy dumps.

A selector of literal values — an id, a text, a content description / label, a class, a few flags,
optionally an `index` — maps to an `ElementQuery`, which a driver turns into its client's own query
(a uiautomator2 `UiSelector` with `waitForExists` / `waitUntilGone`, a WebDriverAgent predicate
string on `/elements`). Relations, real regexes, hints and the attributes a device query lacks map to
None: those selectors keep polling the dump.

The device answers *when*, the dump answers *which*: a session waits on the device until the query
matches (or stops matching), then takes one dump and resolves the selector there, so the element a
tool acts on — its visibility, its order among matches, `index`, whether a dialog or the keyboard
covers it (`trailblaze.screen.occlusion`) — is always the dump resolver's. For that the query must never miss
what the resolver finds: on every dump, every node the selector resolves to satisfies the query
(`query_matches`); the query may match more (an invisible node, WDA's `name` falling back to the
label), in which case the session falls back to polling the dump. tests/device/test_device_query.py checks
both directions on the demo app's screens and the real-world dumps.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Node
    from trailblaze.screen.selector import NodeSelector

__all__ = [
    "ElementQuery",
    "element_query",
    "ios_type",
    "is_literal",
    "is_simple",
    "query_for_node",
    "query_matches",
    "u2_selector",
    "wda_predicate",
]

_META = frozenset("\\^$*+?{}[]|()")
_XCUI = "XCUIElementType"
# androidAccessibility flags a UiSelector can express, by their UiSelector / Node attribute name
_ANDROID_FLAGS = {
    "isEnabled": "enabled",
    "isClickable": "clickable",
    "isCheckable": "checkable",
    "isChecked": "checked",
    "isSelected": "selected",
    "isFocused": "focused",
    "isScrollable": "scrollable",
}
_IOS_FLAGS = {"enabled": "enabled", "selected": "selected"}


@dataclass(frozen=True)
class ElementQuery:
    """Conditions a device evaluates (all must hold); every string is a *simple pattern*: literal
    characters plus `.` and `.*`, which Python's `re`, Java's `Pattern` and ICU (NSPredicate `MATCHES`)
    read alike. Each is full-matched, as the dump resolver does.

    Android: `resource_id` the id or its name after `:id/`; `text` the text; `label` the content
    description; `class_name` the class or its short name (`Button`).
    iOS: `resource_id` WDA's `name`; `text` Maestro's text (value, label or placeholder); `label` the
    label; `class_name` the `XCUIElementType…`, with or without the prefix.
    """

    platform: Literal["android", "ios"]
    resource_id: str | None = None
    text: str | None = None
    label: str | None = None
    class_name: str | None = None
    flags: tuple[tuple[str, bool], ...] = ()
    """(`enabled` / `clickable` / … , wanted value)."""


def is_simple(pattern: str) -> bool:
    """A non-empty pattern of literal characters, `.` and `.*` only."""
    if not pattern:
        return False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "." and pattern[i + 1 : i + 2] == "*":
            i += 2
            continue
        if c in _META:
            return False
        i += 1
    return True


def is_literal(pattern: str) -> bool:
    """A simple pattern that can only match itself."""
    return is_simple(pattern) and "." not in pattern


def element_query(selector: NodeSelector) -> ElementQuery | None:
    """The device query for `selector`, or None when only the dump can evaluate it."""
    from trailblaze.screen.selector import NodeSelector as _Sel

    relations = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild", "containsDescendants")
    if any(getattr(selector, r) for r in relations):
        return None
    fields = set(_Sel.model_fields) - {"androidAccessibility", "iosMaestro", "index", *relations}
    if any(getattr(selector, f) is not None for f in fields):  # androidMaestro: text is text|desc|hint
        return None
    if selector.androidAccessibility is not None:
        raw = selector.androidAccessibility.model_dump(exclude_none=True)
        strings = {"resourceIdRegex": "resource_id", "textRegex": "text", "contentDescriptionRegex": "label",
                   "classNameRegex": "class_name"}  # fmt: skip
        return _build("android", raw, strings, _ANDROID_FLAGS)
    if selector.iosMaestro is not None:
        raw = selector.iosMaestro.model_dump(exclude_none=True)
        strings = {"resourceIdRegex": "resource_id", "textRegex": "text", "accessibilityTextRegex": "label",
                   "classNameRegex": "class_name"}  # fmt: skip
        return _build("ios", raw, strings, _IOS_FLAGS)
    return None


def _build(
    platform: Literal["android", "ios"],
    raw: dict[str, object],
    strings: dict[str, str],
    flags: dict[str, str],
) -> ElementQuery | None:
    values: dict[str, str] = {}
    wanted: list[tuple[str, bool]] = []
    for key, value in raw.items():
        if key in strings and isinstance(value, str) and is_simple(value) and value.strip(".*"):
            values[strings[key]] = value
        elif key in flags and isinstance(value, bool):
            wanted.append((flags[key], value))
        else:
            return None  # a real regex, a hint, or an attribute the device query cannot express
    if not values:
        return None  # flags alone match half the screen: not worth a device wait
    return ElementQuery(platform, flags=tuple(wanted), **values)


def query_for_node(node: Node) -> ElementQuery | None:
    """A query that matches `node` while it shows (its id, else its text, else its label): for
    waiting out a loading indicator on the device."""
    platform: Literal["android", "ios"] = "android" if node.platform == "android" else "ios"

    # `.` in a value matches itself (and any other character): broad, never blind
    def usable(value: str) -> bool:
        return bool(value) and is_simple(value) and "*" not in value

    if usable(node.resource_id):
        return ElementQuery(platform, resource_id=node.resource_id)
    if usable(node.text):
        return ElementQuery(platform, text=node.text)
    if usable(node.label):
        return ElementQuery(platform, label=node.label)
    return None


# --- the clients' query forms ------------------------------------------------------------------------


def u2_selector(q: ElementQuery) -> dict[str, object]:
    """uiautomator2 `UiSelector` keyword arguments (`d(**kwargs)`) for an Android query."""
    out: dict[str, object] = {}
    if q.resource_id is not None:
        out["resourceIdMatches"] = _ANY_PACKAGE + q.resource_id
    for value, plain, regex in (
        (q.text, "text", "textMatches"),
        (q.label, "description", "descriptionMatches"),
    ):
        if value is not None:
            if is_literal(value):
                out[plain] = value
            else:
                out[regex] = value
    if q.class_name is not None:
        out["classNameMatches"] = _ANY_OUTER_CLASS + q.class_name
    out.update(dict(q.flags))
    return out


def wda_predicate(q: ElementQuery) -> str:
    """A WebDriverAgent predicate string for an iOS query."""
    parts: list[str] = []
    if q.resource_id is not None:
        parts.append(_compare("name", q.resource_id))
    if q.text is not None:
        parts.append(
            "(" + " OR ".join(_compare(k, q.text) for k in ("value", "label", "placeholderValue")) + ")"
        )
    if q.label is not None:
        parts.append(_compare("label", q.label))
    if q.class_name is not None:
        if is_literal(q.class_name):
            parts.append(_compare("type", ios_type(q.class_name)))
        else:
            parts.append(f"type MATCHES {_quote(_XCUI_OPTIONAL + q.class_name)}")
    parts.extend(f"{name} == {1 if want else 0}" for name, want in q.flags)
    return " AND ".join(parts)


_ANY_PACKAGE = "(?:.*:id/)?"
_ANY_OUTER_CLASS = "(?:.*\\.)?"
_XCUI_OPTIONAL = "(XCUIElementType)?"


def _compare(key: str, pattern: str) -> str:
    return f"{key} == {_quote(pattern)}" if is_literal(pattern) else f"{key} MATCHES {_quote(pattern)}"


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


# --- the same, evaluated on a dump -----------------------------------------------------------------


def query_matches(query: ElementQuery, node: Node) -> bool:
    """What the device evaluates for `query`, evaluated on a dump node: the same patterns the drivers
    send, in our node model (WDA's `name` is the identifier, or the label when there is none)."""
    if node.platform != query.platform or (node.platform == "ios" and node.parent is None):
        return False  # WDA's `/elements` searches below the application element, not the element itself
    q = query
    checks: list[tuple[str | None, str, tuple[str, ...]]]
    if q.platform == "android":
        checks = [
            (q.resource_id, _ANY_PACKAGE, (node.resource_id,)),
            (q.text, "", (node.text,)),
            (q.label, "", (node.label,)),
            (q.class_name, _ANY_OUTER_CLASS, (node.class_name,)),
        ]
    else:
        checks = [
            (q.resource_id, "", (node.resource_id or node.label,)),
            (q.text, "", (node.value, node.label, node.hint)),
            (q.label, "", (node.label,)),
            (q.class_name, _XCUI_OPTIONAL, (node.class_name,)),
        ]
    for pattern, prefix, values in checks:
        if pattern is None:
            continue
        rx = _compiled(prefix + pattern)
        if not any(rx.fullmatch(v) for v in values):
            return False
    return all(getattr(node, name) == want for name, want in q.flags)


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.DOTALL)


def ios_type(class_name: str) -> str:
    """`XCUIElementTypeButton` for `Button` and for itself."""
    return class_name if class_name.startswith(_XCUI) else _XCUI + class_name
