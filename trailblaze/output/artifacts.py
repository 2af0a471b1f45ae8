"""Run-directory artifacts off the critical path: which screenshots to keep, their formats, and the
background worker that takes and writes them (docs/adr/0024-artifacts-off-the-critical-path.md).

- `ScreenshotMode`: `steps` (a picture after every step, and before the first), `failures` (only a
  failing step's), `off` (none). Hierarchy dumps are kept in every mode: the replay has them anyway.
- Screenshots are stored as the device sends them (`image_ext` names the file by its bytes): a JPEG
  from uiautomator2 is not decoded and re-encoded as PNG. Only a picture that shows a secret is
  decoded, blacked out there and encoded again, in its own format (`trailblaze.screen.mask`).
- `Background` runs capture and write jobs one after another on one thread, so the replay does not
  wait for a screenshot round trip or a file write; the session's `before_action` hook makes the next
  device action wait for a screenshot still in flight, so the picture never shows the next screen.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Literal, TypeVar

__all__ = [
    "SCREENSHOT_MODES",
    "Background",
    "ScreenshotMode",
    "screenshot_mode",
]

ScreenshotMode = Literal["steps", "failures", "off"]
SCREENSHOT_MODES: tuple[ScreenshotMode, ...] = ("steps", "failures", "off")

_T = TypeVar("_T")


def screenshot_mode(value: str, where: str) -> ScreenshotMode:
    """`value` as a screenshot mode, or a `UsageError` naming `where` it came from."""
    if value not in SCREENSHOT_MODES:
        from trailblaze.errors import UsageError

        raise UsageError(f"{where} = {value!r}: use one of {', '.join(SCREENSHOT_MODES)}")
    return value


class Background:
    """Jobs run in order on one worker thread, started on first use; `wait()` drains them.

    A job's exception is kept in its future; `wait()` does not raise it (an artifact that could not
    be written must not fail the run).
    """

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._last: Future[Any] | None = None
        self._lock = threading.Lock()

    def submit(self, job: Callable[[], _T]) -> Future[_T]:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trailblaze-artifacts")
            future = self._pool.submit(job)
            self._last = future
            return future

    @property
    def last(self) -> Future[Any] | None:
        """The job submitted last (None: none yet); jobs run in order, so when it is done all are."""
        return self._last

    def wait(self) -> None:
        """Returns when every job submitted so far has finished."""
        last = self._last
        if last is not None:
            last.exception()  # waits; the outcome is the job's business

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
