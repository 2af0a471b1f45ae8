"""Where Maestro's `addMedia` puts a picture or video on an Android device, and how the device is told.

Maestro's Android driver streams the file to its on-device app, which inserts it into the MediaStore;
its media types are png, jpeg, jpg, gif and mp4 (maestro-client `Media.kt`). trailblaze has no
on-device app, so a driver copies the file into shared storage (`/sdcard/Pictures`, `/sdcard/Movies`
for a video) and broadcasts the media scanner's intent for it, which indexes it into the same
MediaStore the gallery and the system photo picker read.
"""

from __future__ import annotations

import shlex
from pathlib import PurePosixPath

__all__ = ["MAX_MEDIA_BYTES", "MEDIA_EXTENSIONS", "media_destination", "media_scan_command"]

MEDIA_EXTENSIONS = frozenset({"png", "jpeg", "jpg", "gif", "mp4"})
"""What Maestro accepts (its `MediaExt`); anything else is refused where the flow is read."""

MAX_MEDIA_BYTES = 100 * 1024 * 1024
"""A file larger than this is refused: a remote driver (Appium) sends it whole, base64-encoded."""


def media_destination(name: str) -> str:
    """The shared-storage path a file called `name` is copied to."""
    folder = "Movies" if PurePosixPath(name).suffix.lower() == ".mp4" else "Pictures"
    return f"/sdcard/{folder}/{PurePosixPath(name).name}"


def media_scan_command(remote: str) -> str:
    """The shell command that has the media scanner index `remote`."""
    return f"am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d {shlex.quote('file://' + remote)}"
