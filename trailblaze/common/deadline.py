"""The wall-clock budget of the trail running now (docs/adr/0070-trail-budget.md).

Replay gives every trail one (`--trail-timeout`, 30 min by default; a trail's `config.timeout` may
lower it). The step engine checks it between steps and tools, the Maestro runner between commands and
inside its loops (`repeat`, `retry`, `scrollUntilVisible`, tap repeats), and a script's own time limit
is capped by what is left of it. It is held in a context variable rather than passed down: the loops
that must see it are many calls below the engine that sets it, behind tool signatures every tool shares.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from trailblaze.errors import TrailTimedOut

__all__ = ["DEFAULT_TRAIL_TIMEOUT_S", "check", "remaining", "timed_out", "trail_budget"]

DEFAULT_TRAIL_TIMEOUT_S = 30 * 60.0


@dataclass(frozen=True)
class _Budget:
    seconds: float
    ends: float
    """`time.monotonic()` when it runs out."""
    flag: str
    """What set it, so the person knows what to raise: `--trail-timeout SECONDS` (or its pytest
    spelling), or `config.timeout` when the trail lowered it."""


_CURRENT: ContextVar[_Budget | None] = ContextVar("trailblaze_trail_budget", default=None)


@contextmanager
def trail_budget(seconds: float | None, flag: str = "--trail-timeout SECONDS") -> Iterator[None]:
    """Runs the code inside under a budget of `seconds` from now (None: no new bound). A budget already
    running that ends sooner (the trail that runs this one with `runTrail`) stays the one that counts."""
    if seconds is None:
        yield
        return
    outer = _CURRENT.get()
    budget = _Budget(seconds, time.monotonic() + seconds, flag)
    token = _CURRENT.set(outer if outer is not None and outer.ends <= budget.ends else budget)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def remaining() -> float | None:
    """Seconds left of the trail's budget (0 or less: spent); None outside a budget."""
    budget = _CURRENT.get()
    return None if budget is None else budget.ends - time.monotonic()


def check(at: str = "") -> None:
    """Raises `TrailTimedOut` once the trail's budget is spent; `at` says what the trail was doing.

    Raises:
        TrailTimedOut: the budget is spent.
    """
    left = remaining()
    if left is not None and left <= 0:
        raise timed_out(at)


def timed_out(at: str = "") -> TrailTimedOut:
    """The error of a trail whose budget ran out while it was at `at`."""
    budget = _CURRENT.get()
    spent = f"its {_shown(budget.seconds)} budget" if budget is not None else "its budget"
    where = f" at {at}" if at else ""
    fix = f"raise {budget.flag}" if budget is not None else "raise the budget"
    return TrailTimedOut(f"timed out: the trail ran past {spent}{where}; make it shorter, or {fix}", at)


def _shown(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"
