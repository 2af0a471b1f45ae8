"""What an MCP client may reach: files inside the server's root folder and the devices it was offered.

A client is whoever can talk to the server — over `--http` any local process with the token, over
stdio a coding agent that a web page or a README may have prompt-injected — so neither transport
trusts a path or a device spec it is given (docs/adr/0041-mcp-confinement.md). A path is resolved
(symlinks and `..` included) and must land inside the root; a device must be one the command line
named, a simulator, or one `list_devices` shows, never an arbitrary URL the server would fetch.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from trailblaze.errors import UsageError
from trailblaze.trail.model import is_trail_file

__all__ = ["SIMULATORS", "Confinement"]

SIMULATORS = ("sim:android", "sim:ios")


@dataclass
class Confinement:
    """The root folder every client path lives in, and the device specs a client may open."""

    root: Path
    devices: set[str] = field(default_factory=set)
    """Specs the command line named (`--device`); the simulators and `list_devices` are added."""

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        self.devices = {*self.devices, *SIMULATORS}

    def path(self, given: str) -> Path:
        """`given` (relative: from the root) resolved inside the root.

        Raises:
            UsageError: it resolves outside the root (absolute elsewhere, `..`, a symlink out).
        """
        if "\0" in given:
            raise UsageError("a path cannot hold a NUL character")
        raw = Path(given).expanduser()
        target = (raw if raw.is_absolute() else self.root / raw).resolve()  # symlinks followed, then checked
        if not target.is_relative_to(self.root):
            raise UsageError(
                f"{given}: outside the server's folder {self.root}; give a path inside it "
                "(start the server with --root FOLDER to serve another folder)"
            )
        return target

    def trail(self, given: str) -> Path:
        """A trail file's path inside the root; anything not named like a trail is refused unread.

        Raises:
            UsageError: outside the root, or not a trail file by name (its content is never shown).
        """
        target = self.path(given)
        if not is_trail_file(target):
            raise UsageError(
                f"{given}: not a trail file (a trail is named *.trail.yaml, *.trail.md, trail.yaml or blaze.yaml)"
            )
        return target

    def shown(self, path: Path) -> str:
        """`path` as replies show it: relative to the root."""
        return os.path.relpath(path, self.root)

    def offer(self, specs: Iterable[str]) -> None:
        """Devices `list_devices` showed the client: it may open them from now on."""
        self.devices.update(specs)

    def device(self, spec: str) -> str:
        """`spec` if the client may open it.

        Raises:
            UsageError: a spec neither the command line nor `list_devices` offered (e.g. a URL).
        """
        if spec.strip() in self.devices:
            return spec.strip()
        offered = ", ".join(sorted(self.devices))
        raise UsageError(
            f"{spec!r} is not a device this server offers; pick one `list_devices` shows ({offered}), "
            "or start the server with --device SPEC"
        )
