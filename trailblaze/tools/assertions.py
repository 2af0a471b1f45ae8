"""What a recorded assertion pins: the element's identity and the fact the model saw on it.

An assertion recorded as "this element exists" cannot fail when the app shows the wrong message in
the right place. So when the agent, an MCP client or `trailblaze tool` asserts on an element, the
recording keeps, next to the identity selector (`trailblaze.screen.selector_gen.selector_for`):

- the **text** the element shows (text, else label; an iOS value), exact: `expectedText`, compared
  trimmed and case-sensitive, as Trailblaze's `assertVisibleBySelector` compares it. The text is left
  out only when the identity selector already pins that very text (`textRegex: Inbox`).
- its **state** where it has one: checked for a switch / checkbox (both values), selected when
  selected, enabled when disabled — in the branch's own fields (`isChecked` on Android, `checked` on
  iOS and the web, see docs/adr/0038-assertions-pin-facts.md).

Widening is deliberate, never by omission: the model passes `textPattern` (a regex) for a part that
legitimately varies, and the recording says so with `textMatchMode: REGEX`.

`text_matches` is the comparison replay uses (`trailblaze.tools.execute`), so a pinned fact means the same
thing at record time, at replay and in the offline mutation proof (`trailblaze.mutation.mutants`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from trailblaze.screen.hierarchy import Hierarchy, Node
from trailblaze.screen.patterns import full_match
from trailblaze.screen.selector import NodeSelector
from trailblaze.screen.selector_gen import literal, selector_for

__all__ = [
    "STATE_KEYS",
    "Pinned",
    "TextMode",
    "pin_assertion",
    "shown_text",
    "state_fields",
    "text_carrier",
    "text_matches",
]

TextMode = Literal["EXACT", "PREFIX", "REGEX"]

STATE_KEYS: dict[str, dict[str, str]] = {
    "androidAccessibility": {
        "checked": "isChecked",
        "selected": "isSelected",
        "enabled": "isEnabled",
        "focused": "isFocused",
    },
    "androidMaestro": {
        "checked": "checked",
        "selected": "selected",
        "enabled": "enabled",
        "focused": "focused",
    },
    "iosMaestro": {"checked": "checked", "selected": "selected", "enabled": "enabled", "focused": "focused"},
    "web": {"checked": "checked", "selected": "selected", "enabled": "enabled"},
}
"""Per selector branch: the field that pins each state (`checked`, `selected`, `enabled`, `focused`)."""

_TEXT_KEYS = ("textRegex", "accessibilityTextRegex", "contentDescriptionRegex", "ariaNameRegex")


def shown_text(node: Node) -> str:
    """The text a person reads on the element: its text, else its label (iOS: label first, except
    in a text field, where what was typed comes first), else an iOS value that is not a switch state."""
    if node.platform == "ios" and not (node.text and node.editable):
        first = node.label or node.text
    else:
        first = node.text or ("" if node.label == "null" else node.label)
    if first.strip():
        return first.strip()
    if node.platform == "ios" and node.value and not node.checkable:
        return node.value.strip()
    return ""


def text_carrier(node: Node) -> Node:
    """The node whose text an assertion on `node` pins: the node itself when it shows text (or is a
    switch), else its first visible descendant that does (a list row shows its title's text)."""
    if shown_text(node) or node.checkable:
        return node
    for desc in node.walk():
        if desc is not node and desc.on_screen and shown_text(desc):
            return desc
    return node


def text_matches(node: Node, expected: str, mode: TextMode | None = None) -> bool:
    """Whether the element shows `expected` (trimmed, case-sensitive; `mode` EXACT by default)."""
    want = expected.strip()
    for value in {node.text.strip(), node.label.strip(), node.value.strip()}:
        if not value and want:
            continue
        if mode == "REGEX":
            if full_match(expected, value, "expectedText"):
                return True
        elif mode == "PREFIX":
            if value.startswith(want):
                return True
        elif value == want:
            return True
    return False


def state_fields(node: Node, branch: str) -> dict[str, bool]:
    """The state an assertion on `node` pins, as fields of selector branch `branch`: checked for a
    switch or checkbox (either value), selected when selected, enabled when disabled.

    Focus is not pinned unless asked for: it moves with the keyboard, and a trail's `verify:` rarely
    states it."""
    keys = STATE_KEYS.get(branch, {})
    out: dict[str, bool] = {}
    if node.checkable and "checked" in keys:
        out[keys["checked"]] = node.checked
    if node.selected and "selected" in keys:
        out[keys["selected"]] = True
    if not node.enabled and "enabled" in keys:
        out[keys["enabled"]] = False
    return out


def _observed(node: Node) -> dict[str, bool]:
    return {
        "checked": node.checked,
        "selected": node.selected,
        "enabled": node.enabled,
        "focused": node.focused,
    }


_SAYS = {
    "checked": ("on (checked)", "off (unchecked)"),
    "selected": ("selected", "not selected"),
    "enabled": ("enabled", "disabled"),
    "focused": ("focused", "not focused"),
}


@dataclass(frozen=True)
class Pinned:
    """An assertion's recorded params, or why it cannot be recorded (the model sees `problem`)."""

    params: dict[str, Any] | None
    problem: str | None = None


def pin_assertion(
    node: Node,
    hierarchy: Hierarchy,
    *,
    expected_text: str | None = None,
    text_pattern: str | None = None,
    state: dict[str, bool] | None = None,
) -> Pinned:
    """The `assertVisibleBySelector` params that pin what `node` shows now (see module docstring).

    `expected_text` / `state` are what the model states; they must agree with what the screen shows
    (an assertion that would fail as recorded is refused with the difference). `text_pattern` widens
    the text to a regex the shown text must match."""
    target = text_carrier(node) if not state else node
    selector = selector_for(target, hierarchy)
    if selector is None:
        return Pinned(None, "cannot be identified by a selector; assert on a labelled element")
    shown = shown_text(target)
    data = selector.to_yaml_dict()
    branch = selector.branch_name or ""
    fields = data.setdefault(branch, {}) if branch else {}
    observed = _observed(target)
    for key, want in (state or {}).items():
        if key not in STATE_KEYS.get(branch, {}):
            return Pinned(None, f"`{key}` cannot be checked on this platform's elements")
        if key == "checked" and not target.checkable:
            return Pinned(
                None, f"{_name(target, shown)} is not a switch or checkbox; it has no checked state"
            )
        if observed[key] != want:
            says = _SAYS[key][0 if observed[key] else 1]
            return Pinned(
                None, f"{_name(target, shown)} is {says} on the screen, not {_SAYS[key][0 if want else 1]}"
            )
        fields[STATE_KEYS[branch][key]] = want
    if branch:
        for key, value in state_fields(target, branch).items():
            fields.setdefault(key, value)
    params: dict[str, Any] = {"nodeSelector": NodeSelector.model_validate(data).to_yaml_dict()}
    if text_pattern is not None:
        if not full_match(text_pattern, shown, "textPattern"):
            return Pinned(
                None,
                f"{_name(target, shown)} shows {shown!r}, which textPattern {text_pattern!r} does not match",
            )
        params["expectedText"] = text_pattern
        params["textMatchMode"] = "REGEX"
        return Pinned(params)
    if expected_text is not None and expected_text.strip() != shown:
        if not text_matches(target, expected_text):
            return Pinned(
                None,
                f"{_name(target, shown)} shows {shown!r}, not {expected_text.strip()!r}; assert what the screen "
                "shows, or report FAILED if the app is wrong",
            )
    if shown and not _pins_text(fields, shown):
        params["expectedText"] = shown
    return Pinned(params)


def _pins_text(fields: dict[str, Any], shown: str) -> bool:
    lit = literal(shown)
    return any(fields.get(key) in (shown, lit) for key in _TEXT_KEYS)


def _name(node: Node, shown: str) -> str:
    return f"{node.short_class} {shown!r}" if shown else node.short_class
