"""A trail's storyboard: an animated WebP (a GIF where Pillow has no WebP) of the run, one frame per step.

Each frame is the step's stored screenshot (its "after", else its "before") over a caption with the
step's number, kind, status and text. Frames are built from the run directory's files only, never
from a fresh device capture: those files were written with every secret on screen blacked out, and
the captions come from run.json, whose texts are redacted, so the storyboard shows no secret either.
A step with no stored screenshot (`--screenshots failures` keeps only the failing step's) is a caption
card, so a failing trail still tells its story up to the picture of the failure. Time is not real
time: every step shows for the same moment and the last one longer, so a step that waited ten
seconds for the app does not become ten seconds of a still picture.

`write_storyboard` is called for every trail of a replay or record (`trailblaze.output.rundir`), on a
worker of its own so no device action waits for it; the HTML report shows it at the top of the
trail and JUnit links it (`trailblaze.storyboard`).
"""

from __future__ import annotations

import functools
import io
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.common.redact import scrub

if TYPE_CHECKING:
    from trailblaze.output.runlog import StepRecord, TrailRecord

__all__ = ["FRAME_WIDTH", "Frame", "frames_of", "storyboard_name", "write_storyboard"]

FRAME_WIDTH = 320
"""Pixels: a phone screen at a third of its width reads well and keeps a 10-step trail near 100 kB."""
STEP_MS = 1200
LAST_MS = 3000
"""The last frame (the failure, or the end) stays longest: it is the one a reader came for."""
_CAPTION_LINES = 4
_LINE_HEIGHT = 15
_PAD = 6
_COLORS = {
    "passed": (26, 127, 55),
    "passed-ai": (26, 127, 55),
    "passed-with-self-heal": (154, 103, 0),
    "failed": (207, 34, 46),
    "skipped": (101, 109, 118),
}


@dataclass(frozen=True)
class Frame:
    """One step's picture (a path relative to the run directory, None: a caption card) and caption."""

    image: str | None
    title: str
    """`step 3 of 5 · passed`."""
    text: str
    status: str
    detail: str = ""
    """A failed step's error, without the trail and step it names (the title says them)."""


def storyboard_name() -> str:
    """`storyboard.webp`, or `storyboard.gif` where this Pillow cannot write WebP."""
    from PIL import features

    return "storyboard.webp" if features.check("webp") else "storyboard.gif"


def frames_of(trail: TrailRecord) -> list[Frame]:
    """A frame per step that ran; none when no step has a stored screenshot (nothing to show)."""
    ran = [s for s in trail.steps if s.status not in ("skipped", "not-run")]
    if not any(s.screenshot_after or s.screenshot_before for s in ran):
        return []
    total = sum(s.index >= 0 for s in trail.steps)
    return [
        Frame(
            image=step.screenshot_after or step.screenshot_before,
            title=f"{_label(step, total)} · {step.status}",
            text=scrub(step.text),
            status=step.status,
            detail=scrub(_error(step)) if step.status == "failed" else "",
        )
        for step in ran
    ]


def write_storyboard(run_dir: Path, trail: TrailRecord) -> str | None:
    """Writes the trail's storyboard into its folder; its path relative to `run_dir`, or None when the
    trail has no stored screenshot (then nothing is written)."""
    frames = frames_of(trail)
    if not frames:
        return None
    pictures = [_picture(run_dir, frame.image) for frame in frames]
    if not any(p is not None for p in pictures):
        return None
    height = max(p.height for p in pictures if p is not None)
    rendered = [_render(frame, picture, height) for frame, picture in zip(frames, pictures, strict=True)]
    name = f"{trail.directory}/{storyboard_name()}" if trail.directory else storyboard_name()
    durations = [STEP_MS] * (len(rendered) - 1) + [LAST_MS]
    buffer = io.BytesIO()
    if name.endswith(".webp"):
        # registered by name: otherwise Pillow's save() loads all its ~45 format plugins to find WebP
        from PIL import WebPImagePlugin  # noqa: F401

        rendered[0].save(buffer, "WEBP", save_all=True, append_images=rendered[1:], duration=durations, loop=0,
                         quality=60, method=2)  # fmt: skip
    else:
        rendered[0].save(buffer, "GIF", save_all=True, append_images=rendered[1:], duration=durations, loop=0)
    (run_dir / name).write_bytes(buffer.getvalue())
    return name


def _error(step: StepRecord) -> str:
    """`recorded tool 1 of 1 … failed: …` out of `login.trail.yaml step 4 ('Tap …'): recorded tool …`."""
    error = step.error or ""
    head, sep, rest = error.partition(f"({step.text!r}): ")
    return rest if sep and len(head) < 200 else error


def _label(step: StepRecord, total: int) -> str:
    if step.index < 0:
        return "trailhead"
    return f"{'verify' if step.kind == 'verify' else 'step'} {step.index + 1} of {total}"


def _picture(run_dir: Path, rel: str | None) -> Any:
    """The screenshot at `rel`, `FRAME_WIDTH` wide (RGB), or None (no file, or not an image)."""
    from PIL import Image, UnidentifiedImageError

    if rel is None:
        return None
    path = (run_dir / rel).resolve()
    if not path.is_relative_to(run_dir.resolve()):  # a hand-edited run.json names nothing outside
        return None
    try:
        with Image.open(path) as img:
            if img.format == "JPEG" and img.width > FRAME_WIDTH:
                # libjpeg decodes at 1/2, 1/4 … scale: a fraction of a phone screenshot's pixels
                img.draft("RGB", (FRAME_WIDTH, img.height * FRAME_WIDTH // img.width))
            rgb = img.convert("RGB")
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None
    height = max(1, round(rgb.height * FRAME_WIDTH / rgb.width))
    return rgb.resize((FRAME_WIDTH, height), Image.Resampling.BILINEAR, reducing_gap=2.0)


def _render(frame: Frame, picture: Any, height: int) -> Any:
    """The picture (or a blank card) above a caption band; the band's left edge in the status colour."""
    from PIL import Image, ImageDraw

    caption = _PAD * 2 + _LINE_HEIGHT * _CAPTION_LINES
    canvas = Image.new("RGB", (FRAME_WIDTH, height + caption), (246, 248, 250))
    draw = ImageDraw.Draw(canvas)
    if picture is not None:
        canvas.paste(picture, (0, 0))
    else:
        note = "no screenshot of this step (--screenshots failures keeps the failing step's)"
        for i, line in enumerate(textwrap.wrap(note, 40)):
            draw.text((_PAD * 2, height // 2 + i * _LINE_HEIGHT), line, fill=(101, 109, 118), font=_font())
    color = _COLORS.get(frame.status, (101, 109, 118))
    draw.rectangle((0, height, FRAME_WIDTH, height + caption), fill=(255, 255, 255))
    draw.rectangle((0, height, 4, height + caption), fill=color)
    draw.text((_PAD * 2, height + _PAD), frame.title, fill=color, font=_font())
    room = _CAPTION_LINES - 1
    text = textwrap.wrap(frame.text, 46, max_lines=1 if frame.detail else room, placeholder=" ...")
    detail = textwrap.wrap(frame.detail, 46, max_lines=room - len(text), placeholder=" ...") if frame.detail else []
    lines = [(line, (31, 35, 40)) for line in text] + [(line, color) for line in detail]
    for i, (line, fill) in enumerate(lines, 1):
        draw.text((_PAD * 2, height + _PAD + i * _LINE_HEIGHT), line, fill=fill, font=_font())
    return canvas


@functools.cache
def _font() -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=12)
    except TypeError:  # Pillow before 10.1: the fixed bitmap font
        return ImageFont.load_default()
