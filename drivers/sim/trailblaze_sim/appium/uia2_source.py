"""The page source of appium-uiautomator2-server 10.x (`GET /session/:id/source`) over the simulator's
accessibility view (`android.hierarchy.AxNode`), and the attributes its element routes read.

The server serialises a snapshot of the window roots (by default only the active window's root:
the app's activity, or the dialog or notification shade on top of it) with Android's XmlSerializer:
`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>`, CRLF and two-space indentation, empty
elements as ` />`. The root is `<hierarchy index="0" class="hierarchy" rotation="R" width="W"
height="H">` (W x H is the display's app area, what `Display.getSize` reports: the screen without
the navigation bar). Every element is named after its class and carries, in this order and only
when not null: index, package, class, text, content-desc, resource-id, checkable, checked,
clickable, enabled, focusable, focused, long-clickable, password, scrollable, selected, bounds,
displayed, hint, a11y-important, screen-reader-focusable, input-type, drawing-order, showing-hint,
text-entry-key, dismissable, a11y-focused, heading, live-region, context-clickable,
content-invalid, window-id, is-collection, is-collection-item (`UiElementSnapshot.SUPPORTED_ATTRIBUTES`;
selection, extras, actions and rendering info are off or absent). A toast the server's notification
listener caught is one more child of the root: `<android.widget.Toast index="N"
package="com.android.settings" class="android.widget.Toast" text="…" displayed="true" />`.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from trailblaze_sim.android.hierarchy import AxNode

__all__ = [
    "Display",
    "WindowNode",
    "attribute",
    "element_uuid",
    "node_attributes",
    "render_source",
]

_HEAD = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
_DEFAULT_CLASS = "android.view.View"
_TOAST_CLASS = "android.widget.Toast"
_TOAST_PACKAGE = "com.android.settings"
_INPUT_TEXT = 0x1
_INPUT_PASSWORD = 0x81
_INPUT_MULTILINE = 0x20001


@dataclass(frozen=True)
class Display:
    width: int
    """Pixels of the app area (the navigation bar excluded), as `Display.getSize` reports them."""
    height: int
    rotation: int


@dataclass(frozen=True)
class WindowNode:
    """A node and the window it is in (what an AccessibilityNodeInfo knows about itself)."""

    node: AxNode
    window_id: int


def _b(value: bool) -> str:
    return "true" if value else "false"


def _role(node: AxNode) -> str:
    return node.sim.role if node.sim is not None else ""


def _input_type(node: AxNode) -> int | None:
    if not node.editable:
        return None
    if node.password:
        return _INPUT_PASSWORD
    return _INPUT_MULTILINE if _role(node) == "multiline_field" else _INPUT_TEXT


def node_attributes(node: AxNode, window_id: int) -> list[tuple[str, str]]:
    """The node's XML attributes, in the server's order, nulls left out."""
    left, top, right, bottom = node.bounds
    showing_hint = node.editable and bool(node.hint) and node.sim is not None and not node.sim.text
    out: list[tuple[str, str | None]] = [
        ("index", str(node.index)),
        ("package", node.package),
        ("class", node.class_name),
        ("text", node.text),
        ("content-desc", node.content_desc or None),
        ("resource-id", node.resource_id or None),
        ("checkable", _b(node.checkable)),
        ("checked", _b(node.checked)),
        ("clickable", _b(node.clickable)),
        ("enabled", _b(node.enabled)),
        ("focusable", _b(node.focusable)),
        ("focused", _b(node.focused)),
        ("long-clickable", _b(node.long_clickable)),
        ("password", _b(node.password)),
        ("scrollable", _b(node.scrollable)),
        ("selected", _b(node.selected)),
        ("bounds", f"[{left},{top}][{right},{bottom}]"),
        ("displayed", "true"),
        ("hint", node.hint if node.editable and node.hint else None),
        ("a11y-important", "true"),
        ("screen-reader-focusable", "false"),
        ("input-type", str(t) if (t := _input_type(node)) is not None else None),
        ("drawing-order", str(node.drawing_order)),
        ("showing-hint", _b(showing_hint)),
        ("text-entry-key", "false"),
        ("dismissable", "false"),
        ("a11y-focused", "false"),
        ("heading", _b(_role(node) == "heading")),
        ("live-region", "0"),
        ("context-clickable", "false"),
        ("content-invalid", "false"),
        ("window-id", str(window_id)),
        ("is-collection", "true" if _role(node) == "list" else None),
        ("is-collection-item", "true" if _role(node) == "row" else None),
    ]
    return [(k, v) for k, v in out if v is not None]


# Attribute names and aliases the server's `Attribute` enum accepts (matched ignoring case).
_ALIASES: dict[str, tuple[str, ...]] = {
    "checkable": (), "checked": (), "class": ("className",), "clickable": (),
    "content-desc": ("contentDescription",), "enabled": (), "focusable": (), "focused": (),
    "long-clickable": ("longClickable",), "package": (), "password": (), "resource-id": ("resourceId",),
    "scrollable": (), "selection-start": (), "selection-end": (), "selected": (), "text": ("name",),
    "hint": (), "extras": (), "bounds": (), "displayed": (), "is-collection": ("isCollection",),
    "is-collection-item": ("isCollectionItem",), "collection-info": ("collectionInfo",),
    "collection-item-info": ("collectionItemInfo",),
}  # fmt: skip
_CANONICAL = {alias.lower(): name for name, more in _ALIASES.items() for alias in (name, *more)}
_NULL_ATTRIBUTES = frozenset({"selection-start", "selection-end", "collection-info", "collection-item-info"})


def attribute(node: AxNode, name: str) -> str | None:
    """`GET /element/:id/attribute/:name`, as `UiObject2Element.getAttribute` answers it. Raises
    KeyError for a name it does not read."""
    key = _CANONICAL.get(name.lower())
    if key is None:
        raise KeyError(name)
    if key in _NULL_ATTRIBUTES:
        return None
    if key == "extras":
        return ""  # an empty extras bundle joins to ""
    if key == "content-desc":
        return node.content_desc or None
    if key == "resource-id":
        return node.resource_id or None
    if key == "hint":
        return node.hint or None
    if key == "is-collection":
        return _b(_role(node) == "list")
    if key == "is-collection-item":
        return _b(_role(node) == "row")
    return dict(node_attributes(node, 0))[key]


def element_uuid(window_id: int, key: str) -> str:
    """`AxNodeInfoHelper.toUuid`: the window id and the node's source id (a host view: virtual id -1)
    as a UUID, so an element keeps its id while the same view is on screen."""
    view_id = zlib.crc32(key.encode()) & 0x7FFFFFFF
    win = f"{window_id:016x}"
    src = f"{(0xFFFFFFFF << 32) | view_id:016x}"
    return f"{win[:8]}-{win[8:12]}-{win[12:16]}-{src[:4]}-{src[4:]}"


_NON_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _escape(value: str) -> str:
    # XmlSerializer's attribute escaping; characters XML cannot hold become '?' (toSafeString)
    value = _NON_XML.sub("?", value)
    return (
        value.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\n", "&#10;")
        .replace("\r", "&#13;")
        .replace("\t", "&#9;")
    )


def _tag(class_name: str) -> str:
    name = re.sub(r"\.+", ".", re.sub(r"[$@#&]", ".", class_name)).strip(".")
    return name or _DEFAULT_CLASS


def render_source(
    roots: Sequence[WindowNode],
    display: Display,
    *,
    toasts: Sequence[str] = (),
    max_depth: int = 70,
    indexed: list[AxNode] | None = None,
) -> str:
    """The page source XML. With `indexed` (a list to fill), every element also gets the server's
    internal `uiElementIndex` attribute (its position in that list), as for an XPath lookup."""
    lines = [
        _HEAD,
        f'<hierarchy index="0" class="hierarchy" rotation="{display.rotation}" '
        f'width="{display.width}" height="{display.height}"' + (">" if roots or toasts else " />"),
    ]

    def emit(node: AxNode, index: int, window_id: int, depth: int) -> None:
        pad = "  " * depth
        attrs = node_attributes(node, window_id)
        attrs[0] = ("index", str(index))
        text = " ".join(f'{k}="{_escape(v)}"' for k, v in attrs)
        if indexed is not None:
            text += f' uiElementIndex="{len(indexed)}"'
            indexed.append(node)
        children = node.children if depth < max_depth else []
        tag = _tag(node.class_name)
        if not children:
            lines.append(f"{pad}<{tag} {text} />")
            return
        lines.append(f"{pad}<{tag} {text}>")
        for child in children:
            emit(child, child.index, window_id, depth + 1)
        lines.append(f"{pad}</{tag}>")

    for i, root in enumerate(roots):
        emit(root.node, i, root.window_id, 1)
    for j, message in enumerate(toasts, start=len(roots)):
        lines.append(
            f'  <{_TOAST_CLASS} index="{j}" package="{_TOAST_PACKAGE}" class="{_TOAST_CLASS}" '
            f'text="{_escape(message)}" displayed="true" />'
        )
    if roots or toasts:
        lines.append("</hierarchy>")
    return "\r\n".join(lines)
