"""One pass over a run's trails feeding several writers at once (JUnit, Allure, CTRF after a replay).

Each writer takes an iterable of trails and runs on a thread of its own, fed through a short queue:
run.json is read and validated once, and at most a few trails per writer are held at a time, as when
each writer read the file itself.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar

__all__ = ["Outcome", "fan_out"]

T = TypeVar("T")
R = TypeVar("R")

_DEPTH = 4
"""Trails queued per writer: enough to keep a writer busy while the next trail is read."""
_DONE = object()


class Outcome(Generic[R]):
    """What one writer returned, or the exception it raised."""

    def __init__(self) -> None:
        self.value: R | None = None
        self.error: BaseException | None = None


def fan_out(items: Iterable[T], writers: Sequence[Callable[[Iterable[T]], R]]) -> list[Outcome[R]]:
    """Feeds one pass over `items` to every writer, each on its own thread; their outcomes, in order.

    A writer that fails or stops early does not stop the others. An error while reading `items` is
    raised once every writer has ended.
    """
    feeds: list[queue.Queue[object]] = [queue.Queue(maxsize=_DEPTH) for _ in writers]
    outcomes: list[Outcome[R]] = [Outcome() for _ in writers]
    threads = [
        threading.Thread(target=_run, args=(w, f, o), name=f"trailblaze-writer-{n}", daemon=True)
        for n, (w, f, o) in enumerate(zip(writers, feeds, outcomes, strict=True))
    ]
    for thread in threads:
        thread.start()
    try:
        for item in items:
            for feed in feeds:
                feed.put(item)
    finally:
        for feed in feeds:
            feed.put(_DONE)
        for thread in threads:
            thread.join()
    return outcomes


def _run(writer: Callable[[Iterable[T]], R], feed: queue.Queue[object], outcome: Outcome[R]) -> None:
    ended = False

    def items() -> Iterator[T]:
        nonlocal ended
        while (item := feed.get()) is not _DONE:
            yield item  # type: ignore[misc]  # what the reader put: a T
        ended = True

    try:
        outcome.value = writer(items())
    except BaseException as exc:  # handed to the caller, which raises it on its own thread
        outcome.error = exc
    finally:
        while not ended and feed.get() is not _DONE:  # the reader never waits on a writer that left
            pass
