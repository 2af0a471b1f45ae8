"""The unified hierarchy of a web page: the JSON a browser driver's DOM walk returns, as our nodes.

A web driver (`trailblaze_web`) walks the page's DOM in the page itself and hands over one JSON
object per element that matters to a person or to assistive technology:

    {"web": 1, "url": "...", "width": 1280, "height": 720, "scale": 1,
     "root": {"r": "generic", "n": "", "v": "", "t": "", "h": "", "id": "", "b": [x, y, w, h],
              "f": "ceCdsfhpxmS", "c": [...]}}

`r` is the ARIA role (explicit or implicit), `n` the accessible name, `v` the value of a form
control, `t` the element's own text, `h` the placeholder, `id` the test id (`data-testid`, else the
element id), `b` the bounding box in CSS pixels of the viewport, and `f` the states, one letter
each: `c` clickable, `e` disabled, `C` checkable, `k` checked, `s` selected, `F` focused,
`S` scrollable, `p` password, `x` hidden, `m` modal (a `dialog` shown modally or `aria-modal`);
`lv` is a heading's level. Both land in `Node.extra` (`modal`, `level`).

Coordinates are CSS pixels of the viewport (what Playwright's mouse takes); `scale` is the device
pixel ratio (screenshot pixels per CSS pixel). The role becomes the node's class name, so
`short_class` reads `button`, `textbox`, `checkbox`.
"""

from __future__ import annotations

import json
from typing import Any

from trailblaze.errors import DeviceError
from trailblaze.screen.hierarchy import Hierarchy, Node, Rect

__all__ = ["parse_web_dump"]


def _extra(obj: dict[str, Any], flags: str) -> dict[str, str] | None:
    extra: dict[str, str] = {}
    if "m" in flags:
        extra["modal"] = "true"
    if obj.get("lv"):
        extra["level"] = str(obj["lv"])
    return extra or None


def _node(obj: dict[str, Any], parent: Node | None, depth: int, index: int, out: list[Node]) -> Node:
    flags = str(obj.get("f") or "")
    x, y, w, h = (float(v) for v in (obj.get("b") or (0, 0, 0, 0)))
    role = str(obj.get("r") or "generic")
    value = str(obj.get("v") or "")
    text = str(obj.get("t") or "")
    node = Node(
        platform="web",
        class_name=role,
        resource_id=str(obj.get("id") or ""),
        # A form control shows its value where Android shows an EditText's text.
        text=value if value or role in ("textbox", "searchbox", "combobox", "spinbutton") else text,
        label=str(obj.get("n") or ""),
        hint=str(obj.get("h") or ""),
        value=value,
        bounds=Rect(x, y, x + w, y + h),
        enabled="e" not in flags,
        clickable="c" in flags,
        checkable="C" in flags,
        checked="k" in flags,
        focusable="c" in flags,
        focused="F" in flags,
        scrollable="S" in flags,
        selected="s" in flags,
        password="p" in flags,
        visible="x" not in flags,
        accessible=True,
        index=index,
        order=len(out),
        depth=depth,
        parent=parent,
        extra=_extra(obj, flags),
    )
    out.append(node)
    for position, child in enumerate(obj.get("c") or ()):
        if isinstance(child, dict):
            node.children.append(_node(child, node, depth + 1, position, out))
    return node


def _clip(hierarchy: Hierarchy) -> None:
    # As on the phones: everything is clipped to the viewport, and scrolling containers (overflow
    # auto/scroll) clip their content.
    for root in hierarchy.roots:
        stack: list[tuple[Node, Rect]] = [(root, hierarchy.screen)]
        while stack:
            node, clip = stack.pop()
            vb = node.bounds.intersect(clip)
            node.visible_bounds = vb
            node.on_screen = node.visible and vb.right > vb.left and vb.bottom > vb.top
            child_clip = vb if node.scrollable and node.parent is not None else clip
            stack.extend((child, child_clip) for child in node.children)


def parse_web_dump(source: str) -> Hierarchy:
    """The hierarchy of one DOM walk (see the module docstring for its JSON).

    Raises:
        DeviceError: The text is not a web DOM walk.
    """
    try:
        doc = json.loads(source)
    except ValueError as exc:
        raise DeviceError(f"the page's DOM walk is not valid JSON: {exc}; reload the page and retry") from exc
    if not isinstance(doc, dict) or doc.get("web") != 1 or not isinstance(doc.get("root"), dict):
        raise DeviceError("not a web DOM walk: expected an object with `web: 1` and a `root`")
    nodes: list[Node] = []
    root = _node(doc["root"], None, 0, 0, nodes)
    root.package = str(doc.get("url") or "")
    for node in nodes:
        node.package = root.package
    hierarchy = Hierarchy(
        platform="web",
        roots=[root],
        width=float(doc.get("width") or 0),
        height=float(doc.get("height") or 0),
        scale=float(doc.get("scale") or 1.0),
        source=source,
        format="web-dom",
        window_kinds=["app"],
        nodes=nodes,
    )
    _clip(hierarchy)
    return hierarchy
