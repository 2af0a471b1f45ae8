"""The one exception tree of trailblaze.

Every error a user can meet is a `TrailblazeError`; the CLI maps its class to an exit code and prints
its message on one line. Foreign exceptions (uiautomator2, adbutils, wda, requests, anthropic, yaml,
pydantic) are translated into this tree at the adapter that calls the foreign library.

```
TrailblazeError
├── UsageError                 exit 2  bad flags, bad device spec, missing file
│   ├── TrailFileError         exit 2  a trail file that does not load (path:line:col: message)
│   └── TrailConflictError     exit 2  another writer changed a step this run was recording
├── TrailFailed                exit 1  a trail ran and did not pass
│   ├── StepFailed             exit 1  one step failed (tool, selector, candidates)
│   ├── TrailTimedOut          exit 1  the trail ran past its wall-clock budget (--trail-timeout)
│   └── ActionRefused          exit 1  the app's state refuses an action (no on-screen keyboard)
│       └── DeviceUnsupported  exit 1  the connection cannot do it at all (a farm refuses shell): UNSUPPORTED
└── InfrastructureError        exit 3  nothing wrong with the trail: the world around it broke
    ├── DeviceError            exit 3  device unreachable, protocol error, driver missing
    │   ├── AppNotInstalledError        launchApp of a missing app (tools answer NOT_INSTALLED, exit 1)
    │   └── SessionLost                 a remote (Appium) session died: its trail errs, the run goes on
    └── LLMError               exit 3  model endpoint unreachable, auth, rate limit exhausted
```
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ActionRefused",
    "AppNotInstalledError",
    "BadAnswer",
    "DeviceError",
    "DeviceUnsupported",
    "InfrastructureError",
    "LLMError",
    "OptionError",
    "Problem",
    "SessionLost",
    "StepFailed",
    "TrailConflictError",
    "TrailFailed",
    "TrailFileError",
    "TrailTimedOut",
    "TrailblazeError",
    "UsageError",
    "WireFault",
    "exit_code_for",
]

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INFRA = 3


class TrailblazeError(Exception):
    """Base of every error trailblaze raises on purpose."""

    exit_code: int = EXIT_INFRA

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class UsageError(TrailblazeError):
    """The user asked for something that cannot be done as asked (flag, path, device spec)."""

    exit_code = EXIT_USAGE


class OptionError(UsageError):
    """A usage error about one option (`--capabilities`), which the command line reports as a bad
    value of that option."""

    def __init__(self, message: str, option: str) -> None:
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class Problem:
    """One problem found in a trail file, with its 1-based position."""

    line: int
    column: int
    message: str
    file: str | None = None
    """The file that holds the problem when it is not the one loaded (a Maestro sub-flow)."""

    def format(self, path: str) -> str:
        return f"{self.file or path}:{self.line}:{self.column}: {self.message}"


class TrailFileError(UsageError):
    """A trail file that cannot be loaded; carries every problem found, each with its position."""

    def __init__(self, path: str, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("TrailFileError needs at least one problem")
        self.path = path
        self.problems = list(problems)
        super().__init__("\n".join(p.format(path) for p in self.problems))

    @property
    def line(self) -> int:
        return self.problems[0].line


class TrailConflictError(UsageError):
    """Saving a recording found the step changed in the file by another writer meanwhile (ADR 0019)."""


class TrailFailed(TrailblazeError):
    """A trail ran and did not pass."""

    exit_code = EXIT_FAILED


class StepFailed(TrailFailed):
    """One step of a trail failed; the message names the step, the tool and what was on screen."""


class TrailTimedOut(TrailFailed):
    """The trail ran past its wall-clock budget (`--trail-timeout`, `config.timeout`): it fails where it
    got to, and the run goes on with the next trail (docs/adr/0070-trail-budget.md)."""

    def __init__(self, message: str, at: str = "") -> None:
        super().__init__(message)
        self.at = at
        """What the trail was doing (`runScript busy.js in repeat round 3 of 1000`)."""


class ActionRefused(TrailFailed):
    """The device is fine but the app's state refuses the action: typing with nothing focused (no
    on-screen keyboard). A driver raises it; the tool fails (exit 1), it is not infrastructure (exit 3)."""


class DeviceUnsupported(ActionRefused):
    """The device cannot do this at all through the connection it was opened with: a device farm
    refuses shell commands, or Appium runs without the insecure feature a probe needs. A driver raises
    it with the reason and the fix; the tool answers `UNSUPPORTED` (the step fails, exit 1)."""


class InfrastructureError(TrailblazeError):
    """The device or the model endpoint failed; the trail itself may be fine."""

    exit_code = EXIT_INFRA


WireFault = Literal["refused", "error_answer", "no_answer", "not_sent"]


class DeviceError(InfrastructureError):
    """The device could not be reached or answered with a protocol error.

    `wire` says how the request failed, when the driver can tell; the session decides from it
    whether an action that failed may have happened (`trailblaze.device.hiccups`, ADR 0057):

    - `refused`: nothing took the connection (a closed port, a device adb no longer lists), so this
      request did nothing;
    - `error_answer`: the device answered that the request failed (a JSON-RPC error, WebDriverAgent's
      `500 unknown error`), so it did not do it;
    - `no_answer`: the request went out and no whole answer came back (a dropped connection, a
      timeout), so it may or may not have been done;
    - `not_sent`: the driver failed before it sent the action's own request (on a read or a set-up
      request: `trailblaze.device.driver.before_acting`), so none of the action happened;
    - None: the driver cannot tell.

    The first three say how one request fared; an action of several requests (a launch: stop, then
    start) may have done part of its work before the one that failed.
    """

    def __init__(self, message: str, *, wire: WireFault | None = None) -> None:
        super().__init__(message)
        self.wire: WireFault | None = wire


class SessionLost(DeviceError):
    """A remote device session (Appium: a local server, a grid, a device farm) ended in the middle of
    a trail: the farm's idle timeout, a crashed driver, a dropped connection. That trail ends in error;
    the run goes on with the next trail, which opens a new session."""


class BadAnswer(DeviceError):
    """The device answered, but with something no one can use: an answer over the size cap, a page
    source nested deeper than any screen. Asking again gets the same answer, so it is not a hiccup
    to retry (`trailblaze.device.hiccups.retryable`)."""


class AppNotInstalledError(DeviceError):
    """The device does not have the app a launch named. `launchApp` turns it into a `NOT_INSTALLED`
    result (a failed step, exit 1): the trail or the device set-up is wrong, not the connection."""

    def __init__(self, app_id: str, known: Sequence[str], *, where: str, known_what: str = "installed") -> None:
        import difflib  # for a did-you-mean only: not imported at start-up

        self.app_id = app_id
        self.near = difflib.get_close_matches(app_id, list(known), n=3, cutoff=0.6)
        if self.near:
            hint = f"near-matching {known_what} ids: {', '.join(self.near)}"
        elif known:
            hint = f"no {known_what} id is close to it"
        else:
            hint = f"no {known_what} ids to compare with"
        super().__init__(f"{app_id} is not installed on {where} ({hint}); install it or fix the app id")


class LLMError(InfrastructureError):
    """The model endpoint could not be reached, refused the request, or kept failing after retries."""


def exit_code_for(exc: BaseException) -> int:
    """The process exit code for an exception that ended a command."""
    if isinstance(exc, TrailblazeError):
        return exc.exit_code
    return EXIT_INFRA
