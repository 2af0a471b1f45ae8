"""Deciding when the UI has stopped changing: the device's idle signal, or noise-tolerant fingerprints.

`settle_on_idle` is the usual path: the device's own idle signal (uiautomator's `waitForIdle`, the
quiescence wait WebDriverAgent runs inside every action) and then one dump. A dump that still shows a
loading indicator is waited out on the device (`wait_gone`, one round trip) or, when the device cannot
query it, by polling with a growing pause (`backoff`).

Without an idle signal (`settle`), settling is observed from the outside: dump the hierarchy until
two consecutive dumps have the same **fingerprint**. The fingerprint keeps what a test cares about (which elements exist, their text,
state and rough position) and drops what changes without meaning anything:

- focus and cursor (`focused` is not part of it);
- clock-like text (`12:34`, `12:34:56`, `9:05 PM`) — status bars and "last updated" labels tick;
- bounds jitter: an element may move by a few pixels (4 px on Android, 2 pt on iOS);
- the current value of progress widgets (`ProgressBar` text, `ProgressIndicator` value).

A visible loading indicator (an indeterminate spinner, or text like "Loading…" / "Signing in…")
keeps the loop waiting even when two dumps agree, up to a separate bound: a spinner that sits still
between two dumps is exactly the case where "nothing changed" does not mean "done".

Timing out is not an error: the caller gets the last dump and `timed_out=True`, because a screen with
a perpetual animation is still a screen a test can act on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from trailblaze.screen.hierarchy import Hierarchy, Node

__all__ = [
    "SettleResult",
    "backoff",
    "fingerprint",
    "loading_indicator",
    "normalise_text",
    "same_screen",
    "settle",
    "settle_on_idle",
]

_CLOCK_RE = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?(?!\d)")
_PROGRESS_CLASSES = ("ProgressBar", "ProgressIndicator", "ActivityIndicator")
_SPINNER_CLASSES = ("ProgressBar", "ActivityIndicator")
_LOADING_RE = re.compile(
    r"^\s*(?:loading|please wait|signing (?:in|out)|logging (?:in|out)|connecting|saving|sending|syncing|"
    r"refreshing|updating|processing|uploading|downloading|submitting|fetching)\b",
    re.IGNORECASE,
)


def normalise_text(text: str) -> str:
    """`text` with clock-like times replaced by a placeholder."""
    if ":" not in text:
        return text
    return _CLOCK_RE.sub("<time>", text)


def _is_progress(node: Node) -> bool:
    name = node.class_name
    return any(c in name for c in _PROGRESS_CLASSES)


_Key = tuple[tuple[object, ...], tuple[float, float, float, float]]


def _node_key(node: Node) -> _Key:
    b = node.visible_bounds
    if _is_progress(node):
        text = value = ""
    else:
        text, value = normalise_text(node.text), normalise_text(node.value)
    content = (
        node.class_name,
        node.resource_id,
        text,
        normalise_text(node.label),
        node.hint,
        value,
        node.checked,
        node.selected,
        node.enabled,
        node.window,
    )
    return content, (b.left, b.top, b.right, b.bottom)


def _signature(hierarchy: Hierarchy) -> tuple[int, list[_Key]]:
    cached: tuple[int, list[_Key]] | None = hierarchy.memo.get("settle_signature")
    if cached is None:
        keys = [_node_key(n) for n in hierarchy.visible_nodes()]
        cached = (hash(tuple(k[0] for k in keys)), keys)
        hierarchy.memo["settle_signature"] = cached
    return cached


def _tolerance(hierarchy: Hierarchy) -> float:
    # A few device pixels of layout jitter (sub-pixel rounding, text measurement) on Android; on iOS
    # the same physical amount in points.
    return 4.0 if hierarchy.platform == "android" else 2.0


def fingerprint(hierarchy: Hierarchy) -> int:
    """A hash of the visible content of a dump that ignores focus, clocks and progress values.

    Geometry is not in the hash (jitter would make it flicker); `same_screen` compares it with a
    tolerance. Cached on the hierarchy, so asking twice is free.
    """
    return _signature(hierarchy)[0]


def same_screen(a: Hierarchy, b: Hierarchy) -> bool:
    """Whether two dumps show the same thing, up to noise: equal fingerprints and every element within
    a few pixels of where it was."""
    fa, ka = _signature(a)
    fb, kb = _signature(b)
    if fa != fb or len(ka) != len(kb):
        return False
    tol = _tolerance(a)
    for (_, ga), (_, gb) in zip(ka, kb, strict=True):
        if (
            abs(ga[0] - gb[0]) > tol
            or abs(ga[1] - gb[1]) > tol
            or abs(ga[2] - gb[2]) > tol
            or abs(ga[3] - gb[3]) > tol
        ):
            return False
    return True


def loading_indicator(hierarchy: Hierarchy) -> Node | None:
    """The first visible spinner or "Loading…"-style text of the app, if any."""
    for node in hierarchy.visible_nodes():
        if hierarchy.window_kind(node) == "system":
            continue
        if any(c in node.class_name for c in _SPINNER_CLASSES):
            return node
        text = node.text or node.label
        if text and len(text) < 60 and _LOADING_RE.match(text):
            return node
    return None


@dataclass
class SettleResult:
    """What one settle produced: the last dump and how it got there."""

    hierarchy: Hierarchy
    settled: bool
    """Two consecutive dumps agreed with no loading indicator visible."""
    timed_out: bool
    dumps: int
    """Dumps taken by this settle (not counting the one it started from)."""
    waited_s: float
    loading_seen: bool = False


def settle(
    dump: Callable[[], Hierarchy],
    *,
    previous: Hierarchy | None = None,
    timeout: float = 3.0,
    interval: float = 0.025,
    max_interval: float = 0.25,
    loading_timeout: float = 10.0,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> SettleResult:
    """Dumps until two consecutive fingerprints agree and no loading indicator shows.

    Args:
        dump: Takes one fresh hierarchy (one device round trip).
        previous: A dump taken after the last action, counted as the first of the pair.
        timeout: Bound on waiting for the fingerprints to agree.
        interval: First minimum spacing between the starts of two dumps (a slow dump counts towards
            it); each later spacing is half as long again, up to `max_interval`.
        max_interval: Longest spacing.
        loading_timeout: Overall bound while a loading indicator keeps showing: every dump that shows
            one extends the deadline by `timeout`, up to this many seconds after the start.
        clock: Monotonic time source (tests may pass a fake).
        sleep: How to wait between dumps.

    Returns:
        The last dump, with `settled` / `timed_out` telling how the loop ended. Never raises on
        timeout; dump errors propagate.
    """
    start = clock()
    deadline = start + timeout
    last = previous
    dumps = 0
    loading_seen = False
    spacing = backoff(interval, max_interval)
    while True:
        dump_started = clock()
        current = dump()
        dump_s = clock() - dump_started
        dumps += 1
        busy = loading_indicator(current) is not None
        loading_seen = loading_seen or busy
        if last is not None and not busy and same_screen(current, last):
            return SettleResult(current, True, False, dumps, clock() - start, loading_seen)
        now = clock()
        if busy:  # each sighting of a spinner buys another `timeout`, up to `loading_timeout` in all
            deadline = max(deadline, min(now + timeout, start + loading_timeout))
        if now >= deadline:
            return SettleResult(current, False, True, dumps, clock() - start, loading_seen)
        last = current
        # The dump's own latency already spaced the two samples apart; only wait for the remainder.
        gap = next(spacing)
        if gap > dump_s:
            sleep(gap - dump_s)


def backoff(first: float, longest: float, factor: float = 1.5) -> Iterator[float]:
    """Pauses for polling a condition: `first`, then half as long again each time, up to `longest`."""
    pause = first
    while True:
        yield pause
        pause = min(pause * factor, max(first, longest))


def settle_on_idle(
    wait_idle: Callable[[float], bool | None],
    dump: Callable[[], Hierarchy],
    *,
    wait_gone: Callable[[Node, float], bool],
    timeout: float = 3.0,
    loading_timeout: float = 10.0,
    interval: float = 0.025,
    max_interval: float = 0.25,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> SettleResult | None:
    """The device's idle signal, then one dump; a loading indicator in it is waited out.

    Args:
        wait_idle: The device's idle wait with a bound in seconds: True idle, False at the bound,
            None when the device has no idle signal (then this returns None before dumping).
        dump: Takes one fresh hierarchy.
        wait_gone: Waits on the device until a node is gone (False when the device cannot query it
            or it stayed past the bound).
        timeout: Bound on one idle wait.
        loading_timeout: Overall bound while a loading indicator keeps showing (never less than
            `timeout`, as in `settle`).
        interval: First pause between dumps when a loading indicator cannot be waited out on the
            device; it grows to `max_interval`.
        max_interval: Longest such pause.
        clock: Monotonic time source.
        sleep: How to pause.

    Returns:
        The last dump: `settled` when the device reported idle and no loading indicator shows,
        `timed_out` when the idle wait or the loading bound ran out. None without an idle signal.
    """
    start = clock()
    end = start + max(timeout, loading_timeout)
    dumps = 0
    loading_seen = False
    pauses = backoff(interval, max_interval)
    while True:
        idle = wait_idle(timeout)
        if idle is None:
            return None
        current = dump()
        dumps += 1
        busy = loading_indicator(current)
        if busy is None:
            return SettleResult(current, idle, not idle, dumps, clock() - start, loading_seen)
        loading_seen = True
        left = end - clock()
        if left <= 0:
            return SettleResult(current, False, True, dumps, clock() - start, loading_seen)
        if not wait_gone(busy, left):
            sleep(min(next(pauses), max(0.0, end - clock())))
