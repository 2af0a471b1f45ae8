"""Secrets hidden in the pictures `trailblaze mcp` returns (docs/adr/0041-mcp-confinement.md).

Text is redacted by value; a picture has no text to find. What the hierarchy knows is where each
element is, so every on-screen element that shows a secret — a secure (password) field, whatever it
holds, and any element whose text, label or value contains a secret's value, such as a plain field a
secret was typed into — is painted over before the image leaves the server.

What this cannot hide: a secret drawn where the hierarchy does not say (a canvas, an image, a WebView
or game without accessibility nodes, a custom keyboard's suggestion strip or key preview), a secret
shown in another form than its value (partly, reformatted, or transformed by the app), and what an
element's bounds do not cover (a tooltip, an animation in flight). When a secret is in the hierarchy
but its element has no bounds on screen, the screenshot is refused rather than guessed.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Hierarchy, Node, Rect

__all__ = ["Unmaskable", "mask_secrets", "secret_boxes"]

_PAD = 2  # pixels around a box: anti-aliased glyph edges and a caret sit just outside the bounds


class Unmaskable(Exception):
    """A secret is on the screen where the hierarchy cannot say (no bounds): no picture is returned."""


def secret_boxes(hierarchy: Hierarchy, secrets: Sequence[str]) -> list[Rect]:
    """The bounds (hierarchy units) of every element that shows a secret or is a secure field.

    Raises:
        Unmaskable: a visible element holds a secret but has no bounds on screen.
    """
    boxes: list[Rect] = []
    for node in hierarchy.walk():
        if not (node.password or _shows(node, secrets)):
            continue
        if node.on_screen:
            boxes.append(node.visible_bounds)
        elif node.visible and _shows(node, secrets) and node.bounds.width == 0 and node.bounds.height == 0:
            raise Unmaskable(f"a {node.class_name.rsplit('.', 1)[-1]} holds a secret but reports no bounds")
    return boxes


def mask_secrets(shot: bytes, hierarchy: Hierarchy, secrets: Sequence[str]) -> bytes:
    """The screenshot (PNG or JPEG bytes) with every box of `secret_boxes` filled; PNG out.

    Raises:
        Unmaskable: see `secret_boxes`.
    """
    boxes = secret_boxes(hierarchy, secrets)
    if not boxes:
        return shot
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(shot)) as src:
        image = src.convert("RGB")
    draw = ImageDraw.Draw(image)
    k = hierarchy.scale
    for box in boxes:
        draw.rectangle(
            (box.left * k - _PAD, box.top * k - _PAD, box.right * k + _PAD, box.bottom * k + _PAD),
            fill=(0, 0, 0),
        )
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _shows(node: Node, secrets: Sequence[str]) -> bool:
    texts = (node.text, node.label, node.value)
    return any(secret and secret in text for secret in secrets for text in texts)
