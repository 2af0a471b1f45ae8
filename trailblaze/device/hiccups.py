"""Transient device faults: which requests the session sends again, and what it does when an action
fails (ADR 0057).

Real devices hiccup: WebDriverAgent answers an occasional 500 or times out on `/source`, the
uiautomator2 server restarts, an adb forward hangs. `DeviceSession` runs every device request through
this module.

**Reads** — a hierarchy dump, a screenshot, an element query, the idle wait, the foreground app, the
window size and device info — change nothing on the device, so a read that fails with a `DeviceError`
is sent again after a pause that doubles (`Backoff`: 0.25, 0.5, 1, 2, 4 s; under 8 s in all). A read
that still fails raises its last error and the device counts as gone: later reads get one try each
until one succeeds, so a device that is really gone ends a run in seconds (exit 3), not a backoff per
request. A lost remote session (`SessionLost`) and a missing app are not faults a retry mends.

**Actions** — a tap, typing, a key, a launch — are never sent again blindly: an action whose answer
was lost may well have happened, and a second tap or a second "hunter2" is a different test. When
one fails, the session looks at the screen again (a settle, its reads retried) and `judge` decides
from what the wire said (`DeviceError.wire`) and what the screen shows:

- the driver failed before it sent the action itself (a read, setting the clipboard to paste
  from): the action is sent again (at most `Backoff.retries` times);
- the device said it did nothing (it answered with an error, or nothing took the connection) and
  the screen has not moved on: the action is sent again;
- the device said it did nothing but the screen moved on: part of it may have happened (an action
  of several requests stopped half-way), so the step fails (exit 3);
- no answer came (a dropped connection, a timeout) and the screen moved on from the one the action
  started from: the action happened and only its answer was lost; the step goes on;
- no answer came and the screen did not move on, or the screen before is not known: it may or may
  not have happened, so the step fails as infrastructure (exit 3), saying so — never a guess.

An action may bring its own check (`took_effect`; a launch: its app is in the foreground), which then
decides instead of the screen when no answer came: done, the step goes on; not done, it is sent
again. Such an action is one that may be sent again whole: when the device refused one of its
requests, it is, whatever the screen shows (a launch that stopped the app and failed to start it).

Every fault survived counts as one hiccup (`count`), which the run reports per trail.

The client libraries retry below this module, and that is left as it is: uiautomator2 (3.7) sends a
JSON-RPC call — an action too — once more after restarting its server when the HTTP status is not
200 or the adb connection to the server cannot be opened (and on "UiAutomation not connected"); a
connection dropped before the answer, or a timeout, it raises. It also dumps again, twice, 1 s apart,
on an empty dump. facebook-wda (1.5) retries `activeAppInfo` on `unknown error` and `status` on an
empty answer; its `Session.tap` sends any failed tap again on the legacy route, which is why the iOS
driver posts `/wda/tap` itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeVar

from trailblaze.device.settle import same_screen
from trailblaze.errors import AppNotInstalledError, BadAnswer, DeviceError, SessionLost

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Hierarchy, Node

__all__ = ["Backoff", "Hiccups", "Verdict", "judge", "moved_on", "retryable", "unresolved"]

_T = TypeVar("_T")

Verdict = Literal["happened", "send_again", "unknown", "partly"]


@dataclass(frozen=True)
class Backoff:
    """Pauses before the sends after the first: `first_s`, doubling up to `max_s`, `retries` of them."""

    first_s: float = 0.25
    max_s: float = 4.0
    retries: int = 5

    def delays(self) -> Iterator[float]:
        delay = self.first_s
        for _ in range(self.retries):
            yield delay
            delay = min(delay * 2, self.max_s)


def retryable(exc: BaseException) -> bool:
    """Whether sending the request again may help: a device fault, but not a lost remote session (the
    next trail opens a new one), an app that is not installed, nor an answer no one can use."""
    return isinstance(exc, DeviceError) and not isinstance(exc, SessionLost | AppNotInstalledError | BadAnswer)


class Hiccups:
    """One session's retries: the backoff, whether the device is gone, and `noted` told of every fault
    survived (a read sent again, an action judged done or sent again).

    Thread-safe: the run directory takes screenshots from a thread of its own.
    """

    def __init__(
        self,
        backoff: Backoff | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        noted: Callable[[], None] = lambda: None,
    ) -> None:
        self.backoff = backoff or Backoff()
        self.note = noted
        self._sleep = sleep
        self._lock = threading.Lock()
        self._gone = False

    def read(self, call: Callable[[], _T], *, proves_alive: bool = True) -> _T:
        """`call()` (a read), sent again on a device fault after each pause of the backoff.

        `proves_alive=False`: the call may answer without asking the device (WebDriverAgent's idle
        wait happens inside its actions), so its success does not bring a gone device back.
        """
        with self._lock:
            delays = iter(()) if self._gone else self.backoff.delays()
        tries, started = 0, time.monotonic()
        while True:
            tries += 1
            try:
                result = call()
            except DeviceError as exc:
                delay = next(delays, None) if retryable(exc) else None
                if delay is None:
                    if not retryable(exc):
                        raise
                    with self._lock:
                        self._gone = True  # the next reads do not wait for a device that left
                    if tries == 1:
                        raise
                    took = time.monotonic() - started
                    raise DeviceError(f"{exc.message} (tried {tries} times over {took:.0f} s)", wire=exc.wire) from exc
                self.note()
                self._sleep(delay)
                continue
            if proves_alive:
                with self._lock:
                    self._gone = False
            return result

    def connect(self, call: Callable[[], _T]) -> _T:
        """`call()` (opening a device), sent again only when a device was there and hiccuped (no whole
        answer, or an error answer): a closed port or a serial adb does not list fails at once, as
        the user's mistake it usually is."""
        delays = self.backoff.delays()
        while True:
            try:
                return call()
            except DeviceError as exc:
                delay = next(delays, None) if exc.wire in ("no_answer", "error_answer") else None
                if delay is None or not retryable(exc):
                    raise
                self.note()
                self._sleep(delay)

    def pause(self, attempt: int) -> None:
        """Waits before sending an action again for the `attempt`th time (1-based)."""
        delays = list(self.backoff.delays())
        self._sleep(delays[min(attempt, len(delays)) - 1] if delays else 0.0)


def judge(exc: DeviceError, moved: bool | None, took_effect: bool | None = None) -> Verdict:
    """What to do about an action that failed with `exc`.

    Args:
        exc: The action's fault.
        moved: Whether the screen moved on from the one the action started from (`moved_on`); None
            when that screen is not known.
        took_effect: The action's own check, when it has one (a launch: its app is in the
            foreground). It decides when no answer came; an action that brings one may also be sent
            again whole after an earlier request of it went through (a launch stops the app first).
    """
    if exc.wire == "not_sent":  # the driver never sent the action: whatever moved, it was not that
        return "send_again"
    if exc.wire in ("refused", "error_answer"):  # the device did nothing for this request...
        if took_effect is not None:  # ...and the action says sending all of it again is safe
            return "send_again"
        return "partly" if moved else "send_again"  # ...but an earlier request of the call may have
    if took_effect is not None:
        return "happened" if took_effect else "send_again"
    return "happened" if moved else "unknown"


def unresolved(exc: DeviceError, verdict: Verdict, moved: bool | None) -> DeviceError:
    """The one-line error that fails a step whose action could not be settled either way."""
    if verdict == "partly":
        why = "the device said it failed, but the screen changed, so part of it may have happened"
    elif moved is None:
        why = "no answer came and the screen before it is not known, so it may or may not have happened"
    else:
        why = "no answer came and the screen did not change, so it may or may not have happened"
    return DeviceError(f"{exc.message} — not sent again: {why}; rerun the trail", wire=exc.wire)


def moved_on(start: Hierarchy | None, baseline: Hierarchy | None, look: Hierarchy) -> bool | None:
    """Whether `look` shows a screen other than the one an action started from.

    `start` is that screen when the session had it (compared as settling compares, plus focus, which
    a tap into a field changes); else `baseline`, the dump before a tap into a text field that came
    between, compared on the app's text fields and what they hold (outside the keyboard). None:
    neither is known.
    """
    if start is not None:
        return not same_screen(start, look) or _focus(start) != _focus(look)
    if baseline is not None:
        return _fields(baseline) != _fields(look)
    return None


def _focus(hierarchy: Hierarchy) -> list[tuple[str, str, str, str]]:
    return [(n.class_name, n.resource_id, n.label, n.hint) for n in hierarchy.nodes if n.focused]


def _fields(hierarchy: Hierarchy) -> list[tuple[str, ...]]:
    # the text fields and what they hold: what typing changes, and what a field tap (which may also
    # open a list of suggestions) does not
    return [
        (n.class_name, n.resource_id, n.label, n.hint, n.text, n.value)
        for n in hierarchy.nodes
        if n.editable and hierarchy.window_kind(n) == "app" and not _in_keyboard(n)
    ]


def _in_keyboard(node: Node) -> bool:
    # iOS draws the keyboard inside the app's own tree; Android gives it a window of its own (`ime`)
    at: Node | None = node
    while at is not None:
        if at.class_name.endswith("Keyboard"):
            return True
        at = at.parent
    return False
