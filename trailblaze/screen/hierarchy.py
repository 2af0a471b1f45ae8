"""The unified view hierarchy: one node model for Android and iOS, and the parsers that build it.

`parse_hierarchy` reads every dump format a driver can hand us and detects which one it got:

- uiautomator2 `dump_hierarchy()` XML of every API level (CRLF or `\\r\\r\\n`, optional `NAF`, `hint`,
  `drawing-order`, `display-id`, several windows in any order, the IME window);
- `adb shell uiautomator dump` single-line XML (no `visible-to-user`);
- Appium's UiAutomator2 page source (tag = class name, `displayed`) as a lenient extra;
- WebDriverAgent `/source` XML, raw or wrapped in Appium's `<AppiumAUT>`, any attribute order;
- WebDriverAgent `/source?format=json`, bare or inside the `{"value": …}` envelope.

Coordinates are kept in the platform's native space: device **pixels** on Android (what uiautomator
reports and what taps take) and **points** on iOS (what WebDriverAgent reports and what taps take).
`Hierarchy.scale` is the number of screenshot pixels per coordinate unit (1.0 on Android, 2 or 3 on
iOS) so a consumer that draws on a screenshot converts once.

The node model is a slotted dataclass, not pydantic: a dump of 2,000 nodes is parsed on every poll
of a replay, so construction cost matters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple
from xml.parsers import expat

from lxml import etree

from trailblaze.errors import DeviceError

__all__ = [
    "ANDROID_EXTRA_ATTRS",
    "Cover",
    "DumpCache",
    "Hierarchy",
    "Node",
    "Platform",
    "Rect",
    "parse_hierarchy",
]

Platform = Literal["android", "ios", "web"]
WindowKind = Literal["app", "system", "ime"]

_XCUI = "XCUIElementType"
_SYSTEMUI = "com.android.systemui"
# Packages of input methods seen in the wild; any package naming an input method also counts.
_IME_HINTS = ("inputmethod", "keyboard", "honeyboard", "swiftkey", "gboard", "com.baidu.input")
_ANDROID_EDITABLE = ("EditText", "AutoCompleteTextView", "SearchAutoComplete")
_IOS_EDITABLE = frozenset({"TextField", "SecureTextField", "SearchField", "TextView"})
_IOS_TEXTUAL = frozenset({"StaticText", "TextField", "SecureTextField", "SearchField", "TextView"})
_WEB_EDITABLE = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
"""ARIA roles a web page types into (`trailblaze.screen.web_hierarchy` makes the role the class name)."""
_IOS_CHECKABLE = frozenset({"Switch", "Toggle", "CheckBox"})
_IOS_SCROLLABLE = frozenset({"Table", "CollectionView", "ScrollView", "WebView"})
# Element types that take a tap on iOS (no `clickable` attribute exists in WDA sources).
_IOS_INTERACTIVE = frozenset(
    {
        "Button", "Cell", "Link", "Switch", "Toggle", "CheckBox", "TextField", "SecureTextField",
        "SearchField", "TextView", "Slider", "Stepper", "SegmentedControl", "Tab", "Key", "MenuItem",
        "PickerWheel", "PageIndicator", "ColorWell", "DatePicker", "Picker", "Icon", "RadioButton",
    }
)  # fmt: skip


class Rect(NamedTuple):
    """An axis-aligned rectangle in the hierarchy's coordinate space (left/top inclusive)."""

    left: float
    top: float
    right: float
    bottom: float

    @property
    def width(self) -> float:
        return max(0.0, self.right - self.left)

    @property
    def height(self) -> float:
        return max(0.0, self.bottom - self.top)

    @property
    def area(self) -> float:
        w = self.right - self.left
        h = self.bottom - self.top
        return w * h if w > 0 and h > 0 else 0.0

    @property
    def center(self) -> tuple[float, float]:
        return ((self.left + self.right) / 2, (self.top + self.bottom) / 2)

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    def intersect(self, other: Rect) -> Rect:
        """The overlap of two rectangles; a zero-area rectangle when they do not overlap."""
        left = max(self.left, other.left)
        top = max(self.top, other.top)
        right = min(self.right, other.right)
        bottom = min(self.bottom, other.bottom)
        if right <= left or bottom <= top:
            return Rect(left, top, left, top)
        return Rect(left, top, right, bottom)


_EMPTY = Rect(0.0, 0.0, 0.0, 0.0)


@dataclass(slots=True, eq=False, repr=False)
class Node:
    """One element of a view hierarchy, the same shape for both platforms.

    Identity semantics (`eq=False`): two nodes are equal only if they are the same object, so nodes
    can live in sets and dict keys.
    """

    platform: Platform
    class_name: str
    """Android class (`android.widget.Button`) or XCUIElementType (`XCUIElementTypeButton`)."""
    resource_id: str = ""
    """Android full resource id (`pkg:id/name`); iOS accessibility identifier."""
    text: str = ""
    """Android text; iOS value of text-bearing elements (StaticText, fields)."""
    label: str = ""
    """Android content description; iOS accessibility label."""
    hint: str = ""
    """Android hint; iOS placeholder value."""
    value: str = ""
    """iOS raw value (switch `0`/`1`, cell detail text); Android: empty."""
    bounds: Rect = _EMPTY
    visible_bounds: Rect = _EMPTY
    """`bounds` clipped to the screen and to every scrolling ancestor."""
    enabled: bool = True
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    password: bool = False
    visible: bool = True
    """Android `visible-to-user` / iOS `visible`; True when the dump does not say."""
    accessible: bool = False
    on_screen: bool = False
    """`visible` and a non-empty `visible_bounds` (set once when the hierarchy is built)."""
    naf: bool = False
    """Android "not accessibility friendly": clickable without any text or description."""
    package: str = ""
    """Android package / iOS bundle id (inherited from the application element)."""
    window: int = 0
    """Index of the window (Android top-level node / iOS application child) the node belongs to.

    An iOS keyboard inside an app window gets a pseudo-window of its own (an index past the
    application's children, kind `ime`), so the app window stays `app`."""
    index: int = 0
    """Position among the parent's children."""
    drawing_order: int = 0
    order: int = 0
    """Position in document (depth-first) order across the whole hierarchy."""
    depth: int = 0
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    covered_by: Cover | None = None
    """What is drawn above this node's tap point and takes its taps (a dialog, the keyboard); set by
    `trailblaze.screen.occlusion.covers`, which every consumer calls before reading it."""
    extra: dict[str, str] | None = None
    """Android attributes beyond uiautomator2's usual set that selectors can read (`ANDROID_EXTRA_ATTRS`),
    when a dump carries them; None when it carries none."""

    def __repr__(self) -> str:
        desc = self.text or self.label or self.hint or self.resource_id
        b = self.bounds
        return f"<Node {self.short_class} {desc!r} [{b.left:g},{b.top:g}][{b.right:g},{b.bottom:g}]>"

    @property
    def short_class(self) -> str:
        """`Button` for `android.widget.Button` and for `XCUIElementTypeButton`."""
        name = self.class_name
        if name.startswith(_XCUI):
            return name[len(_XCUI) :] or name
        return name.rsplit(".", 1)[-1]

    @property
    def short_id(self) -> str:
        """The part of an Android resource id after `:id/` (the whole identifier on iOS)."""
        rid = self.resource_id
        pos = rid.find(":id/")
        return rid[pos + 4 :] if pos >= 0 else rid

    @property
    def center(self) -> tuple[float, float]:
        """Centre of the visible part (the point a tap on this node uses)."""
        vb = self.visible_bounds
        if vb.area > 0:
            return vb.center
        return self.bounds.center

    @property
    def is_visible(self) -> bool:
        """Flagged visible and with a non-empty part on screen."""
        return self.on_screen

    @property
    def covered(self) -> bool:
        """A tap on this node would land on a dialog or the keyboard drawn above it."""
        return self.covered_by is not None

    @property
    def editable(self) -> bool:
        if self.platform == "ios":
            return self.short_class in _IOS_EDITABLE
        if self.platform == "web":
            return self.class_name in _WEB_EDITABLE
        return any(self.class_name.endswith(suffix) for suffix in _ANDROID_EDITABLE)

    @property
    def interactive(self) -> bool:
        """Takes a tap or input: clickable, long-clickable, checkable or editable."""
        if self.clickable or self.long_clickable or self.checkable:
            return True
        return self.editable

    def walk(self) -> Iterator[Node]:
        """This node and all its descendants, depth-first in document order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def ancestors(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


@dataclass(slots=True, eq=False)
class Cover:
    """Something drawn above other nodes that takes their taps (docs/adr/0014-occlusion.md).

    A modal dialog, alert or sheet covers every point of the screen outside itself (its dimmed
    backdrop swallows touches); the keyboard covers its own rectangle.
    """

    kind: Literal["dialog", "keyboard"]
    node: Node
    """The dialog's window root / alert element, or the keyboard."""
    title: str = ""
    """The dialog's first text (its title); empty for the keyboard."""
    area: Rect | None = None
    """The covered rectangle; None for a modal that covers the whole screen."""
    hidden: int = 0
    """How many on-screen nodes it covers."""

    def describe(self) -> str:
        """`Dialog "Sign out?"` or `the keyboard`, for messages."""
        if self.kind == "keyboard":
            return "the keyboard"
        return f'Dialog "{self.title}"' if self.title else "a dialog"


@dataclass(slots=True, eq=False, repr=False)
class Hierarchy:
    """A parsed dump: one root per window, screen size and scale, and the raw source."""

    platform: Platform
    roots: list[Node]
    width: float
    height: float
    scale: float = 1.0
    """Screenshot pixels per coordinate unit (Android 1.0; iOS points → pixels, usually 2 or 3)."""
    rotation: int = 0
    source: str | bytes = ""
    format: str = ""
    """Detected input format: `u2`, `uiautomator-dump`, `appium-android`, `wda-xml`, `wda-json`."""
    window_kinds: list[WindowKind] = field(default_factory=list)
    """Per window index: `app`, `system` (status/navigation bars) or `ime` (keyboard)."""
    nodes: list[Node] = field(default_factory=list)
    """Every node in document order (`node.order` is its position here)."""
    memo: dict[str, Any] = field(default_factory=dict)
    """Cache for data derived from this (immutable) capture, e.g. by the resolver."""
    css_query: Callable[[str], Sequence[int]] | None = field(default=None, repr=False, compare=False)
    """Web: the orders of the nodes a CSS selector matches in the live page this was captured from
    (set by the web driver); None elsewhere, where `cssSelector` matches nothing."""

    def __repr__(self) -> str:
        return f"<Hierarchy {self.platform} {self.format} {len(self.nodes)} nodes {self.width:g}x{self.height:g}>"

    @property
    def screen(self) -> Rect:
        return Rect(0.0, 0.0, self.width, self.height)

    def walk(self) -> Iterator[Node]:
        """Every node, depth-first in document order."""
        return iter(self.nodes)

    def visible_nodes(self) -> list[Node]:
        """Nodes that are flagged visible and have a non-empty part on screen (cached)."""
        cached = self.memo.get("visible")
        if cached is None:
            cached = [n for n in self.nodes if n.on_screen]
            self.memo["visible"] = cached
        return cached

    def window_kind(self, node: Node) -> WindowKind:
        """`app`, `system` or `ime`: the kind of the window `node` belongs to.

        The iOS application element spans every window and counts as `app`.
        """
        if node.parent is None and self.platform == "ios":
            return "app"
        if 0 <= node.window < len(self.window_kinds):
            return self.window_kinds[node.window]
        return "app"

    @property
    def keyboard_shown(self) -> bool:
        if "ime" in self.window_kinds:
            return True
        return self.platform == "ios" and any(n.class_name == "XCUIElementTypeKeyboard" for n in self.nodes)


# --------------------------------------------------------------------------------------------------
# Entry point


def parse_hierarchy(
    source: str | bytes,
    platform: Platform | None = None,
    *,
    scale: float | None = None,
    width: float | None = None,
    height: float | None = None,
) -> Hierarchy:
    """Parses any supported dump into a `Hierarchy`, detecting its format.

    Args:
        source: The dump as returned by the device (text or bytes).
        platform: The platform the caller expects; a mismatch raises `DeviceError`.
        scale: Screenshot pixels per coordinate unit; defaults to 1.0 on Android and 3.0 on iOS
            (WDA sources do not carry it; drivers should pass the real value).
        width: Screen width in coordinate units when the caller knows it (else derived from roots).
        height: Screen height, as `width`.

    Raises:
        DeviceError: The input is empty or not a view hierarchy.
    """
    data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
    body = data.lstrip(b"\xef\xbb\xbf \t\r\n\x00")
    if not body:
        raise DeviceError(
            "empty view hierarchy dump: the device returned nothing; retry or restart the driver"
        )
    if body[:1] in (b"{", b"["):
        hierarchy = _parse_wda_json(body, source)
    else:
        start = body.find(b"<")
        if start < 0:
            raise DeviceError(f"not a view hierarchy (no XML or JSON): starts with {body[:40]!r}")
        xml = body[start:]
        parsed = _parse_android_expat(xml, source) if b"<hierarchy" in xml[:300] else None
        hierarchy = parsed if parsed is not None else _parse_xml(xml, source)
    if platform is not None and hierarchy.platform != platform:
        raise DeviceError(
            f"expected an {platform} view hierarchy but got an {hierarchy.platform} one ({hierarchy.format})"
        )
    if scale is not None:
        hierarchy.scale = scale
    elif hierarchy.platform == "ios":
        hierarchy.scale = 3.0
    if width is not None:
        hierarchy.width = width
    if height is not None:
        hierarchy.height = height
    if width is not None or height is not None:
        _clip_all(hierarchy)
    return hierarchy


class DumpCache:
    """`parse_hierarchy` that skips the parse when a dump is identical to the previous one.

    Settling and selector polling dump an unchanged screen again and again; the second of two equal
    dumps is the common case, and comparing the raw text (a memcmp that stops at the first
    difference) costs microseconds where parsing costs milliseconds. An identical dump returns the
    very same `Hierarchy` object, which is safe because hierarchies are treated as immutable. One
    cache per device connection (drivers hold one); it is not shared between threads.
    """

    __slots__ = ("_key", "_last", "hits", "misses")

    def __init__(self) -> None:
        self._key: tuple[Any, ...] = ()
        self._last: Hierarchy | None = None
        self.hits = 0
        self.misses = 0

    def parse(
        self,
        source: str | bytes,
        platform: Platform | None = None,
        *,
        scale: float | None = None,
        width: float | None = None,
        height: float | None = None,
    ) -> Hierarchy:
        """As `parse_hierarchy`, returning the previous result when `source` and the options repeat."""
        key = (platform, scale, width, height)
        last = self._last
        if (
            last is not None
            and self._key == key
            and type(last.source) is type(source)
            and last.source == source
        ):
            self.hits += 1
            return last
        hierarchy = parse_hierarchy(source, platform, scale=scale, width=width, height=height)
        self.misses += 1
        self._key, self._last = key, hierarchy
        return hierarchy


_PARSER = etree.XMLParser(
    recover=True,
    huge_tree=True,
    resolve_entities=False,
    no_network=True,
    remove_comments=True,
    remove_pis=True,
)


def _parse_xml(body: bytes, source: str | bytes) -> Hierarchy:
    try:
        root = etree.fromstring(body, _PARSER)
    except etree.XMLSyntaxError as exc:  # recover=True rarely raises, but an empty document does
        raise DeviceError(f"view hierarchy dump is not well-formed XML: {exc}") from exc
    if root is None:
        raise DeviceError(f"view hierarchy dump is not XML: starts with {body[:40]!r}")
    tag = root.tag if isinstance(root.tag, str) else ""
    if tag == "AppiumAUT":
        inner = [c for c in root if isinstance(c.tag, str)]
        if not inner:
            raise DeviceError("WebDriverAgent source is empty: <AppiumAUT> has no application element")
        return _build_ios_xml(inner[0], source)
    if tag.startswith(_XCUI):
        return _build_ios_xml(root, source)
    if tag == "hierarchy":
        return _build_android(root, source)
    if tag == "node" and root.get("bounds") is not None:  # a bare node without the wrapper
        return _build_android_from_roots([root], source, "u2", 0)
    raise DeviceError(
        f"not a view hierarchy: unexpected root element <{tag or '?'}>; expected <hierarchy> "
        "(uiautomator) or <XCUIElementType…>/<AppiumAUT> (WebDriverAgent)"
    )


# --------------------------------------------------------------------------------------------------
# Android


def _parse_bounds(raw: str | None) -> Rect:
    # "[l,t][r,b]"; split by hand: this runs once per node and a regex costs more.
    if not raw or raw[0] != "[":
        return _EMPTY
    try:
        left, top, right, bottom = map(int, raw[1:-1].replace("][", ",").split(","))
    except ValueError:
        return _EMPTY
    return _new_tuple(Rect, (left, top, right, bottom))  # skips NamedTuple's Python-level __new__


_new_tuple = tuple.__new__


def _build_android(root: Any, source: str | bytes) -> Hierarchy:
    tops = [c for c in root if isinstance(c.tag, str)]
    fmt = "u2"
    if root.get("class") is not None or root.get("width") is not None:
        fmt = "appium-android"
    elif tops and tops[0].get("visible-to-user") is None:
        fmt = "uiautomator-dump"
    try:
        rotation = int(root.get("rotation") or 0)
    except ValueError:
        rotation = 0
    return _build_android_from_roots(tops, source, fmt, rotation)


def _android_window_kind(node: Node) -> WindowKind:
    pkg = node.package
    if pkg == _SYSTEMUI:
        return "system"
    lowered = pkg.lower()
    if node.bounds.top > 0 and (
        any(h in lowered for h in _IME_HINTS)
        # an input method from a package that does not say so (uiautomator2's AdbKeyboard lives in
        # com.github.uiautomator) still draws the framework's keyboard view
        or any("inputmethodservice" in n.class_name for n in node.walk())
    ):
        return "ime"
    return "app"


def _build_android_from_roots(tops: list[Any], source: str | bytes, fmt: str, rotation: int) -> Hierarchy:
    nodes: list[Node] = []
    roots: list[Node] = []
    for window, el in enumerate(tops):
        roots.append(_android_node(el, None, 0, window, window, nodes))
    return _android_hierarchy(roots, nodes, source, fmt, rotation)


def _android_hierarchy(
    roots: list[Node], nodes: list[Node], source: str | bytes, fmt: str, rotation: int
) -> Hierarchy:
    width = max((r.bounds.right for r in roots), default=0.0)
    height = max((r.bounds.bottom for r in roots), default=0.0)
    hierarchy = Hierarchy(
        platform="android", roots=roots, width=width, height=height, scale=1.0, rotation=rotation,
        source=source, format=fmt, nodes=nodes,
    )  # fmt: skip
    hierarchy.window_kinds = [_android_window_kind(r) for r in roots]
    _clip_all(hierarchy)
    return hierarchy


def _android_node(el: Any, parent: Node | None, depth: int, window: int, index: int, out: list[Node]) -> Node:
    node = _android_from_attrs(el.attrib, el.tag, parent, depth, window, index, out)
    children = node.children
    position = 0
    for child in el:
        if isinstance(child.tag, str):
            children.append(_android_node(child, node, depth + 1, window, position, out))
            position += 1
    return node


def _android_node_from(
    get: Any,
    cls: str,
    rect: Rect,
    visible_raw: str | None,
    package: str,
    place: tuple[int, int, int, int, int],
    parent: Node | None,
) -> Node:
    """One Android node from its attribute getter; shared by the expat fast path and the lxml fallback.

    `place` is the node's (window, index, drawing order, document order, depth)."""
    window, idx, drawing, order, depth = place
    return Node(
        "android",
        cls,
        get("resource-id") or "",
        get("text") or "",
        get("content-desc") or "",
        get("hint") or "",
        "",
        rect,
        _EMPTY,
        get("enabled") != "false",
        get("clickable") == "true",
        get("long-clickable") == "true",
        get("checkable") == "true",
        get("checked") == "true",
        get("focusable") == "true",
        get("focused") == "true",
        get("scrollable") == "true",
        get("selected") == "true",
        get("password") == "true",
        visible_raw != "false",
        True,
        False,
        get("NAF") == "true",
        package,
        window,
        idx,
        drawing,
        order,
        depth,
        parent,
    )


def _android_from_attrs(
    a: Any, tag: str, parent: Node | None, depth: int, window: int, index: int, out: list[Node]
) -> Node:
    get = a.get
    cls = get("class")
    if cls is None:
        cls = tag if tag != "node" else ""
    visible_raw = get("visible-to-user")
    if visible_raw is None:
        visible_raw = get("displayed")
    raw_index = get("index")
    try:
        idx = int(raw_index) if raw_index else index
    except ValueError:
        idx = index
    raw_drawing = get("drawing-order")
    try:
        drawing = int(raw_drawing) if raw_drawing else idx
    except ValueError:
        drawing = idx
    package = get("package") or (parent.package if parent is not None else "")
    node = _android_node_from(
        get, cls, _parse_bounds(get("bounds")), visible_raw, package, (window, idx, drawing, len(out), depth), parent
    )
    if not _ANDROID_STANDARD_ATTRS.issuperset(a):
        node.extra = _extra_attrs(a)
    out.append(node)
    return node


def _parse_android_expat(body: bytes, source: str | bytes) -> Hierarchy | None:
    """Fast path for well-formed uiautomator XML: one expat pass, no element tree (None if malformed).

    This runs on every poll of a replay, so the per-node handler is written for speed: one flat
    function, locals instead of attribute lookups, the `Node` built positionally, and repeated
    `bounds` strings (a child often has its parent's) and small integers looked up, not re-parsed.
    """
    parser = expat.ParserCreate()
    parser.buffer_text = True
    nodes: list[Node] = []
    roots: list[Node] = []
    stack: list[Node] = []
    meta: dict[str, str] = {}
    rects: dict[str | None, Rect] = {}
    ints = _SMALL_INTS
    standard = _ANDROID_STANDARD_ATTRS.issuperset
    append = nodes.append
    push = stack.append
    make = _android_node_from

    def node_start(tag: str, a: dict[str, str]) -> None:
        get = a.get
        parent: Node | None = None
        if stack:
            above = stack[-1]
            parent = above
            siblings = above.children
            position = len(siblings)
            depth = above.depth + 1
            window = above.window
            package = get("package") or above.package
        else:
            siblings = roots
            position = window = len(roots)
            depth = 0
            package = get("package") or ""
            if "_first" not in meta:
                meta["_first"] = "dump" if "visible-to-user" not in a else "u2"
        cls = get("class")
        if cls is None:
            cls = tag if tag != "node" else ""
        raw = get("index")
        idx = position
        if raw:
            found = ints.get(raw)
            idx = found if found is not None else _int_or(raw, position)
        raw = get("drawing-order")
        drawing = idx
        if raw:
            found = ints.get(raw)
            drawing = found if found is not None else _int_or(raw, idx)
        raw = get("bounds")
        rect = rects.get(raw)
        if rect is None:
            rect = rects[raw] = _parse_bounds(raw)
        visible = get("visible-to-user")
        if visible is None:
            visible = get("displayed")
        node = make(get, cls, rect, visible, package, (window, idx, drawing, len(nodes), depth), parent)
        if not standard(a):
            node.extra = _extra_attrs(a)
        append(node)
        siblings.append(node)
        push(node)

    def root_start(tag: str, a: dict[str, str]) -> None:
        if tag != "hierarchy":
            raise _NotAndroid
        meta.update(a)
        parser.StartElementHandler = node_start

    def end(tag: str) -> None:
        if stack:
            stack.pop()

    parser.StartElementHandler = root_start
    parser.EndElementHandler = end
    try:
        parser.Parse(body, True)
    except (expat.ExpatError, _NotAndroid):
        return None
    fmt = "u2"
    if "class" in meta or "width" in meta:
        fmt = "appium-android"
    elif meta.get("_first") == "dump":
        fmt = "uiautomator-dump"
    try:
        rotation = int(meta.get("rotation") or 0)
    except ValueError:
        rotation = 0
    return _android_hierarchy(roots, nodes, source, fmt, rotation)


_SMALL_INTS = {str(i): i for i in range(512)}

_ANDROID_STANDARD_ATTRS = frozenset(
    {
        "index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
        "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
        "selected", "visible-to-user", "bounds", "drawing-order", "hint", "display-id", "NAF", "displayed",
    }
)  # fmt: skip
ANDROID_EXTRA_ATTRS = frozenset(
    {
        "unique-id", "test-tag", "labeled-by", "state-description", "pane-title", "role-description",
        "editable", "heading", "multi-line", "multiline", "input-type", "collection-item-row-index",
        "collection-item-column-index",
    }
)  # fmt: skip
"""Dump attributes (beyond uiautomator2's usual set) that `androidAccessibility` fields read; the
on-device accessibility properties Trailblaze matches (`uniqueId`, `isHeading`, …) under these names."""


def _extra_attrs(a: Any) -> dict[str, str] | None:
    found = {k: a[k] for k in a.keys() if k in ANDROID_EXTRA_ATTRS}
    return found or None


def _int_or(raw: str, default: int) -> int:
    try:
        return int(raw)
    except ValueError:
        return default


class _NotAndroid(Exception):
    """Raised inside the expat fast path when the document is not a uiautomator dump."""


# --------------------------------------------------------------------------------------------------
# iOS


def _ios_flag(raw: Any, default: bool) -> bool:
    if raw is None:
        return default
    if isinstance(raw, bool):
        return raw
    return str(raw).lower() in ("true", "1", "yes")


def _num(raw: Any) -> float:
    try:
        return float(raw)
    except (TypeError, ValueError):
        return 0.0


class _IosAttrs(NamedTuple):
    """One element's attributes as WDA's XML or JSON source gives them (read once, both formats)."""

    type_name: str
    identifier: str
    label: str
    value: str
    placeholder: str
    rect: Rect
    enabled: bool
    visible: bool
    accessible: bool
    focused: bool
    selected: bool


def _ios_node(attrs: _IosAttrs, parent: Node | None, depth: int, index: int, out: list[Node]) -> Node:
    (type_name, identifier, label, value, placeholder, rect, enabled, visible, accessible, focused, selected) = attrs
    cls = type_name if type_name.startswith(_XCUI) else _XCUI + type_name
    short = cls[len(_XCUI) :]
    textual = short in _IOS_TEXTUAL
    text = value if textual and value != placeholder else ""
    checkable = short in _IOS_CHECKABLE
    window = parent.window if parent is not None and parent.parent is not None else index
    node = Node(
        platform="ios",
        class_name=cls,
        resource_id=identifier,
        text=text,
        label=label,
        hint=placeholder,
        value=value,
        bounds=rect,
        enabled=enabled,
        clickable=short in _IOS_INTERACTIVE,
        checkable=checkable,
        checked=checkable and value in ("1", "true"),
        focusable=short in _IOS_EDITABLE,
        focused=focused,
        scrollable=short in _IOS_SCROLLABLE,
        selected=selected,
        password=short == "SecureTextField",
        visible=visible,
        accessible=accessible,
        package=parent.package if parent is not None else "",
        window=window if parent is not None else 0,
        index=index,
        drawing_order=index,
        order=len(out),
        depth=depth,
        parent=parent,
    )
    out.append(node)
    return node


def _build_ios_xml(app_el: Any, source: str | bytes) -> Hierarchy:
    nodes: list[Node] = []

    def build(el: Any, parent: Node | None, depth: int, index: int) -> Node:
        get = el.attrib.get
        name = get("name") or ""
        label = get("label") or ""
        # WDA's `name` is the accessibility identifier when set, else the label: a name equal to the
        # label carries no identifier.
        identifier = name if name != label else ""
        traits = get("traits") or ""
        x, y, w, h = _num(get("x")), _num(get("y")), _num(get("width")), _num(get("height"))
        node = _ios_node(
            _IosAttrs(
                get("type") or el.tag,
                identifier,
                label,
                get("value") or "",
                get("placeholderValue") or "",
                Rect(x, y, x + w, y + h),
                _ios_flag(get("enabled"), True),
                _ios_flag(get("visible"), True),
                _ios_flag(get("accessible"), False),
                _ios_flag(get("focused") or get("hasFocus"), False) or "Focused" in traits,
                _ios_flag(get("selected"), False) or "Selected" in traits,
            ),
            parent,
            depth,
            index,
            nodes,
        )
        if parent is None:
            node.package = get("bundleId") or ""
        position = 0
        for child in el:
            if isinstance(child.tag, str):
                node.children.append(build(child, node, depth + 1, position))
                position += 1
        return node

    root = build(app_el, None, 0, 0)
    return _finish_ios(root, nodes, source, "wda-xml")


def _parse_wda_json(body: bytes, source: str | bytes) -> Hierarchy:
    try:
        doc = json.loads(body)
    except ValueError as exc:
        raise DeviceError(f"view hierarchy dump is not valid JSON: {exc}") from exc
    if isinstance(doc, dict) and "value" in doc and "type" not in doc:
        doc = doc["value"]  # the WDA response envelope
    if not isinstance(doc, dict) or "type" not in doc:
        raise DeviceError("not a WebDriverAgent JSON source: expected an object with a `type` key")
    nodes: list[Node] = []

    def build(obj: dict[str, Any], parent: Node | None, depth: int, index: int) -> Node:
        rect = obj.get("rect") or {}
        x, y = _num(rect.get("x")), _num(rect.get("y"))
        w, h = _num(rect.get("width")), _num(rect.get("height"))
        label = obj.get("label") or ""
        name = obj.get("name") or ""
        identifier = obj.get("rawIdentifier")
        if identifier is None:
            identifier = name if name != label else ""
        value = obj.get("value")
        node = _ios_node(
            _IosAttrs(
                str(obj.get("type") or "Other"),
                str(identifier or ""),
                str(label),
                "" if value is None else str(value),
                str(obj.get("placeholderValue") or ""),
                Rect(x, y, x + w, y + h),
                _ios_flag(obj.get("isEnabled"), True),
                _ios_flag(obj.get("isVisible"), True),
                _ios_flag(obj.get("isAccessible"), False),
                _ios_flag(obj.get("isFocused") or obj.get("hasFocus"), False),
                _ios_flag(obj.get("isSelected"), False) or "Selected" in str(obj.get("traits") or ""),
            ),
            parent,
            depth,
            index,
            nodes,
        )
        if parent is None:
            node.package = str(obj.get("bundleId") or "")
        for position, child in enumerate(obj.get("children") or []):
            if isinstance(child, dict):
                node.children.append(build(child, node, depth + 1, position))
        return node

    root = build(doc, None, 0, 0)
    return _finish_ios(root, nodes, source, "wda-json")


def _finish_ios(root: Node, nodes: list[Node], source: str | bytes, fmt: str) -> Hierarchy:
    width, height = root.bounds.width, root.bounds.height
    if width <= 0 or height <= 0:  # some sources give the application no frame; use the windows'
        width = max((n.bounds.right for n in root.children), default=0.0)
        height = max((n.bounds.bottom for n in root.children), default=0.0)
    kinds: list[WindowKind] = []
    keyboards: list[Node] = []
    for child in root.children:
        kind: WindowKind = "app"
        if child.short_class == "StatusBar":
            kind = "system"
        else:
            found = _keyboards(child)
            if found and _only_keyboard(child):
                kind = "ime"
            else:
                # The keyboard can sit inside the app's own window (the simulator, some iOS versions):
                # it becomes a pseudo-window of its own so the window stays the app's.
                keyboards.extend(found)
        kinds.append(kind)
    for keyboard in keyboards:
        index = len(kinds)
        kinds.append("ime")
        for node in keyboard.walk():
            node.window = index
    hierarchy = Hierarchy(
        platform="ios", roots=[root], width=width, height=height, scale=3.0, source=source, format=fmt,
        nodes=nodes, window_kinds=kinds,
    )  # fmt: skip
    _clip_all(hierarchy)
    return hierarchy


def _keyboards(window: Node) -> list[Node]:
    """The outermost `XCUIElementTypeKeyboard` elements inside `window`."""
    found: list[Node] = []
    stack = [window]
    while stack:
        node = stack.pop()
        if node.class_name == "XCUIElementTypeKeyboard":
            found.append(node)
        else:
            stack.extend(node.children)
    return found


def _only_keyboard(window: Node) -> bool:
    """Whether `window` holds the keyboard and nothing else a person could read or touch.

    Apart from the keyboard, only empty containers may be there (a keyboard window wraps the
    keyboard in a few `Other` views, and may add the predictive bar, which lives inside it).
    """
    stack = [window]
    while stack:
        node = stack.pop()
        if node.class_name == "XCUIElementTypeKeyboard":
            continue
        if node is not window and (
            node.label or node.text or node.hint or node.resource_id or node.clickable or node.scrollable
        ):
            return False
        stack.extend(node.children)
    return True


# --------------------------------------------------------------------------------------------------
# Visible bounds


def _clip_all(hierarchy: Hierarchy) -> None:
    screen = hierarchy.screen
    hierarchy.memo.clear()
    for root in hierarchy.roots:
        stack: list[tuple[Node, Rect]] = [(root, screen)]
        while stack:
            node, clip = stack.pop()
            b = node.bounds
            if (
                b.left >= clip.left
                and b.top >= clip.top
                and b.right <= clip.right
                and b.bottom <= clip.bottom
            ):
                vb = b  # the common case: wholly inside, no new rectangle
            else:
                vb = b.intersect(clip)
            node.visible_bounds = vb
            node.on_screen = node.visible and vb.right > vb.left and vb.bottom > vb.top
            # Scrolling containers clip their content; other views may draw outside their bounds
            # (and often report children outside them), so they do not clip.
            child_clip = vb if node.scrollable else clip
            for child in node.children:
                stack.append((child, child_clip))
