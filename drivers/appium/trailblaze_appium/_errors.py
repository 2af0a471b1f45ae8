"""Translation of Selenium / Appium-Python-Client / urllib3 exceptions into `trailblaze.errors`.

- a server that cannot be reached, or a new session refused (bad credentials, a farm's queue full,
  capabilities no device matches): `DeviceError` with the server's own message;
- a session that ended under us (`invalid session id`, a farm's idle timeout, a crashed
  UiAutomator2 instrumentation): `SessionLost`, so the run goes on with a new session;
- a command the server refuses by design (`mobile: shell` without the insecure feature, a method the
  driver does not have): `DeviceUnsupported`, which a tool answers `UNSUPPORTED`;
- an answer over the size cap (`_answers`): `BadAnswer`, which is not sent again;
- anything else: `DeviceError` naming what was being done.

The foreign libraries are imported inside the functions so the plugin stays cheap to import.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from trailblaze.errors import BadAnswer, DeviceError, DeviceUnsupported, SessionLost, TrailblazeError

__all__ = ["first_line", "is_queue_full", "translate", "translating"]

_LOST = (
    "invalid session id",
    "session is either terminated or not started",
    "session does not exist",
    "no such session",
    "instrumentation process is not running",
    "session timed out",
    "has been terminated",
    "idle for",
)
_QUEUE = (
    "queue",
    "parallel",
    "concurrency",
    "ccy",
    "too many requests",
    "limit reached",
    "all devices are busy",
    "no device available",
)
_INSECURE = "potentially insecure feature"


def first_line(exc: BaseException) -> str:
    text = (getattr(exc, "msg", None) or str(exc)).strip() or type(exc).__name__
    line = text.splitlines()[0].removeprefix("Message: ").strip()
    line = line.split("; For documentation on this error", 1)[0]  # selenium's link, not the server's words
    return line if len(line) <= 300 else line[:297] + "..."


def is_queue_full(exc: BaseException) -> bool:
    """A farm refused a new session because its queue or the plan's parallel sessions are full."""
    text = first_line(exc).lower()
    return any(mark in text for mark in _QUEUE)


def translate(exc: BaseException, what: str, where: str, *, creating: bool = False) -> TrailblazeError:
    """The error that tells a user what failed while doing `what` on `where`, and how to fix it."""
    from selenium.common import exceptions as se
    from urllib3 import exceptions as u3

    from trailblaze_appium._answers import AnswerTooLarge

    if isinstance(exc, AnswerTooLarge):
        return BadAnswer(
            f"{what} failed on {where}: {exc}, the cap on one Appium answer (a screenshot, a page "
            "source); the server or a proxy in front of it sent something else: check them"
        )
    detail = first_line(exc)
    lowered = detail.lower()
    if isinstance(exc, TimeoutError | u3.ReadTimeoutError | se.TimeoutException):
        return DeviceError(
            f"{what} timed out on {where}: the server did not answer; check it and retry", wire="no_answer"
        )
    if isinstance(exc, u3.MaxRetryError | u3.NewConnectionError | u3.ProtocolError | ConnectionError):
        if creating:
            return DeviceError(
                f"{what} failed: cannot reach {where} ({detail}); start the Appium server (`appium`) or check the URL"
            )
        return SessionLost(
            f"{what} failed: lost the connection to {where} ({detail}); the next trail opens a new session"
        )
    if creating or isinstance(exc, se.SessionNotCreatedException):
        return DeviceError(f"{where} refused a new session: {detail}")
    if _INSECURE in lowered:
        return DeviceUnsupported(
            f"{what}: {where} refuses it ({detail[:160]}); on a local Appium start it with "
            "--allow-insecure=uiautomator2:adb_shell (or --relaxed-security); device farms do not allow it"
        )
    if isinstance(exc, se.InvalidSessionIdException) or any(mark in lowered for mark in _LOST):
        return SessionLost(
            f"{what} failed: the Appium session on {where} ended ({detail}); the next trail opens a new one"
        )
    if isinstance(exc, se.UnknownMethodException) or "unknown method" in lowered or "not implemented" in lowered:
        return DeviceUnsupported(f"{what}: {where} does not support it ({detail})")
    # a WebDriver error is the server's answer: it did not do the command
    return DeviceError(
        f"{what} failed on {where}: {detail}", wire="error_answer" if isinstance(exc, se.WebDriverException) else None
    )


@contextmanager
def translating(what: str, where: str, *, creating: bool = False) -> Iterator[None]:
    """Runs the block, turning every foreign exception into ours (ours pass through)."""
    try:
        yield
    except TrailblazeError:
        raise
    except Exception as exc:
        raise translate(exc, what, where, creating=creating) from exc
