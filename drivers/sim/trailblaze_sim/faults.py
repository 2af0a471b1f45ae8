"""Latency profiles and fault injection for the simulated devices.

Every simulated device has its own `Conditions`: the protocol servers call the serving device's
`conditions.before_request(kind)` at the start of every request, and that call sleeps for the
profile's latency and tells the server which fault, if any, to produce — so a fault armed on one
device of a pool never touches the others. The animating-UI fault is the app model's (`SimDevice`)
concern: it reads `conditions.animate_after_action_ms`.

Faults come armed on a numbered request (`drop_connection_on_request`, `rpc_error_on_request`,
`offline_after_request`), for every dump (`empty_dump`, `slow_dump_s`), or at random: with
`fault_rate` each request has that chance of one transient fault, drawn from `seed` (`trailblaze sim
--faults RATE`). What every server does with each fault, on the wire:

- `drop_connection`: the server serves the request — an action happens — and closes the connection
  without a byte of answer. The lost answer is the hard case for a client: it cannot tell a tap that
  landed from one that did not. uiautomator2 raises `RemoteDisconnected`, facebook-wda a
  `usbmux.HTTPError` around it; Appium, which proxies to the UiAutomator2 server, sees its socket
  close.
- `rpc_error`: the server refuses the request without doing it and says so: a JSON-RPC error
  (`-32001 java.lang.RuntimeException`, HTTP 200) from the uiautomator2 server, `500 unknown error`
  from WebDriverAgent and from Appium's UiAutomator2 server.
- `empty_dump` (dumps only): the dump answers an empty document (`<hierarchy rotation="0"/>` on
  Android, an application without children on iOS and in Appium's source).
- `stall` (random faults, dumps and screenshots only): the device answers at once and the answer
  reaches the client `stall_s` (2 s) late, as a big answer does through an adb forward or a USB
  link that hangs for a moment; no client here times out that soon. (A device slow to make its
  answer is the latency profile's, or `slow_dump_s`.)
- `offline`: the device is gone: adb no longer lists it and refuses its streams, WebDriverAgent
  closes its listener (connections are refused).

The adb server's own services (shell, sync) take no request faults: a shell stream cut short hands
adbutils a truncated answer it cannot tell from a whole one, which no real adb does; the faults on the
uiautomator2 requests it carries stand for an adb forward that hangs or drops.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Literal

RequestKind = Literal["dump", "action", "screenshot", "other"]
FaultKind = Literal["drop_connection", "rpc_error", "empty_dump", "stall", "offline"]

# A stall is a big answer held up on the link, so only dumps and screenshots stall.
_RANDOM_FAULTS: dict[RequestKind, tuple[FaultKind, ...]] = {
    "dump": ("drop_connection", "rpc_error", "empty_dump", "stall"),
    "screenshot": ("drop_connection", "rpc_error", "stall"),
    "action": ("drop_connection", "rpc_error"),
    "other": ("drop_connection", "rpc_error"),
}


@dataclass(frozen=True)
class LatencyProfile:
    """Seconds a request of each kind takes on the device side (uniform between the two bounds)."""

    name: str
    dump: tuple[float, float] = (0.0, 0.0)
    action: tuple[float, float] = (0.0, 0.0)
    screenshot: tuple[float, float] = (0.0, 0.0)
    other: tuple[float, float] = (0.0, 0.0)
    gesture_time_scale: float = 0.0
    """How much of a timed gesture's duration (a 2 s swipe, a long press) the simulator waits: 1.0
    takes the full time as a phone does, 0.0 (the `zero` profile) returns at once."""

    def delay(self, kind: RequestKind, rng: random.Random) -> float:
        lo, hi = getattr(self, kind)
        return lo if hi <= lo else rng.uniform(lo, hi)


LATENCY_PROFILES: dict[str, LatencyProfile] = {
    "zero": LatencyProfile("zero"),
    # What a mid-range phone over USB costs: dumps 150-400 ms, actions 30-80 ms.
    "realistic": LatencyProfile(
        "realistic",
        dump=(0.15, 0.40),
        action=(0.03, 0.08),
        screenshot=(0.08, 0.20),
        other=(0.005, 0.02),
        gesture_time_scale=1.0,
    ),
}


def check_fault_rate(rate: float) -> float:
    """`rate` if it is a chance (0 to 1), else ValueError naming the range."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"a fault rate is a chance per request between 0 and 1, not {rate:g}")
    return rate


@dataclass
class Conditions:
    """Latency plus the faults to inject for one device, shared by that device's servers. Thread-safe."""

    latency: LatencyProfile = field(default_factory=lambda: LATENCY_PROFILES["zero"])
    drop_connection_on_request: int | None = None
    """Serve the Nth request (1-based, counted over all kinds), then close the connection unanswered."""
    rpc_error_on_request: int | None = None
    """Refuse the Nth request with a protocol-level error (JSON-RPC error / WDA `unknown error`)."""
    slow_dump_s: float = 0.0
    """Extra seconds added to every hierarchy dump."""
    empty_dump: bool = False
    """Hierarchy dumps return an empty document (Android) / an empty application (iOS)."""
    offline_after_request: int | None = None
    """After the Nth request the device is gone: adb lists nothing / connections are refused."""
    animate_after_action_ms: int = 0
    """After each action the UI keeps changing (an animated value) for this long."""
    fault_rate: float = 0.0
    """Each request's chance of one transient fault — a dropped connection, a protocol error, an empty
    dump (dumps only) or a stall (dumps and screenshots) — picked with the `seed`ed generator
    (`trailblaze sim --faults`)."""
    stall_s: float = 2.0
    """How late a stalled request answers."""
    seed: int = 0
    injected: Counter[str] = field(default_factory=Counter)
    """The random faults injected so far, by kind."""
    _count: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _rng: random.Random = field(default_factory=random.Random, repr=False)
    _fault_rng: random.Random = field(default_factory=random.Random, repr=False)

    def __post_init__(self) -> None:
        check_fault_rate(self.fault_rate)
        self._rng.seed(self.seed)
        # its own generator: the faults a seed gives do not move when a latency profile draws too
        self._fault_rng.seed(f"faults:{self.seed}")

    def clone(self, *, seed: int | None = None) -> Conditions:
        """The same settings with fresh request counting (and `seed`, if given): for another device."""
        with self._lock:
            return replace(
                self,
                seed=self.seed if seed is None else seed,
                injected=Counter(),
                _count=0,
                _lock=threading.Lock(),
                _rng=random.Random(),
                _fault_rng=random.Random(),
            )

    @property
    def requests(self) -> int:
        return self._count

    @property
    def offline(self) -> bool:
        return self.offline_after_request is not None and self._count >= self.offline_after_request

    def before_request(self, kind: RequestKind) -> FaultKind | None:
        """Count the request, sleep its latency, and return the fault to produce (if any)."""
        with self._lock:
            if self.offline:
                return "offline"
            self._count += 1
            n = self._count
            delay = self.latency.delay(kind, self._rng)
            chosen = self._random_fault(kind)
        if kind == "dump":
            delay += self.slow_dump_s
        if delay > 0:
            time.sleep(delay)
        if n == self.drop_connection_on_request:
            return "drop_connection"
        if n == self.rpc_error_on_request:
            return "rpc_error"
        if kind == "dump" and self.empty_dump:
            return "empty_dump"
        return chosen

    def stall(self) -> None:
        """Holds a stalled request's answer back (the server calls it just before answering)."""
        time.sleep(self.stall_s)

    def _random_fault(self, kind: RequestKind) -> FaultKind | None:
        """Under the lock: the random fault for this request, counted in `injected`, or None."""
        if self.fault_rate <= 0.0 or self._fault_rng.random() >= self.fault_rate:
            return None
        chosen = self._fault_rng.choice(_RANDOM_FAULTS[kind])
        self.injected[chosen] += 1
        return chosen
