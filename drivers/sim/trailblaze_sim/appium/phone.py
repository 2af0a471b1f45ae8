"""`AppiumPhone`: what one simulated Android phone gives Appium, on top of the adb server's shell.

It keeps the manifests of the APKs installed on the phone (Appium's helper apps among them), the
Appium Settings app's process, the running instrumentation and its UiAutomator2 server, and answers
the shell commands around them (`shell_commands`). The adb server asks it for two things a plain
shell command cannot do: the `am instrument -w` stream that lives as long as the instrumentation,
and the HTTP service behind device port 6790 for `adb forward`.
"""

from __future__ import annotations

import shlex
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from trailblaze_sim.android.u2 import SocketReader, U2Service
from trailblaze_sim.appium.apk_manifest import Manifest
from trailblaze_sim.appium.instrumentation import InstrumentationRun, InstrumentRequest, parse_instrument
from trailblaze_sim.appium.settings_app import SETTINGS_PACKAGE, SettingsApp
from trailblaze_sim.appium.shell_commands import appium_commands
from trailblaze_sim.appium.uia2_server import SERVER_PORT, TARGET_PACKAGE, Uia2Host, Uia2Server
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import SimDevice

if TYPE_CHECKING:
    from trailblaze_sim.android.shell import AndroidShell, ShellResult

__all__ = ["AppiumPhone"]

_APP_USER = "u0_a165"
_SERVER_USER = "u0_a171"
_ZYGOTE = 312
_SETTINGS_PID = 4877
_LOG_PID = 601  # system_server writes the ActivityManager / PackageManager lines
_START_GRACE_S = 0.1
_PROC_NET_UNIX = (
    "Num       RefCount Protocol Flags    Type St Inode Path\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 10512 /dev/socket/adbd\n"
    "0000000000000000: 00000002 00000000 00010000 0001 01 12873 @jdwp-control\n"
)


class AppiumPhone:
    """Appium's side of one simulated phone (see the module docstring). Thread-safe."""

    def __init__(self, device: SimDevice, shell: AndroidShell, u2: U2Service, conditions: Conditions) -> None:
        self.device = device
        self.shell = shell
        self.manifests: dict[str, Manifest] = {}
        """Packages installed from APK files, by name."""
        self.settings_app = SettingsApp(
            clipboard=lambda: device.clipboard, current_ime=lambda: shell.ime.current
        )
        self.server = Uia2Server(
            device,
            u2,
            conditions,
            Uia2Host(
                version=self._server_version, properties=lambda: dict(shell.props), stop=self._server_stopped
            ),
        )
        self._run: InstrumentationRun | None = None
        self._lock = threading.Lock()
        self._started = threading.Condition()
        shell.wrap_commands(lambda base: appium_commands(self, base))
        shell.processes.extra = self.processes
        # the driver lists web views by the DevTools sockets in /proc/net/unix (`driver.contexts`)
        if shell.fs.mkdir("/proc/net", parents=True):
            shell.fs.write("/proc/net/unix", _PROC_NET_UNIX.encode())

    # --- packages -----------------------------------------------------------------------------

    def installed(self, manifest: Manifest) -> None:
        """An APK was installed (or replaced): as an update does, it stops the package."""
        self.stop_package(manifest.package)
        with self._lock:
            self.manifests[manifest.package] = manifest
        self._log("I", "PackageManager", f"Package {manifest.package} installed")

    def removed(self, package: str) -> None:
        self.stop_package(package)
        with self._lock:
            self.manifests.pop(package, None)

    def read_file(self, path: str) -> bytes | None:
        return self.shell.fs.read(path)

    def manifest(self, package: str) -> Manifest | None:
        with self._lock:
            return self.manifests.get(package)

    def _server_version(self) -> tuple[str, int]:
        found = self.manifest(TARGET_PACKAGE)
        if found is None:
            return ("", 0)
        return (found.version_name or "", found.version_code or 0)

    # --- processes ----------------------------------------------------------------------------

    def processes(self) -> list[tuple[str, int, int, str]]:
        """(user, pid, parent pid, name) of the processes Appium's packages run (for `ps`)."""
        rows: list[tuple[str, int, int, str]] = []
        if self.settings_app.running:
            rows.append((_APP_USER, self.settings_app.pid, _ZYGOTE, SETTINGS_PACKAGE))
        run = self._run
        if run is not None and not run.finished:
            rows.append((_SERVER_USER, run.pid, _ZYGOTE, run.target))
        return rows

    def kill(self, pid: int) -> bool:
        """`kill PID` with root's rights: True when PID was a process of Appium's packages (now gone)."""
        if self.settings_app.running and pid == self.settings_app.pid:
            self.settings_app.stop()
            return True
        run = self._run
        if run is not None and not run.finished and pid == run.pid:
            run.finish(crashed=True)
            return True
        return False

    def run(self, line: str) -> ShellResult:
        """One command line in the phone's shell."""
        return self.shell.run(line)

    def start_settings(self) -> None:
        if not self.settings_app.running:
            self.settings_app.start(_SETTINGS_PID)
            self._log(
                "I", "ActivityManager",
                f"Start proc {_SETTINGS_PID}:{SETTINGS_PACKAGE}/u0a165 for top-activity {{{SETTINGS_PACKAGE}/.Settings}}",
            )  # fmt: skip

    def stop_package(self, package: str) -> bool:
        """`am force-stop PACKAGE` for Appium's packages; True when it stopped something of theirs."""
        stopped = False
        if package == SETTINGS_PACKAGE and self.settings_app.running:
            self.settings_app.stop()
            stopped = True
        run = self._run
        if run is not None and not run.finished and package in (run.target, run.request.package):
            run.finish(crashed=True)
            stopped = True
        if stopped:
            self._log("I", "ActivityManager", f"Force stopping {package} appid=10165 user=0: from pid 2301")
        return stopped

    def _log(self, level: str, tag: str, message: str) -> None:
        log = getattr(self.device, "log", None)
        tod = getattr(self.device, "time_of_day", None)
        if log is None or not callable(tod):
            return
        hours, minutes, seconds = (int(p) for p in str(tod()).split(":"))
        log.write(hours * 3600 + minutes * 60 + seconds, _LOG_PID, level, tag, message)

    # --- instrumentation ----------------------------------------------------------------------

    def instrument(self, request: InstrumentRequest) -> InstrumentationRun | str:
        """Start an instrumentation: the run, or what `am` prints when it cannot."""
        manifest = self.manifest(request.package)
        runner = request.component.split("/", 1)[1]
        if runner.startswith("."):
            runner = request.package + runner
        target = next(
            (t for name, t in (manifest.instrumentations if manifest else ()) if name == runner), None
        )
        if target is None or self.manifest(target) is None:
            return (
                f"INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: "
                f"ComponentInfo{{{request.component}}}\nINSTRUMENTATION_STATUS_CODE: -1\n"
                f"android.util.AndroidException: INSTRUMENTATION_FAILED: {request.component}\n"
            )
        self.stop_package(target)  # am instrument restarts the target's process
        run = InstrumentationRun(request, target)
        if target == TARGET_PACKAGE:
            self.server.reset()
        with self._started:
            self._run = run
            self._started.notify_all()
        self._log(
            "I", "ActivityManager", f"Start proc {run.pid}:{target}/u0a171 for added application {target}"
        )
        return run

    def instrument_stream(self, command: str) -> InstrumentationRun | None:
        """The run an `am instrument -w …` shell stream waits on, or None when `command` is anything
        else (the shell then runs it as usual)."""
        try:
            words = shlex.split(command)
        except ValueError:
            return None
        if words[:2] != ["am", "instrument"] or "-w" not in words:
            return None
        request = parse_instrument(words[2:])
        if isinstance(request, str):
            return None
        run = self.instrument(request)
        return run if isinstance(run, InstrumentationRun) else None

    def _server_stopped(self) -> None:
        run = self._run
        if run is not None and run.target == TARGET_PACKAGE:
            run.finish(crashed=False)

    def service(self, port: int) -> Callable[[SocketReader], None] | None:
        """What answers on device port `port` (the UiAutomator2 server while it runs), or None.

        A connection to port 6790 that comes while the server is not up waits up to 100 ms for an
        instrumentation to start: the driver polls `/status` the moment it has spawned `adb shell am
        instrument`, which needs a few milliseconds to reach the device, and a refused poll costs
        the driver a full second (its poll interval). A real server takes seconds to start, so a
        phone never has this race."""
        if port != SERVER_PORT or self.manifest(TARGET_PACKAGE) is None:
            return None
        with self._started:
            self._started.wait_for(self._server_running, timeout=_START_GRACE_S)
            return self.server.serve if self._server_running() else None

    def _server_running(self) -> bool:
        run = self._run
        return run is not None and not run.finished and run.target == TARGET_PACKAGE
