"""Screenshot bytes as the device sent them: their type from their signature, and PNG when a
format needs it. Used by the run directory (file names), the `ask_screen` tool (the model's image
block) and `trailblaze screenshot`.
"""

from __future__ import annotations

import io
from typing import Literal

__all__ = ["as_png", "image_ext", "image_media_type"]


def image_ext(data: bytes) -> str:
    """The file extension for image bytes, from their signature (`png` when unknown)."""
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "png"


def image_media_type(data: bytes) -> Literal["image/jpeg", "image/png", "image/webp"]:
    """The MIME type of image bytes, from their signature (`image/png` when unknown)."""
    ext = image_ext(data)
    return "image/jpeg" if ext == "jpg" else "image/webp" if ext == "webp" else "image/png"


def as_png(data: bytes) -> bytes:
    """The image as PNG bytes (converted only when it is not one already)."""
    if data.startswith(b"\x89PNG"):
        return data
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        out = io.BytesIO()
        image.save(out, format="PNG")
    return out.getvalue()
