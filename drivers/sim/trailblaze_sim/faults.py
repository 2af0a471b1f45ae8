"""Latency profiles and fault injection for the simulated devices.

Every simulated device has its own `Conditions`: the protocol servers call the serving device's
`conditions.before_request(kind)` at the start of every request, and that call sleeps for the
profile's latency and tells the server which fault, if any, to produce — so a fault armed on one
device of a pool never touches the others. The animating-UI fault is the app model's (`SimDevice`)
concern: it reads `conditions.animate_after_action_ms`.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Literal

RequestKind = Literal["dump", "action", "screenshot", "other"]
FaultKind = Literal["drop_connection", "rpc_error", "empty_dump", "offline"]


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


@dataclass
class Conditions:
    """Latency plus the faults to inject for one device, shared by that device's servers. Thread-safe."""

    latency: LatencyProfile = field(default_factory=lambda: LATENCY_PROFILES["zero"])
    drop_connection_on_request: int | None = None
    """Close the connection without answering the Nth request (1-based, counted over all kinds)."""
    rpc_error_on_request: int | None = None
    """Answer the Nth request with a protocol-level error (JSON-RPC error / WDA `unknown error`)."""
    slow_dump_s: float = 0.0
    """Extra seconds added to every hierarchy dump."""
    empty_dump: bool = False
    """Hierarchy dumps return an empty document (Android) / an empty application (iOS)."""
    offline_after_request: int | None = None
    """After the Nth request the device is gone: adb lists nothing / connections are refused."""
    animate_after_action_ms: int = 0
    """After each action the UI keeps changing (an animated value) for this long."""
    seed: int = 0
    _count: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _rng: random.Random = field(default_factory=random.Random, repr=False)

    def __post_init__(self) -> None:
        self._rng.seed(self.seed)

    def clone(self, *, seed: int | None = None) -> Conditions:
        """The same settings with fresh request counting (and `seed`, if given): for another device."""
        with self._lock:
            return replace(
                self,
                seed=self.seed if seed is None else seed,
                _count=0,
                _lock=threading.Lock(),
                _rng=random.Random(),
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
        return None
