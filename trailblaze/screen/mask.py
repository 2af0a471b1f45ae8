"""Secrets blacked out of the pictures trailblaze keeps or hands out (docs/guides/secrets.md, ADR 0017).

Text is redacted by value; a picture has no text to find. What the hierarchy taken with the picture
knows is where each element is, so every on-screen element that shows a secret — any element whose
text, label, value or hint holds a registered secret in any spelling the redactor knows (a plain field
a secret was typed into), and, when the run has secrets, every secure (password) field whatever it
holds — is filled black before the picture is written or leaves the process.

`mask_shown_secrets` is what every writer calls: the run directory's step screenshots, a failing
pytest test's `failure.*`, the agent's pictures (sent to the model and kept beside its transcripts),
`trailblaze snapshot --screenshot`, Maestro's `takeScreenshot`. Reports, merged reports and
storyboards are made from the stored files, so they show the masked pictures. `trailblaze mcp`'s
`screenshot` calls `mask_secrets`, which also blacks out secure fields in a run without secrets.

What this cannot hide: a secret drawn where the hierarchy does not say (a canvas, an image, a WebView
or game without accessibility nodes, a custom keyboard's suggestion strip or key preview), a secret
shown in another form than a spelling of its value (partly, reformatted, or transformed by the app),
what an element's bounds do not cover (a tooltip, an animation in flight), and a screen that changed
between the dump and the picture. When a secret is in the hierarchy but its element has no bounds on
screen, the picture is refused (`Unmaskable`) rather than guessed.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

from trailblaze.common.redact import has_secrets, scrub

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Hierarchy, Node, Rect

__all__ = ["Redact", "Unmaskable", "mask_secrets", "mask_shown_secrets", "secret_boxes"]

Redact = Callable[[str], str]
"""Text with every secret in it replaced (`trailblaze.common.redact.scrub`, `Memory.redact`)."""

_PAD = 2  # pixels around a box: anti-aliased glyph edges and a caret sit just outside the bounds
_FORMATS = {"JPEG": "JPEG", "PNG": "PNG", "WEBP": "WEBP"}


class Unmaskable(Exception):
    """A secret is on the screen where the hierarchy cannot say (no bounds): no picture is kept."""


def secret_boxes(hierarchy: Hierarchy, redact: Redact, *, secure_fields: bool = True) -> list[Rect]:
    """The bounds (hierarchy units) of every element that shows a secret, and of every secure field
    (with `secure_fields`).

    An element shows a secret when `redact` changes its text, label, value or hint.

    Raises:
        Unmaskable: a visible element holds a secret but has no bounds on screen.
    """
    nodes = list(hierarchy.walk())
    # one pass over all the texts first: a screen that shows no secret (most) costs one redaction
    every = "\n".join(t for n in nodes for t in _texts(n))
    showing = redact(every) != every
    boxes: list[Rect] = []
    for node in nodes:
        shows = showing and _shows(node, redact)
        if not (shows or (secure_fields and node.password)):
            continue
        if node.on_screen:
            boxes.append(node.visible_bounds)
        elif shows and node.visible and node.bounds.width == 0 and node.bounds.height == 0:
            raise Unmaskable(f"a {node.class_name.rsplit('.', 1)[-1]} holds a secret but reports no bounds")
    return boxes


def mask_secrets(shot: bytes, hierarchy: Hierarchy, redact: Redact, *, secure_fields: bool = True) -> bytes:
    """The screenshot (PNG, JPEG or WebP bytes) with every box of `secret_boxes` filled black, in the
    format it came in; the bytes themselves when there is nothing to fill.

    Raises:
        Unmaskable: see `secret_boxes`.
    """
    boxes = secret_boxes(hierarchy, redact, secure_fields=secure_fields)
    if not boxes:
        return shot
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(shot)) as src:
        fmt = _FORMATS.get(src.format or "", "PNG")
        image = src.convert("RGB")
    # pixels per hierarchy unit, from the picture itself: a device may send a scaled-down screenshot
    kx = image.width / hierarchy.width if hierarchy.width else hierarchy.scale
    ky = image.height / hierarchy.height if hierarchy.height else hierarchy.scale
    draw = ImageDraw.Draw(image)
    for box in boxes:
        draw.rectangle(
            (box.left * kx - _PAD, box.top * ky - _PAD, box.right * kx + _PAD, box.bottom * ky + _PAD),
            fill=(0, 0, 0),
        )
    out = io.BytesIO()
    image.save(out, format=fmt, **({"quality": 90} if fmt in ("JPEG", "WEBP") else {}))
    return out.getvalue()


def mask_shown_secrets(shot: bytes, hierarchy: Hierarchy, redact: Redact = scrub) -> bytes:
    """The picture to keep or hand out: `mask_secrets` when the process has secrets (a run without
    any keeps the device's bytes as they came, secure fields included: they show dots).

    `hierarchy` must be the dump taken with `shot` (no device action in between).

    Raises:
        Unmaskable: see `secret_boxes`.
    """
    if not has_secrets():
        return shot
    return mask_secrets(shot, hierarchy, redact)


def _texts(node: Node) -> tuple[str, ...]:
    return tuple(t for t in (node.text, node.label, node.value, node.hint) if t)


def _shows(node: Node, redact: Redact) -> bool:
    return any(redact(text) != text for text in _texts(node))
