"""`adb shell` on a simulated Android device: a tiny sh (`;`, `&&`, `||`, `|`, `>`, `$?`, `VAR=x cmd`)
over handlers for the commands uiautomator2 / adbutils run and parse (reference A.2.8). The in-memory
file system that `sync:` and the shell share and the plain file and text applets are `toybox`'s; the
process table is `processes`'.

Output formats follow a real Android 14 (API 34) emulator closely enough for the clients' regexes:
`wm size`, `dumpsys display` (first `orientation=`), `dumpsys window` (`mCurrentFocus=`, in the displays
section as since Android 10), `dumpsys activity top` (`ACTIVITY pkg/.Short … pid=N`),
`ps -A` (9+ columns), `pm list packages` (`package:`), `toybox md5sum`, `getprop`, `ime list -s`.
`am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file://PATH` indexes a shared-storage
file into the MediaStore, which `content query --uri content://media/external/file` lists.
An unknown command prints `/system/bin/sh: NAME: inaccessible or not found` and exits 127.
"""

from __future__ import annotations

import shlex
import stat
import time
import zlib
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from trailblaze.device.apk import input_method_services, read_manifest
from trailblaze_sim.android.hierarchy import LAUNCHER_PACKAGE, build_windows, render_uiautomator_dump
from trailblaze_sim.android.ime import SYSTEM_IME, InputMethods
from trailblaze_sim.android.input import InputCommand
from trailblaze_sim.android.logcat import parse_logcat
from trailblaze_sim.android.pm import InstallError, PackageManager
from trailblaze_sim.android.probes import probe_commands
from trailblaze_sim.android.processes import LAUNCHER_PID, Processes
from trailblaze_sim.android.sh_words import ShSyntaxError, expand, tokenize
from trailblaze_sim.android.toybox import Handler, MemFS, ShellResult, Toybox, failed, ok
from trailblaze_sim.device.log import DeviceLog
from trailblaze_sim.model import AppInfo, SimDevice, deep_link_app

if TYPE_CHECKING:
    from trailblaze_sim.android.u2 import U2Service

__all__ = ["U2_JAR_PATH", "AndroidShell", "MemFS", "ShellResult", "device_props", "u2_jar_bytes"]

U2_JAR_PATH = "/data/local/tmp/u2.jar"
U2_MAIN_CLASS = "com.wetest.uia2.Main"
DEFAULT_IME = SYSTEM_IME
_SCAN_FILE = "android.intent.action.MEDIA_SCANNER_SCAN_FILE"

_SYSTEM_PACKAGES = (
    "android", "com.android.systemui", "com.android.settings", "com.android.shell",
    "com.android.inputmethod.latin", "com.android.chrome", LAUNCHER_PACKAGE,
)  # fmt: skip


@cache
def u2_jar_bytes() -> bytes:
    """The `u2.jar` shipped inside the installed uiautomator2 wheel (its md5 is what connect checks)."""
    return resources.files("uiautomator2").joinpath("assets/u2.jar").read_bytes()


def device_props(device: SimDevice) -> dict[str, str]:
    """`getprop` of an API-34 emulator image carrying the simulated device's identity."""
    return {
        "ro.serialno": device.serial,
        "ro.boot.serialno": device.serial,
        "ro.build.version.sdk": "34",
        "ro.build.version.release": "14",
        "ro.build.version.release_or_codename": "14",
        "ro.build.version.security_patch": "2023-09-05",
        "ro.build.id": "UE1A.230829.036",
        "ro.build.type": "userdebug",
        "ro.build.tags": "dev-keys",
        "ro.build.fingerprint": "google/sdk_gphone64_x86_64/emu64xa:14/UE1A.230829.036/10851573:userdebug/dev-keys",
        "ro.build.characteristics": "emulator",
        "ro.product.brand": "google",
        "ro.product.manufacturer": "Google",
        "ro.product.model": device.model,
        "ro.product.name": "sdk_gphone64_x86_64",
        "ro.product.device": "emu64xa",
        "ro.product.cpu.abi": "x86_64",
        "ro.product.cpu.abilist": "x86_64,arm64-v8a",
        "ro.product.locale": "en-US",
        "ro.sf.lcd_density": str(int(round(160 * device.scale))),
        "ro.debuggable": "1",
        "ro.secure": "1",
        "ro.kernel.qemu": "1",
        "sys.boot_completed": "1",
        "dev.bootcomplete": "1",
        "init.svc.adbd": "running",
        "persist.sys.timezone": "UTC",
        "gsm.operator.alpha": "T-Mobile",
        "net.hostname": device.serial,
    }


# --- the shell ------------------------------------------------------------------------------

def split_command(command: str) -> list[str]:
    """Shell words and operators (`;`, `&&`, `||`, `|`, `>`, `>>`) of one command line."""
    lex = shlex.shlex(command, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    return list(lex)


class AndroidShell:
    """Runs one `adb shell` command line against a device, its file system and settings."""

    def __init__(self, device: SimDevice, fs: MemFS, u2: U2Service | None = None) -> None:
        self.device = device
        self.fs = fs
        self.u2 = u2
        self.props = device_props(device)
        self.settings: dict[tuple[str, str], str] = {
            ("secure", "default_input_method"): DEFAULT_IME,
            ("secure", "enabled_input_methods"): DEFAULT_IME,
            ("global", "adb_enabled"): "1",
            ("global", "airplane_mode_on"): "0",
            ("system", "screen_off_timeout"): "2147483647",
            ("system", "accelerometer_rotation"): "0",
            ("system", "font_scale"): f"{device.font_scale:g}",
            ("secure", "ui_night_mode"): "2" if device.dark else "1",
        }
        self.input = InputCommand(device, u2)
        self.ime = InputMethods(device, self.settings, self.input.keycode)
        self.media: list[str] = []
        """The MediaStore: the shared-storage files the media scanner indexed, in order."""
        if u2 is not None:
            u2.ime_package = lambda: self.ime.current_package
        self._env: dict[str, str] = {}
        self.pm = PackageManager()
        self.processes = Processes(
            lambda: [(self.pid_of(a), a.app_id) for a in self._apps() if device.app_state(a.app_id) >= 2]
        )
        """What `ps`, `pidof` and `kill` see; the adb server and add-ons say what else runs."""
        self._commands: dict[str, Handler] = {
            "true": lambda a, i: ok(),
            "false": lambda a, i: ok(rc=1),
            "getprop": self._getprop,
            "setprop": self._setprop,
            "wm": self._wm,
            "dumpsys": self._dumpsys,
            "am": self._am,
            "monkey": self._monkey,
            "pm": self._pm,
            "cmd": self._cmd,
            "ime": self._ime,
            "settings": self._settings,
            "input": self.input.run,
            "ps": self.processes.ps,
            "pidof": self.processes.pidof,
            "kill": self.processes.kill,
            "toybox": self._toybox,
            "chmod": lambda a, i: ok(),
            "sync": lambda a, i: ok(),
            "id": lambda a, i: ok(
                "uid=2000(shell) gid=2000(shell) groups=2000(shell),1007(log),1011(adb) context=u:r:shell:s0\n"
            ),
            "whoami": lambda a, i: ok("shell\n"),
            "uiautomator": self._uiautomator,
            "screencap": self._screencap,
            "date": lambda a, i: ok(time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime()) + "\n"),
            "which": self._which,
            "svc": lambda a, i: ok(),
            "logcat": self._logcat,
            "content": self._content,
            "export": self._export,
            "exec": lambda a, i: self._run_simple(a, i, raw=False) if a else ok(),
        }
        self._commands.update(Toybox(fs).commands())
        self._commands.update(probe_commands(device, self._commands, ShellResult))

    def wrap_commands(self, wrap: Callable[[Mapping[str, Handler]], Mapping[str, Handler]]) -> None:
        """Let an add-on (`trailblaze_sim.appium`) answer commands; `wrap` gets the current handlers
        to fall back to and returns the ones it replaces or adds."""
        self._commands.update(wrap(dict(self._commands)))

    # --- interpreter -------------------------------------------------------------------

    @property
    def command_names(self) -> list[str]:
        return sorted(self._commands)

    def run(self, command: str, stdin: bytes = b"") -> ShellResult:
        """Run a full command line; stdout and stderr are returned separately, rc is the last `$?`.

        Each call is a fresh `sh -c`: variables assigned on the line last until its end. `stdin` is
        what the client streamed (an `adb install` APK); the first command reads it."""
        self._env = {"$": "2301", "?": "0"}
        try:
            tokens = tokenize(command)
        except ShSyntaxError as exc:
            return failed(f"/system/bin/sh: syntax error: {exc}\n", 2)
        out = bytearray()
        err = bytearray()
        combined = bytearray()
        rc = 0
        i = 0
        skip = False
        pipeline: list[list[str]] = [[]]
        connector = ";"
        while i <= len(tokens):
            tok = tokens[i] if i < len(tokens) else ";"
            i += 1
            if tok == "|":
                pipeline.append([])
                continue
            if tok not in (";", "&&", "||", "&"):
                pipeline[-1].append(tok)
                continue
            if any(pipeline):
                self._env["?"] = str(rc)
                if not skip and pipeline[0][:1] == ["exit"]:
                    code = self._expand(pipeline[0][1]) if len(pipeline[0]) > 1 else str(rc)
                    rc = int(code) & 0xFF if code.lstrip("-").isdigit() else 2
                    break
                if not skip:
                    try:
                        res = self._run_pipeline(pipeline, rc, stdin)
                        stdin = b""
                    except ShSyntaxError as exc:
                        res = failed(f"/system/bin/sh: {exc}\n", 1)
                    out += res.stdout
                    err += res.stderr
                    combined += res.stdout + res.stderr
                    rc = res.rc
            pipeline = [[]]
            connector = tok
            skip = (connector == "&&" and rc != 0) or (connector == "||" and rc == 0)
        return ShellResult(bytes(out), bytes(err), rc, bytes(combined))

    def _run_pipeline(self, pipeline: list[list[str]], last_rc: int, stdin: bytes = b"") -> ShellResult:
        data = stdin
        err = bytearray()
        res = ShellResult()
        for words in pipeline:
            res = self._run_simple(words, data)
            err += res.stderr
            data = res.stdout
        return ShellResult(data, bytes(err), res.rc)

    def _expand(self, word: str) -> str:
        return expand(word, self._env, self._substitute)

    def _substitute(self, command: str) -> str:
        """`$(command)`: its standard output, run in this shell's variables."""
        saved = dict(self._env)
        try:
            return self.run(command).stdout.decode(errors="replace")
        finally:
            self._env = saved

    def _run_simple(self, words: list[str], stdin: bytes, *, raw: bool = True) -> ShellResult:
        """One command. `words` are raw (quoted, unexpanded) unless `raw` is False."""
        redirect: tuple[str, str] | None = None
        args: list[str] = []
        j = 0
        while j < len(words):
            w = words[j]
            if raw and w in (">", ">>", ">&", "<") and j + 1 < len(words):
                fd_spec = args.pop() if args and args[-1] in ("1", "2") else "1"
                target = self._expand(words[j + 1])
                if w == "<":
                    stdin = self.fs.read(target) or b""
                elif w == ">&" or target == "/dev/null" or fd_spec == "2":
                    pass  # stderr juggling and /dev/null: nothing to keep
                else:
                    redirect = (w, target)
                j += 2
                continue
            args.append(self._expand(w) if raw else w)
            j += 1
        assigns: list[tuple[str, str]] = []
        while args and "=" in args[0] and args[0].split("=", 1)[0].isidentifier():
            name, _, value = args.pop(0).partition("=")
            assigns.append((name, value))
        if not args:
            self._env.update(assigns)  # `X=1` alone sets a shell variable
            return ShellResult()
        name = args[0].rsplit("/", 1)[-1]
        handler = self._commands.get(name)
        if handler is None:
            res = failed(f"/system/bin/sh: {args[0]}: inaccessible or not found\n", 127)
        else:
            try:
                res = handler(args[1:], stdin)
            except (ValueError, IndexError) as exc:
                res = failed(f"{name}: {exc}\n", 1)
        if redirect is not None:
            op, path = redirect
            old = self.fs.read(path) or b"" if op == ">>" else b""
            if not self.fs.write(path, old + res.stdout):
                return ShellResult(
                    b"",
                    res.stderr + f"/system/bin/sh: can't create {path}: No such file or directory\n".encode(),
                    1,
                )
            res = ShellResult(b"", res.stderr, res.rc)
        return res

    # --- helpers -------------------------------------------------------------------------

    def _apps(self) -> list[AppInfo]:
        specs = [a for a in self.device.installed_apps() if a.app_id not in self.pm.removed]
        extra = [AppInfo(app_id=n, name=n.rsplit(".", 1)[-1]) for n in sorted(self.pm.extra)]
        return specs + [a for a in extra if all(a.app_id != s.app_id for s in specs)]

    def _spec_app(self, app_id: str) -> bool:
        """Whether `app_id` is an installed app spec (one the simulator can run and show)."""
        return app_id not in self.pm.removed and any(a.app_id == app_id for a in self.device.installed_apps())

    def _app(self, app_id: str) -> AppInfo | None:
        return next((a for a in self._apps() if a.app_id == app_id), None)

    def pid_of(self, app: AppInfo) -> int:
        if app.pid:
            return app.pid
        ids = [a.app_id for a in self._apps()]
        return 4100 + 37 * (
            ids.index(app.app_id) if app.app_id in ids else zlib.crc32(app.app_id.encode()) % 97
        )

    @staticmethod
    def full_activity(app: AppInfo) -> str:
        return app.app_id + app.activity if app.activity.startswith(".") else app.activity

    def _focus(self) -> tuple[str, str, str]:
        """(package, full activity, short activity) of the focused window."""
        app = self.device.current_app()
        if app is None:
            return (LAUNCHER_PACKAGE, f"{LAUNCHER_PACKAGE}.NexusLauncherActivity", ".NexusLauncherActivity")
        full = self.full_activity(app)
        short = full[len(app.app_id) :] if full.startswith(app.app_id + ".") else full
        return (app.app_id, full, short)

    # --- commands ------------------------------------------------------------------------

    def _getprop(self, args: list[str], stdin: bytes) -> ShellResult:
        if not args:
            return ok("".join(f"[{k}]: [{v}]\n" for k, v in sorted(self.props.items())))
        value = self.props.get(args[0], args[1] if len(args) > 1 else "")
        return ok(value + "\n")

    def _setprop(self, args: list[str], stdin: bytes) -> ShellResult:
        if len(args) != 2:
            return failed("usage: setprop NAME VALUE\n")
        if args[0].startswith("ro."):
            return failed(f"Failed to set property '{args[0]}' to '{args[1]}'.\nSee dmesg for error reason.\n")
        self.props[args[0]] = args[1]
        return ok()

    def _wm(self, args: list[str], stdin: bytes) -> ShellResult:
        d = self.device
        if args[:1] == ["size"]:
            # the panel's own size: portrait, whatever the rotation
            short, long = sorted((round(d.screen_width * d.scale), round(d.screen_height * d.scale)))
            return ok(f"Physical size: {short}x{long}\n")
        if args[:1] == ["density"]:
            return ok(f"Physical density: {round(160 * d.scale)}\n")
        return failed(f"Error: unknown command '{' '.join(args)}'\n", 255)

    def _rotation(self) -> int:
        return self.u2.rotation if self.u2 is not None else 0

    def _dumpsys(self, args: list[str], stdin: bytes) -> ShellResult:
        service = args[0] if args else ""
        d = self.device
        w, h = round(d.screen_width * d.scale), round(d.screen_height * d.scale)
        density = round(160 * d.scale)
        pkg, full, short = self._focus()
        if service == "display":
            return ok(
                "DISPLAY MANAGER (dumpsys display)\n"
                "  mOnlyCode=false\n  mSafeMode=false\n  mPendingTraversal=false\n"
                f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, "
                f"uniqueId='local:4619827259835644672', physicalPort=0, orientation={self._rotation()}, "
                f"logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect(0, 0 - {w}, {h}), "
                f"deviceWidth={w}, deviceHeight={h}, isActive=true}}]\n"
                "  mDefaultDisplayDefaultColorMode=0\n\n"
                "Display Devices: size=1\n"
                f'  DisplayDeviceInfo{{"Built-in Screen": uniqueId="local:4619827259835644672", {w} x {h}, '
                f"modeId 1, renderFrameRate 60.0, density {density}, {density}.0 x {density}.0 dpi, "
                "touch INTERNAL, rotation 0, type INTERNAL, state ON, FLAG_DEFAULT_DISPLAY}}\n"
            )
        if service == "window":
            # Since Android 10 the focus lines are in the displays section, not in `windows`: clients
            # that grep `dumpsys window windows` for mCurrentFocus (adbutils' app_current) fall back to
            # `dumpsys activity top`, which also names the pid.
            sub = args[1] if len(args) > 1 else ""
            focus = f"Window{{5f2c1e8 u0 {pkg}/{full}}}"
            windows = (
                "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                "  Window #0 Window{1a2b3c4 u0 StatusBar}:\n    mDisplayId=0 rootTaskId=1 mSession=Session{7d8e9f0 1234:u0a10150}\n"
                "  Window #1 Window{2b3c4d5 u0 NavigationBar0}:\n    mDisplayId=0 rootTaskId=1 mSession=Session{7d8e9f0 1234:u0a10150}\n"
                f"  Window #2 {focus}:\n    mDisplayId=0 rootTaskId=12 mSession=Session{{8e9f0a1 4321:u0a10190}}\n"
                f"    mAttrs={{(0,0)(fillxfill) sim={{adjust=resize}} ty=BASE_APPLICATION fmt=TRANSLUCENT}}\n"
                f"    Requested w={w} h={h} mLayoutSeq=210\n\n"
                f"  mGlobalConfiguration={{1.0 310mcc260mnc [en_US] ldltr sw{int(d.screen_width)}dp "
                f"w{int(d.screen_width)}dp h{int(d.screen_height)}dp {density}dpi nrml long port finger qwerty}}\n"
                f"  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n"
            )
            displays = (
                "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
                f"  Display: mDisplayId=0 rootTasks=3\n    init={w}x{h} {density}dpi cur={w}x{h} app={w}x{h}\n"
                f"  mCurrentFocus={focus}\n"
                f"  mFocusedApp=ActivityRecord{{9a8b7c6 u0 {pkg}/{short} t12}}\n"
            )
            if sub == "windows":
                return ok(windows)
            if sub == "displays":
                return ok(displays)
            return ok(windows + "\n" + displays)
        if service == "activity":
            sub = args[1] if len(args) > 1 else "activities"
            app = self.device.current_app()
            pid = self.pid_of(app) if app is not None else LAUNCHER_PID
            if sub == "top":
                return ok(
                    "TASK 10012:"
                    f"{pkg} id=12 userId=0\n"
                    f"  ACTIVITY {pkg}/{short} 9a8b7c6 pid={pid}\n"
                    "    View Hierarchy:\n"
                )
            return ok(
                "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                "Display #0 (activities from top to bottom):\n"
                f"  * Task{{c1d2e3f #12 type=standard A=10190:{pkg} U=0 visible=true mode=fullscreen}}\n"
                f"    * Hist  #0: ActivityRecord{{9a8b7c6 u0 {pkg}/{short} t12}}\n\n"
                f"  ResumedActivity: ActivityRecord{{9a8b7c6 u0 {pkg}/{short} t12}}\n"
                f"  mResumedActivity: ActivityRecord{{9a8b7c6 u0 {pkg}/{short} t12}}\n"
            )
        if service == "package" and len(args) > 1:
            app = self._app(args[1])
            if app is None:
                return ok("")
            return ok(
                "Packages:\n"
                f"  Package [{app.app_id}] (4a5b6c7):\n"
                f"    userId=10190\n    pkg=Package{{4a5b6c7 {app.app_id}}}\n"
                f"    codePath=/data/app/~~sim==/{app.app_id}-sim==\n"
                "    versionCode=1 minSdk=24 targetSdk=34\n    versionName=1.0\n"
                "    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n"
                "    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n"
                "    timeStamp=2024-01-01 00:00:00\n"
                "    firstInstallTime=2024-01-01 00:00:00\n"
                "    lastUpdateTime=2024-01-01 00:00:00\n"
                "    signatures=PackageSignatures{5d6e7f8 version:2, signatures:[a1b2c3d4], past signatures:[]}\n"
                # What appium-adb's getReqPermissions reads (`mobile: getPermissions`), as Android 14 lists it
                "    requested permissions:\n"
                + "".join(f"      {perm}\n" for perm, _ in self.pm.permissions(app.app_id))
                + "    runtime permissions:\n"
                + "".join(
                    f"      {perm}: granted={'true' if held else 'false'}, flags=[ {'USER_SET' if held else ''} ]\n"
                    for perm, held in self.pm.permissions(app.app_id)
                )
            )
        if service == "power":
            on = self.u2.screen_on if self.u2 is not None else True
            return ok(
                "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n"
                f"  mWakefulness={'Awake' if on else 'Asleep'}\n"
                f"  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=2\n"
                f"  mStayOn=false\n  mProximityPositive=false\n  mBootCompleted=true\n"
                f"  mHoldingWakeLockSuspendBlocker=false\n"
                f"  mHoldingDisplaySuspendBlocker={'true' if on else 'false'}\n"
                "Display Power: state=" + ("ON" if on else "OFF") + "\n"
            )
        if service == "battery":
            return ok(
                "Current Battery Service state:\n  AC powered: false\n  USB powered: true\n"
                "  Wireless powered: false\n  Dock powered: false\n  Max charging current: 500000\n"
                "  Max charging voltage: 5000000\n  Charge counter: 10000\n  status: 5\n  health: 2\n"
                "  present: true\n  level: 100\n  scale: 100\n  voltage: 5000\n  temperature: 250\n"
                "  technology: Li-ion\n"
            )
        if service == "SurfaceFlinger":
            return ok(
                'Display 4619827259835644672 (HWC display 0): port=0 pnpId=GGL displayName="EMU_display_0"\n'
            )
        if service == "input_method":
            shown = "true" if self.device.keyboard_shown() else "false"
            ime = self.settings[("secure", "default_input_method")]
            # the service's mInputShown, then the input method's own mIsInputViewShown (appium-adb
            # sends Escape to hide the keyboard only when that one says it is shown)
            return ok(f"  mCurMethodId={ime}\n  mInputShown={shown}\n  mIsInputViewShown={shown}\n")
        if not service:
            return ok(
                "Currently running services:\n  activity\n  battery\n  display\n  input_method\n  package\n"
                "  power\n  window\n"
            )
        return ok(f"Can't find service: {service}\n")

    def _launch(self, app_id: str, *, stop_first: bool = False) -> bool:
        if not self._spec_app(app_id):
            return False
        self.device.launch(app_id, stop_first=stop_first)
        return True

    def _am(self, args: list[str], stdin: bytes) -> ShellResult:
        sub = args[0] if args else ""
        rest = args[1:]
        if sub in ("start", "start-activity"):
            opts = _parse_intent(rest)
            stop_first = "-S" in rest
            if "n" in opts:
                pkg, _, act = opts["n"].partition("/")
                app = self._app(pkg)
                started = False
                if app is not None and self._spec_app(pkg):
                    if stop_first:
                        self.device.terminate(pkg)
                    started = self.device.start_activity(pkg, act or app.activity)
                if not started:
                    cls = act if not act.startswith(".") else pkg + act
                    return ShellResult(
                        f"Starting: Intent {{ cmp={opts['n']} }}\n".encode(),
                        f"Error type 3\nError: Activity class {{{pkg}/{cls}}} does not exist.\n".encode(),
                        1,
                    )
                return ok(f"Starting: Intent {{ cmp={opts['n']} }}\n")
            if "d" in opts and (linked := deep_link_app(self.device, opts["d"])) is not None:
                self._launch(linked)
                return ok(f"Starting: Intent {{ act={opts.get('a', 'android.intent.action.VIEW')} dat={opts['d']} }}\n")
            if "d" in opts:
                return ShellResult(
                    f"Starting: Intent {{ act={opts.get('a', 'android.intent.action.VIEW')} dat={opts['d']} }}\n".encode(),
                    f"Error: Activity not started, unable to resolve Intent {{ act={opts.get('a', '')} dat={opts['d']} flg=0x10000000 }}\n".encode(),
                    0,
                )
            return failed("Error: Intent does not match any activities\n")
        if sub == "force-stop" and rest:
            if self._spec_app(rest[-1]):
                self.device.terminate(rest[-1])
            return ok()
        if sub == "kill" and rest:
            return ok()
        if sub == "broadcast":
            opts = _parse_intent(rest)
            action = opts.get("a", "")
            if action == _SCAN_FILE:  # the system's MediaScanner receiver
                return ok(self._scan(opts.get("d", "")))
            extras = {k.removeprefix("extra:"): v for k, v in opts.items() if k.startswith("extra:")}
            # the running input method is the only receiver on this phone (u2's AdbKeyboard, when selected)
            return ok(self.ime.broadcast(action, extras).render(action, bool(extras)))
        if sub == "get-current-user":
            return ok("0\n")
        return failed(f"Unknown command: {sub}\n", 255 if not sub else 1)

    def _scan(self, data: str) -> str:
        """`am broadcast -a MEDIA_SCANNER_SCAN_FILE -d file://PATH`: a file in shared storage is indexed."""
        path = MemFS.norm(data.removeprefix("file://"))
        found = self.fs.stat(path)
        if data.startswith("file://") and path.startswith("/storage/emulated/0/") and found is not None:
            if stat.S_ISREG(found[0]) and path not in self.media:
                self.media.append(path)
        return f"Broadcasting: Intent {{ act={_SCAN_FILE} dat={data} flg=0x400000 }}\nBroadcast completed: result=0\n"

    def _content(self, args: list[str], stdin: bytes) -> ShellResult:
        """`content query --uri content://media/external/{file,images/media,video/media}`: the MediaStore."""
        uri = args[args.index("--uri") + 1] if "--uri" in args and args.index("--uri") + 1 < len(args) else ""
        kinds = {"content://media/external/file": None, "content://media/external/images/media": False,
                 "content://media/external/video/media": True}  # fmt: skip
        if args[:1] != ["query"] or uri not in kinds:
            return failed(f"[ERROR] Unsupported operation: {' '.join(args)}\n")
        video = kinds[uri]
        rows = [p for p in self.media if video is None or p.lower().endswith(".mp4") == video]
        if not rows:
            return ok("No result found.\n")
        return ok("".join(f"Row: {i} _data={p}\n" for i, p in enumerate(rows)))

    def _monkey(self, args: list[str], stdin: bytes) -> ShellResult:
        pkg = args[args.index("-p") + 1] if "-p" in args and args.index("-p") + 1 < len(args) else None
        if pkg is None or not self._launch(pkg):
            # What a phone's monkey prints for a package with no launcher activity (or none at all).
            echoed = "".join(f"  bash arg: {a}\n" for a in args).encode()
            return ShellResult(echoed, b"** No activities found to run, monkey aborted.\n", 252)
        return ok(
            "Events injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"
        )

    def _pm(self, args: list[str], stdin: bytes) -> ShellResult:
        sub = args[0] if args else ""
        rest = args[1:]
        if sub == "list" and rest[:1] == ["packages"]:
            flags = [a for a in rest[1:] if a.startswith("-")]
            filt = next((a for a in rest[1:] if not a.startswith("-")), "")
            names = [a.app_id for a in self._apps()]
            if "-3" not in flags:
                names = list(_SYSTEM_PACKAGES) + names
            return ok("".join(f"package:{n}\n" for n in names if filt in n))
        if sub == "clear" and rest:
            pkg = rest[-1]
            if self._app(pkg) is None:
                return ok("Failed\n", 1)
            if self._spec_app(pkg):
                self.device.clear_app_data(pkg)
            return ok("Success\n")
        if sub == "install":
            return self._pm_install(rest, stdin)
        if sub == "uninstall" and rest:
            return self._pm_uninstall(rest[-1])
        if sub == "path" and rest:
            if self._app(rest[-1]) is None:
                return ok("", 1)
            return ok(f"package:/data/app/~~sim==/{rest[-1]}-sim==/base.apk\n")
        if sub in ("grant", "revoke"):
            words = [a for a in rest if not a.startswith("-")]
            if len(words) < 2:
                return failed(f"Error: no {'package' if not words else 'permission'} specified\n", 255)
            pkg, permission = words[0], words[1]
            if self._app(pkg) is None:
                return failed(
                    f"Exception occurred while executing '{sub}':\n"
                    f"java.lang.IllegalArgumentException: Unknown package: {pkg}\n",
                    255,
                )
            if "." not in permission:
                return failed(
                    f"Exception occurred while executing '{sub}':\n"
                    f"java.lang.IllegalArgumentException: Unknown permission: {permission}\n",
                    255,
                )
            self.pm.set_permission(pkg, permission, sub == "grant")
            return ok()
        if sub == "list" and rest[:1] == ["features"]:
            return ok("feature:android.hardware.touchscreen\nfeature:android.software.input_methods\n")
        return failed(f"Unknown command: {sub}\n" if sub else "usage: pm [subcommand]\n", 1)

    def _pm_install(self, args: list[str], stdin: bytes) -> ShellResult:
        """`pm install [-r -t -g -d ...] PATH`, or `-S SIZE` with the APK on stdin (adb's streamed
        install); replaces an installed package (`-r` is always on since Android 7)."""
        size: int | None = None
        path = ""
        i = 0
        while i < len(args):
            if args[i] == "-S" and i + 1 < len(args):
                size = int(args[i + 1])
                i += 2
                continue
            if args[i] in ("-i", "--user", "--install-location", "-p", "--originating-uri") and i + 1 < len(args):
                i += 2
                continue
            if not args[i].startswith("-"):
                path = args[i]
            i += 1
        if size is not None:
            data, source = stdin[:size], "/data/app/vmdl.tmp/base.apk"
        elif path:
            found = self.fs.read(path)
            if found is None:
                return ok(
                    f"Failure [INSTALL_FAILED_INVALID_URI: Don't have read access to {path} or it does not exist]\n", 1
                )
            data, source = found, path
        else:
            return failed("Error: must either specify a package size or an APK file\n", 255)
        try:
            name = self.pm.install(data, source)
        except InstallError as exc:
            return ok(f"Failure [{exc}]\n", 1)
        self.ime.package_installed(name, input_method_services(read_manifest(data)))
        if any(a.app_id == name for a in self.device.installed_apps()):
            # (re)installing the spec's app stops it, as an update does; a reinstall after an
            # uninstall starts from fresh data
            self.device.terminate(name)
            installed = self.pm.extra.pop(name, None)
            if installed is not None:
                self.pm.spec_requests[name] = installed.requested
        return ok("Success\n")

    def _pm_uninstall(self, pkg: str) -> ShellResult:
        spec_ids = [a.app_id for a in self.device.installed_apps()]
        was_spec = self._spec_app(pkg)
        if not self.pm.uninstall(pkg, spec_ids):
            return ok("Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1)
        self.ime.package_removed(pkg)
        if was_spec:
            self.device.clear_app_data(pkg)
        return ok("Success\n")

    def _export(self, args: list[str], stdin: bytes) -> ShellResult:
        for a in args:
            name, sep, value = a.partition("=")
            if sep and name.isidentifier():
                self._env[name] = value
        return ok()

    def _logcat(self, args: list[str], stdin: bytes) -> ShellResult:
        log = self.device_log()
        req = parse_logcat(args)
        if isinstance(req, str):
            return failed(req + "\n", 1)
        if req.clear:
            if log is not None:
                log.clear()
            return ok()
        # Without -d a real logcat keeps following; over a one-shot shell call it prints what is
        # there (the adb server keeps the stream open and follows, see server.adb).
        return ok(req.render(log) if log is not None else "")

    def device_log(self) -> DeviceLog | None:
        log = getattr(self.device, "log", None)
        return log if isinstance(log, DeviceLog) else None

    def _cmd(self, args: list[str], stdin: bytes) -> ShellResult:
        if args[:1] == ["package"]:
            return self._pm(args[1:], stdin)
        if args[:2] == ["uimode", "night"] and len(args) == 2:
            night = self.settings.get(("secure", "ui_night_mode")) == "2"
            return ok(f"Night mode: {'yes' if night else 'no'}\n")
        return failed(f"Can't find service: {args[0] if args else ''}\n", 20)

    def _ime(self, args: list[str], stdin: bytes) -> ShellResult:
        out, err, rc = self.ime.command(args)
        return ShellResult(out.encode(), err.encode(), rc)

    def _settings(self, args: list[str], stdin: bytes) -> ShellResult:
        sub = args[0] if args else ""
        if sub == "get" and len(args) >= 3:
            return ok(self.settings.get((args[1], args[2]), "null") + "\n")
        if sub == "put" and len(args) >= 4:
            self.settings[(args[1], args[2])] = args[3]
            return ok()
        if sub == "delete" and len(args) >= 3:
            self.settings.pop((args[1], args[2]), None)
            return ok("Deleted 1 rows\n")
        if sub == "list" and len(args) >= 2:
            return ok("".join(f"{k}={v}\n" for (ns, k), v in sorted(self.settings.items()) if ns == args[1]))
        return failed("usage:  settings [--user <USER_ID> | current] get namespace key\n", 255)

    def _toybox(self, args: list[str], stdin: bytes) -> ShellResult:
        if not args:
            return ok(" ".join(self.command_names) + "\n")
        return self._run_simple(args, stdin, raw=False)

    def _uiautomator(self, args: list[str], stdin: bytes) -> ShellResult:
        if args[:1] != ["dump"]:
            return failed("Usage: uiautomator <subcommand> [options]\n", 1)
        path = next((a for a in args[1:] if not a.startswith("-")), "/sdcard/window_dump.xml")
        windows = (
            self.u2.windows()
            if self.u2 is not None
            else build_windows(self.device, ime_package=self.ime.current_package)
        )
        xml = render_uiautomator_dump(windows, rotation=self._rotation())
        if path in ("/dev/tty", "/proc/self/fd/1"):
            # `adb exec-out uiautomator dump /dev/tty`: the document on stdout, then the notice
            return ok(f"{xml}UI hierchary dumped to: {path}\n")
        if not self.fs.write(path, xml.encode()):
            return failed(f"ERROR: could not write {path}\n")
        return ok(f"UI hierchary dumped to: {path}\n")

    def _screencap(self, args: list[str], stdin: bytes) -> ShellResult:
        png = self.device.screenshot_png()
        path = next(
            (a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-d")), None
        )
        if path is not None:
            self.fs.write(path, png)
            return ok()
        return ShellResult(png)

    def _which(self, args: list[str], stdin: bytes) -> ShellResult:
        found = [f"/system/bin/{a}" for a in args if a in self._commands or a == "app_process"]
        return ok("".join(f"{p}\n" for p in found), 0 if len(found) == len(args) else 1)


def _parse_intent(args: list[str]) -> dict[str, str]:
    """`am` intent options: -a ACTION, -c CATEGORY, -n COMPONENT, -d DATA (later ones win)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-a", "-c", "-n", "-d", "-t") and i + 1 < len(args):
            out[a[1:]] = args[i + 1]
            i += 2
            continue
        if a in ("--es", "--ei", "--ez") and i + 2 < len(args):
            out[f"extra:{args[i + 1]}"] = args[i + 2]
            i += 3
            continue
        i += 1
    return out
