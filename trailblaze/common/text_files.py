"""Reading a trail file's bytes safely: only regular files, and only up to the size limit.

A path given as a trail may be anything: a FIFO (opening it would block forever), a device
(`/dev/zero` never ends), a symlink loop, or a multi-gigabyte file. Each gets its own one-line
message here, before a byte is parsed.
"""

from __future__ import annotations

import errno
import os
import stat

from trailblaze.common.limits import MAX_TRAIL_BYTES_ENV, max_trail_bytes
from trailblaze.errors import Problem, TrailFileError, UsageError

__all__ = ["read_trail_bytes", "read_trail_text", "regular_file_problem"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def regular_file_problem(name: str, kind: str = "trail file") -> str | None:
    """Why `name` is not a regular file that can be read (a one-line message), or None when it is.

    `kind` names what the file is in the message (`no such capabilities file: caps.yaml`)."""
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        if os.path.islink(name):
            return f"no such {kind}: {name} is a symlink to a missing file"
        return f"no such {kind}: {name}"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"not a regular file: {name} is a symlink loop; pass a {kind}"
        return f"cannot read {kind} {name}: {exc.strerror or exc}"
    return _kind_problem(name, mode, kind)


def _kind_problem(name: str, mode: int, kind: str) -> str | None:
    if stat.S_ISREG(mode):
        return None
    what = next((what for test, what in _KINDS if test(mode)), "not a file")
    return f"not a regular file: {name} is {what}; pass a {kind}"


def read_trail_bytes(name: str, kind: str = "trail file") -> bytes:
    """The bytes of the trail file `name`.

    Raises:
        UsageError: no such file, not a regular file, or it cannot be read.
        TrailFileError: the file is larger than the limit (`file:1:1`).
    """
    problem = regular_file_problem(name, kind)  # before opening: opening a device or a FIFO has effects
    if problem is not None:
        raise UsageError(problem)
    try:
        # O_NONBLOCK: a FIFO swapped in after the check must not block the open; fstat decides below
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UsageError(
            regular_file_problem(name, kind) or f"cannot read {kind} {name}: {exc.strerror or exc}"
        ) from None
    with os.fdopen(fd, "rb") as handle:
        problem = _kind_problem(name, os.fstat(fd).st_mode, kind)
        if problem is not None:
            raise UsageError(problem)
        limit = max_trail_bytes()
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise UsageError(f"cannot read {kind} {name}: {exc.strerror or exc}") from None
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


def read_trail_text(name: str, kind: str = "trail file") -> str:
    """The text of the trail (or flow) file `name`, read as `read_trail_bytes` reads it.

    Raises:
        UsageError / TrailFileError: as `read_trail_bytes`; TrailFileError also when it is not UTF-8.
    """
    try:
        return read_trail_bytes(name, kind).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrailFileError(
            name, [Problem(1, 1, f"not UTF-8 text ({exc.reason}); save the file as UTF-8")]
        ) from None
