"""The simulated shell's commands for app-state probes: `run-as`, `sqlite3`, `svc wifi|data`,
airplane mode, and a data dir the shell user cannot read.

As on a device, an app's files (`/data/data/<pkg>`, see `trailblaze_sim.app.data`) are readable
only through `run-as <pkg>` (a plain `cat` is `Permission denied`), whose commands run in the data
dir with the app's rights: `cat`, `ls`, `id`, `pwd` and `sqlite3` (the emulator image's sqlite3:
list mode with `-header`, `-separator`, `-newline`, `-nullvalue`, `-readonly`, and `-version`; read-only, and no
attached database, so no other file of the host is read or written). Wi-Fi, mobile
data and airplane mode change the device's `NetworkState`, which the app reacts to (`device.online`);
`settings get|put global wifi_on|mobile_data|airplane_mode_on` read and write the same state.

`probe_commands` wraps the shell's own handlers (`svc`, `cmd`, `settings`, `cat`, `ls`) and falls
back to them for everything else, so the shell itself needs one line to install these.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.model import SimDevice

__all__ = ["probe_commands"]

_SYSTEM = ("android", "com.android.systemui", "com.android.settings", "com.android.shell")
_DATA_ROOTS = ("/data/data/", "/data/user/0/")
_NETWORK_SETTINGS = {"wifi_on": "wifi", "mobile_data": "data", "airplane_mode_on": "airplane"}


class _Result(Protocol):
    stdout: bytes
    stderr: bytes
    rc: int


R = TypeVar("R", bound=_Result)
Handler = Callable[[list[str], bytes], R]


def probe_commands(
    device: SimDevice, commands: Mapping[str, Handler[R]], result: Callable[[bytes, bytes, int], R]
) -> dict[str, Handler[R]]:
    """Handlers to add to (and override in) a shell's command table.

    Args:
        device: The device the shell runs on; only a `SimulatedDevice` has app data and radios.
        commands: The shell's handlers so far (the wrapped ones fall back to them).
        result: Builds the shell's result type from (stdout, stderr, exit code).
    """
    if not isinstance(device, SimulatedDevice):
        return {}
    return _Probes(device, commands, result).table()


class _Probes(Generic[R]):
    def __init__(
        self,
        device: SimulatedDevice,
        commands: Mapping[str, Handler[R]],
        result: Callable[[bytes, bytes, int], R],
    ) -> None:
        self.device = device
        self.base = dict(commands)
        self.result = result

    def table(self) -> dict[str, Handler[R]]:
        return {
            "run-as": self._run_as,
            "sqlite3": self._sqlite3_as_shell,
            "svc": self._svc,
            "cmd": self._cmd,
            "settings": self._settings,
            "cat": self._guarded("cat"),
            "ls": self._guarded("ls"),
        }

    def _ok(self, text: str = "") -> R:
        return self.result(text.encode(), b"", 0)

    def _err(self, text: str, rc: int = 1) -> R:
        return self.result(b"", text.encode(), rc)

    def _fallback(self, name: str, args: list[str], stdin: bytes) -> R:
        handler = self.base.get(name)
        if handler is None:
            return self._err(f"/system/bin/sh: {name}: inaccessible or not found\n", 127)
        return handler(args, stdin)

    # --- the data dir, as the shell user -------------------------------------------------------
    def _guarded(self, name: str) -> Handler[R]:
        def run(args: list[str], stdin: bytes) -> R:
            denied = [
                a
                for a in args
                if a.startswith(_DATA_ROOTS) or a.rstrip("/") in ("/data/data", "/data/user/0")
            ]
            if denied:
                return self._err(f"{name}: {denied[0]}: Permission denied\n")
            return self._fallback(name, args, stdin)

        return run

    def _sqlite3_as_shell(self, args: list[str], stdin: bytes) -> R:
        if args == ["-version"]:
            return self._version()
        files = [a for a in args if not a.startswith("-")]
        target = files[0] if files else ""
        return self._err(f'Error: unable to open database "{target}": unable to open database file\n')

    # --- run-as --------------------------------------------------------------------------------
    def _run_as(self, args: list[str], stdin: bytes) -> R:
        if not args:
            return self._err("run-as: usage: run-as <package-name> [--user <uid>] <command> [<args>]\n")
        pkg, rest = args[0], args[1:]
        if pkg in _SYSTEM or pkg.startswith("com.android."):
            return self._err(f"run-as: package not debuggable: {pkg}\n")
        if pkg != self.device.app.app_id:
            return self._err(f"run-as: unknown package: {pkg}\n")
        if not rest:
            return self._err("run-as: an interactive shell is not available here; give a command\n")
        root = self.device.app_data.root
        name, cmd_args = rest[0].rsplit("/", 1)[-1], rest[1:]
        if name == "sqlite3":
            return self._sqlite3(root, cmd_args, stdin)
        if name in ("cat", "ls"):
            return self._files(root, name, cmd_args)
        if name == "pwd":
            return self._ok(f"/data/user/0/{pkg}\n")
        if name == "id":
            return self._ok(
                "uid=10190(u0_a190) gid=10190(u0_a190) groups=10190(u0_a190) context=u:r:untrusted_app:s0\n"
            )
        return self._err(f"run-as: exec failed for {rest[0]}: No such file or directory\n")

    def _path(self, root: Path, arg: str) -> Path | None:
        """A path of the app's data dir on the host; None outside it."""
        pkg = self.device.app.app_id
        for prefix in _DATA_ROOTS:
            if arg == prefix + pkg or arg.startswith(prefix + pkg + "/"):
                arg = arg[len(prefix + pkg) :].lstrip("/")
        if arg.startswith("/"):
            return None
        path = (root / arg).resolve()
        return path if path == root.resolve() or root.resolve() in path.parents else None

    def _files(self, root: Path, name: str, args: list[str]) -> R:
        targets = [a for a in args if not a.startswith("-")] or ["."]
        out, err = [], []
        for arg in targets:
            path = self._path(root, arg)
            if path is None:
                err.append(f"{name}: {arg}: Permission denied\n")
            elif path.is_dir():
                if name == "cat":
                    err.append(f"cat: {arg}: Is a directory\n")
                else:
                    out += [
                        f"{child.name}\n"
                        for child in sorted(path.iterdir())
                        if not child.name.endswith(".bak")
                    ]
            elif path.is_file():
                out.append(path.read_text("utf-8", "replace") if name == "cat" else f"{arg}\n")
            else:
                err.append(f"{name}: {arg}: No such file or directory\n")
        return self.result("".join(out).encode(), "".join(err).encode(), 1 if err else 0)

    def _version(self) -> R:
        # the host's SQLite answers the queries, so its version is the one a client may rely on
        return self._ok(f"{sqlite3.sqlite_version} 2022-12-28 14:03:47 (64-bit)\n")

    def _sqlite3(self, root: Path, args: list[str], stdin: bytes) -> R:
        if args == ["-version"]:
            return self._version()
        options = {"-separator": "|", "-newline": "\n", "-nullvalue": ""}
        header = False
        rest: list[str] = []
        i = 0
        while i < len(args):
            arg = args[i]
            if arg in options and i + 1 < len(args):
                options[arg] = _unescape(args[i + 1])
                i += 2
                continue
            if arg in ("-header", "-noheader"):
                header = arg == "-header"
            elif arg in ("-readonly", "-safe", "-list", "-batch", "-bail"):
                pass
            elif arg.startswith("-"):
                return self._err(f"sqlite3: Error: unknown option: {arg}\nUse -help for a list of options.\n")
            else:
                rest.append(arg)
            i += 1
        if not rest:
            return self._err("sqlite3: interactive mode is not available here; give the database and SQL\n")
        path = self._path(root, rest[0])
        if path is not None and rest[0].endswith(".db") and path.parent.name == "databases":
            self.device.app_data.database()  # the app's database exists once the app has used it
        if path is None or not path.is_file():
            return self._err(f'Error: unable to open database "{rest[0]}": unable to open database file\n')
        sql = " ".join(rest[1:]) if len(rest) > 1 else stdin.decode("utf-8", "replace")
        return self._query(path, sql, header, options)

    def _query(self, path: Path, sql: str, header: bool, options: dict[str, str]) -> R:
        sep, newline, null = options["-separator"], options["-newline"], options["-nullvalue"]
        out: list[str] = []
        db = _confined(path)
        try:
            for statement in _statements(sql):
                cursor = db.execute(statement)
                rows = cursor.fetchall()
                if header and cursor.description and rows:
                    out.append(sep.join(d[0] for d in cursor.description) + newline)
                out += [sep.join(null if v is None else _text(v) for v in row) + newline for row in rows]
        except sqlite3.Error as exc:
            return self.result("".join(out).encode(), f"Error: in prepare, {exc}\n".encode(), 1)
        finally:
            db.close()
        return self._ok("".join(out))

    # --- radios --------------------------------------------------------------------------------
    def _set(self, radio: str, on: bool) -> None:
        setattr(self.device.network, radio, on)

    def _svc(self, args: list[str], stdin: bytes) -> R:
        if len(args) == 2 and args[0] in ("wifi", "data") and args[1] in ("enable", "disable"):
            self._set(args[0], args[1] == "enable")
            return self._ok()
        return self._fallback("svc", args, stdin)

    def _cmd(self, args: list[str], stdin: bytes) -> R:
        if args[:2] == ["connectivity", "airplane-mode"]:
            if len(args) == 2:
                return self._ok("enabled\n" if self.device.network.airplane else "disabled\n")
            if args[2] in ("enable", "disable"):
                self._set("airplane", args[2] == "enable")
                return self._ok()
            return self._err(f"Unknown command: {args[2]}\n", 255)
        return self._fallback("cmd", args, stdin)

    def _settings(self, args: list[str], stdin: bytes) -> R:
        if len(args) >= 3 and args[1] == "global" and args[2] in _NETWORK_SETTINGS:
            radio = _NETWORK_SETTINGS[args[2]]
            if args[0] == "get":
                return self._ok(f"{int(getattr(self.device.network, radio))}\n")
            if args[0] == "put" and len(args) >= 4:
                self._set(radio, args[3] not in ("0", "false"))
                return self._ok()
        return self._fallback("settings", args, stdin)


def _confined(path: Path) -> sqlite3.Connection:
    """The app's database, read-only, with no other database reachable from it.

    The adb port takes no authentication, so these statements may come from any local process:
    `ATTACH` (and `VACUUM INTO`, which attaches its target) would read or create any file of the
    host. A device's sqlite3 refuses them under `-safe`, which the `queryDatabase` probe passes.
    """
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    db.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    db.set_authorizer(_deny_attach)
    return db


def _deny_attach(action: int, *_: object) -> int:
    return sqlite3.SQLITE_DENY if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH) else sqlite3.SQLITE_OK


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _unescape(value: str) -> str:
    """sqlite3's C-style escapes in option values (`-separator '\\t'`)."""
    return value.replace("\\t", "\t").replace("\\n", "\n").replace("\\r", "\r")


def _statements(sql: str) -> list[str]:
    """The complete statements of `sql`, split where sqlite3 itself would."""
    found: list[str] = []
    buffer = ""
    for part in sql.split(";"):
        buffer = f"{buffer};{part}" if buffer else part
        if sqlite3.complete_statement(buffer + ";"):
            if buffer.strip():
                found.append(buffer)
            buffer = ""
    if buffer.strip():
        found.append(buffer)
    return found
