"""Reading one app's lines out of `adb logcat` (the driver's `SupportsAppLogs`).

A mark is the newest `logcat -v threadtime` line when it was taken. Reading since a mark is one
`logcat -d -v threadtime -T '<its time>'` (lines at that time or later; the mark itself and the lines
before it with the same time are dropped). The app's lines are picked on the host rather than with
`--pid`: `--pid` takes one pid, and the app's pid changes when it restarts or crashes within a run —
its pids are the one `pidof` reports now, the ones ActivityManager's `Start proc PID:PACKAGE/` lines
announce, and every pid seen for it before. System lines that name the package are kept too (the
start, the force stop, a crash report).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from trailblaze.device.driver import AppLog, ShellOutput
from trailblaze.errors import DeviceError

__all__ = ["AppLogReader"]

_LINE = re.compile(r"^(?P<time>\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+(?P<pid>\d+)\s+\d+\s+[VDIWEFA]\s")


class AppLogReader:
    """Keeps the pids seen per app between reads."""

    def __init__(self, shell: Callable[[str], ShellOutput]) -> None:
        self._shell = shell
        self._pids: dict[str, set[int]] = {}

    def mark(self) -> str | None:
        lines = self._logcat("logcat -d -t 1 -v threadtime")
        return lines[-1] if lines else None

    def read(self, app_id: str, since: str | None) -> AppLog:
        command = "logcat -d -v threadtime"
        if since is not None and (m := _LINE.match(since)):
            command += f" -T {shlex.quote(m['time'])}"
        lines = self._logcat(command)
        if since is not None and since in lines:
            lines = lines[lines.index(since) + 1 :]
        mark = lines[-1] if lines else since
        pids = self._pids.setdefault(app_id, set())
        pids.update(int(p) for p in self._shell(f"pidof {shlex.quote(app_id)}").output.split() if p.isdigit())
        started = re.compile(rf"Start proc (\d+):{re.escape(app_id)}[/:\s]")
        for line in lines:
            if (m := started.search(line)) is not None:
                pids.add(int(m[1]))
        mine = [line for line in lines if _pid(line) in pids or app_id in line]
        return AppLog(mine, mark)

    def _logcat(self, command: str) -> list[str]:
        answer = self._shell(command)
        if answer.exit_code != 0:
            said = " ".join(answer.output.split())[:200]
            raise DeviceError(f"`{command}` failed (exit code {answer.exit_code}): {said}")
        # banners ("--------- beginning of main") and continuation noise carry no pid
        return [line for line in answer.output.splitlines() if _LINE.match(line)]


def _pid(line: str) -> int:
    m = _LINE.match(line)
    return int(m["pid"]) if m else -1
