"""Screenshots of a simulated device: the same `SimNode` tree the protocol servers see, drawn with
Pillow at pixel size (points × scale).

The look is deliberately plain (Material-ish on Android, UIKit-ish on iOS) but recognisable: system
bars, app bars, filled buttons, outlined fields with hints and a focus ring, switches, list rows
with dividers, tabs with the selected one highlighted, dimmed modals, snackbars and the keyboard.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from trailblaze_sim.model import Frame, SimNode

__all__ = ["render_image", "render_png"]

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class _Theme:
    background: RGB
    surface: RGB
    bar: RGB
    text: RGB
    secondary: RGB
    outline: RGB
    primary: RGB
    on_primary: RGB
    selected_bg: RGB
    error: RGB
    divider: RGB
    wallpaper: RGB
    keyboard: RGB
    key: RGB


_LIGHT = {
    "android": _Theme(
        background=(254, 247, 255),
        surface=(255, 255, 255),
        bar=(243, 237, 247),
        text=(29, 27, 32),
        secondary=(96, 93, 102),
        outline=(121, 116, 126),
        primary=(103, 80, 164),
        on_primary=(255, 255, 255),
        selected_bg=(232, 222, 248),
        error=(179, 38, 30),
        divider=(225, 220, 230),
        wallpaper=(38, 70, 83),
        keyboard=(236, 230, 240),
        key=(255, 255, 255),
    ),
    "ios": _Theme(
        background=(255, 255, 255),
        surface=(255, 255, 255),
        bar=(248, 248, 248),
        text=(0, 0, 0),
        secondary=(108, 108, 112),
        outline=(199, 199, 204),
        primary=(0, 122, 255),
        on_primary=(255, 255, 255),
        selected_bg=(229, 241, 255),
        error=(255, 59, 48),
        divider=(222, 222, 226),
        wallpaper=(52, 88, 140),
        keyboard=(209, 212, 217),
        key=(255, 255, 255),
    ),
}
_DARK = {
    name: _Theme(
        background=(28, 27, 31),
        surface=(43, 41, 48),
        bar=(43, 41, 48),
        text=(230, 225, 229),
        secondary=(202, 196, 208),
        outline=(147, 143, 153),
        primary=t.primary if name == "ios" else (208, 188, 255),
        on_primary=(255, 255, 255) if name == "ios" else (56, 30, 114),
        selected_bg=(74, 68, 88),
        error=(242, 184, 181),
        divider=(73, 69, 79),
        wallpaper=t.wallpaper,
        keyboard=(50, 50, 55),
        key=(90, 90, 95),
    )
    for name, t in _LIGHT.items()
}


@lru_cache(maxsize=64)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, px))


class _Painter:
    """Draws in points onto an image in pixels; `origin` shifts for clipped sub-layers (lists)."""

    def __init__(
        self, image: Image.Image, scale: float, theme: _Theme, origin: tuple[float, float] = (0.0, 0.0)
    ) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image, "RGBA")
        self.scale = scale
        self.theme = theme
        self.ox, self.oy = origin

    def box(self, f: Frame) -> tuple[int, int, int, int]:
        s = self.scale
        return (
            round((f.x - self.ox) * s),
            round((f.y - self.oy) * s),
            round((f.right - self.ox) * s) - 1,
            round((f.bottom - self.oy) * s) - 1,
        )

    def rect(
        self,
        f: Frame,
        fill: RGB | tuple[int, int, int, int] | None = None,
        outline: RGB | None = None,
        width: float = 1.0,
        radius: float = 0.0,
    ) -> None:
        b = self.box(f)
        if b[2] <= b[0] or b[3] <= b[1]:
            return
        w = max(1, round(width * self.scale)) if outline else 0
        if radius > 0:
            r = min(round(radius * self.scale), (b[2] - b[0]) // 2, (b[3] - b[1]) // 2)
            self.draw.rounded_rectangle(b, r, fill=fill, outline=outline, width=w)
        else:
            self.draw.rectangle(b, fill=fill, outline=outline, width=w)

    def line(self, x1: float, y1: float, x2: float, y2: float, fill: RGB, width: float = 1.0) -> None:
        s = self.scale
        self.draw.line(
            [((x1 - self.ox) * s, (y1 - self.oy) * s), ((x2 - self.ox) * s, (y2 - self.oy) * s)],
            fill=fill,
            width=max(1, round(width * s)),
        )

    def text(
        self,
        f: Frame,
        text: str,
        size: float,
        fill: RGB,
        *,
        align: str = "left",
        valign: str = "center",
        bold: bool = False,
        inset: float = 0.0,
    ) -> None:
        if not text:
            return
        font = _font(round(size * self.scale))
        left, top, right, bottom = self.box(f)
        pad = round(inset * self.scale)
        avail = right - left - 2 * pad
        text = self._fit(text, font, avail)
        tw = self.draw.textlength(text, font=font)
        if align == "center":
            x = left + pad + (avail - tw) / 2
        elif align == "right":
            x = right - pad - tw
        else:
            x = left + pad
        line_h = round(size * self.scale * 1.25)
        lines = text.split("\n")
        block = line_h * len(lines)
        y: float
        if valign == "top":
            y = top + pad
        else:
            y = top + (bottom - top - block) / 2
        stroke = max(1, round(self.scale / 2)) if bold else 0
        for i, line in enumerate(lines):
            self.draw.text(
                (x, y + i * line_h + line_h * 0.1),
                line,
                font=font,
                fill=fill,
                stroke_width=stroke,
                stroke_fill=fill,
            )

    def _fit(self, text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, avail: float) -> str:
        if "\n" in text or self.draw.textlength(text, font=font) <= avail:
            return text
        while len(text) > 1 and self.draw.textlength(text + "…", font=font) > avail:
            text = text[:-1]
        return text + "…"


def render_png(
    root: SimNode,
    *,
    platform: str,
    width: int,
    height: int,
    scale: float,
    inset_top: float,
    inset_bottom: float,
    status_time: str = "09:41",
    keyboard: Frame | None = None,
    dark: bool = False,
) -> bytes:
    """The screen as PNG bytes at `width*scale` × `height*scale` pixels."""
    image = render_image(
        root,
        platform=platform,
        width=width,
        height=height,
        scale=scale,
        inset_top=inset_top,
        inset_bottom=inset_bottom,
        status_time=status_time,
        keyboard=keyboard,
        dark=dark,
    )
    out = io.BytesIO()
    # Level 1: screenshots are taken every step; size matters less than time.
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def render_image(
    root: SimNode,
    *,
    platform: str,
    width: int,
    height: int,
    scale: float,
    inset_top: float,
    inset_bottom: float,
    status_time: str = "09:41",
    keyboard: Frame | None = None,
    dark: bool = False,
) -> Image.Image:
    """The screen as a Pillow image (see `render_png`)."""
    theme = (_DARK if dark else _LIGHT)["ios" if platform == "ios" else "android"]
    launcher = any(c.ios_type == "XCUIElementTypeIcon" for c in root.children)
    background = theme.wallpaper if launcher else theme.background
    image = Image.new("RGB", (round(width * scale), round(height * scale)), background)
    p = _Painter(image, scale, theme)
    _Renderer(p, platform, launcher).node(root)
    _system_ui(p, platform, width, height, inset_top, inset_bottom, status_time, launcher)
    if keyboard is not None and not any(n.role == "keyboard" for n in root.children):
        _keyboard(p, keyboard)
    return image


class _Renderer:
    def __init__(self, painter: _Painter, platform: str, launcher: bool) -> None:
        self._in_dialog = False
        self.p = painter
        self.t = painter.theme
        self.ios = platform == "ios"
        self.launcher = launcher

    def node(self, n: SimNode) -> None:
        if not n.visible or n.opacity <= 0:
            return
        p, t, f = self.p, self.t, n.frame
        role = n.role
        if role in ("dialog",) or n.id == "progress_overlay":
            dim = Frame(-10000, -10000, 20000, 20000)
            p.rect(dim, fill=(0, 0, 0, 110))
            p.rect(f, fill=t.surface, radius=14 if self.ios else 28)
            self._in_dialog = True
            try:
                self.children(n)
            finally:
                self._in_dialog = False
            return
        if role == "list":
            self.list(n)
            return
        draw = getattr(self, f"_{role}", None)
        if draw is not None:
            draw(n)
        self.children(n)

    def children(self, n: SimNode) -> None:
        for child in n.children:
            self.node(child)

    def list(self, n: SimNode) -> None:
        # Rows that overhang the list (a partly scrolled row) are clipped to it, as on a device.
        p = self.p
        box = p.box(n.frame)
        w, h = box[2] - box[0] + 1, box[3] - box[1] + 1
        if w <= 0 or h <= 0:
            return
        layer = Image.new("RGB", (w, h), self.t.background)
        sub = _Renderer(
            _Painter(layer, p.scale, self.t, (n.frame.x, n.frame.y)), "ios" if self.ios else "android", False
        )
        sub.children(n)
        p.image.paste(layer, (box[0], box[1]))

    # --- roles (one method each; missing ones draw only their children) -------------------------
    def _nav_bar(self, n: SimNode) -> None:
        self.p.rect(n.frame, fill=self.t.bar)
        self.p.line(n.frame.x, n.frame.bottom - 0.5, n.frame.right, n.frame.bottom - 0.5, self.t.divider, 0.5)

    def _tab_bar(self, n: SimNode) -> None:
        self.p.rect(n.frame, fill=self.t.bar)
        self.p.line(n.frame.x, n.frame.y, n.frame.right, n.frame.y, self.t.divider, 0.5)

    def _tab(self, n: SimNode) -> None:
        p, t, f = self.p, self.t, n.frame
        color = t.primary if n.selected else t.secondary
        cx, top = f.center[0], f.y + f.height * 0.14
        icon = Frame(cx - 12, top, 24, f.height * 0.4)
        if n.selected and not self.ios:
            p.rect(Frame(cx - 28, top - 2, 56, f.height * 0.4 + 4), fill=t.selected_bg, radius=16)
        p.rect(
            Frame(cx - 8, icon.y + icon.height / 2 - 8, 16, 16),
            outline=color,
            width=2,
            radius=4,
            fill=color if n.selected else None,
        )
        p.text(
            Frame(f.x, f.y + f.height * 0.58, f.width, f.height * 0.38),
            n.text or n.label,
            12,
            color,
            align="center",
            bold=n.selected,
        )

    def _heading(self, n: SimNode) -> None:
        size = min(24.0, n.frame.height * 0.6)
        self.p.text(n.frame, n.text, size, self.t.text, bold=True)

    def _text(self, n: SimNode) -> None:
        size = min(16.0, n.frame.height * 0.72)
        color = self.t.error if "error" in n.id else self.t.secondary if "subtitle" in n.id else self.t.text
        if self.launcher:
            color = (255, 255, 255)
        self.p.text(
            n.frame, n.text or n.label, size, color, valign="top" if n.frame.height > 40 else "center"
        )

    def _link(self, n: SimNode) -> None:
        p, f = self.p, n.frame
        p.text(f, n.text, 15, self.t.primary, align="center")

    def _button(self, n: SimNode) -> None:
        p, t, f = self.p, self.t, n.frame
        if n.ios_type == "XCUIElementTypeButton" and self.ios and f.height < 48 and f.width < 100:
            # A bar button: tinted text.
            p.text(f, ("‹ " if n.text == "Back" else "") + n.text, 17, t.primary)
            return
        if self._in_dialog:
            p.text(f, n.text, 15, t.primary, align="center", bold=True)
            return
        fill = t.primary if n.enabled else t.divider
        p.rect(f, fill=fill, radius=12 if self.ios else f.height / 2)
        p.text(f, n.text or n.label, 16, t.on_primary, align="center", bold=True)

    def _icon_button(self, n: SimNode) -> None:
        p, t, f = self.p, self.t, n.frame
        if n.ios_type == "XCUIElementTypeIcon":
            tile = Frame(f.x + 6, f.y, f.width - 12, f.width - 12)
            p.rect(tile, fill=t.primary, radius=14)
            p.text(tile, (n.text or n.label or "?")[:1], 30, (255, 255, 255), align="center", bold=True)
            p.text(
                Frame(f.x - 8, tile.bottom + 4, f.width + 16, 20),
                n.text or n.label,
                12,
                (255, 255, 255),
                align="center",
            )
            return
        cx, cy = f.center
        label = (n.label or n.text).lower()
        if "up" in label or "back" in label:
            p.line(cx + 8, cy, cx - 8, cy, t.text, 2)
            p.line(cx - 8, cy, cx - 2, cy - 6, t.text, 2)
            p.line(cx - 8, cy, cx - 2, cy + 6, t.text, 2)
            return
        p.rect(Frame(cx - 20, cy - 20, 40, 40), fill=t.selected_bg, radius=12)
        # A pencil: the body, its tip and the eraser end.
        p.line(cx - 7, cy + 7, cx + 6, cy - 6, t.primary, 3)
        p.line(cx - 9, cy + 9, cx - 7, cy + 7, t.text, 2)
        p.line(cx + 5, cy - 5, cx + 8, cy - 8, t.text, 3)

    def _field(self, n: SimNode) -> None:
        p, t, f = self.p, self.t, n.frame
        multiline = n.role == "multiline_field"
        if self.ios:
            p.rect(
                f,
                fill=(242, 242, 247) if t.background == (255, 255, 255) else t.surface,
                radius=10,
                outline=t.primary if n.focused else None,
                width=2,
            )
        else:
            p.rect(f, outline=t.primary if n.focused else t.outline, width=2 if n.focused else 1, radius=4)
        value = n.text
        if n.password and value:
            # The default font has no bullet glyph: draw the dots.
            count = min(len(value), int((f.width - 32) // 12))
            for i in range(count):
                p.rect(Frame(f.x + 14 + i * 12, f.center[1] - 4, 8, 8), fill=t.text, radius=4)
            tw = count * 12.0
        else:
            p.text(
                f,
                value or n.hint,
                16,
                t.text if value else t.secondary,
                inset=12,
                valign="top" if multiline else "center",
            )
            last_line = value.split("\n")[-1]
            tw = p.draw.textlength(last_line, font=_font(round(16 * p.scale))) / p.scale
        if n.focused:
            lines = value.count("\n") if value else 0
            top = f.y + 12 + lines * 20 if multiline else f.center[1] - 11
            x = f.x + 12 + tw + 1
            p.line(x, top, x, top + 22, t.primary, 2)

    _text_field = _field
    _secure_field = _field
    _multiline_field = _field

    def _switch(self, n: SimNode) -> None:
        p, t, f = self.p, self.t, n.frame
        track = Frame(f.right - 52, f.center[1] - 16, 52, 32)
        p.text(Frame(f.x, f.y, f.width - 60, f.height), n.text or n.label, 16, t.text)
        on_color = (52, 199, 89) if self.ios else t.primary
        if n.checked:
            p.rect(track, fill=on_color, radius=16)
            p.rect(Frame(track.right - 28, track.y + 4, 24, 24), fill=(255, 255, 255), radius=12)
        else:
            p.rect(track, fill=t.divider, outline=t.outline, width=2 if not self.ios else 0.5, radius=16)
            p.rect(
                Frame(track.x + 6, track.y + 8, 16, 16),
                fill=t.outline if not self.ios else (255, 255, 255),
                radius=8,
            )

    def _row(self, n: SimNode) -> None:
        self.p.line(
            n.frame.x + 16, n.frame.bottom - 0.5, n.frame.right, n.frame.bottom - 0.5, self.t.divider, 0.5
        )

    def _progress(self, n: SimNode) -> None:
        b = self.p.box(n.frame)
        w = max(2, round(4 * self.p.scale))
        self.p.draw.arc(b, 0, 360, fill=self.t.divider, width=w)
        self.p.draw.arc(b, -90, 150, fill=self.t.primary, width=w)

    def _snackbar(self, n: SimNode) -> None:
        self.p.rect(n.frame, fill=(50, 47, 55), radius=4 if not self.ios else 12)
        self.p.text(n.frame, n.text, 14, (245, 239, 247), inset=16)

    def _image(self, n: SimNode) -> None:
        f = n.frame
        self.p.rect(f, fill=self.t.divider, radius=8)
        self.p.line(f.x, f.y, f.right, f.bottom, self.t.outline)
        self.p.line(f.x, f.bottom, f.right, f.y, self.t.outline)

    def _keyboard(self, n: SimNode) -> None:
        _keyboard(self.p, n.frame)


def _keyboard(p: _Painter, f: Frame) -> None:
    t = p.theme
    p.rect(f, fill=t.keyboard)
    rows = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
    key_w = (f.width - 6) / 10
    key_h = min(44.0, (f.height - 60) / 4)
    y = f.y + 10
    for r, letters in enumerate(rows):
        x = f.x + 3 + (10 - len(letters)) * key_w / 2
        for ch in letters:
            k = Frame(x + 2, y, key_w - 4, key_h - 8)
            p.rect(k, fill=t.key, radius=5)
            p.text(k, ch, 18, t.text, align="center")
            x += key_w
        y += key_h + 4 if r < 2 else key_h + 4
    p.rect(Frame(f.x + key_w * 2.5, y, key_w * 5, key_h - 8), fill=t.key, radius=5)
    p.text(Frame(f.x + key_w * 2.5, y, key_w * 5, key_h - 8), "space", 14, t.secondary, align="center")


def _system_ui(
    p: _Painter,
    platform: str,
    width: int,
    height: int,
    inset_top: float,
    inset_bottom: float,
    status_time: str,
    launcher: bool,
) -> None:
    t = p.theme
    on_bar = (255, 255, 255) if launcher else t.text
    if platform == "android":
        bar = Frame(0, 0, width, inset_top)
        if not launcher:
            p.rect(bar, fill=t.bar)
        p.text(Frame(16, 0, 80, inset_top), status_time, 12, on_bar)
        # Wi-Fi wedge and battery on the right.
        p.rect(Frame(width - 30, 7, 16, 10), outline=on_bar, width=1.2, radius=2)
        p.rect(Frame(width - 28, 9, 10, 6), fill=on_bar)
        p.rect(Frame(width - 48, 7, 10, 10), fill=on_bar, radius=5)
        nav = Frame(0, height - inset_bottom, width, inset_bottom)
        p.rect(nav, fill=(0, 0, 0) if not launcher else t.wallpaper)
        cy = nav.center[1]
        white = (235, 235, 235)
        cx = width / 2
        p.line(cx - 90, cy, cx - 80, cy - 8, white, 1.5)
        p.line(cx - 80, cy - 8, cx - 80, cy + 8, white, 1.5)
        p.line(cx - 80, cy + 8, cx - 90, cy, white, 1.5)
        p.rect(Frame(cx - 8, cy - 8, 16, 16), outline=white, width=1.5, radius=8)
        p.rect(Frame(cx + 78, cy - 7, 14, 14), outline=white, width=1.5, radius=2)
    else:
        p.text(Frame(32, 14, 80, 24), status_time, 16, on_bar, bold=True)
        p.rect(Frame(width - 52, 19, 25, 12), outline=on_bar, width=1, radius=3)
        p.rect(Frame(width - 50, 21, 18, 8), fill=on_bar, radius=2)
        p.rect(Frame(width / 2 - 62, 11, 124, 36), fill=(0, 0, 0), radius=18)  # the Dynamic Island
        p.rect(Frame(width / 2 - 67, height - 13, 134, 5), fill=on_bar, radius=3)
