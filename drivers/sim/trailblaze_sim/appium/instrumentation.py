"""`am instrument`: running an installed `<instrumentation>`, the way appium-uiautomator2-driver 8.7.0
starts the UiAutomator2 server.

The driver runs `adb shell am instrument -w [-e KEY VALUE]… io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner`
as a long-lived process: with `-w` the shell stream stays open for as long as the instrumentation
runs, and the instrumentation's one test (appium-uiautomator2-server 10.x's `AppiumUiAutomator2Server`)
serves HTTP on device port 6790 until it is told to stop. The run ends when the server stops itself
(`DELETE /session/:id`), when its target package is force-stopped (`am force-stop
io.appium.uiautomator2.server[.test]`, what the driver's cleanup does) or when the shell stream that
waits for it closes; the process (`io.appium.uiautomator2.server`) then leaves `ps`.

What `am` prints without `-r`: the test runner's status text as it comes (the test class name when
the test starts, `.` when it passes, then `Time:` and `OK (1 test)`), or, for a run killed from
outside, `INSTRUMENTATION_RESULT: shortMsg=Process crashed.` and `INSTRUMENTATION_CODE: 0`.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field

__all__ = ["InstrumentationRun", "parse_instrument"]

_TEST_CLASS = "io.appium.uiautomator2.server.test.AppiumUiAutomator2Server"
_PIDS = itertools.count(5120, 11)


@dataclass(frozen=True)
class InstrumentRequest:
    """The parts of an `am instrument` command line the simulator acts on."""

    component: str
    """`test.package/runner.Class` as given."""
    wait: bool
    """`-w`: the command returns only when the instrumentation finishes."""
    raw: bool
    """`-r`: raw status output (INSTRUMENTATION_STATUS lines)."""
    args: dict[str, str]
    """`-e KEY VALUE` pairs."""

    @property
    def package(self) -> str:
        return self.component.split("/", 1)[0]


def parse_instrument(args: list[str]) -> InstrumentRequest | str:
    """The request of `am instrument ARGS` (ARGS after `instrument`), or am's usage error."""
    wait = raw = False
    extras: dict[str, str] = {}
    component = ""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-w":
            wait = True
        elif a == "-r":
            raw = True
        elif a in ("-e", "--es") and i + 2 < len(args):
            extras[args[i + 1]] = args[i + 2]
            i += 2
        elif a in ("-p", "--user", "--abi", "--instrument-sdk-sandbox"):
            i += 1
        elif not a.startswith("-"):
            component = a
        i += 1
    if "/" not in component:
        return (
            f"Error: Bad component name: {component}"
            if component
            else "Error: No instrumentation component given"
        )
    return InstrumentRequest(component, wait, raw, extras)


@dataclass
class InstrumentationRun:
    """One running instrumentation: its process and how it ended. Thread-safe."""

    request: InstrumentRequest
    target: str
    """The package whose process runs the instrumentation (the manifest's `targetPackage`)."""
    pid: int = field(default_factory=lambda: next(_PIDS))
    started_at: float = field(default_factory=time.monotonic)
    _done: threading.Event = field(default_factory=threading.Event, repr=False)
    _crashed: bool = False

    @property
    def finished(self) -> bool:
        return self._done.is_set()

    def finish(self, *, crashed: bool) -> None:
        """End the run: the test returned (`crashed=False`) or its process was killed."""
        if not self._done.is_set():
            self._crashed = crashed
            self._done.set()

    def wait(self, timeout: float) -> bool:
        """True once finished (waits up to `timeout` seconds)."""
        return self._done.wait(timeout)

    def banner(self) -> str:
        """What `am instrument -w` prints when the test starts."""
        return "" if self.request.raw else f"\n{_TEST_CLASS}:"

    def result(self) -> tuple[str, int]:
        """(the rest of am's output, its exit code) once the run is over."""
        if self._crashed:
            return "INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n", 0
        seconds = time.monotonic() - self.started_at
        if self.request.raw:
            return (
                f"INSTRUMENTATION_RESULT: stream=\n\nTime: {seconds:.3f}\n\nOK (1 test)\n\n\nINSTRUMENTATION_CODE: -1\n",
                0,
            )
        return f".\nTime: {seconds:.3f}\n\nOK (1 test)\n\n\n", 0
