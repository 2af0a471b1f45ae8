"""A small stack layout engine: frames (in points) for the elements of a screen.

Vertical stacks place children top to bottom (those with `dock: bottom` from the bottom up);
horizontal stacks place them left to right and centre them vertically. Children that `grow` share
the space left over. Sizes come from the spec or from per-role defaults, so a spec only states what
differs. Siblings never overlap unless the spec asks for more room than the parent has.

The system font size (`font`: 1.0, or 1.3 under the `large-font` profile) scales the height of every
element that shows text and of a list's rows (their default or the spec's), as text grows on a phone;
bars and containers of fixed height do not, so less fits on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trailblaze_sim.app.spec import Box, ElementSpec
from trailblaze_sim.model import Frame

__all__ = ["default_direction", "default_height", "default_margin", "intrinsic_height", "place"]

Kids = Callable[[ElementSpec], Sequence[ElementSpec]]

_HEIGHTS: dict[str, float] = {
    "heading": 40,
    "text": 24,
    "button": 48,
    "icon_button": 48,
    "link": 32,
    "text_field": 56,
    "secure_field": 56,
    "multiline_field": 120,
    "switch": 48,
    "row": 64,
    "tab_bar": 56,
    "nav_bar": 56,
    "progress": 48,
    "image": 96,
    "snackbar": 48,
}
_IOS_HEIGHTS: dict[str, float] = {"nav_bar": 44, "tab_bar": 49}
_WIDTHS: dict[str, float] = {"icon_button": 48}
_TEXT_ROLES = frozenset(
    {"heading", "text", "button", "link", "text_field", "secure_field", "multiline_field", "switch", "snackbar", "row"}
)
"""Roles whose height follows the font: what shows text, and a list's row (its lines of text grow)."""
_CONTAINERS = frozenset({"container", "row", "nav_bar", "tab_bar", "dialog", "screen", "list"})
_NO_MARGIN = _CONTAINERS | {"tab", "snackbar"}


def default_height(role: str, platform: str) -> float | None:
    if platform == "ios" and role in _IOS_HEIGHTS:
        return _IOS_HEIGHTS[role]
    return _HEIGHTS.get(role)


def default_direction(el: ElementSpec) -> str:
    if el.direction:
        return el.direction
    return "horizontal" if el.role in ("nav_bar", "tab_bar") else "vertical"


def default_margin(role: str, parent_direction: str) -> Box:
    if role in _NO_MARGIN:
        return (0.0, 0.0, 0.0, 0.0)
    if parent_direction == "horizontal":
        return (0.0, 4.0, 0.0, 4.0) if role in ("icon_button", "button") else (0.0, 16.0, 0.0, 16.0)
    return (8.0, 16.0, 8.0, 16.0)


def _padding(el: ElementSpec) -> Box:
    if el.padding is not None:
        return el.padding
    return (8.0, 16.0, 8.0, 16.0) if el.role == "row" else (0.0, 0.0, 0.0, 0.0)


def intrinsic_height(el: ElementSpec, platform: str, kids: Kids, font: float = 1.0) -> float:
    """The height an element wants: the spec's, the role default, or what its children need; a
    text's grown by the font scale."""
    grow = font if el.role in _TEXT_ROLES else 1.0
    if el.height is not None:
        return el.height * grow
    role_default = default_height(el.role, platform)
    if role_default is not None:
        return role_default * grow
    children = kids(el)
    if not children:
        return 48.0
    top, _, bottom, _ = _padding(el)
    direction = default_direction(el)
    sizes = []
    for child in children:
        mt, _, mb, _ = child.margin if child.margin is not None else default_margin(child.role, direction)
        sizes.append(intrinsic_height(child, platform, kids, font) + mt + mb)
    if direction == "horizontal":
        return top + bottom + max(sizes)
    return top + bottom + sum(sizes) + el.gap * (len(sizes) - 1)


def place(
    parent: ElementSpec | None,
    children: Sequence[ElementSpec],
    area: Frame,
    platform: str,
    kids: Kids,
    font: float = 1.0,
) -> list[Frame]:
    """Frames for `children` inside `area` (the parent's frame), in the children's order."""
    direction = default_direction(parent) if parent is not None else "vertical"
    pt, pr, pb, pl = _padding(parent) if parent is not None else (0.0, 0.0, 0.0, 0.0)
    gap = parent.gap if parent is not None else 0.0
    inner = Frame(area.x + pl, area.y + pt, max(0.0, area.width - pl - pr), max(0.0, area.height - pt - pb))
    margins = [c.margin if c.margin is not None else default_margin(c.role, direction) for c in children]
    if direction == "horizontal":
        return _place_row(children, margins, inner, gap, platform, font)
    return _place_column(children, margins, inner, gap, platform, kids, font)


def _place_column(
    children: Sequence[ElementSpec],
    margins: list[Box],
    inner: Frame,
    gap: float,
    platform: str,
    kids: Kids,
    font: float,
) -> list[Frame]:
    heights: list[float | None] = [None if c.grow else intrinsic_height(c, platform, kids, font) for c in children]
    fixed = sum(h for h in heights if h is not None)
    fixed += sum(m[0] + m[2] for m in margins) + gap * max(0, len(children) - 1)
    growers = sum(1 for h in heights if h is None)
    share = max(0.0, inner.height - fixed) / growers if growers else 0.0
    sizes = [share if h is None else h for h in heights]

    frames: list[Frame | None] = [None] * len(children)
    top = inner.y
    for i, child in enumerate(children):
        if child.dock == "bottom":
            continue
        mt, _, mb, _ = margins[i]
        frames[i] = _hframe(child, margins[i], inner, top + mt, sizes[i])
        top += mt + sizes[i] + mb + gap
    bottom = inner.bottom
    for i in reversed(range(len(children))):
        if children[i].dock != "bottom":
            continue
        mt, _, mb, _ = margins[i]
        frames[i] = _hframe(children[i], margins[i], inner, bottom - mb - sizes[i], sizes[i])
        bottom -= mt + sizes[i] + mb + gap
    return [f for f in frames if f is not None]


def _hframe(child: ElementSpec, margin: Box, inner: Frame, y: float, height: float) -> Frame:
    _, mr, _, ml = margin
    avail = max(0.0, inner.width - ml - mr)
    width = min(child.width, avail) if child.width is not None else avail
    x = inner.x + ml
    if child.align == "center":
        x = inner.x + ml + (avail - width) / 2
    elif child.align == "end":
        x = inner.x + ml + avail - width
    return Frame(x, y, width, height)


def _place_row(
    children: Sequence[ElementSpec], margins: list[Box], inner: Frame, gap: float, platform: str, font: float
) -> list[Frame]:
    widths: list[float | None] = []
    for child in children:
        w = child.width if child.width is not None else _WIDTHS.get(child.role)
        widths.append(None if child.grow or w is None else w)
    fixed = sum(w for w in widths if w is not None)
    fixed += sum(m[1] + m[3] for m in margins) + gap * max(0, len(children) - 1)
    growers = sum(1 for w in widths if w is None)
    share = max(0.0, inner.width - fixed) / growers if growers else 0.0
    frames = []
    left = inner.x
    for i, child in enumerate(children):
        mt, mr, mb, ml = margins[i]
        width = share if widths[i] is None else widths[i] or 0.0
        avail_h = max(0.0, inner.height - mt - mb)
        wanted = child.height if child.height is not None else default_height(child.role, platform)
        if wanted is not None and child.role in _TEXT_ROLES:
            wanted *= font
        height = avail_h if child.role == "tab" or wanted is None else min(wanted, avail_h)
        y = inner.y + mt + (avail_h - height) / 2
        frames.append(Frame(left + ml, y, width, height))
        left += ml + width + mr + gap
    return frames
