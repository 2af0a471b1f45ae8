"""Simulators running in the foreground (`trailblaze sim`), so `trailblaze devices` can say how to reach them.

`trailblaze sim android` serves its adb server on a port of its own, which a client finds only through
`ANDROID_ADB_SERVER_PORT`; in another terminal, without that variable, `trailblaze devices` would say
"no device connected" while one runs. Each foreground simulator leaves a small note (its platform, pid
and how to connect) in a folder only this user can read (`$XDG_RUNTIME_DIR/trailblaze/sims`, else
`~/.cache/trailblaze/sims`, mode 0700) and takes it away when it stops; a note whose process is gone is
ignored and removed.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ValidationError

__all__ = ["SimNote", "announced", "running_simulators"]

_MAX_NOTE_BYTES = 4096
"""A note is one short line of JSON; anything bigger in the folder is not ours."""


class SimNote(BaseModel):
    """What a running `trailblaze sim` says of itself (the file `<pid>.json`)."""

    platform: str
    pid: int
    how_to_connect: str


def _folder() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path.home() / ".cache"
    return base / "trailblaze" / "sims"


@contextlib.contextmanager
def announced(platform: str, how_to_connect: str) -> Iterator[None]:
    """While the block runs, `running_simulators()` in any process of this user lists this one."""
    note = _folder() / f"{os.getpid()}.json"
    left = _leave(note, SimNote(platform=platform, pid=os.getpid(), how_to_connect=how_to_connect))
    try:
        yield
    finally:
        if left:
            note.unlink(missing_ok=True)


def _leave(note: Path, what: SimNote) -> bool:
    """Writes the note whole; False when the folder cannot be written (a read-only home): the
    simulator runs all the same, it is only not listed."""
    try:
        note.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = note.with_suffix(".partial")
        partial.write_text(what.model_dump_json(), encoding="utf-8")
        partial.replace(note)
    except OSError:
        return False
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive, but its note is not in our folder anyway
        return True
    return True


def running_simulators() -> list[SimNote]:
    """The foreground simulators running now, oldest note first; notes of dead processes go."""
    folder = _folder()
    try:
        files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return []
    found: list[SimNote] = []
    for file in files:
        try:
            if file.stat().st_size > _MAX_NOTE_BYTES:
                continue
            note = SimNote.model_validate_json(file.read_text(encoding="utf-8"))
        except (OSError, ValidationError, UnicodeDecodeError):
            continue
        if _alive(note.pid):
            found.append(note)
        else:
            file.unlink(missing_ok=True)  # killed without its cleanup (kill -9, a closed terminal)
    return found
