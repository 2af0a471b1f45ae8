"""The processes `ps`, `pidof` and `kill` see on the simulated phone: the system's, the running apps',
u2.jar's `app_process` while the adb server runs it, and what an add-on starts (Appium's helpers)."""

from __future__ import annotations

from collections.abc import Callable

from trailblaze_sim.android.hierarchy import LAUNCHER_PACKAGE
from trailblaze_sim.android.toybox import ShellResult, failed, ok

__all__ = ["LAUNCHER_PID", "U2_PID", "Processes"]

LAUNCHER_PID = 1502
U2_PID = 2350


class Processes:
    """`apps` gives (pid, package) of the running apps."""

    def __init__(self, apps: Callable[[], list[tuple[int, str]]]) -> None:
        self._apps = apps
        self.u2_alive: Callable[[], bool] = lambda: False
        """Whether the uiautomator2 server process runs (the adb server knows; `ps` shows it)."""
        self.kill_u2: Callable[[], None] = lambda: None
        """Ends the uiautomator2 server process (`kill` of its pid; the adb server owns it)."""
        self.extra: Callable[[], list[tuple[str, int, int, str]]] = lambda: []
        """(user, pid, parent pid, name) of processes an add-on runs (Appium's helper apps)."""

    def rows(self) -> list[tuple[str, int, int, str]]:
        rows = [
            ("root", 1, 0, "init"),
            ("root", 312, 1, "zygote64"),
            ("system", 601, 312, "system_server"),
            ("u0_a150", 1234, 312, "com.android.systemui"),
            ("u0_a141", LAUNCHER_PID, 312, LAUNCHER_PACKAGE),
            ("u0_a120", 1690, 312, "com.android.inputmethod.latin"),
            ("shell", 2201, 1, "adbd"),
        ]
        if self.u2_alive():
            # u2.jar runs in a bare `app_process` started from an adb shell (no --nice-name)
            rows.append(("shell", U2_PID, 2301, "app_process"))
        for pid, app_id in self._apps():
            rows.append(("u0_a190", pid, 312, app_id))
        return rows + self.extra()

    def ps(self, args: list[str], stdin: bytes) -> ShellResult:
        """toybox ps: `-A` (all: every process is listed anyway), `-u USER,...`, `-p PID,...`, and
        process names as filters."""
        users: set[str] = set()
        pids: set[str] = set()
        names: set[str] = set()
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("-u", "-U", "-p", "-o", "-O", "-k", "-t", "-g", "-G") and i + 1 < len(args):
                if a in ("-u", "-U"):
                    users.update(args[i + 1].split(","))
                elif a == "-p":
                    pids.update(args[i + 1].split(","))
                i += 2
                continue
            if not a.startswith("-"):
                names.add(a)
            i += 1
        lines = ["USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME"]
        for user, pid, ppid, name in self.rows():
            if (users and user not in users) or (pids and str(pid) not in pids) or (names and name not in names):
                continue
            lines.append(
                f"{user:<12} {pid:>5} {ppid:>5} {14_000_000:>10} {98_000:>6} do_epoll_wait       0 S {name}"
            )
        return ok("\n".join(lines) + "\n")

    def kill(self, args: list[str], stdin: bytes) -> ShellResult:
        """`kill [-SIG] PID...`: the shell user may end u2's app_process, not other users' processes."""
        pids = [a for a in args if not a.startswith("-")]
        if not pids:
            return failed("kill: usage: kill [-s sigspec | -signum | -sigspec] [pid | job]... \n", 2)
        owners = {str(pid): user for user, pid, _, _ in self.rows()}
        err = ""
        for pid in pids:
            if pid not in owners:
                err += f"/system/bin/sh: kill: {pid}: No such process\n"
            elif pid == str(U2_PID):
                self.kill_u2()
            else:  # other users' processes, and adbd, which a shell cannot take down
                err += f"/system/bin/sh: kill: {pid}: Operation not permitted\n"
        return ShellResult(b"", err.encode(), 1 if err else 0)

    def pidof(self, args: list[str], stdin: bytes) -> ShellResult:
        pids = [str(pid) for _, pid, _, name in self.rows() if name in args]
        return ok(" ".join(pids) + "\n", 0) if pids else ok("", 1)
