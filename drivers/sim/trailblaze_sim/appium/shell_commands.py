"""The shell commands appium-adb and appium-uiautomator2-driver 8.7.0 run on a phone, answered as an
API-34 emulator does, over the simulated shell's own handlers (each falls back to them).

- `pm install` / `cmd package install` (also streamed, `-S SIZE`) record the APK's manifest, so
  `dumpsys package PKG` shows its real `versionCode` / `versionName` (appium-adb compares them with
  the APK's to skip a reinstall) and `pm list instrumentation` lists its `<instrumentation>`
  (`instrumentation:TEST/RUNNER (target=PKG)`); `pm uninstall` forgets it.
- `cmd package list packages --show-versioncode` adds ` versionCode:N`;
  `cmd package resolve-activity --brief PKG` prints the launcher activity (`PKG/.Activity`).
- `am start-activity -n io.appium.settings/.Settings …` starts the Appium Settings app
  (`settings_app`); `am broadcast` to its receivers answers for it; `am force-stop` / `am kill` of
  Appium's packages stop them (and the instrumentation whose target they are); `am instrument`
  without `-w` starts an instrumentation and returns.
- `dumpsys activity services [PKG|COMPONENT]`, `dumpsys activity processes` (one `ProcessRecord`
  per running app, what appium-adb's `listAppProcessIds` greps), `dumpsys deviceidle whitelist
  [+PKG]`.
- `cmd notification allow_listener …`, `appops set PKG OP MODE`, `wm dismiss-keyguard` succeed
  silently, as on an unlocked emulator.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from typing import Protocol

from trailblaze_sim.android.shell import ShellResult
from trailblaze_sim.appium.apk_manifest import Manifest, read_apk_manifest
from trailblaze_sim.appium.instrumentation import InstrumentationRun, InstrumentRequest, parse_instrument
from trailblaze_sim.appium.settings_app import SETTINGS_PACKAGE, SettingsApp
from trailblaze_sim.model import SimDevice

_SCAN_MEDIA = f"{SETTINGS_PACKAGE}.scan_media"
_SYSTEM_SCAN = "android.intent.action.MEDIA_SCANNER_SCAN_FILE"

__all__ = ["Phone", "appium_commands"]

Handler = Callable[[list[str], bytes], ShellResult]

_SERVICES_HEADER = "ACTIVITY MANAGER SERVICES (dumpsys activity services)\n"
_RESOLVE_HEADER = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
_SYSTEM_WHITELIST = (
    "system-excidle,com.android.shell,2000",
    "system,com.android.shell,2000",
    "system,com.google.android.gms,10123",
)


# toybox's `ps --help` (appium-adb looks for the `-A` line to know `ps -A` lists every process)
_PS_HELP = (
    "usage: ps [-AadefLlnwZ] [-gG GROUP,] [-k FIELD,] [-o FIELD,] [-p PID,] [-t TTY,] [-uU USER,]\n\n"
    "List processes.\n\nWhich processes to show (-gGuUpPt selections may be comma separated lists):\n\n"
    "-A\tAll\t\t\t\t\t-a\tHas terminal not session leader\n"
    "-d\tAll but session leaders\t\t\t-e\tSynonym for -A\n"
    "-g\tIn GROUPs\t\t\t\t-G\tIn real GROUPs (before sgid)\n"
    "-p\tPIDs (--pid)\t\t\t\t-P\tParent PIDs (--ppid)\n"
    "-s\tIn session IDs\t\t\t\t-t\tAttached to selected TTYs\n"
    "-T\tShow threads also\t\t\t-u\tOwned by selected USERs\n"
    "-U\tReal USERs (before suid)\n"
)


def _ok(text: str = "", rc: int = 0) -> ShellResult:
    return ShellResult(text.encode(), b"", rc)


def _err(text: str, rc: int = 1) -> ShellResult:
    return ShellResult(b"", text.encode(), rc)


class Phone(Protocol):
    """What the commands act on (`phone.AppiumPhone`)."""

    device: SimDevice
    settings_app: SettingsApp
    manifests: dict[str, Manifest]

    def manifest(self, package: str) -> Manifest | None: ...

    def installed(self, manifest: Manifest) -> None: ...

    def removed(self, package: str) -> None: ...

    def stop_package(self, package: str) -> bool: ...

    def start_settings(self) -> None: ...

    def instrument(self, request: InstrumentRequest) -> InstrumentationRun | str: ...

    def read_file(self, path: str) -> bytes | None: ...

    def kill(self, pid: int) -> bool: ...

    def run(self, line: str) -> ShellResult: ...


def appium_commands(phone: Phone, base: Mapping[str, Handler]) -> dict[str, Handler]:
    """Handlers for the shell's table, wrapping `base` (the shell's handlers so far)."""
    return _Commands(phone, base).table()


class _Commands:
    def __init__(self, phone: Phone, base: Mapping[str, Handler]) -> None:
        self.phone = phone
        self.base = dict(base)
        self.whitelist: list[str] = []
        self.appops: dict[tuple[str, str], str] = {}

    def table(self) -> dict[str, Handler]:
        return {
            "am": self._am,
            "pm": self._pm,
            "cmd": self._cmd,
            "dumpsys": self._dumpsys,
            "appops": self._appops,
            "wm": self._wm,
            "ps": self._ps,
            "su": self._su,
        }

    def _fallback(self, name: str, args: list[str], stdin: bytes) -> ShellResult:
        handler = self.base.get(name)
        if handler is None:
            return _err(f"/system/bin/sh: {name}: inaccessible or not found\n", 127)
        return handler(args, stdin)

    # --- am -----------------------------------------------------------------------------------

    def _am(self, args: list[str], stdin: bytes) -> ShellResult:
        sub, rest = (args[0], args[1:]) if args else ("", [])
        if sub in ("start", "start-activity"):
            component = _option(rest, "-n")
            if component is not None and component.split("/", 1)[0] == SETTINGS_PACKAGE:
                return self._start_settings(component, rest)
        elif sub in ("force-stop", "kill") and rest:
            self.phone.stop_package(rest[-1])
        elif sub == "broadcast":
            component = _option(rest, "-n") or ""
            action = _option(rest, "-a") or ""
            if (
                component.startswith(SETTINGS_PACKAGE + "/") or action.startswith(SETTINGS_PACKAGE + ".")
            ) and self.phone.manifest(SETTINGS_PACKAGE) is not None:
                return self._settings_broadcast(component, action, rest)
        elif sub == "instrument":
            request = parse_instrument(rest)
            if isinstance(request, str):
                return _err(request + "\n")
            run = self.phone.instrument(request)
            return _err(run) if isinstance(run, str) else _ok()
        return self._fallback("am", args, stdin)

    def _start_settings(self, component: str, rest: list[str]) -> ShellResult:
        manifest = self.phone.manifest(SETTINGS_PACKAGE)
        action = _option(rest, "-a")
        category = _option(rest, "-c")
        intent = " ".join(
            part
            for part in (
                f"act={action}" if action else "",
                f"cat=[{category}]" if category else "",
                f"cmp={component}",
            )
            if part
        )
        started = f"Starting: Intent {{ {intent} }}\n"
        if manifest is None or manifest.component("activity", component) is None:
            cls = component.split("/", 1)[1]
            full = SETTINGS_PACKAGE + cls if cls.startswith(".") else cls
            return ShellResult(
                started.encode(),
                f"Error type 3\nError: Activity class {{{SETTINGS_PACKAGE}/{full}}} does not exist.\n".encode(),
                1,
            )
        self.phone.start_settings()
        if "-W" in rest:
            started += f"Status: ok\nLaunchState: COLD\nActivity: {component}\nTotalTime: 164\nWaitTime: 170\nComplete\n"
        return _ok(started)

    def _settings_broadcast(self, component: str, action: str, rest: list[str]) -> ShellResult:
        # an explicit broadcast starts the receiver's process when it is not running
        self.phone.start_settings()
        if action == _SCAN_MEDIA and (path := _extra(rest, "path")) is not None:
            # its MediaScannerReceiver has the system's media scanner index the file (API 29+)
            self._fallback("am", ["broadcast", "-a", _SYSTEM_SCAN, "-d", f"file://{path}"], b"")
        code, data = self.phone.settings_app.broadcast(component, action)
        extras = " (has extras)" if any(a.startswith("--e") for a in rest) else ""
        cmp = f" cmp={component}" if component else ""
        tail = f', data="{data}"' if data is not None else ""
        return _ok(
            f"Broadcasting: Intent {{ act={action} flg=0x400000{cmp}{extras} }}\n"
            f"Broadcast completed: result={code}{tail}\n"
        )

    # --- pm / cmd package ---------------------------------------------------------------------

    def _pm(self, args: list[str], stdin: bytes) -> ShellResult:
        sub, rest = (args[0], args[1:]) if args else ("", [])
        if sub == "list" and rest[:1] == ["instrumentation"]:
            return self._list_instrumentation(rest[1:])
        if sub == "list" and rest[:1] == ["packages"] and "--show-versioncode" in rest:
            listed = self._fallback(
                "pm", ["list", "packages", *[a for a in rest[1:] if a != "--show-versioncode"]], stdin
            )
            return _ok(
                re.sub(
                    r"(?m)^package:(\S+)$",
                    lambda m: f"{m.group(0)} versionCode:{self._version(m.group(1))}",
                    listed.stdout.decode(),
                )
            )
        result = self._fallback("pm", args, stdin)
        if sub == "install" and result.rc == 0:
            data = self._apk_bytes(rest, stdin)
            manifest = read_apk_manifest(data) if data is not None else None
            if manifest is not None:
                self.phone.installed(manifest)
        elif sub == "uninstall" and rest and result.rc == 0:
            self.phone.removed(rest[-1])
        elif sub == "clear" and rest and result.rc == 0:
            self.phone.stop_package(rest[-1])
        return result

    def _version(self, package: str) -> int:
        manifest = self.phone.manifest(package)
        return manifest.version_code or 0 if manifest is not None else 1

    def _apk_bytes(self, args: list[str], stdin: bytes) -> bytes | None:
        if "-S" in args[:-1]:
            size = args[args.index("-S") + 1]
            return stdin[: int(size)] if size.isdigit() else None
        paths = [a for a in args if not a.startswith("-")]
        return self.phone.read_file(paths[-1]) if paths else None

    def _list_instrumentation(self, args: list[str]) -> ShellResult:
        target = next((a for a in args if not a.startswith("-")), None)
        lines = []
        for manifest in list(self.phone.manifests.values()):
            for runner, pkg in manifest.instrumentations:
                if target is None or pkg == target:
                    where = f"/data/app/~~sim==/{manifest.package}-sim==/base.apk=" if "-f" in args else ""
                    lines.append(f"instrumentation:{where}{manifest.package}/{runner} (target={pkg})\n")
        return _ok("".join(lines))

    def _cmd(self, args: list[str], stdin: bytes) -> ShellResult:
        if args[:1] == ["-w"]:
            args = args[1:]
        service, rest = (args[0], args[1:]) if args else ("", [])
        if service == "package":
            if rest[:1] == ["resolve-activity"]:
                return self._resolve_activity(rest[1:])
            return self._pm(rest, stdin)
        if service == "notification" and rest[:1] in (["allow_listener"], ["disallow_listener"]):
            return _ok()
        if service == "deviceidle":
            return self._deviceidle(rest)
        if service == "wifi" and rest[:1] == ["set-wifi-enabled"] and len(rest) > 1:
            return self._fallback("svc", ["wifi", "enable" if rest[1] == "enabled" else "disable"], stdin)
        return self._fallback("cmd", args, stdin)

    def _resolve_activity(self, args: list[str]) -> ShellResult:
        package = next((a for a in args if not a.startswith("-")), "")
        manifest = self.phone.manifest(package)
        activity: str | None = None
        if manifest is not None:
            activity = manifest.launcher_activity
        else:
            app = next((a for a in self.phone.device.installed_apps() if a.app_id == package), None)
            if app is not None and self._installed(package):
                activity = app.activity if not app.activity.startswith(".") else package + app.activity
        if activity is None:
            return _ok("No activity found\n")
        short = activity[len(package) :] if activity.startswith(package + ".") else activity
        return _ok(f"{_RESOLVE_HEADER}{package}/{short}\n" if "--brief" in args else f"{package}/{short}\n")

    def _installed(self, package: str) -> bool:
        listed = self._fallback("pm", ["list", "packages", package], b"").stdout.decode()
        return f"package:{package}\n" in listed

    # --- dumpsys ------------------------------------------------------------------------------

    def _dumpsys(self, args: list[str], stdin: bytes) -> ShellResult:
        if args[:2] == ["activity", "services"]:
            wanted = args[2] if len(args) > 2 else ""
            manifest = self.phone.manifest(SETTINGS_PACKAGE)
            if manifest is not None and wanted.split("/", 1)[0] in (SETTINGS_PACKAGE, ""):
                return _ok(self.phone.settings_app.services(manifest, wanted))
            return _ok(_SERVICES_HEADER + "  (nothing)\n")
        if args[:2] == ["activity", "processes"]:
            return _ok(self._processes())
        if args[:1] == ["deviceidle"]:
            return self._deviceidle(args[1:])
        result = self._fallback("dumpsys", args, stdin)
        if (
            args[:1] == ["package"]
            and len(args) > 1
            and (manifest := self.phone.manifest(args[1])) is not None
        ):
            text = result.stdout.decode()
            if manifest.version_code is not None:
                text = re.sub(r"versionCode=\d+", f"versionCode={manifest.version_code}", text)
            text = re.sub(r"versionName=\S+", f"versionName={manifest.version_name or ''}", text)
            return ShellResult(text.encode(), result.stderr, result.rc)
        return result

    def _processes(self) -> str:
        """`dumpsys activity processes`: the LRU list's `ProcessRecord`s (appium-adb reads the pid)."""
        ps = self._fallback("ps", ["-A"], b"").stdout.decode().splitlines()[1:]
        lines = ["ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)", "  All known processes:"]
        for row in ps:
            cols = row.split()
            if len(cols) < 9 or not cols[0].startswith("u0_a"):
                continue
            user, pid, name = cols[0], cols[1], cols[-1]
            uid = 10000 + int(user.removeprefix("u0_a"))
            lines.append(
                f"  *APP* UID {uid} ProcessRecord{{{int(pid) * 7919 & 0xFFFFFFF:07x} {pid}:{name}/{user.replace('_', '')}}}"
            )
            lines.append(f"    user #0 uid={uid} gids={{50{uid % 1000}, 20{uid % 1000}, 9997}}")
        return "\n".join(lines) + "\n"

    def _deviceidle(self, args: list[str]) -> ShellResult:
        if args[:1] != ["whitelist"]:
            return _ok()
        changes = args[1:]
        if not changes:
            return _ok("".join(f"{line}\n" for line in (*_SYSTEM_WHITELIST, *self.whitelist)))
        out = []
        for change in changes:
            pkg = change[1:]
            if change.startswith("+"):
                if not self._installed(pkg):
                    out.append(f"Package {pkg} is not installed\n")
                    continue
                entry = f"user,{pkg},{10000 + 165 + len(self.whitelist)}"
                if all(e.split(",")[1] != pkg for e in self.whitelist):
                    self.whitelist.append(entry)
                out.append(f"Added: {pkg}\n")
            elif change.startswith("-"):
                self.whitelist = [e for e in self.whitelist if e.split(",")[1] != pkg]
                out.append(f"Removed: {pkg}\n")
        return _ok("".join(out))

    # --- appops / wm --------------------------------------------------------------------------

    def _appops(self, args: list[str], stdin: bytes) -> ShellResult:
        words = [a for a in args if not a.startswith("--")]
        if words[:1] == ["set"] and len(words) >= 4:
            self.appops[(words[1], words[2])] = words[3]
            return _ok()
        if words[:1] == ["get"] and len(words) >= 3:
            return _ok(f"{words[2]}: {self.appops.get((words[1], words[2]), 'default')}\n")
        return _err("usage: appops set|get PACKAGE OP [MODE]\n", 255)

    def _su(self, args: list[str], stdin: bytes) -> ShellResult:
        """`su [root|0] COMMAND…` (a userdebug emulator has su), appium-adb's privileged shell. Only
        `kill` uses the rights: root may end the processes of Appium's packages (the shell user may
        not); other processes are left to the shell's own `kill`."""
        if args[:1] in (["root"], ["0"]):
            args = args[1:]
        line = " ".join(args)  # su runs its arguments as one command line
        try:
            words = shlex.split(line)
        except ValueError:
            return _err(f"su: bad command line: {line}\n")
        if words[:1] != ["kill"]:
            return self.phone.run(line)
        flags = [w for w in words[1:] if w.startswith("-")]
        pids = [w for w in words[1:] if not w.startswith("-")]
        rest = [p for p in pids if not (p.isdigit() and self.phone.kill(int(p)))]
        if pids and not rest:
            return _ok()
        return self._fallback("kill", flags + rest, stdin)  # the rest with the shell's own rights

    def _ps(self, args: list[str], stdin: bytes) -> ShellResult:
        if args == ["--help"]:
            return _ok(_PS_HELP)
        return self._fallback("ps", args, stdin)

    def _wm(self, args: list[str], stdin: bytes) -> ShellResult:
        if args[:1] == ["dismiss-keyguard"]:
            return _ok()
        return self._fallback("wm", args, stdin)


def _extra(args: list[str], key: str) -> str | None:
    """The value of the last `--es KEY VALUE` in `args`."""
    value: str | None = None
    for i, a in enumerate(args[:-2]):
        if a == "--es" and args[i + 1] == key:
            value = args[i + 2]
    return value


def _option(args: list[str], flag: str) -> str | None:
    """The value after the last `flag` in `args`."""
    value: str | None = None
    for i, a in enumerate(args[:-1]):
        if a == flag:
            value = args[i + 1]
    return value
