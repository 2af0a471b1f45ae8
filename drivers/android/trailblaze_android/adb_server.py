"""The adb server adbutils starts by itself, stopped again when nothing is left to use it.

`adbutils.AdbClient` runs `adb start-server` when nothing answers on the adb port, and that server
keeps running after trailblaze exits. When trailblaze was the one that made it start (nothing answered
before) and then found no device to use, or only listed the devices, it stops it. A server that was
already running is never stopped, and neither is one an opened device uses: another process (a second
pytest worker) may have found it running meanwhile, as every adb client shares the one server.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["listening", "stop_if_started"]


def listening(host: str, port: int) -> bool:
    """Something accepts connections on the adb port (an adb server, or the simulator's)."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


@contextmanager
def stop_if_started(host: str, port: int, *, always: bool = False) -> Iterator[None]:
    """Runs the block; if no server answered before it, the one adbutils started in it is stopped when
    the block fails (no device, nothing uses the server), or in any case with `always` (a listing)."""
    was_up = listening(host, port)
    failed = True
    try:
        yield
        failed = False
    finally:
        if not was_up and (failed or always):
            _kill(host, port)


def _kill(host: str, port: int) -> None:
    import adbutils

    try:
        adbutils.AdbClient(host=host, port=port).server_kill()
    except Exception:  # nothing started, or it went by itself: nothing left to stop
        pass
