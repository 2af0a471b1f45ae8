"""Translation of uiautomator2 / adbutils / requests exceptions into `trailblaze.errors.DeviceError`.

Imports of the foreign libraries happen inside the function: the plugin module stays importable (and
cheap) without touching uiautomator2 until a device is opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from trailblaze.errors import DeviceError, TrailblazeError, WireFault

__all__ = ["adb_server_hint", "translate", "translating"]


def adb_server_hint(host: str, port: int) -> str:
    return (
        f"no adb server at {host}:{port}: start one with `adb start-server`, "
        "or use the simulated phone: --device sim:android"
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    line = text.splitlines()[0]
    return line if len(line) <= 200 else line[:197] + "..."


def translate(exc: BaseException, what: str, serial: str, host: str, port: int) -> DeviceError:
    """The `DeviceError` that tells a user what failed while doing `what`, and how to fix it, with how
    the request failed on the wire (`DeviceError.wire`) where that is known."""
    import adbutils.errors as adbutils
    import requests
    import uiautomator2.exceptions as u2e

    where = f"android device {serial}" if serial else f"adb server {host}:{port}"
    detail = _first_line(exc)
    if isinstance(exc, adbutils.AdbConnectionError) or (
        isinstance(exc, ConnectionRefusedError) and not serial
    ):
        return DeviceError(adb_server_hint(host, port), wire="refused")
    if isinstance(exc, adbutils.AdbTimeout | TimeoutError | u2e.HTTPTimeoutError):
        return DeviceError(
            f"{what} timed out on {where}: the device is busy or gone; check `adb devices`", wire="no_answer"
        )
    if isinstance(exc, adbutils.AdbError):
        if "not found" in detail or "offline" in detail:
            return DeviceError(
                f"{what} failed: {where} is not connected ({detail}); check `adb -P {port} devices`",
                wire="refused",
            )
        return DeviceError(f"{what} failed on {where}: adb said {detail!r}; check `adb -P {port} devices`")
    if isinstance(exc, u2e.HierarchyEmptyError):
        return DeviceError(
            f"{what} failed on {where}: the hierarchy dump was empty; retry, or restart the app", wire="error_answer"
        )
    if isinstance(exc, u2e.RPCError):
        return DeviceError(
            f"{what} failed on {where}: uiautomator2 server error {detail!r}; retry, or restart it with "
            "`python -m uiautomator2 init`",
            wire="error_answer",
        )
    if isinstance(exc, u2e.BaseException | requests.RequestException | OSError):
        # uiautomator2 raises its HTTPError only after restarting its server and sending the call
        # again (core.BasicUiautomatorServer.jsonrpc_call), so how the first one fared is not known.
        wire: WireFault | None = (
            "refused" if isinstance(exc, ConnectionRefusedError)
            else None if isinstance(exc, u2e.HTTPError)
            else "no_answer"
        )  # fmt: skip
        return DeviceError(
            f"{what} failed on {where}: lost the connection to the uiautomator2 server "
            f"({type(exc).__name__}: {detail}); check `adb -P {port} devices` and retry",
            wire=wire,
        )
    return DeviceError(f"{what} failed on {where}: {type(exc).__name__}: {detail}")


@contextmanager
def translating(what: str, serial: str, host: str, port: int) -> Iterator[None]:
    """Runs the block, turning every foreign exception into a `DeviceError` (ours pass through)."""
    try:
        yield
    except TrailblazeError:
        raise
    except Exception as exc:
        raise translate(exc, what, serial, host, port) from exc
