"""A `Driver` plus the settle / cache discipline every tool goes through.

Every content-changing action goes through `DeviceSession.act()`, which runs it and then settles
(Trailblaze's `dispatchAndAwaitSettle`: adding a gesture without the settle wait is impossible by
construction). The settle's last dump is kept: the next `screen()` or `resolve()` reads it instead of
asking the device again, until the next action invalidates it. `SessionStats` counts the device round
trips the session makes, which is what `benchmarks/p2_round_trips.py` reports.

A device fault on a read is retried and one on an action is judged, never blindly repeated, as
`trailblaze.device.hiccups` says; `SessionStats.hiccups` counts the faults survived.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from trailblaze.device.driver import (
    SupportsCallsFromAnyThread,
    SupportsConcurrentRequests,
    SupportsElementWait,
    SupportsIdle,
)
from trailblaze.device.hiccups import Hiccups, judge, moved_on, retryable, unresolved
from trailblaze.device.logs import AppLogs
from trailblaze.device.query import element_query, query_for_node
from trailblaze.device.settle import SettleResult, backoff, loading_indicator, settle, settle_on_idle
from trailblaze.errors import DeviceError
from trailblaze.screen.occlusion import covers
from trailblaze.screen.resolve import resolve as resolve_selector

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor
    from pathlib import Path
    from types import TracebackType

    from trailblaze.device.driver import DeviceInfo, Driver
    from trailblaze.device.simulator import RunningSimulator
    from trailblaze.screen.hierarchy import Hierarchy, Node
    from trailblaze.screen.selector import NodeSelector

__all__ = ["DeviceSession", "Resolution", "SessionStats"]

_T = TypeVar("_T")


@dataclass
class SessionStats:
    """Device round trips made through a session."""

    dumps: int = 0
    """Hierarchy round trips."""
    actions: int = 0
    """Gesture / key / text / app round trips (one per `act()`)."""
    screenshots: int = 0
    screenshots_with_dump: int = 0
    """Of `screenshots`, those taken alongside a settled dump (two requests in flight at once)."""
    settles: int = 0
    settle_timeouts: int = 0
    settle_s: float = 0.0
    idle_waits: int = 0
    """Idle-signal round trips (`waitForIdle`; free on iOS, where WDA waits inside the action)."""
    element_waits: int = 0
    """Waits on the device's own element query instead of polling dumps."""
    device_s: float = 0.0
    """Wall time spent inside driver calls (device + client + transport)."""
    hiccups: int = 0
    """Device faults survived: reads sent again, failed actions judged done or sent again."""
    scrolls_into_view: int = 0
    """Element lookups whose target was off screen and was scrolled into view
    (`trailblaze.tools.scroll_into_view`)."""

    @property
    def round_trips(self) -> int:
        return self.dumps + self.actions + self.screenshots

    def copy(self) -> SessionStats:
        return SessionStats(**{k: getattr(self, k) for k in self.__dataclass_fields__})


@dataclass
class Resolution:
    """The outcome of polling a selector."""

    nodes: list[Node]
    """Matches on the last dump polled, top-to-bottom then left-to-right."""
    hierarchy: Hierarchy
    """That dump."""
    waited_s: float


@dataclass
class _Cache:
    hierarchy: Hierarchy | None = None
    fresh: bool = False
    """No action happened since `hierarchy` was dumped."""
    settled: bool = False
    """`hierarchy` ended a settle (or agrees with the dump before it)."""
    pending: bool = False
    """An action settled on the device's idle signal and nobody has looked since: the next look
    finishes that settle (its one dump)."""
    last_settle: SettleResult | None = field(default=None)
    baseline: Hierarchy | None = None
    """The last dump whose content the screen still shows: kept through an action that only moves
    focus (a tap into a field), so a fault on the typing after it can be judged."""


class DeviceSession:
    """A connected device with settle-after-action and a one-dump cache.

    Args:
        driver: The connected driver (the session closes it).
        settle_timeout: Bound on one settle, in seconds (a timeout is recorded, not raised).
        poll_interval: First pause between dumps while settling without an idle signal or polling a
            selector the device cannot query; later pauses grow by half up to `max_poll_interval`.
        resolve_timeout: Default bound for `resolve()` polling.
        loading_timeout: Bound on settling while a loading indicator shows.
        simulator: The simulator the device runs on, which the session owns: stopped after the
            driver closes.
        clock: The monotonic time settling is bounded in (`time.monotonic`); a test shares a
            simulated device's clock here so the bounds run on device time.
        sleep: How settling pauses between dumps (`time.sleep`); with a test's clock, its `advance`.
        scroll_into_view: Whether element lookups may scroll an off-screen target into view
            (`trailblaze.tools.scroll_into_view`); a saved screen cannot scroll.
    """

    def __init__(
        self,
        driver: Driver,
        *,
        settle_timeout: float = 3.0,
        poll_interval: float = 0.025,
        max_poll_interval: float = 0.25,
        resolve_timeout: float = 5.0,
        loading_timeout: float = 10.0,
        simulator: RunningSimulator | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        scroll_into_view: bool = True,
    ) -> None:
        self.driver = driver
        self.scroll_into_view = scroll_into_view
        self._clock = clock
        self._sleep = sleep
        self.settle_timeout = settle_timeout
        self.poll_interval = poll_interval
        self.max_poll_interval = max(poll_interval, max_poll_interval)
        self.resolve_timeout = resolve_timeout
        self.loading_timeout = loading_timeout
        self.stats = SessionStats()
        self._cache = _Cache()
        self._simulator = simulator
        self._closed = False
        self._trail_end: dict[str, Callable[[], None]] = {}
        self._shot_lock = threading.Lock()
        self._shot: tuple[Hierarchy, int, bytes] | None = None
        self.before_action: Callable[[], None] | None = None
        """Called before every device action: the run directory waits there for a screenshot it is
        taking in the background, so the picture shows the screen before the action."""
        self.screenshot_with_dump = False
        """Take a screenshot alongside the dump that ends a settle (or an element wait, or a first look
        at a screen), on a device that serves two requests at once (`SupportsConcurrentRequests`):
        the run directory's `steps` pictures and the agent's picture for the model then cost
        max(dump, screenshot), not the sum. The picture is requested after the idle wait, together
        with the dump, so it shows the settled screen the dump shows; `screenshot()` hands it out
        while no action happened since. Polling dumps never take one. On a device that queues
        requests (WebDriverAgent) this does nothing: the two would only run one after the other."""
        self._shooter: ThreadPoolExecutor | None = None
        self._stats_lock = threading.Lock()
        self.hiccups = Hiccups(sleep=sleep, noted=self._hiccup)
        self.app_logs = AppLogs(driver)
        self.files_dir: Path | None = None
        """Where the running trail's files go (its folder in the run directory, set by the run
        directory at each step): a tool that writes a file the flow names (`takeScreenshot`) writes
        it there; None: the working directory."""
        self.info: DeviceInfo = self._read(lambda: driver.info)
        if isinstance(driver, SupportsIdle):
            # Tells a device whose actions wait for idle themselves (WDA) the bound to use.
            self._idle(settle_timeout)

    def __repr__(self) -> str:
        return f"<DeviceSession {self.info.classifier} {self.info.serial}>"

    # --- observation -----------------------------------------------------------------------------
    def screen(self) -> Hierarchy:
        """The cached dump if no action happened since it was taken, else a fresh one (the settled
        dump of an action whose observation was deferred)."""
        if self._cache.pending:
            return self._settle(None)
        cached = self.cached_screen()
        return cached if cached is not None else self._refresh(shoot=True)

    def cached_screen(self) -> Hierarchy | None:
        """The cached dump if no action happened since it was taken, else None (never a round trip)."""
        cache = self._cache
        return cache.hierarchy if cache.fresh else None

    def refresh(self) -> Hierarchy:
        """A fresh dump (one round trip); it becomes the cached one."""
        return self._refresh(shoot=False)

    def _refresh(self, *, shoot: bool) -> Hierarchy:
        hierarchy = self._dump(shoot=shoot)
        cache = self._cache
        cache.pending = False
        cache.settled = (
            cache.fresh and cache.hierarchy is not None and _same(cache.hierarchy, hierarchy)
        )
        cache.hierarchy, cache.fresh, cache.baseline = hierarchy, True, hierarchy
        return hierarchy

    def screenshot(self) -> bytes:
        """The current screen as the device's image bytes (JPEG or PNG, as the driver hands them over).

        While no action happened since the cached settled dump, the screen is the one already
        photographed, so a second call (the report's picture, then the model's) costs no round trip.
        Safe to call from the run directory's background thread.
        """
        with self._shot_lock:
            cache = self._cache
            shot = self._shot
            if shot is not None and cache.fresh and shot[0] is cache.hierarchy and shot[1] == self.stats.actions:
                return shot[2]
            key, actions = (cache.hierarchy if cache.fresh else None), self.stats.actions
            self.stats.screenshots += 1
            data = self._read(self.driver.screenshot)
            self._shot = (key, actions, data) if key is not None else None
            return data

    @property
    def calls_from_any_thread(self) -> bool:
        """Whether `screenshot` may be called from a thread of the caller's own (the run directory's)."""
        driver = self.driver
        return not isinstance(driver, SupportsCallsFromAnyThread) or driver.calls_from_any_thread()

    def current_app(self) -> str | None:
        """The foreground app's id (None: the home screen), read from the device (retried on a fault)."""
        return self._read(self.driver.current_app)

    @property
    def last_settle(self) -> SettleResult | None:
        """How the most recent settle ended (`timed_out`, dumps, time)."""
        return self._cache.last_settle

    # --- actions -----------------------------------------------------------------------------------
    def act(
        self,
        action: Callable[[Driver], Any],
        *,
        settle: bool = True,
        observe: bool = True,
        focus_only: bool = False,
        took_effect: Callable[[], bool] | None = None,
    ) -> Hierarchy | None:
        """Runs one device action, then (by default) settles and caches the settled dump.

        With `observe=False` (typing, focusing a field: actions whose tool does not look at the
        result) and a device with an idle signal, the settle waits for idle now and takes its dump
        only when the next tool looks (`screen()`, `resolve()`, `settle()`): a tap into a field
        followed by typing costs no dump in between. `focus_only` says the action moves only focus
        (a tap into a text field), so what the app shows is still the last dump's.

        An action that fails with a device fault is judged, never blindly sent again
        (`trailblaze.device.hiccups`): `took_effect`, when given, tells from the device whether it
        happened (a launch: its app is in the foreground); otherwise the screen does.

        Returns:
            The settled hierarchy, or None with `settle=False` or a deferred observation.

        Raises:
            DeviceError: The action failed and whether it happened cannot be told (exit 3).
        """
        cache = self._cache
        # A settled screen before the action is the first sample of the next settle: when the action
        # leaves the UI as it was (an already-selected tab, an assertion-like tap), one dump proves the
        # screen is still settled, so a step costs one action + one dump (P2).
        before = cache.hierarchy if (cache.fresh and cache.settled) else None
        start = cache.hierarchy if cache.fresh else None
        baseline = cache.baseline
        if self.before_action is not None:
            self.before_action()
        cache.fresh = False
        cache.settled = False
        if not focus_only:
            cache.baseline = None
        self.stats.actions += 1
        cache.pending = False
        try:
            self._timed(lambda: action(self.driver))
        except DeviceError as exc:
            if not retryable(exc):
                raise
            look = self._after_fault(exc, action, start, baseline, took_effect, focus_only=focus_only)
            if look is not None:  # it happened; that look is the settled screen after it
                return look
            before = None  # sent again: settle as after any action
        if not settle:
            return None
        if not observe and self._idle(self.settle_timeout) is not None:
            cache.pending = True
            return None
        return self._settle(before)

    def _after_fault(
        self,
        exc: DeviceError,
        action: Callable[[Driver], Any],
        start: Hierarchy | None,
        baseline: Hierarchy | None,
        took_effect: Callable[[], bool] | None,
        *,
        focus_only: bool,
    ) -> Hierarchy | None:
        """Settles an action that failed with `exc`: the settled screen when it happened, None once it
        was sent again and went through; raises when neither can be told."""
        for attempt in range(1, self.hiccups.backoff.retries + 1):
            look = self._settle(None)
            moved = moved_on(start, baseline, look)
            verdict = judge(exc, moved, took_effect() if took_effect is not None else None)
            if verdict == "happened":
                self.hiccups.note()
                return look
            if verdict != "send_again":
                raise unresolved(exc, verdict, moved) from exc
            self.hiccups.note()
            self.hiccups.pause(attempt)
            start, baseline = look, look  # what the next send starts from
            self._cache.fresh = self._cache.settled = False
            self._cache.baseline = look if focus_only else None
            self.stats.actions += 1
            try:
                self._timed(lambda: action(self.driver))
                return None
            except DeviceError as again:
                if not retryable(again):
                    raise
                exc = again
        raise DeviceError(f"{exc.message} (sent {self.hiccups.backoff.retries + 1} times)", wire=exc.wire) from exc

    def invalidate(self) -> None:
        """Forgets the cached dump (e.g. after waiting on purpose: the screen may have moved on)."""
        self._cache.fresh = False
        self._cache.settled = False

    def settle(self) -> Hierarchy:
        """Waits until two consecutive dumps agree (see `trailblaze.device.settle`) and caches the last one.

        A dump already taken since the last action counts as the first of the pair, so settling an
        unchanged UI again costs one dump; a settled cache costs nothing.
        """
        cache = self._cache
        if cache.pending:
            return self._settle(None)
        if cache.fresh and cache.settled and cache.hierarchy is not None:
            return cache.hierarchy
        return self._settle(cache.hierarchy if cache.fresh else None)

    def _settle(self, previous: Hierarchy | None) -> Hierarchy:
        cache = self._cache
        result: SettleResult | None = None
        if isinstance(self.driver, SupportsIdle):
            # The device's idle signal plus one dump; a loading indicator is waited out on the device.
            result = settle_on_idle(
                self._idle,
                functools.partial(self._dump, shoot=True),  # after the idle wait: the settled screen
                wait_gone=self._wait_node_gone,
                timeout=self.settle_timeout,
                loading_timeout=self.loading_timeout,
                interval=self.poll_interval,
                max_interval=self.max_poll_interval,
                clock=self._clock,
                sleep=self._sleep,
            )
        if result is None:  # no idle signal on this device: two consecutive dumps must agree
            result = settle(
                self._dump,
                previous=previous,
                timeout=self.settle_timeout,
                interval=self.poll_interval,
                max_interval=self.max_poll_interval,
                loading_timeout=self.loading_timeout,
                clock=self._clock,
                sleep=self._sleep,
            )
        self.stats.settles += 1
        self.stats.settle_s += result.waited_s
        if result.timed_out:
            self.stats.settle_timeouts += 1
        cache.hierarchy, cache.fresh, cache.settled = result.hierarchy, True, result.settled
        cache.baseline = result.hierarchy
        cache.pending = False
        cache.last_settle = result
        return result.hierarchy

    def _idle(self, timeout: float) -> bool | None:
        driver = self.driver
        if not isinstance(driver, SupportsIdle):
            return None
        self.stats.idle_waits += 1
        return self._read(lambda: driver.wait_for_idle(timeout), proves_alive=False)

    def _wait_node_gone(self, node: Node, timeout: float) -> bool:
        """Waits on the device until `node` (a loading indicator) is gone; False when it cannot."""
        driver = self.driver
        query = query_for_node(node)
        if query is None or not isinstance(driver, SupportsElementWait):
            return False
        self.stats.element_waits += 1
        return self._read(lambda: driver.wait_for(query, timeout, gone=True))

    # --- selectors ---------------------------------------------------------------------------------
    def resolve(
        self,
        selector: NodeSelector,
        *,
        timeout: float | None = None,
        until: Callable[[list[Node]], bool] = lambda nodes: len(nodes) == 1,
        give_up: Callable[[list[Node], Hierarchy], bool] | None = None,
    ) -> Resolution:
        """Polls the selector against the screen until `until(matches)` holds or `timeout` passes.

        `give_up(matches, dump)`, asked only of a poll `until` refuses, ends the polling at once when it
        holds: the caller has something better to do than wait (scroll an off-screen match into view).

        The first poll uses the cached settled dump when there is one (no round trip). After that, a
        selector the device can evaluate (`trailblaze.device.query`) waits on the device — until
        something matches, or, when `until([])` holds (waiting for absence), until nothing does — and
        then takes one dump; the matches always come from a dump, so occlusion and `index` are the
        dump resolver's. Other selectors, or a device whose answer the dump does not confirm, poll
        dumps with a pause that starts at `poll_interval` and grows. Returns the matches of the last
        poll either way.
        """
        bound = self.resolve_timeout if timeout is None else timeout
        start = time.monotonic()
        hierarchy = self.screen()
        driver = self.driver
        query = element_query(selector) if isinstance(driver, SupportsElementWait) else None
        gone = until([])
        delays = backoff(self.poll_interval, self.max_poll_interval)
        while True:
            nodes = resolve_selector(selector, hierarchy)
            waited = time.monotonic() - start
            if until(nodes) or waited >= bound or (give_up is not None and give_up(nodes, hierarchy)):
                return Resolution(nodes, hierarchy, waited)
            left = bound - waited
            if query is not None and isinstance(driver, SupportsElementWait):
                self.stats.element_waits += 1
                found = self._read(functools.partial(driver.wait_for, query, left, gone=gone))
                hierarchy = self._observe(max(0.0, bound - (time.monotonic() - start)))
                if found and not until(resolve_selector(selector, hierarchy)):
                    query = None  # the device and the dump disagree (e.g. an invisible match): poll dumps
                continue
            time.sleep(min(next(delays), left))
            hierarchy = self.refresh()

    # --- trail scope -------------------------------------------------------------------------------
    def on_trail_end(self, key: str, undo: Callable[[], None]) -> bool:
        """Runs `undo` when the current trail ends (`end_trail`), unless something is already
        registered under `key`: the first registration keeps the state from before the trail.

        Returns:
            Whether `undo` was registered.
        """
        if key in self._trail_end:
            return False
        self._trail_end[key] = undo
        return True

    def end_trail(self) -> None:
        """Runs what `on_trail_end` registered, newest first, and forgets it. Every undo runs even
        when one fails; the first failure is raised afterwards."""
        pending, self._trail_end = self._trail_end, {}
        first: BaseException | None = None
        for undo in reversed(list(pending.values())):
            try:
                undo()
            except Exception as exc:  # the others must still run
                first = first or exc
        if first is not None:
            raise first

    def _observe(self, bound: float) -> Hierarchy:
        """The idle signal (when the device has one) and one dump, cached."""
        idle = self._idle(min(bound, self.settle_timeout)) if bound > 0 else None
        hierarchy = self._refresh(shoot=idle is not None)
        if idle and loading_indicator(hierarchy) is None:
            self._cache.settled = True
        return hierarchy

    # --- lifecycle ---------------------------------------------------------------------------------
    def close(self) -> None:
        """Closes the driver, then whatever the session owns (a simulator). Idempotent.

        What `on_trail_end` registered stays undone: a lone `trailblaze tool setNetwork …` is
        meant to last."""
        if self._closed:
            return
        self._closed = True
        shooter, self._shooter = self._shooter, None
        if shooter is not None:
            shooter.shutdown(wait=True)
        try:
            self.driver.close()
        finally:
            if self._simulator is not None:
                self._simulator.stop()

    def __enter__(self) -> DeviceSession:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- internals ---------------------------------------------------------------------------------
    def _dump(self, *, shoot: bool = False) -> Hierarchy:
        """One dump; with `shoot` (and `screenshot_with_dump` on a device that serves requests
        concurrently) a screenshot is in flight alongside it and kept for `screenshot()`."""
        shot = self._start_screenshot() if shoot else None
        self.stats.dumps += 1
        try:
            hierarchy = self._read(self.driver.hierarchy)
        finally:
            # Never left in flight: the next action must not race the picture of the screen before it.
            data = _result_or_none(shot) if shot is not None else None
        covers(hierarchy)  # every node a session hands out knows whether a dialog or keyboard covers it
        if data is not None:
            with self._shot_lock:
                self._shot = (hierarchy, self.stats.actions, data)
        return hierarchy

    def _start_screenshot(self) -> Future[bytes] | None:
        driver = self.driver
        if not (
            self.screenshot_with_dump
            and isinstance(driver, SupportsConcurrentRequests)
            and driver.serves_concurrently()
        ):
            return None
        if self._shooter is None:
            from concurrent.futures import ThreadPoolExecutor

            self._shooter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trailblaze-screenshot")
        self.stats.screenshots += 1
        self.stats.screenshots_with_dump += 1
        return self._shooter.submit(driver.screenshot)

    def _read(self, call: Callable[[], _T], *, proves_alive: bool = True) -> _T:
        """A request that changes nothing on the device: sent again on a device fault (`Hiccups.read`)."""
        return self._timed(lambda: self.hiccups.read(call, proves_alive=proves_alive))

    def _hiccup(self) -> None:
        with self._stats_lock:  # the run directory's screenshot thread counts too
            self.stats.hiccups += 1

    def _timed(self, call: Callable[[], _T]) -> _T:
        t0 = time.perf_counter()
        try:
            return call()
        finally:
            self.stats.device_s += time.perf_counter() - t0


def _result_or_none(future: Future[bytes]) -> bytes | None:
    """The screenshot's bytes, or None when it failed: `screenshot()` then takes it again (a failing
    step still gets its picture), and the dump's own outcome is what the caller sees."""
    try:
        return future.result()
    except Exception:
        return None


def _same(a: Hierarchy, b: Hierarchy) -> bool:
    from trailblaze.device.settle import same_screen

    return same_screen(a, b)
