"""WebDriverAgent's view of a simulated UI: element attributes and the `/source` renderings.

A `Snapshot` maps one `SimDevice.tree()` to WDA elements (`IosElement`) with the attribute values
WebDriverAgent computes (`name` falls back to `label`, `value` of a switch is `"0"`/`"1"`, nil
attributes are absent, rects are integral points) and renders them as the XML, JSON and
accessible-source documents of `GET /source`. The same snapshot backs
element finding, so what a query matches is exactly what the source shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trailblaze_sim.model import AppInfo, Frame, SimNode

if TYPE_CHECKING:
    from lxml import etree

__all__ = [
    "SPRINGBOARD",
    "IosElement",
    "Snapshot",
    "build_snapshot",
    "short_type",
]

SPRINGBOARD = AppInfo(app_id="com.apple.springboard", name="SpringBoard", pid=52)

_PREFIX = "XCUIElementType"
_TEXT_INPUT = frozenset(
    {
        "XCUIElementTypeTextField",
        "XCUIElementTypeSecureTextField",
        "XCUIElementTypeSearchField",
        "XCUIElementTypeTextView",
    }
)
_EMPTY_LABEL_KEPT = frozenset({"XCUIElementTypeTextField", "XCUIElementTypeSecureTextField"})
_STATIC = frozenset({"XCUIElementTypeStaticText"})
_TOGGLES = frozenset({"XCUIElementTypeSwitch", "XCUIElementTypeToggle", "XCUIElementTypeCheckBox"})
# Types UIKit exposes as single accessibility elements; containers (Other, Window, Table, Cell with
# children, bars) are not accessible themselves.
_ACCESSIBLE = frozenset(
    {
        "XCUIElementTypeButton",
        "XCUIElementTypeStaticText",
        "XCUIElementTypeLink",
        "XCUIElementTypeImage",
        "XCUIElementTypeIcon",
        "XCUIElementTypeKey",
        "XCUIElementTypeSlider",
        "XCUIElementTypeActivityIndicator",
        "XCUIElementTypeProgressIndicator",
        "XCUIElementTypePageIndicator",
        *_TEXT_INPUT,
        *_TOGGLES,
    }
)
# UIAccessibilityTraits in bit order, which is the order WDA lists them in `traits`.
_TRAIT_ORDER = (
    "Button",
    "Link",
    "Image",
    "Selected",
    "PlaysSound",
    "KeyboardKey",
    "StaticText",
    "SummaryElement",
    "NotEnabled",
    "UpdatesFrequently",
    "SearchField",
    "StartsMediaSession",
    "Adjustable",
    "AllowsDirectInteraction",
    "CausesPageTurn",
    "Header",
    "TabBar",
    "ToggleButton",
)
_TYPE_TRAITS: dict[str, tuple[str, ...]] = {
    "XCUIElementTypeButton": ("Button",),
    "XCUIElementTypeLink": ("Link",),
    "XCUIElementTypeImage": ("Image",),
    "XCUIElementTypeIcon": ("Button",),
    "XCUIElementTypeKey": ("KeyboardKey",),
    "XCUIElementTypeStaticText": ("StaticText",),
    "XCUIElementTypeSearchField": ("SearchField",),
    "XCUIElementTypeSwitch": ("Button", "ToggleButton"),
    "XCUIElementTypeSlider": ("Adjustable",),
    "XCUIElementTypeActivityIndicator": ("UpdatesFrequently",),
    "XCUIElementTypeProgressIndicator": ("UpdatesFrequently",),
    "XCUIElementTypeTabBar": ("TabBar",),
}


def short_type(wd_type: str) -> str:
    """`XCUIElementTypeButton` -> `Button` (the JSON source's `type`)."""
    return wd_type[len(_PREFIX) :] if wd_type.startswith(_PREFIX) else wd_type


def _nil(s: str) -> str | None:
    return s if s else None


@dataclass(eq=False)
class IosElement:
    """One element as WebDriverAgent reports it. Attribute names follow WDA's `wd*` properties."""

    node: SimNode
    type: str
    name: str | None
    label: str | None
    value: str | None
    placeholder: str | None
    enabled: bool
    visible: bool
    accessible: bool
    selected: bool
    focused: bool
    rect: tuple[int, int, int, int]
    """CGRectIntegral of the node frame, in points: x, y, width, height."""
    index: int
    traits: str
    key: str
    """Identity across snapshots: the path of (type, identifier-or-label, ordinal) from the root."""
    order: int = 0
    """Pre-order position in the snapshot."""
    parent: IosElement | None = None
    children: list[IosElement] = field(default_factory=list)
    end: int = 0
    """Pre-order position after the last descendant (descendants are `flat[order+1:end]`)."""
    app: AppInfo | None = None
    """Set on the application element only."""

    @property
    def frame(self) -> Frame:
        return self.node.frame

    @property
    def text(self) -> str:
        """`GET /element/:id/text`: the value if non-empty, else the label, else ``""``."""
        return self.value or self.label or ""

    def attribute(self, key: str) -> Any:
        """WDA attribute by name (`name`, `wdName`, `label`, `type`, `rect`, ...); KeyError if unknown."""
        k = key[2].lower() + key[3:] if key.startswith("wd") and len(key) > 2 and key[2].isupper() else key
        x, y, w, h = self.rect
        match k:
            case "name":
                return self.name
            case "label":
                return self.label
            case "value":
                return self.value
            case "type" | "elementType" | "className":
                return self.type
            case "enabled" | "isEnabled":
                return self.enabled
            case "visible" | "isVisible" | "displayed":
                return self.visible
            case "accessible" | "isAccessible":
                return self.accessible
            case "selected" | "isSelected":
                return self.selected
            case "focused" | "hasFocus" | "isFocused":
                return self.focused
            case "hittable" | "isHittable":
                return self.visible and self.enabled
            case "placeholderValue" | "placeholder":
                return self.placeholder
            case "index":
                return self.index
            case "traits":
                return self.traits
            case "rect" | "frame":
                return {"x": x, "y": y, "width": w, "height": h}
            case "UID" | "uid":
                return self.key
            case "accessibilityContainer" | "isAccessibilityContainer":
                return False
            case "identifier" | "rawIdentifier":
                return _nil(self.node.id)
            case "title":
                return self.label
        raise KeyError(key)


def _integral(f: Frame) -> tuple[int, int, int, int]:
    x0, y0 = math.floor(f.x), math.floor(f.y)
    x1, y1 = math.ceil(f.right), math.ceil(f.bottom)
    return (x0, y0, max(0, x1 - x0), max(0, y1 - y0))


def _traits(wd_type: str, node: SimNode) -> str:
    found = set(_TYPE_TRAITS.get(wd_type, ()))
    if node.role == "heading":
        found.add("Header")
    if node.selected or (node.checked and wd_type not in _TOGGLES):
        found.add("Selected")
    if not node.enabled:
        found.add("NotEnabled")
    return ", ".join(t for t in _TRAIT_ORDER if t in found)


def _make(node: SimNode, index: int, key: str, app: AppInfo | None = None) -> IosElement:
    t = node.ios_type or "XCUIElementTypeOther"
    if t in _TEXT_INPUT:
        # WDA's wdLabel keeps a text field's empty label as "" (other types turn "" into nil).
        label = node.label if t in _EMPTY_LABEL_KEPT else _nil(node.label)
        secure = node.password or t == "XCUIElementTypeSecureTextField"
        # The model keeps the typed password; iOS reports one bullet per character.
        typed = "\u2022" * len(node.text) if secure and set(node.text) != {"\u2022"} else node.text
        value = _nil(typed) or _nil(node.hint)
        placeholder = _nil(node.hint)
    else:
        label = _nil(node.label) or _nil(node.text)
        placeholder = None
        if t in _TOGGLES:
            value = "1" if node.checked else "0"
        elif t in _STATIC:
            value = _nil(node.text) or label
        elif node.label and node.text and node.label != node.text:
            # A cell / button whose accessibility label differs from its visible text shows the text as value.
            value = node.text
        else:
            value = None
    name = _nil(node.id) or _nil(label or "")
    accessible = t in _ACCESSIBLE or (not node.children and label is not None and t != "XCUIElementTypeOther")
    if node.opacity < 0.01:  # a transparent view is not an accessibility element (as on a phone)
        accessible = False
    return IosElement(
        node=node,
        type=t,
        name=name,
        label=label,
        value=value,
        placeholder=placeholder,
        enabled=node.enabled,
        visible=node.visible,
        accessible=accessible,
        selected=node.selected,
        focused=node.focused,
        rect=_integral(node.frame),
        index=index,
        traits=_traits(t, node),
        key=key,
        app=app,
    )


class Snapshot:
    """The WDA element tree of one instant, with its renderings (computed lazily, cached)."""

    def __init__(self, root: IosElement, flat: list[IosElement]) -> None:
        self.root = root
        self.flat = flat
        self.by_key = {e.key: e for e in flat}
        self._xml: str | None = None
        self._lxml: tuple[etree._Element, dict[etree._Element, IosElement]] | None = None

    @property
    def app(self) -> AppInfo:
        assert self.root.app is not None
        return self.root.app

    def xml(self) -> str:
        """The `GET /source?format=xml` document (libxml2 pretty-print, 2-space indent)."""
        if self._xml is None:
            lines = ['<?xml version="1.0" encoding="UTF-8"?>']
            _xml_lines(self.root, 0, lines)
            lines.append("")
            self._xml = "\n".join(lines)
        return self._xml

    def lxml(self) -> tuple[etree._Element, dict[etree._Element, IosElement]]:
        """The XML parsed by lxml, and each lxml element's `IosElement` (for XPath queries)."""
        if self._lxml is None:
            from lxml import etree

            doc = etree.fromstring(self.xml().encode("utf-8"))
            mapping = dict(zip(doc.iter(), self.flat, strict=True))
            self._lxml = (doc, mapping)
        return self._lxml

    def json(self) -> dict[str, Any]:
        """The `GET /source?format=json` tree."""
        return _json(self.root)

    def accessible_source(self) -> dict[str, Any]:
        """The `GET /wda/accessibleSource` tree."""
        return _accessible(self.root) or {}


def build_snapshot(
    tree: SimNode, app: AppInfo | None, *, screen_width: int, screen_height: int, empty: bool = False
) -> Snapshot:
    """Map a device tree to WDA elements.

    Args:
        tree: The device's current root node.
        app: The foreground app, or None for the home screen (rendered as SpringBoard).
        screen_width: Screen width in points.
        screen_height: Screen height in points.
        empty: Render an application with no children (the empty-dump fault).
    """
    info = app or SPRINGBOARD
    screen = Frame(0, 0, screen_width, screen_height)
    if tree.ios_type == "XCUIElementTypeApplication":
        app_node = tree
        if tree.children and any(c.ios_type != "XCUIElementTypeWindow" for c in tree.children):
            # Every iOS app's content sits in a window; class chains like `XCUIElementTypeWindow/…` rely on it.
            window = SimNode(
                role="container",
                android_class="android.widget.FrameLayout",
                ios_type="XCUIElementTypeWindow",
                frame=screen,
                children=tree.children,
            )
            app_node = SimNode(
                role=tree.role,
                android_class=tree.android_class,
                ios_type=tree.ios_type,
                frame=tree.frame,
                id=tree.id,
                label=tree.label or info.name,
                children=[window],
            )
    else:
        content = tree
        if tree.ios_type != "XCUIElementTypeWindow":
            content = SimNode(
                role="container",
                android_class="android.widget.FrameLayout",
                ios_type="XCUIElementTypeWindow",
                frame=screen,
                children=[tree],
            )
        app_node = SimNode(
            role="screen",
            android_class="android.widget.FrameLayout",
            ios_type="XCUIElementTypeApplication",
            frame=screen,
            label=info.name,
            children=[content],
        )
    if empty:
        app_node = SimNode(
            role="screen",
            android_class="android.widget.FrameLayout",
            ios_type="XCUIElementTypeApplication",
            frame=screen,
            label=info.name,
        )
    flat: list[IosElement] = []
    root = _make(app_node, 0, "XCUIElementTypeApplication|" + info.app_id, app=info)
    if not root.label:
        root.label = info.name
        root.name = root.name or info.name
    root.accessible = False
    flat.append(root)
    _build_children(root, flat)
    return Snapshot(root, flat)


def _build_children(parent: IosElement, flat: list[IosElement]) -> None:
    kids = parent.node.children
    idents = [_ident(c) for c in kids]
    counts: dict[str, int] = {}
    for ident in idents:
        counts[ident] = counts.get(ident, 0) + 1
    seen: dict[tuple[str, str], int] = {}
    for i, child in enumerate(kids):
        t = child.ios_type or "XCUIElementTypeOther"
        ident = idents[i]
        if counts[ident] > 1:
            # Siblings sharing an id (list cells) are told apart by their first text, so an element id
            # keeps pointing at the same row when a virtualised list scrolls.
            ident += _first_text(child)
        ordinal = seen.get((t, ident), 0)
        seen[(t, ident)] = ordinal + 1
        el = _make(child, i, f"{parent.key}/{t}|{ident}|{ordinal}")
        el.parent = parent
        el.order = len(flat)
        flat.append(el)
        parent.children.append(el)
        _build_children(el, flat)
    parent.end = len(flat)


def _ident(node: SimNode) -> str:
    t = node.ios_type
    return node.id or node.label or (node.text if t not in _TEXT_INPUT else "") or _first_text(node)


def _first_text(node: SimNode) -> str:
    for child in node.children:
        found = child.text or child.label or _first_text(child)
        if found:
            return "~" + found
    return ""


def _esc(s: str) -> str:
    # libxml2 attribute escaping: markup characters plus whitespace that attribute normalisation would eat.
    if not any(c in s for c in '&<>"\n\r\t'):
        return s
    return (
        s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
        .replace("\t", "&#9;")
    )


def _b(v: bool) -> str:
    return "true" if v else "false"


def _xml_lines(el: IosElement, depth: int, out: list[str]) -> None:
    x, y, w, h = el.rect
    parts = [f'{"  " * depth}<{el.type} type="{el.type}"']
    if el.value is not None:
        parts.append(f' value="{_esc(el.value)}"')
    if el.name is not None:
        parts.append(f' name="{_esc(el.name)}"')
    if el.label is not None:
        parts.append(f' label="{_esc(el.label)}"')
    parts.append(
        f' enabled="{_b(el.enabled)}" visible="{_b(el.visible)}" accessible="{_b(el.accessible)}"'
        f' x="{x}" y="{y}" width="{w}" height="{h}" index="{el.index}"'
    )
    if el.placeholder is not None:
        parts.append(f' placeholderValue="{_esc(el.placeholder)}"')
    parts.append(f' traits="{el.traits}"')
    if el.app is not None:
        parts.append(f' processId="{el.app.pid}" bundleId="{_esc(el.app.app_id)}"')
    if el.children:
        parts.append(">")
        out.append("".join(parts))
        for child in el.children:
            _xml_lines(child, depth + 1, out)
        out.append(f'{"  " * depth}</{el.type}>')
    else:
        parts.append("/>")
        out.append("".join(parts))


def _num(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def _cgrect(f: Frame) -> str:
    return f"{{{{{_num(f.x)}, {_num(f.y)}}}, {{{_num(f.width)}, {_num(f.height)}}}}}"


def _json(el: IosElement) -> dict[str, Any]:
    f = el.frame
    out: dict[str, Any] = {
        "type": short_type(el.type),
        "rawIdentifier": _nil(el.node.id),
        "name": el.name,
        "value": el.value,
        "label": el.label,
        "rect": {"x": _num(f.x), "y": _num(f.y), "width": _num(f.width), "height": _num(f.height)},
        "customActions": None,
        "frame": _cgrect(f),
        "nativeFrame": _cgrect(f),
        "isEnabled": "1" if el.enabled else "0",
        "isVisible": "1" if el.visible else "0",
        "isAccessible": "1" if el.accessible else "0",
        "isNativeAccessibilityElement": "0",
        "isFocused": "1" if el.focused else "0",
        "traits": el.traits,
    }
    if el.placeholder is not None:
        out["placeholderValue"] = el.placeholder
    if el.children:
        out["children"] = [_json(c) for c in el.children]
    return out


def _accessible(el: IosElement) -> dict[str, Any] | None:
    # WDA's accessibilityInfoForElement: an accessible element reports its value and label when
    # visible (and nothing when hidden); others report their accessible descendants; every node
    # that reports anything also carries its type, raw identifier and name.
    info: dict[str, Any]
    if el.accessible:
        if not el.visible:
            return None
        info = {"value": el.value, "label": el.label}
    else:
        kids = [a for a in (_accessible(c) for c in el.children) if a is not None]
        if not kids:
            return None
        info = {"children": kids}
    info["type"] = short_type(el.type)
    info["rawIdentifier"] = _nil(el.node.id)
    info["name"] = el.name
    return info
