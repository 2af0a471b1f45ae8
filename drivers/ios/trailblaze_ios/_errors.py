"""Translation of facebook-wda / requests exceptions into `trailblaze.errors.DeviceError` (or
`ActionRefused` when the app's state, not the device, is the cause).

The foreign libraries are imported inside the function so the plugin stays cheap to import.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from trailblaze.errors import ActionRefused, DeviceError, TrailblazeError

__all__ = ["translate", "translating"]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    line = text.splitlines()[0]
    return line if len(line) <= 200 else line[:197] + "..."


def translate(exc: BaseException, what: str, url: str) -> DeviceError | ActionRefused:
    """The error that tells a user what failed while doing `what` against `url`, and how to fix it,
    with how the request failed on the wire (`DeviceError.wire`) where that is known."""
    import requests
    import wda.exceptions as we
    from wda.usbmux.exceptions import HTTPError as MuxHTTPError

    detail = _first_line(exc)
    # facebook-wda's own transport wraps the socket's error (its context) in usbmux's HTTPError
    cause = exc.__context__ if isinstance(exc, MuxHTTPError) else exc
    if isinstance(cause, requests.Timeout | TimeoutError):
        return DeviceError(
            f"{what} timed out: WebDriverAgent at {url} did not answer; restart it and retry", wire="no_answer"
        )
    refused = isinstance(cause, ConnectionRefusedError | we.MuxConnectError)
    if refused or isinstance(cause, requests.ConnectionError):
        return DeviceError(
            f"{what} failed: no WebDriverAgent at {url}: start WebDriverAgent on the device "
            "(and forward its port), or a simulator with `trailblaze sim ios`",
            wire="refused" if refused else None,
        )
    if isinstance(cause, ConnectionError):  # reset, or closed before the answer: the request went out
        return DeviceError(
            f"{what} failed: WebDriverAgent at {url} dropped the connection before answering; "
            "check it is still running and retry",
            wire="no_answer",
        )
    if isinstance(exc, we.WDAKeyboardNotPresentError) or "keyboard must be present" in detail:
        # nothing is focused: the trail (or the agent) must tap a field first; the device is fine
        return ActionRefused(f"{what} failed: nothing focused (no on-screen keyboard); tap a text field first")
    if isinstance(exc, we.WDARequestError):
        message = ""
        value = getattr(exc, "value", None)
        if isinstance(value, dict):
            message = str(value.get("message") or value.get("error") or "")
        message = (message or detail).splitlines()[0][:200]
        return DeviceError(
            f"{what} failed: WebDriverAgent at {url} answered {message!r}; retry, or restart WebDriverAgent",
            wire="error_answer",
        )
    if isinstance(exc, we.WDAError | MuxHTTPError | requests.RequestException | OSError | ValueError):
        return DeviceError(
            f"{what} failed: bad answer from WebDriverAgent at {url} ({type(exc).__name__}: {detail}); "
            "restart WebDriverAgent and retry"
        )
    return DeviceError(f"{what} failed on {url}: {type(exc).__name__}: {detail}")


@contextmanager
def translating(what: str, url: str) -> Iterator[None]:
    """Runs the block, turning every foreign exception into a `DeviceError` (ours pass through)."""
    try:
        yield
    except TrailblazeError:
        raise
    except Exception as exc:
        raise translate(exc, what, url) from exc
