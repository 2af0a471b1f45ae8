"""Who may talk to a simulator's servers (ADR 0069).

Two walls, both needing nothing from the unmodified adb / uiautomator2 / facebook-wda clients:

- **Host**: every HTTP server (WebDriverAgent, the uiautomator2 server, Appium's UiAutomator2
  server) answers only a request whose `Host` names the loopback (`localhost`, `127.0.0.1` or any
  127.x.y.z, `[::1]`; any port). A web page that rebinds its own name to 127.0.0.1 still sends its
  own name, and gets 403.
- **Own process**: the servers of an in-process replay (`--device sim:…`, `private=True`) accept a
  connection only from a socket this very process holds, since every client of such a replay runs
  inside it. On Linux the kernel's socket table names the connecting socket's inode, and
  `/proc/self/fd` shows whether it is ours. Where there is no such table (macOS, Windows) the check
  cannot be made and the servers are reachable by any local process of the same machine, as a
  foreground `trailblaze sim` always is.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from pathlib import Path

__all__ = ["LOOPBACK_NAMES", "can_check_peers", "from_this_process", "loopback_host"]

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
"""The `Host` names a loopback server answers to (with or without a port), besides any 127.x.y.z."""

_TABLES: dict[int, Path] = {socket.AF_INET: Path("/proc/net/tcp"), socket.AF_INET6: Path("/proc/net/tcp6")}


def loopback_host(host: str | None) -> bool:
    """Whether a request's `Host` header names the loopback. A request without one passes: browsers
    always send it, so only a local tool speaking HTTP/1.0 by hand omits it."""
    if host is None:
        return True
    name, port = _ascii_lower(host.strip()), ""
    if name.startswith("["):
        end = name.find("]")
        name, port = (name[: end + 1], name[end + 1 :]) if end >= 0 else (name, "")
    elif ":" in name:
        name, port = name.split(":", 1)
        port = ":" + port
    if port and (port[0] != ":" or not port[1:].isdigit()):
        return False
    if name in LOOPBACK_NAMES:
        return True
    try:  # 127.0.0.2 is the loopback too (a test's second "host"); a rebinding page sends a name
        return ipaddress.IPv4Address(name).is_loopback
    except ValueError:
        return False


def _ascii_lower(text: str) -> str:
    return text.translate(str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz"))


def can_check_peers() -> bool:
    """Whether `from_this_process` can tell (Linux, with /proc mounted)."""
    return sys.platform.startswith("linux") and _TABLES[socket.AF_INET].exists()


def from_this_process(conn: socket.socket) -> bool:
    """Whether the other end of the accepted TCP connection `conn` is a socket of this process.

    The connecting socket's row in the kernel's table has our address as its remote end and its
    own address as its local end; its inode is one of our open files only if we hold it. Where the
    check cannot be made (`can_check_peers()` is False) every peer passes.
    """
    if not can_check_peers():
        return True
    try:
        peer, here = conn.getpeername(), conn.getsockname()
    except OSError:
        return False
    inode = _inode(conn.family, peer, here)
    if inode is None or inode == "0":
        return False
    wanted = f"socket:[{inode}]"
    fds = Path("/proc/self/fd")
    try:
        names = os.listdir(fds)
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(fds / name) == wanted:
                return True
        except OSError:
            continue  # closed since it was listed
    return False


def _inode(family: int, local: tuple[object, ...], remote: tuple[object, ...]) -> str | None:
    table = _TABLES.get(family)
    if table is None:
        return None
    want = (_address(family, local), _address(family, remote))
    try:
        lines = table.read_text("ascii").splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) > 9 and (fields[1], fields[2]) == want:
            return fields[9]
    return None


def _address(family: int, address: tuple[object, ...]) -> str:
    """An address as the kernel's table prints it: each 32-bit word of the IP in host byte order."""
    packed = socket.inet_pton(family, str(address[0]))
    words = "".join(
        f"{int.from_bytes(packed[i : i + 4], sys.byteorder):08X}" for i in range(0, len(packed), 4)
    )
    return f"{words}:{int(str(address[1])):04X}"
