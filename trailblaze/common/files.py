"""Writing files so that a crash, Ctrl-C or a full disk never leaves a half-written one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

__all__ = [
    "atomic_stream",
    "atomic_write",
    "atomic_write_text",
    "check_writable",
    "locked",
    "write_redacted",
    "write_text",
]


def atomic_write(target: str | os.PathLike[str], data: bytes) -> None:
    """Writes `data` to a temp file beside `target`, fsyncs it and renames it over `target`.

    The file keeps the permissions it had; a new file gets 0644 (mkstemp alone would make it private,
    but trails, run logs and reports are meant to be shared). Raises `OSError`; callers translate it.
    """
    with atomic_stream(target) as handle:
        handle.write(data)


@contextmanager
def atomic_stream(target: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """`atomic_write` for a file written piece by piece (a report of a thousand trails is not built
    in memory first): what the block writes replaces `target` when it ends, nothing when it raises."""
    path = os.fspath(target)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


@contextmanager
def locked(target: str | os.PathLike[str]) -> Iterator[None]:
    """Holds an exclusive `flock` on the file at `target` (no lock when it does not exist yet).

    The lock is on the file itself, so no lock file is left behind. `atomic_write` renames a new
    inode over the path, which would leave a waiter holding a lock on the replaced inode; so after
    the lock is granted the path is checked to still name the locked inode, and taken again if not.
    Raises `OSError` only when the file exists and cannot be opened.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; writes stay atomic, concurrent edits unguarded
        yield
        return
    path = os.fspath(target)
    while True:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            yield  # a new file: nobody else has edits to lose
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                now = os.stat(path)
            except FileNotFoundError:
                continue  # deleted meanwhile: start over (and then write it afresh)
            if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino):
                continue  # another writer renamed a new file over it while we waited
            yield
            return
        finally:
            os.close(fd)  # closing releases the lock
def atomic_write_text(target: str | os.PathLike[str], text: str) -> None:
    """`atomic_write` of UTF-8 text with every registered secret redacted (`trailblaze.common.redact`)."""
    from trailblaze.common.redact import scrub

    atomic_write(target, scrub(text).encode("utf-8"))


def write_text(target: str | os.PathLike[str], text: str) -> None:
    """Writes UTF-8 text (not atomically: a run's artifacts) with every registered secret redacted."""
    from trailblaze.common.redact import scrub

    with open(target, "w", encoding="utf-8") as handle:
        handle.write(scrub(text))


def write_redacted(target: str | os.PathLike[str], text: str) -> None:
    """Writes UTF-8 text whose values were redacted before it was serialised (`trailblaze.common.redact_values`):
    scrubbing the serialised bytes again would rewrite the format's own words equal to a secret."""
    with open(target, "w", encoding="utf-8") as handle:
        handle.write(text)


def check_writable(target: str | os.PathLike[str], flag: str) -> None:
    """Creates `target`'s folder and writes a probe file there, so a bad output path fails up front.

    Raises:
        UsageError: the folder cannot be created or written; names `flag` and the path.
    """
    from trailblaze.errors import UsageError

    folder = os.path.dirname(os.path.abspath(target))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".trailblaze-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(
            f"{flag} {os.fspath(target)}: cannot write in {folder} ({exc.strerror or exc}); pick a writable path"
        ) from None
