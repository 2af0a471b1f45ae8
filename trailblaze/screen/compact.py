"""The compact view hierarchy the model reads, its refs, and the set-of-mark screenshot.

One line per meaningful element, indented by one space per level:

    [k4f] EditText "Email" [focused]
    [b2q] Button "Sign in"
    [f0p] TextView "Forgot password?" [tap]
    [m07] RecyclerView [scrollable]
     [c81] LinearLayout "Message 1"
      [d3x] TextView "From: user1@example.com"
     … 31 more below
    [keyboard shown]

Refs are content hashes of `short class | label | centre rounded to 10 units`, so the same element
keeps its ref across captures of the same screen and when unrelated parts of the screen change.
Dropped: system UI windows (status / navigation bar, iOS status bar), invisible and zero-area
nodes, and layout wrappers without content (their children are hoisted). A clickable container
without its own text takes over the first text inside it (one line instead of two). Content scrolled
out of a scrollable container is counted per direction. The IME becomes one `[keyboard shown]` line.
Elements a tap cannot reach because a dialog or the keyboard is drawn over them
(`trailblaze.screen.occlusion`) are left out and counted in one line per cover, first:

    (7 elements behind the dialog "Sign out?" are hidden)

Their refs still resolve (`CompactView.covered`), so a tap on one the model remembers from an
earlier view is refused with a reason instead of "unknown ref".

Every byte here is paid for on every request, so annotations say only what the line does not:
`[tap]` (or `[long-press]`) marks a tappable element whose class does not already say so — a text,
an image, a plain view — but not a container, whose line exists because it is tappable or labelled
(a row that took over its title); a line whose label only repeats the enclosing line and that has
nothing else to say is dropped and its children hoisted; a content description of literally `null`
(an app bug seen in the wild) is no label.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from trailblaze.screen.hierarchy import Cover, Hierarchy, Node, Rect
from trailblaze.screen.occlusion import covers

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

__all__ = ["CompactView", "compact_view", "draw_set_of_mark", "mark_image"]

_MAX_TEXT = 80
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"
# Classes whose name already says "you can tap me": no [clickable] annotation for them.
_OBVIOUS = frozenset(
    {
        "Button", "ImageButton", "EditText", "AutoCompleteTextView", "CheckBox", "RadioButton", "Switch",
        "SwitchCompat", "ToggleButton", "CheckedTextView", "Spinner", "SeekBar", "MaterialButton",
        "FloatingActionButton", "ExtendedFloatingActionButton", "Chip", "Tab", "TabView",
        "SwitchMaterial", "MaterialSwitch", "CompoundButton", "RatingBar",
    }
)  # fmt: skip
_IOS_NOISE = frozenset({"StatusBar"})
_SCROLLBAR_HINTS = ("Vertical scroll bar", "Horizontal scroll bar")


@dataclass
class CompactView:
    """The text the model sees and the node behind every ref in it."""

    text: str
    refs: dict[str, Node] = field(default_factory=dict)
    lines: int = 0
    offscreen: int = 0
    """Meaningful elements scrolled out of view (summarised, not listed)."""
    covered: dict[str, Node] = field(default_factory=dict)
    """Refs of the meaningful elements hidden under a dialog or the keyboard (not listed)."""

    def ref_of(self, node: Node) -> str | None:
        """The ref a node got in this view, if it has one."""
        for ref, candidate in self.refs.items():
            if candidate is node:
                return ref
        return None


def _description(node: Node) -> str:
    label = node.label
    return "" if label == "null" else label


def _label(node: Node) -> str:
    """What a person would read on the element: text, else label, else hint (iOS: label first,
    except in a text field, where what was typed comes first as on Android)."""
    if node.platform == "ios" and not (node.text and node.editable):
        return node.label or node.text or node.hint
    return node.text or _description(node) or node.hint


def _field_name(node: Node, shown: str) -> str:
    """The name of a filled text field (placeholder / hint, else its label), shown as `hint=` next
    to the typed value on both platforms; empty when the line already shows it."""
    if not (node.editable and node.text):
        return ""
    name = node.hint or _description(node)
    return name if name != shown else ""


def _has_content(node: Node) -> bool:
    if node.text or _description(node) or node.hint:
        return True
    return node.platform == "ios" and bool(node.value) and not node.checkable


def _is_container(node: Node) -> bool:
    return any(child.on_screen for child in node.children)


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) > _MAX_TEXT:
        flat = flat[: _MAX_TEXT - 1] + "…"
    return '"' + flat.replace('"', "'") + '"'


def _identity_hash(node: Node, label: str) -> int:
    cx, cy = node.center
    identity = f"{node.short_class}|{label}|{round(cx / 10)},{round(cy / 10)}"
    return zlib.crc32(identity.encode("utf-8"))


def _ref_for(h: int, length: int) -> str:
    chars = [chr(ord("a") + h % 26)]
    h //= 26
    for _ in range(length - 1):
        chars.append(_BASE36[h % 36])
        h //= 36
    return "".join(chars)


class _Builder:
    def __init__(self, hierarchy: Hierarchy) -> None:
        self.h = hierarchy
        self.lines: list[str] = []
        self.refs: dict[str, Node] = {}
        self.offscreen = 0
        self.keyboard = False
        self.hidden_nodes: list[Node] = []
        self.covered: dict[str, Node] = {}

    def ref(self, node: Node, label: str, into: dict[str, Node] | None = None) -> str:
        target = self.refs if into is None else into
        refs = self.refs

        def taken(ref: str) -> bool:
            return ref in refs or ref in target

        h = _identity_hash(node, label)
        for length in (3, 4, 5, 6):
            ref = _ref_for(h, length)
            if not taken(ref):
                target[ref] = node
                return ref
        suffix = 2  # identical identity (same class, label and position): number the repeats
        while taken(f"{_ref_for(h, 3)}{suffix}"):
            suffix += 1
        ref = f"{_ref_for(h, 3)}{suffix}"
        target[ref] = node
        return ref

    def hidden_summary(self) -> list[str]:
        """One line per cover; the hidden elements get refs after the shown ones (stable refs)."""
        counts: dict[int, tuple[Cover, int]] = {}
        for node in self.hidden_nodes:
            cover = node.covered_by
            assert cover is not None
            counts[id(cover)] = (cover, counts.get(id(cover), (cover, 0))[1] + 1)
            self.ref(node, _label(node), self.covered)
        lines = []
        for cover, n in counts.values():
            what = "element" if n == 1 else "elements"
            verb = "is" if n == 1 else "are"
            if cover.kind == "keyboard":
                lines.append(f"({n} {what} under the keyboard {verb} hidden)")
            else:
                title = f" {_quote(cover.title)}" if cover.title else ""
                lines.append(f"({n} {what} behind the dialog{title} {verb} hidden)")
        return lines

    def skip_subtree(self, node: Node) -> bool:
        if node.platform == "android":
            return False
        short = node.short_class
        if short in _IOS_NOISE:
            return True
        if short == "Keyboard":
            self.keyboard = True
            return True
        # Scroll indicators: accessibility-only elements named after the scroll bar.
        return short == "Other" and node.label.startswith(_SCROLLBAR_HINTS)

    def meaningful(self, node: Node) -> bool:
        return node.interactive or node.scrollable or _has_content(node) or node.focused or node.selected

    def annotations(self, node: Node, shown: str) -> str:
        notes: list[str] = []
        name = _field_name(node, shown)
        if name:
            notes.append(f"hint={_quote(name)}")
        if (
            node.platform == "ios"
            and node.value
            and not node.checkable
            and not (node.editable and node.text)
            and node.value not in (shown, node.text)
            and not (node.value in ("0", "1") and any(d.checkable for d in node.walk()))
        ):
            notes.append(f"value={_quote(node.value)}")
        if node.focused:
            notes.append("[focused]")
        if node.checkable:
            notes.append("[checked]" if node.checked else "[unchecked]")
        if not node.enabled:
            notes.append("[disabled]")
        if node.selected:
            notes.append("[selected]")
        if node.password and node.platform == "android":  # iOS says SecureTextField already
            notes.append("[password]")
        if node.scrollable:
            notes.append("[scrollable]")
        if node.platform == "android" and (node.clickable or node.long_clickable):
            if node.short_class not in _OBVIOUS and not node.editable and not _is_container(node):
                notes.append("[tap]" if node.clickable else "[long-press]")
        return (" " + " ".join(notes)) if notes else ""

    def emit(self, node: Node, depth: int, absorbed: Node | None, context: tuple[str, ...]) -> str:
        label = _label(node)
        if not label and absorbed is not None:
            label = _label(absorbed)
        ref = self.ref(node, label)
        # A label the enclosing line already shows (a switch inside its cell) is not repeated.
        shown = f" {_quote(label)}" if label and label not in context else ""
        self.lines.append(f"{' ' * depth}[{ref}] {node.short_class}{shown}{self.annotations(node, label)}")
        return label

    def redundant(self, node: Node, context: tuple[str, ...]) -> bool:
        """A plain element that only repeats what the enclosing line already says (its children,
        if any, are hoisted)."""
        if node.interactive or node.scrollable or node.focused or node.selected:
            return False
        label = _label(node)
        return bool(label) and label in context

    def visit(self, node: Node, depth: int, hidden: set[int], context: tuple[str, ...]) -> None:
        if self.skip_subtree(node):
            return
        if node.covered_by is not None:
            # Under a dialog or the keyboard: not listed, counted; its children are judged one by one.
            if node.on_screen and self.meaningful(node):
                self.hidden_nodes.append(node)
            for child in node.children:
                self.visit(child, depth, hidden, context)
            return
        if id(node) in hidden or not node.on_screen:
            # Absorbed into its container's line, or not on screen: its children may still need lines.
            for child in node.children:
                self.visit(child, depth, hidden, context)
            return
        child_depth = depth
        if self.meaningful(node) and not self.redundant(node, context):
            absorbed = self.absorbable(node)
            if absorbed is not None:
                hidden.add(id(absorbed))
            label = self.emit(node, depth, absorbed, context)
            context = (label, node.value) if node.platform == "ios" and node.value else (label,)
            child_depth = depth + 1
        if node.scrollable:
            counts = {"above": 0, "below": 0, "left": 0, "right": 0}
            for child in node.children:
                self.count_offscreen(child, node.visible_bounds, counts)
            for child in node.children:
                self.visit(child, child_depth, hidden, context)
            parts = [f"{n} more {where}" for where, n in counts.items() if n]
            if parts:
                self.offscreen += sum(counts.values())
                self.lines.append(f"{' ' * child_depth}… {', '.join(parts)}")
            return
        for child in node.children:
            self.visit(child, child_depth, hidden, context)

    def absorbable(self, node: Node) -> Node | None:
        """The first text inside a clickable container that has none of its own."""
        if _has_content(node) or not (node.clickable or node.long_clickable) or node.editable:
            return None
        stack = list(reversed(node.children))
        while stack:
            desc = stack.pop()
            if not desc.is_visible or desc.interactive or self.skip_subtree(desc):
                continue  # an interactive descendant keeps its own line, text and all
            if _has_content(desc):
                if any(d.interactive and d.is_visible for d in desc.walk()):
                    return None  # a labelled group of controls is a container, not a caption
                return desc
            stack.extend(reversed(desc.children))
        return None

    def count_offscreen(self, node: Node, area: Rect, counts: dict[str, int]) -> None:
        if self.skip_subtree(node):
            return
        if node.on_screen:
            for child in node.children:
                self.count_offscreen(child, area, counts)
            return
        if self.meaningful(node) and (node.bounds.area > 0 or _has_content(node)):
            b = node.bounds
            if b.top >= area.bottom - 1:
                counts["below"] += 1
            elif b.bottom <= area.top + 1:
                counts["above"] += 1
            elif b.left >= area.right - 1:
                counts["right"] += 1
            elif b.right <= area.left + 1:
                counts["left"] += 1
            else:
                counts["below"] += 1
            return
        for child in node.children:
            self.count_offscreen(child, area, counts)


def compact_view(hierarchy: Hierarchy) -> CompactView:
    """The compact, ref-annotated text of a hierarchy (see the module docstring for the format)."""
    covers(hierarchy)
    builder = _Builder(hierarchy)
    hidden: set[int] = set()
    for root in hierarchy.roots:
        kind = hierarchy.window_kind(root)
        if kind == "system":
            continue
        if kind == "ime":
            builder.keyboard = True
            continue
        if hierarchy.platform == "ios":
            for window in root.children:
                wkind = hierarchy.window_kind(window)
                if wkind == "ime":
                    builder.keyboard = True
                elif wkind == "app":
                    builder.visit(window, 0, hidden, ())
        else:
            builder.visit(root, 0, hidden, ())
    if builder.keyboard:
        builder.lines.append("[keyboard shown]")
    lines = builder.hidden_summary() + builder.lines
    return CompactView(
        text="\n".join(lines),
        refs=builder.refs,
        lines=len(lines),
        offscreen=builder.offscreen,
        covered=builder.covered,
    )


# --------------------------------------------------------------------------------------------------
# Set-of-mark


def _colour(ref: str) -> tuple[int, int, int]:
    h = zlib.crc32(ref.encode())
    # Saturated, darkish colours so white label text stays readable.
    palette = [(220, 38, 38), (37, 99, 235), (22, 163, 74), (147, 51, 234), (234, 88, 12), (8, 145, 178)]
    return palette[h % len(palette)]


def draw_set_of_mark(png_bytes: bytes, view: CompactView, scale: float) -> bytes:
    """The screenshot with every ref of `view` drawn as a labelled box (PNG bytes).

    Args:
        png_bytes: The screenshot (any format Pillow reads).
        view: The compact view whose refs to draw.
        scale: Screenshot pixels per hierarchy unit (`Hierarchy.scale` times any downscaling).
    """
    from PIL import Image

    with Image.open(io.BytesIO(png_bytes)) as src:
        image = src.convert("RGB")
    mark_image(image, view, scale)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def mark_image(image: PILImage, view: CompactView, scale: float) -> None:
    """Draws every ref of `view` as a labelled box on a decoded RGB `image`, in place.

    `scale` is the image's pixels per hierarchy unit (`Hierarchy.scale` times any downscaling).
    """
    from PIL import ImageDraw, ImageFont

    draw = ImageDraw.Draw(image)
    font_size = max(10, round(min(image.size) / 45))
    font = ImageFont.load_default(size=font_size)
    width = max(2, round(font_size / 6))
    for ref, node in view.refs.items():
        vb = node.visible_bounds
        box = (vb.left * scale, vb.top * scale, vb.right * scale - 1, vb.bottom * scale - 1)
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        colour = _colour(ref)
        draw.rectangle(box, outline=colour, width=width)
        left, top, right, bottom = draw.textbbox((0, 0), ref, font=font)
        tw, th = right - left, bottom - top
        lx = min(max(0.0, box[0]), image.width - tw - 4)
        ly = box[1] - th - 4 if box[1] >= th + 4 else box[1]
        draw.rectangle((lx, ly, lx + tw + 4, ly + th + 4), fill=colour)
        draw.text((lx + 2 - left, ly + 2 - top), ref, fill=(255, 255, 255), font=font)
