"""What a recorded selector means apart from its platform, and the selectors that say it on another.

`meaning_of` reads a `NodeSelector` of any mobile branch into a `Meaning`: the element's id (Android's
resource-id name after `:id/`, iOS's accessibility identifier), its text, its label (content
description / accessibility label), its placeholder, its kind (a role both platforms have: button,
field, text, switch, list, cell, image, …), its state, its relations and `index`. `target_selectors`
says that meaning in a platform's Maestro-shaped branch (`androidMaestro`, `iosMaestro`: their
`textRegex` matches a text, a label or a placeholder alike, which is where the platforms differ), from
the strictest wording to the loosest, each a candidate the caller resolves on the live screen until
one matches exactly one element.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from trailblaze.screen.selector import NodeSelector

__all__ = ["Meaning", "meaning_of", "role_of_class", "target_selectors"]

_ANDROID_ROLES: dict[str, str] = {
    "Button": "button",
    "ImageButton": "button",
    "MaterialButton": "button",
    "EditText": "field",
    "AutoCompleteTextView": "field",
    "TextInputEditText": "field",
    "TextView": "text",
    "Switch": "switch",
    "SwitchCompat": "switch",
    "SwitchMaterial": "switch",
    "ToggleButton": "switch",
    "CheckBox": "checkbox",
    "RadioButton": "radio",
    "ImageView": "image",
    "RecyclerView": "list",
    "ListView": "list",
    "ScrollView": "list",
    "ProgressBar": "progress",
    "SeekBar": "slider",
    "WebView": "web",
}
_IOS_ROLES: dict[str, str] = {
    "XCUIElementTypeButton": "button",
    "XCUIElementTypeTextField": "field",
    "XCUIElementTypeSecureTextField": "field",
    "XCUIElementTypeSearchField": "field",
    "XCUIElementTypeTextView": "field",
    "XCUIElementTypeStaticText": "text",
    "XCUIElementTypeSwitch": "switch",
    "XCUIElementTypeToggle": "switch",
    "XCUIElementTypeCheckBox": "checkbox",
    "XCUIElementTypeRadioButton": "radio",
    "XCUIElementTypeImage": "image",
    "XCUIElementTypeTable": "list",
    "XCUIElementTypeCollectionView": "list",
    "XCUIElementTypeScrollView": "list",
    "XCUIElementTypeCell": "cell",
    "XCUIElementTypeActivityIndicator": "progress",
    "XCUIElementTypeSlider": "slider",
    "XCUIElementTypeWebView": "web",
}
_STATES = ("checked", "selected", "enabled", "focused")
_ANDROID_STATE = {
    "isChecked": "checked",
    "isSelected": "selected",
    "isEnabled": "enabled",
    "isFocused": "focused",
}
_RELATIONS = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild")


@dataclass(frozen=True)
class Meaning:
    """An element as a person would name it, on no platform in particular. Every text is a full-match
    pattern, as the selector it came from wrote it."""

    ident: str | None = None
    text: str | None = None
    label: str | None = None
    hint: str | None = None
    role: str | None = None
    state: tuple[tuple[str, bool], ...] = ()
    relations: tuple[tuple[str, Meaning], ...] = ()
    descendants: tuple[Meaning, ...] = ()
    index: int | None = None
    clickable: bool | None = None
    """Whether the element takes taps, when the source said (a heading, not the tab of the same name):
    no Maestro-shaped branch has it on iOS, so a caller narrows the matches by it."""
    other: tuple[str, ...] = field(default=())
    """Fields of the source selector with no counterpart on the other platform (a Compose test tag,
    `uniqueId`): the meaning is narrower than the source, which a caller reports."""

    @property
    def named(self) -> bool:
        """Whether anything identifies the element itself (not only its neighbours)."""
        return any((self.ident, self.text, self.label, self.hint))


def role_of_class(pattern: str) -> str | None:
    """The role of a class name as a selector writes it (`android.widget.Button`, `Button`,
    `XCUIElementTypeButton`); None for a container or a pattern that names no one class."""
    name = pattern.replace("\\.", ".").rsplit(".", 1)[-1]
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        return None
    return _IOS_ROLES.get(name) or _ANDROID_ROLES.get(name)


def _short_id(pattern: str) -> str:
    """`com.example:id/sign_in` → `sign_in`: iOS has the name alone, and Android's resolver matches the
    name after `:id/` too."""
    for marker in (":id/", r":id\/"):
        if marker in pattern:
            return pattern.split(marker, 1)[1]
    return pattern


def meaning_of(selector: NodeSelector) -> Meaning:
    """The meaning of a mobile selector (`androidAccessibility`, `androidMaestro`, `iosMaestro`)."""
    fields: dict[str, Any] = {}
    state: dict[str, bool] = {}
    other: list[str] = []
    clickable: bool | None = None
    if selector.androidAccessibility is not None:
        a = selector.androidAccessibility.model_dump(exclude_none=True)
        fields = {
            "ident": a.pop("resourceIdRegex", None),
            "text": a.pop("textRegex", None),
            "label": a.pop("contentDescriptionRegex", None),
            "hint": a.pop("hintTextRegex", None),
            "role": role_of_class(a.pop("classNameRegex", "")),
        }
        state = {_ANDROID_STATE[k]: a.pop(k) for k in list(a) if k in _ANDROID_STATE}
        clickable = a.pop("isClickable", None)
        other = sorted(k for k in a if k not in ("isCheckable", "isScrollable", "isPassword"))
    elif selector.androidMaestro is not None:
        m = selector.androidMaestro.model_dump(exclude_none=True)
        fields = {
            "ident": m.pop("idRegex", None),
            "text": m.pop("textRegex", None),
            "label": m.pop("contentDescriptionRegex", None),
            "hint": m.pop("hintTextRegex", None),
            "role": role_of_class(m.pop("classNameRegex", "")),
        }
        state = {k: m.pop(k) for k in list(m) if k in _STATES}
        clickable = m.pop("clickable", None)
    elif selector.iosMaestro is not None:
        i = selector.iosMaestro.model_dump(exclude_none=True)
        fields = {
            "ident": i.pop("resourceIdRegex", None),
            "text": i.pop("textRegex", None),
            "label": i.pop("accessibilityTextRegex", None),
            "hint": i.pop("hintTextRegex", None),
            "role": role_of_class(i.pop("classNameRegex", "")),
        }
        state = {k: i.pop(k) for k in list(i) if k in _STATES}
    if fields.get("ident"):
        fields["ident"] = _short_id(fields["ident"])
    relations = tuple(
        (name, meaning_of(anchor)) for name in _RELATIONS if (anchor := getattr(selector, name)) is not None
    )
    descendants = tuple(meaning_of(d) for d in selector.containsDescendants or ())
    return Meaning(
        **{k: v for k, v in fields.items() if v},
        state=tuple(sorted(state.items())),
        relations=relations,
        descendants=descendants,
        index=selector.index,
        clickable=clickable,
        other=tuple(other),
    )


def _classes(role: str, platform: str) -> str | None:
    table = _IOS_ROLES if platform == "ios" else _ANDROID_ROLES
    names = [name for name, r in table.items() if r == role]
    return "|".join(names) if names else None


def _branch(m: Meaning, platform: str, *, strict: bool) -> dict[str, Any]:
    if platform == "ios":
        out: dict[str, Any] = {
            "resourceIdRegex": m.ident,
            "textRegex": m.text,
            "accessibilityTextRegex": m.label,
            "hintTextRegex": m.hint,
        }
    else:
        out = {
            "idRegex": m.ident,
            "textRegex": m.text,
            "contentDescriptionRegex": m.label,
            "hintTextRegex": m.hint,
        }
    if m.text is None and m.label is not None and not strict:
        # a label on one platform is often the text on the other (an icon button, a static text)
        out["textRegex"] = out.pop(
            "accessibilityTextRegex" if platform == "ios" else "contentDescriptionRegex"
        )
    if strict:
        if m.role is not None:
            out["classNameRegex"] = _classes(m.role, platform)
        out.update(dict(m.state))
    return {k: v for k, v in out.items() if v is not None}


def _selector(
    m: Meaning, platform: str, *, strict: bool, relations: bool, index: bool
) -> NodeSelector | None:
    branch = _branch(m, platform, strict=strict)
    data: dict[str, Any] = {}
    if branch:
        data["iosMaestro" if platform == "ios" else "androidMaestro"] = branch
    if relations:
        for name, anchor in m.relations:
            sub = _selector(anchor, platform, strict=False, relations=True, index=True)
            if sub is None:
                return None
            data[name] = sub.model_dump(exclude_none=True)
        subs = [_selector(d, platform, strict=False, relations=True, index=True) for d in m.descendants]
        if any(s is None for s in subs):
            return None
        if subs:
            data["containsDescendants"] = [s.model_dump(exclude_none=True) for s in subs if s is not None]
    if index and m.index is not None:
        data["index"] = m.index
    if not data:
        return None
    return NodeSelector.model_validate(data)


def target_selectors(meaning: Meaning, platform: str) -> list[NodeSelector]:
    """Selectors for `meaning` on `platform` (`android` / `ios`), strictest first, without repeats:
    every field with its kind and state; every field; the id with the relations; the texts with the
    relations; the id alone; the texts alone."""
    words = replace(meaning, ident=None)
    ident = Meaning(ident=meaning.ident) if meaning.ident else None
    texts = replace(meaning, ident=None, relations=(), descendants=(), index=None)
    tries: list[NodeSelector | None] = [
        _selector(meaning, platform, strict=True, relations=True, index=True),
        _selector(meaning, platform, strict=False, relations=True, index=True),
        _selector(
            replace(meaning, text=None, label=None, hint=None),
            platform,
            strict=False,
            relations=True,
            index=True,
        )
        if meaning.ident
        else None,
        _selector(words, platform, strict=False, relations=True, index=True) if words.named else None,
        _selector(ident, platform, strict=False, relations=False, index=False) if ident else None,
        _selector(texts, platform, strict=False, relations=False, index=False) if texts.named else None,
    ]
    out: list[NodeSelector] = []
    seen: set[str] = set()
    for selector in tries:
        if selector is None:
            continue
        key = selector.model_dump_json(exclude_none=True)
        if key not in seen:
            seen.add(key)
            out.append(selector)
    return out
