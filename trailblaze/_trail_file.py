"""Reading a trail file's bytes safely: only regular files, and only up to the size limit.

A path given as a trail may be anything: a FIFO (opening it would block forever), a device
(`/dev/zero` never ends), a symlink loop, or a multi-gigabyte file. Each gets its own one-line
message here, before a byte is parsed.
"""

from __future__ import annotations

import errno
import os
import stat

from trailblaze._limits import MAX_TRAIL_BYTES_ENV, max_trail_bytes
from trailblaze.errors import Problem, TrailFileError, UsageError

__all__ = ["read_trail_bytes"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_trail_bytes(name: str) -> bytes:
    """The bytes of the trail file `name`.

    Raises:
        UsageError: no such file, not a regular file, or it cannot be read.
        TrailFileError: the file is larger than the limit (`file:1:1`).
    """
    try:
        # O_NONBLOCK: a FIFO swapped in after a check must not block the open; fstat decides below
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        if os.path.islink(name):
            raise UsageError(f"no such trail file: {name} is a symlink to a missing file") from None
        raise UsageError(f"no such trail file: {name}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UsageError(f"not a regular file: {name} is a symlink loop; pass a trail file") from None
        if exc.errno == errno.EISDIR:
            raise UsageError(f"not a regular file: {name} is a directory; pass a trail file") from None
        raise UsageError(f"cannot read trail file {name}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((what for test, what in _KINDS if test(mode)), "not a file")
            raise UsageError(f"not a regular file: {name} is {kind}; pass a trail file")
        limit = max_trail_bytes()
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UsageError(f"cannot read trail file {name}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise TrailFileError(
            name,
            [
                Problem(
                    1,
                    1,
                    f"the file is larger than the {_size(limit)} limit for trail files; split it into "
                    f"smaller trails (or raise the limit with {MAX_TRAIL_BYTES_ENV}=BYTES)",
                )
            ],
        )
    return data


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):g} MB"
    if n >= 1024:
        return f"{n / 1024:g} KB"
    return f"{n} bytes"
