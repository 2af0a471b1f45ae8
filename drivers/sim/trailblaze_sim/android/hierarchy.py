"""The Android accessibility view of a simulated device, and its XML in the uiautomator2 dialect.

`build_windows` turns the device's `SimNode` tree (points) into `AxNode`s (pixels, clipped to the
display and to their parents, invisible nodes dropped) — what UiAutomator sees through the
accessibility API. The same view feeds `render_hierarchy` (the `dumpWindowHierarchy` XML: CRLF,
2-space indent, attribute order of `AccessibilityNodeInfoDumper`, API-34 attributes) and the
UiSelector matcher in `u2`, so a node a selector finds is exactly a node the dump shows.

The app's views sit inside its activity window (DecorView > LinearLayout > `android:id/content`,
plus the status/navigation bar background views), as in every real dump. Beside it there are two `com.android.systemui` windows, as on a phone with
three-button navigation: the status bar (24 pt) and the navigation bar (48 pt, Back/Home/Overview).
An open dialog is a window of its own after the app's, and the shown keyboard is the IME's window.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from trailblaze_sim.model import Frame, SimDevice, SimNode

__all__ = [
    "LAUNCHER_PACKAGE",
    "NAV_BAR_PT",
    "STATUS_BAR_PT",
    "SYSTEMUI_PACKAGE",
    "AxNode",
    "build_windows",
    "render_hierarchy",
    "render_uiautomator_dump",
    "system_node",
]

STATUS_BAR_PT = 24
NAV_BAR_PT = 48
SYSTEMUI_PACKAGE = "com.android.systemui"
LAUNCHER_PACKAGE = "com.google.android.apps.nexuslauncher"
IME_PACKAGE = "com.android.inputmethod.latin"

_XML_HEAD = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
# Classes UiAutomator never flags as NAF (AccessibilityNodeInfoDumper.NAF_EXCLUDED_CLASSES).
_NAF_EXCLUDED = (
    "android.widget.GridView",
    "android.widget.GridLayout",
    "android.widget.ListView",
    "android.widget.TableLayout",
)


@dataclass(eq=False, slots=True)
class AxNode:
    """One accessibility node as UiAutomator reports it. Bounds are pixels, already clipped."""

    index: int
    text: str
    resource_id: str
    class_name: str
    package: str
    content_desc: str
    bounds: tuple[int, int, int, int]
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    long_clickable: bool = False
    password: bool = False
    selected: bool = False
    hint: str = ""
    drawing_order: int = 0
    sim: SimNode | None = None
    """The model node behind this one (None for system UI)."""
    system_key: str | None = None
    """For navigation-bar buttons: the key a tap on them presses."""
    editable: bool = False
    parent: AxNode | None = None
    children: list[AxNode] = field(default_factory=list)

    def walk(self) -> list[AxNode]:
        """This node and its descendants, depth-first, pre-order (document order)."""
        out: list[AxNode] = []
        stack: list[AxNode] = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out

    @property
    def center(self) -> tuple[float, float]:
        left, top, right, bottom = self.bounds
        return ((left + right) / 2, (top + bottom) / 2)


def _px(value: float, scale: float) -> int:
    return int(round(value * scale))


def _clip(
    rect: tuple[int, int, int, int], within: tuple[int, int, int, int]
) -> tuple[int, int, int, int] | None:
    left = max(rect[0], within[0])
    top = max(rect[1], within[1])
    right = min(rect[2], within[2])
    bottom = min(rect[3], within[3])
    if right <= left or bottom <= top:
        return None
    return (left, top, right, bottom)


_EDITABLE_ROLES = frozenset({"text_field", "secure_field", "multiline_field"})


def _from_sim(
    node: SimNode,
    *,
    index: int,
    drawing_order: int,
    package: str,
    scale: float,
    clip: tuple[int, int, int, int],
    parent: AxNode | None,
) -> AxNode | None:
    if not node.visible:
        return None
    f = node.frame
    rect = (_px(f.x, scale), _px(f.y, scale), _px(f.right, scale), _px(f.bottom, scale))
    visible = _clip(rect, clip)
    if visible is None:
        return None
    editable = node.role in _EDITABLE_ROLES or node.android_class.endswith("EditText")
    password = node.password or node.role == "secure_field"
    text = node.text
    if password and text and set(text) != {"•"}:
        text = "•" * len(text)
    if editable and not text and node.hint:
        # Android O+ reports an empty EditText's hint as its text (showingHintText).
        text = node.hint
    ax = AxNode(
        index=index,
        text=text,
        resource_id=_resource_id(package, node.id),
        class_name=node.android_class,
        package=package,
        content_desc=node.label,
        bounds=visible,
        checkable=node.checkable,
        checked=node.checked,
        clickable=node.clickable,
        enabled=node.enabled,
        focusable=node.focusable or editable,
        focused=node.focused,
        scrollable=node.scrollable,
        long_clickable=node.long_clickable,
        password=password,
        selected=node.selected,
        hint=node.hint if editable else "",
        drawing_order=drawing_order,
        sim=node,
        editable=editable,
        parent=parent,
    )
    order = 0
    for i, child in enumerate(node.children):
        order += 1
        sub = _from_sim(
            child, index=i, drawing_order=order, package=package, scale=scale, clip=visible, parent=ax
        )
        if sub is not None:
            ax.children.append(sub)
    return ax


def system_node(
    index: int,
    class_name: str,
    bounds: tuple[int, int, int, int],
    *,
    rid: str = "",
    text: str = "",
    desc: str = "",
    order: int = 1,
    key: str | None = None,
    clickable: bool = False,
    children: list[AxNode] | None = None,
) -> AxNode:
    """A `com.android.systemui` node; `rid` is short (`clock`) unless it names its package."""
    tappable = clickable or key is not None
    node = AxNode(
        index=index,
        text=text,
        resource_id=(rid if ":id/" in rid else f"{SYSTEMUI_PACKAGE}:id/{rid}") if rid else "",
        class_name=class_name,
        package=SYSTEMUI_PACKAGE,
        content_desc=desc,
        bounds=bounds,
        clickable=tappable,
        focusable=tappable,
        long_clickable=tappable,
        drawing_order=order,
        system_key=key,
    )
    for child in children or []:
        child.parent = node
        node.children.append(child)
    return node


def _status_bar(width: int, scale: float, time_of_day: str | None) -> AxNode:
    h = _px(STATUS_BAR_PT, scale)
    if time_of_day:
        hour, minute = int(time_of_day[:2]), int(time_of_day[3:5])
    else:
        now = time.localtime()
        hour, minute = now.tm_hour, now.tm_min
    clock = f"{hour % 12 or 12}:{minute:02d}"
    ampm = "AM" if hour < 12 else "PM"
    pad = _px(16, scale)
    icons_left = width - pad - _px(60, scale)
    icon = _px(16, scale)
    top = (h - icon) // 2
    return system_node(
        0,
        "android.widget.FrameLayout",
        (0, 0, width, h),
        order=0,
        children=[
            system_node(
                0,
                "android.widget.FrameLayout",
                (0, 0, width, h),
                rid="status_bar",
                children=[
                    system_node(
                        0,
                        "android.widget.LinearLayout",
                        (0, 0, width, h),
                        rid="status_bar_contents",
                        children=[
                            system_node(
                                0,
                                "android.widget.TextView",
                                (pad, 0, pad + _px(40, scale), h),
                                rid="clock",
                                text=clock,
                                desc=f"{clock} {ampm}",
                            ),
                            system_node(
                                1,
                                "android.widget.LinearLayout",
                                (icons_left, 0, width - pad, h),
                                rid="system_icons",
                                order=2,
                                children=[
                                    system_node(
                                        0,
                                        "android.widget.ImageView",
                                        (icons_left, top, icons_left + icon, top + icon),
                                        rid="wifi_signal",
                                        desc="Wifi signal full.",
                                    ),
                                    system_node(
                                        1,
                                        "android.widget.ImageView",
                                        (icons_left + icon, top, icons_left + 2 * icon, top + icon),
                                        rid="mobile_signal",
                                        desc="Phone signal full.",
                                        order=2,
                                    ),
                                    system_node(
                                        2,
                                        "android.widget.LinearLayout",
                                        (icons_left + 2 * icon, top, width - pad, top + icon),
                                        rid="battery",
                                        desc="Battery 100 percent.",
                                        order=3,
                                    ),
                                ],
                            ),
                        ],
                    )
                ],
            )
        ],
    )


def _nav_bar(width: int, height: int, scale: float) -> AxNode:
    h = _px(NAV_BAR_PT, scale)
    top = height - h
    third = width // 3
    buttons = [("back", "Back", "back"), ("home", "Home", "home"), ("recent_apps", "Overview", "recent")]
    return system_node(
        0,
        "android.widget.FrameLayout",
        (0, top, width, height),
        order=0,
        children=[
            system_node(
                0,
                "android.widget.FrameLayout",
                (0, top, width, height),
                rid="navigation_bar_frame",
                children=[
                    system_node(
                        0,
                        "android.widget.LinearLayout",
                        (0, top, width, height),
                        rid="nav_buttons",
                        children=[
                            system_node(
                                i,
                                "android.widget.ImageView",
                                (i * third, top, (i + 1) * third if i < 2 else width, height),
                                rid=rid,
                                desc=desc,
                                order=i + 1,
                                key=key,
                            )
                            for i, (rid, desc, key) in enumerate(buttons)
                        ],
                    )
                ],
            )
        ],
    )


def _activity_decor(app: AxNode, package: str, width: int, height: int, scale: float) -> AxNode:
    """The activity window around the app's root view, as every real dump shows it: the
    full-screen DecorView, its LinearLayout, the `android:id/content` frame holding the app's views,
    and the views drawn behind the system bars."""
    status_h = _px(STATUS_BAR_PT, scale)
    nav_top = height - _px(NAV_BAR_PT, scale)

    def view(index: int, cls: str, rid: str, bounds: tuple[int, int, int, int], order: int) -> AxNode:
        return AxNode(index, "", rid, cls, package, "", bounds, drawing_order=order)

    decor = view(0, "android.widget.FrameLayout", "", (0, 0, width, height), 0)
    linear = view(0, "android.widget.LinearLayout", "", (0, 0, width, nav_top), 1)
    content = view(0, "android.widget.FrameLayout", "android:id/content", app.bounds, 1)
    status_bg = view(1, "android.view.View", "android:id/statusBarBackground", (0, 0, width, status_h), 2)
    nav_bg = view(2, "android.view.View", "android:id/navigationBarBackground", (0, nav_top, width, height), 3)
    _adopt(content, [app])
    _adopt(linear, [content])
    _adopt(decor, [linear, status_bg, nav_bg])
    return decor


def _adopt(parent: AxNode, children: list[AxNode]) -> None:
    for child in children:
        child.parent = parent
        parent.children.append(child)


def app_package(device: SimDevice) -> str:
    app = device.current_app()
    return app.app_id if app is not None else LAUNCHER_PACKAGE


def _resource_id(package: str, view_id: str) -> str:
    """`pkg:id/name`; an id that names its package already (a framework id such as `android:id/list`,
    which ListActivity-based apps use) is kept as it is."""
    if not view_id:
        return ""
    return view_id if ":id/" in view_id else f"{package}:id/{view_id}"


def build_windows(
    device: SimDevice, overlays: list[AxNode] | None = None, *, ime_package: str = IME_PACKAGE
) -> list[AxNode]:
    """The window roots UiAutomator sees: the app, its dialog if one is open, `overlays` (system
    windows drawn over the app: the notification shade, toasts), the status bar, the navigation
    bar, and the keyboard (IME) while it is shown, in the window of the selected input method's
    package (`ime_package`)."""
    scale = device.scale
    width = _px(device.screen_width, scale)
    height = _px(device.screen_height, scale)
    display = (0, 0, width, height)
    roots: list[AxNode] = []
    tree = device.tree()
    package = app_package(device)
    # A dialog is a window of its own, drawn above the activity's and listed after it, as in real
    # dumps taken while an AlertDialog is open (its decor FrameLayout is the window's root).
    dialogs = [c for c in tree.children if c.role == "dialog"]
    if dialogs:
        tree = replace(tree, children=[c for c in tree.children if c.role != "dialog"])
    app = _from_sim(tree, index=0, drawing_order=1, package=package, scale=scale, clip=display, parent=None)
    if app is not None:
        roots.append(_activity_decor(app, package, width, height, scale))
    for dialog in dialogs:
        window = _from_sim(
            dialog, index=0, drawing_order=1, package=package, scale=scale, clip=display, parent=None
        )
        if window is not None:
            decor = AxNode(0, "", "", "android.widget.FrameLayout", package, "", window.bounds, sim=dialog)
            content = AxNode(
                0, "", "android:id/content", "android.widget.FrameLayout", package, "", window.bounds,
                drawing_order=1, parent=decor,
            )  # fmt: skip
            decor.children.append(content)
            window.parent = content
            content.children.append(window)
            roots.append(decor)
    roots.extend(overlays or [])
    # The status bar shows the device's clock when the model has one (same as its screenshots).
    tod = getattr(device, "time_of_day", None)
    roots.append(_status_bar(width, scale, tod() if callable(tod) else None))
    roots.append(_nav_bar(width, height, scale))
    # The soft keyboard is its own window (the IME's), as in real dumps taken while typing.
    kb_frame = getattr(device, "keyboard_frame", None)
    kb = kb_frame() if callable(kb_frame) else None
    if isinstance(kb, Frame):
        rect = (_px(kb.x, scale), _px(kb.y, scale), _px(kb.right, scale), _px(kb.bottom, scale))
        ime = AxNode(0, "", "", "android.widget.FrameLayout", ime_package, "", rect)
        # AdbKeyboard's input view is a KeyboardView with id `keyboard` (its res/layout/input.xml)
        view_id = "keyboard_view" if ime_package == IME_PACKAGE else "keyboard"
        ime.children.append(
            AxNode(
                0,
                "",
                f"{ime_package}:id/{view_id}",
                "android.inputmethodservice.KeyboardView",
                ime_package,
                "",
                rect,
                drawing_order=1,
                parent=ime,
            )
        )
        roots.append(ime)
    return roots


def _esc(value: str) -> str:
    if not value:
        return value
    # XmlSerializer escapes these; control characters are invalid XML and become '.'.
    out = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    if any(ord(c) < 0x20 and c not in "\t\n\r" for c in out):
        out = "".join("." if ord(c) < 0x20 and c not in "\t\n\r" else c for c in out)
    return out


def _b(value: bool) -> str:
    return "true" if value else "false"


def _is_naf(node: AxNode) -> bool:
    if not (node.clickable and node.enabled) or node.text or node.content_desc:
        return False
    if node.class_name in _NAF_EXCLUDED:
        return False
    return not any(n.text or n.content_desc for n in node.walk()[1:])


def _attrs(node: AxNode, *, extended: bool) -> str:
    left, top, right, bottom = node.bounds
    parts = [
        'NAF="true" ' if _is_naf(node) else "",
        f'index="{node.index}" text="{_esc(node.text)}" resource-id="{_esc(node.resource_id)}" ',
        f'class="{_esc(node.class_name)}" package="{_esc(node.package)}" ',
        f'content-desc="{_esc(node.content_desc)}" checkable="{_b(node.checkable)}" ',
        f'checked="{_b(node.checked)}" clickable="{_b(node.clickable)}" enabled="{_b(node.enabled)}" ',
        f'focusable="{_b(node.focusable)}" focused="{_b(node.focused)}" ',
        f'scrollable="{_b(node.scrollable)}" long-clickable="{_b(node.long_clickable)}" ',
        f'password="{_b(node.password)}" selected="{_b(node.selected)}" ',
    ]
    if extended:
        parts.append(
            f'visible-to-user="true" bounds="[{left},{top}][{right},{bottom}]" '
            f'drawing-order="{node.drawing_order}" hint="{_esc(node.hint)}" display-id="0"'
        )
    else:
        parts.append(f'bounds="[{left},{top}][{right},{bottom}]"')
    return "".join(parts)


def _render(node: AxNode, depth: int, max_depth: int, out: list[str]) -> None:
    pad = "  " * (depth + 1)
    children = node.children if depth < max_depth else []
    if not children:
        out.append(f"{pad}<node {_attrs(node, extended=True)} />")
        return
    out.append(f"{pad}<node {_attrs(node, extended=True)}>")
    for child in children:
        _render(child, depth + 1, max_depth, out)
    out.append(f"{pad}</node>")


def render_hierarchy(windows: list[AxNode], *, rotation: int = 0, max_depth: int = 50) -> str:
    """The `dumpWindowHierarchy` document (uiautomator2 server dialect, no trailing newline)."""
    if not windows:
        return f'{_XML_HEAD}\r\n<hierarchy rotation="{rotation}" />'
    out = [_XML_HEAD, f'<hierarchy rotation="{rotation}">']
    for root in windows:
        _render(root, 0, max_depth, out)
    out.append("</hierarchy>")
    return "\r\n".join(out)


def render_uiautomator_dump(windows: list[AxNode], *, rotation: int = 0) -> str:
    """The `uiautomator dump` CLI document: one line, the active (app) window only, short attributes."""
    out = [f'{_XML_HEAD}<hierarchy rotation="{rotation}">']

    def rec(node: AxNode) -> None:
        if not node.children:
            out.append(f"<node {_attrs(node, extended=False)} />")
            return
        out.append(f"<node {_attrs(node, extended=False)}>")
        for child in node.children:
            rec(child)
        out.append("</node>")

    if windows:
        rec(windows[0])
    out.append("</hierarchy>")
    return "".join(out)
