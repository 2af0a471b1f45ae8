"""Issue 13 figure: which public uiautomator2 device calls the test suite exercises against the
Android simulator, and which adb commands the simulator supports.

Runs the Android simulator test files in-process under a profiler and records every public
function or property of the `uiautomator2` package (e.g. `Device.swipe`, `UiObject.child_by_text`,
`Device.toast`) called directly from test code. Prints the sorted list and its count, then the
JSON-RPC methods the simulated server implements, the shell commands its `adb shell` runs and the
adb host/local services it answers.

Usage: python benchmarks/client_coverage.py [TEST_FILE ...]
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
DEFAULT_FILES = [
    "tests/sim/test_sim_android_u2.py",
    "tests/sim/test_sim_android_u2_fidelity.py",
    "tests/sim/test_sim_android_adb_fidelity.py",
    "tests/sim/test_sim_android.py",
    "tests/sim/test_sim_android_demo.py",
]
ADB_HOST_SERVICES = [
    "host:version", "host:devices", "host:devices-l", "host:track-devices", "host:features",
    "host:tport:serial|any|transport-id", "host:transport:SERIAL", "host:transport-any",
    "host-serial:SERIAL:features|get-state|get-serialno|get-devpath|wait-for-*",
    "host:forward / host-serial:…:forward:[norebind:]tcp:N;tcp:M", "killforward:tcp:N", "killforward-all",
    "list-forward", "host:kill", "host:connect / host:disconnect",
]  # fmt: skip
ADB_LOCAL_SERVICES = [
    "shell:", "shell,v2,…:", "exec:", "sync: (STAT LIST RECV SEND QUIT)", "tcp:9008 (u2 server)",
    "root:", "reverse:list-forward", "host:… after a tport switch", "streamed install (cmd package install -S N)",
    "logcat follow (until the client hangs up)",
]  # fmt: skip


def _u2_name(frame: FrameType) -> str | None:
    code = frame.f_code
    module = frame.f_globals.get("__name__", "")
    if not module.startswith("uiautomator2") or code.co_name.startswith("_"):
        return None
    owner = frame.f_locals.get("self")
    cls = type(owner).__name__ if owner is not None else module.rsplit(".", 1)[-1]
    return f"{cls}.{code.co_name}"


def main(argv: list[str]) -> int:
    files = argv or DEFAULT_FILES
    seen: set[str] = set()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        caller = frame.f_back
        if caller is None or not caller.f_code.co_filename.startswith(str(TESTS)):
            return
        name = _u2_name(frame)
        if name is not None:
            seen.add(name)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        rc = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", *files])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]

    from trailblaze_sim import create_device
    from trailblaze_sim.android.shell import AndroidShell, MemFS
    from trailblaze_sim.android.u2 import U2Service
    from trailblaze_sim.faults import Conditions

    device = create_device("android")
    u2 = U2Service(device, Conditions())
    shell = AndroidShell(device, MemFS(), u2)
    print(f"\nuiautomator2 public device calls exercised by {len(files)} test files: {len(seen)}")
    for name in sorted(seen):
        print(f"  {name}")
    methods = sorted(u2._methods)
    print(f"\nJSON-RPC methods the simulated u2 server implements: {len(methods)}")
    print("  " + ", ".join(methods))
    print(f"\nadb shell commands: {len(shell.command_names)}")
    print("  " + ", ".join(shell.command_names))
    print(
        "  pm: list packages, path, clear, install (PATH | -S N on stdin), uninstall, grant, revoke, list features"
    )
    print("  dumpsys: activity, battery, display, input_method, package, power, SurfaceFlinger, window")
    print("  logcat: -d -c -v FMT --pid -t -e -s -b TAG:LEVEL (follows without -d)")
    print(f"\nadb host services: {'; '.join(ADB_HOST_SERVICES)}")
    print(f"adb local services: {'; '.join(ADB_LOCAL_SERVICES)}")
    return int(rc)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
