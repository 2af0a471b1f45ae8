"""`adb logcat` over a simulated device's log buffer (`device.log.DeviceLog`).

Options as Android 14's logcat takes them: `-d` (dump and exit), `-c`/`--clear`, `-v FORMAT`
(`threadtime` — the default —, `time`, `brief`, `tag`, `process`, `raw`; `-v` may repeat), `--pid=N`
/ `--pid N`, `-t N` (last N lines, implies `-d`), `-e`/`--regex`, `-s` and filter specs
(`TAG:LEVEL`, `*:S`), `-b BUFFER` (accepted; there is one buffer), `-T TIME` (lines since
`MM-DD hh:mm:ss.mmm` or `YYYY-MM-DD hh:mm:ss.mmm`, that line included, as logcat prints them). Without `-d` logcat keeps
following the buffer until the client hangs up; the adb server does that part (`follow`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from trailblaze_sim.device.log import LEVELS, DeviceLog, LogEntry

__all__ = ["LogcatRequest", "format_entry", "parse_logcat"]

_TIME = re.compile(r"^(?:\d{4}-)?\d\d-\d\d (?P<h>\d\d):(?P<m>\d\d):(?P<s>\d\d(?:\.\d+)?)$")
_FORMATS = ("threadtime", "time", "brief", "tag", "process", "raw")


@dataclass
class LogcatRequest:
    dump: bool = False
    clear: bool = False
    format: str = "threadtime"
    pid: int | None = None
    tail: int | None = None
    since: float | None = None
    """`-T TIME`: device time of day (seconds); earlier lines are left out."""
    regex: re.Pattern[str] | None = None
    filters: list[tuple[str, str]] = field(default_factory=list)
    """(tag or `*`, minimum level letter; `S` silences)."""

    def wants(self, entry: LogEntry) -> bool:
        if self.pid is not None and entry.pid != self.pid:
            return False
        if self.since is not None and int(entry.seconds % 86400 * 1000) < round(self.since * 1000):
            return False
        if self.regex is not None and self.regex.search(entry.message) is None:
            return False
        if self.filters:
            level = next((lv for tag, lv in self.filters if tag == entry.tag), None)
            if level is None:
                level = next((lv for tag, lv in self.filters if tag == "*"), "V")
            if level == "S" or LEVELS.index(entry.level) < LEVELS.index(level):
                return False
        return True

    def render(self, log: DeviceLog) -> str:
        """The lines a dump prints now (after `-t`), with logcat's buffer banner first."""
        lines = [e for e in log.entries() if self.wants(e)]
        if self.tail is not None:
            lines = lines[-self.tail :] if self.tail > 0 else []
        if not lines:
            return ""
        return "--------- beginning of main\n" + "".join(format_entry(e, self.format) + "\n" for e in lines)


def parse_logcat(args: list[str]) -> LogcatRequest | str:
    """The request `args` ask for, or a usage error message."""
    req = LogcatRequest()
    silent = False
    i = 0
    while i < len(args):
        a = args[i]
        nxt = args[i + 1] if i + 1 < len(args) else None
        if a == "-d":
            req.dump = True
        elif a in ("-c", "--clear"):
            req.clear = True
        elif a == "-s":
            silent = True
        elif a in ("-v", "--format") or a.startswith(("-v", "--format=")):
            value = a.split("=", 1)[1] if a.startswith("--format=") else (a[2:] if len(a) > 2 else nxt)
            if value is None:
                return "logcat: option requires an argument -- v"
            if value not in _FORMATS and value not in ("color", "epoch", "monotonic", "uid", "usec", "UTC"):
                return f'logcat: Invalid parameter "{value}" to -v.'
            if value in _FORMATS:
                req.format = value
            i += 0 if a.startswith("--format=") or len(a) > 2 else 1
        elif a == "--pid" or a.startswith("--pid="):
            value = a.split("=", 1)[1] if "=" in a else nxt
            if value is None or not value.isdigit():
                return f"logcat: --pid {value or ''} invalid"
            req.pid = int(value)
            i += 0 if "=" in a else 1
        elif a == "-T" and nxt is not None and _TIME.match(nxt):
            m = _TIME.match(nxt)
            assert m is not None
            req.since = int(m["h"]) * 3600 + int(m["m"]) * 60 + float(m["s"])
            i += 1
        elif a in ("-t", "-T") or a.startswith(("-t", "-T")):
            value = a[2:] if len(a) > 2 else nxt
            if value is None or not value.isdigit():
                return f"logcat: -t {value or ''} invalid"
            req.tail = int(value)
            req.dump = req.dump or a.startswith("-t")
            i += 0 if len(a) > 2 else 1
        elif a in ("-e", "--regex") or a.startswith("--regex="):
            value = a.split("=", 1)[1] if "=" in a else nxt
            if value is None:
                return "logcat: -e requires a regex"
            try:
                req.regex = re.compile(value)
            except re.error as exc:
                return f"logcat: bad regex {value!r}: {exc}"
            i += 0 if "=" in a else 1
        elif a in ("-b", "--buffer") or a.startswith("-b"):
            i += 0 if len(a) > 2 else 1  # main, system, crash, all: one buffer here
        elif not a.startswith("-") and ":" in a:
            tag, _, level = a.rpartition(":")
            level = level.upper()
            if level not in LEVELS + "S":
                return f"logcat: Invalid filter expression '{a}'"
            req.filters.append((tag, level))
        elif not a.startswith("-"):
            req.filters.append((a, "V"))
        else:
            return f"logcat: invalid option -- '{a.lstrip('-')}'"
        i += 1
    if silent:
        req.filters.append(("*", "S"))
    return req


def format_entry(e: LogEntry, fmt: str = "threadtime") -> str:
    """One line as `logcat -v FMT` prints it."""
    total = e.seconds % 86400
    stamp = time.strftime("%m-%d", time.gmtime()) + (
        f" {int(total // 3600):02d}:{int(total // 60 % 60):02d}:{int(total % 60):02d}.{int(total * 1000) % 1000:03d}"
    )
    if fmt == "time":
        return f"{stamp} {e.level}/{e.tag}({e.pid:5d}): {e.message}"
    if fmt == "brief":
        return f"{e.level}/{e.tag:<8}({e.pid:5d}): {e.message}"
    if fmt == "tag":
        return f"{e.level}/{e.tag:<8}: {e.message}"
    if fmt == "process":
        return f"{e.level}({e.pid:5d}) {e.message}  ({e.tag})"
    if fmt == "raw":
        return e.message
    return f"{stamp} {e.pid:5d} {e.tid:5d} {e.level} {e.tag:<8}: {e.message}"
