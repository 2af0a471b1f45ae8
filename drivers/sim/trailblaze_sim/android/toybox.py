"""The ground the simulated `adb shell` stands on: what a command returns (`ShellResult`), the phone's
in-memory file system (`MemFS`, shared with `sync:`), and the toybox applets that need nothing but
files and text (`cat`, `ls`, `rm`, `mkdir`, `touch`, `md5sum`, `grep`, `echo`, `sleep`, `ip`,
`ifconfig`)."""

from __future__ import annotations

import hashlib
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Handler", "MemFS", "ShellResult", "Toybox", "failed", "ok"]


@dataclass
class ShellResult:
    stdout: bytes = b""
    stderr: bytes = b""
    rc: int = 0
    combined: bytes | None = None
    """stdout and stderr interleaved in the order the commands wrote them (what a pty shows)."""

    @property
    def output(self) -> bytes:
        return self.combined if self.combined is not None else self.stdout + self.stderr


def ok(text: str = "", rc: int = 0) -> ShellResult:
    return ShellResult(text.encode(), b"", rc)


def failed(text: str, rc: int = 1) -> ShellResult:
    return ShellResult(b"", text.encode(), rc)


# --- file system ------------------------------------------------------------------------------


@dataclass
class _File:
    data: bytes
    mode: int
    mtime: int


@dataclass
class MemFS:
    """Files and directories of the device, in memory. Paths are absolute and normalised."""

    files: dict[str, _File] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        for d in ("/", "/data", "/data/local", "/data/local/tmp", "/sdcard", "/storage",
                  "/storage/emulated", "/storage/emulated/0", "/system", "/system/bin", "/dev"):  # fmt: skip
            self.dirs.add(d)
        for d in ("DCIM", "Download", "Movies", "Music", "Pictures"):  # shared storage, as a phone has it
            self.dirs.add(f"/storage/emulated/0/{d}")

    @staticmethod
    def norm(path: str) -> str:
        if path.startswith("/sdcard"):
            path = "/storage/emulated/0" + path[len("/sdcard") :]
        parts: list[str] = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        return "/" + "/".join(parts)

    def _parent(self, path: str) -> str:
        return path.rsplit("/", 1)[0] or "/"

    def stat(self, path: str) -> tuple[int, int, int] | None:
        """(mode, size, mtime), or None when missing."""
        p = self.norm(path)
        if p in self.files:
            f = self.files[p]
            return (f.mode, len(f.data), f.mtime)
        if p in self.dirs:
            return (stat.S_IFDIR | 0o771, 4096, 1_700_000_000)
        return None

    def read(self, path: str) -> bytes | None:
        f = self.files.get(self.norm(path))
        return f.data if f is not None else None

    def write(self, path: str, data: bytes, mode: int = 0o100644, mtime: int | None = None) -> bool:
        p = self.norm(path)
        if p in self.dirs or self._parent(p) not in self.dirs:
            return False
        if not stat.S_IFMT(mode):
            mode |= stat.S_IFREG
        self.files[p] = _File(data, mode, int(mtime if mtime else time.time()))
        return True

    def listdir(self, path: str) -> list[tuple[str, int, int, int]] | None:
        """(name, mode, size, mtime) of each entry, or None when `path` is not a directory."""
        p = self.norm(path)
        if p not in self.dirs:
            return None
        prefix = p.rstrip("/") + "/"
        out: list[tuple[str, int, int, int]] = []
        for d in sorted(self.dirs):
            if d != p and d.startswith(prefix) and "/" not in d[len(prefix) :]:
                out.append((d[len(prefix) :], stat.S_IFDIR | 0o771, 4096, 1_700_000_000))
        for name, f in sorted(self.files.items()):
            if name.startswith(prefix) and "/" not in name[len(prefix) :]:
                out.append((name[len(prefix) :], f.mode, len(f.data), f.mtime))
        return out

    def remove(self, path: str, *, recursive: bool = False) -> bool:
        p = self.norm(path)
        if p in self.files:
            del self.files[p]
            return True
        if p in self.dirs and recursive and p != "/":
            prefix = p + "/"
            self.dirs = {d for d in self.dirs if d != p and not d.startswith(prefix)}
            self.files = {k: v for k, v in self.files.items() if not k.startswith(prefix)}
            return True
        return False

    def mkdir(self, path: str, *, parents: bool = False) -> bool:
        p = self.norm(path)
        if p in self.files:
            return False
        if not parents and self._parent(p) not in self.dirs:
            return False
        while p not in self.dirs:
            self.dirs.add(p)
            p = self._parent(p)
        return True


Handler = Callable[[list[str], bytes], ShellResult]


class Toybox:
    """The applets over `fs` and stdin; `commands()` maps their names to handlers."""

    def __init__(self, fs: MemFS) -> None:
        self.fs = fs

    def commands(self) -> dict[str, Handler]:
        return {
            "echo": self.echo,
            "md5sum": self.md5sum,
            "md5": self.md5sum,
            "rm": self.rm,
            "ls": self.ls,
            "mkdir": self.mkdir,
            "cat": self.cat,
            "touch": self.touch,
            "sleep": self.sleep,
            "grep": self.grep,
            "ip": self.ip,
            "ifconfig": self.ifconfig,
        }

    def echo(self, args: list[str], stdin: bytes) -> ShellResult:
        newline = True
        if args and args[0] == "-n":
            newline = False
            args = args[1:]
        return ok(" ".join(args) + ("\n" if newline else ""))

    def md5sum(self, args: list[str], stdin: bytes) -> ShellResult:
        out = bytearray()
        err = bytearray()
        rc = 0
        for path in (a for a in args if not a.startswith("-")):
            data = self.fs.read(path)
            if data is None:
                kind = "Is a directory" if self.fs.stat(path) else "No such file or directory"
                err += f"md5sum: {path}: {kind}\n".encode()
                rc = 1
                continue
            out += f"{hashlib.md5(data).hexdigest()}  {path}\n".encode()
        return ShellResult(bytes(out), bytes(err), rc)

    def rm(self, args: list[str], stdin: bytes) -> ShellResult:
        force = any(a.startswith("-") and "f" in a for a in args)
        recursive = any(a.startswith("-") and "r" in a.lower() for a in args)
        err = bytearray()
        for path in (a for a in args if not a.startswith("-")):
            if not self.fs.remove(path, recursive=recursive) and not force:
                what = "Is a directory" if self.fs.stat(path) else "No such file or directory"
                err += f"rm: {path}: {what}\n".encode()
        return ShellResult(b"", bytes(err), 1 if err else 0)

    def ls(self, args: list[str], stdin: bytes) -> ShellResult:
        long = any(a.startswith("-") and "l" in a for a in args)
        paths = [a for a in args if not a.startswith("-")] or ["/"]
        out = bytearray()
        err = bytearray()
        for path in paths:
            st = self.fs.stat(path)
            if st is None:
                err += f"ls: {path}: No such file or directory\n".encode()
                continue
            entries = self.fs.listdir(path) if stat.S_ISDIR(st[0]) else [(path, st[0], st[1], st[2])]
            for name, mode, size, mtime in entries or []:
                if long:
                    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime(mtime))
                    out += f"{stat.filemode(mode)} 1 shell shell {size:>8} {stamp} {name}\n".encode()
                else:
                    out += f"{name}\n".encode()
        return ShellResult(bytes(out), bytes(err), 1 if err else 0)

    def mkdir(self, args: list[str], stdin: bytes) -> ShellResult:
        parents = "-p" in args
        err = bytearray()
        for path in (a for a in args if not a.startswith("-")):
            if self.fs.stat(path) is not None and parents:
                continue
            if not self.fs.mkdir(path, parents=parents):
                err += f"mkdir: '{path}': No such file or directory\n".encode()
        return ShellResult(b"", bytes(err), 1 if err else 0)

    def cat(self, args: list[str], stdin: bytes) -> ShellResult:
        if not args:
            return ShellResult(stdin)
        out = bytearray()
        err = bytearray()
        for path in args:
            data = self.fs.read(path)
            if data is None:
                err += f"cat: {path}: No such file or directory\n".encode()
            else:
                out += data
        return ShellResult(bytes(out), bytes(err), 1 if err else 0)

    def touch(self, args: list[str], stdin: bytes) -> ShellResult:
        for path in args:
            if self.fs.read(path) is None and not self.fs.write(path, b""):
                return failed(f"touch: '{path}': No such file or directory\n")
        return ok()

    def sleep(self, args: list[str], stdin: bytes) -> ShellResult:
        time.sleep(min(float(args[0]) if args else 0.0, 5.0))
        return ok()

    def grep(self, args: list[str], stdin: bytes) -> ShellResult:
        flags = [a for a in args if a.startswith("-")]
        words = [a for a in args if not a.startswith("-")]
        if not words:
            return failed("usage: grep [-iv] PATTERN\n", 2)
        pattern = words[0]
        invert = any("v" in f for f in flags)
        ignore = any("i" in f for f in flags)
        lines = stdin.decode(errors="replace").splitlines(keepends=True)
        if ignore:
            hits = [ln for ln in lines if (pattern.lower() in ln.lower()) != invert]
        else:
            hits = [ln for ln in lines if (pattern in ln) != invert]
        return ok("".join(hits), 0 if hits else 1)

    def ip(self, args: list[str], stdin: bytes) -> ShellResult:
        return ok(
            "3: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group default qlen 1000\n"
            "    link/ether 02:15:b2:00:00:00 brd ff:ff:ff:ff:ff:ff\n"
            "    inet 10.0.2.16/24 brd 10.0.2.255 scope global wlan0\n"
        )

    def ifconfig(self, args: list[str], stdin: bytes) -> ShellResult:
        return ok(
            "wlan0     Link encap:Ethernet  HWaddr 02:15:b2:00:00:00\n"
            "          inet addr:10.0.2.16  Bcast:10.0.2.255  Mask:255.255.255.0\n"
        )
