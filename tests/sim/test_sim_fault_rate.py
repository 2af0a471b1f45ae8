"""`Conditions.fault_rate` (`trailblaze sim --faults RATE`): each request's seeded chance of one
transient fault, of a kind that fits the request."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from trailblaze.errors import UsageError
from trailblaze_sim.faults import Conditions, RequestKind
from trailblaze_sim.runtime import sim_conditions

KINDS: list[RequestKind] = ["dump", "action", "screenshot", "other"]


def _draw(conditions: Conditions, n: int = 3000) -> list[tuple[RequestKind, str | None]]:
    return [(kind, conditions.before_request(kind)) for kind in KINDS * (n // len(KINDS))]


def test_a_seed_faults_the_same_requests_and_another_seed_others() -> None:
    first, again = Conditions(fault_rate=0.05, seed=7, stall_s=0), Conditions(fault_rate=0.05, seed=7, stall_s=0)
    assert _draw(first) == _draw(again)
    assert _draw(Conditions(fault_rate=0.05, seed=8, stall_s=0)) != _draw(Conditions(fault_rate=0.05, seed=7, stall_s=0))
    other = first.clone(seed=8)  # another device of the pool: its own draw, counted apart
    assert other.injected == {} and other.requests == 0 and other.fault_rate == 0.05


def test_every_fault_fits_its_request_and_the_rate_holds() -> None:
    conditions = Conditions(fault_rate=0.1, seed=1, stall_s=0)
    drawn = _draw(conditions, 8000)
    by_kind = {kind: {fault for k, fault in drawn if k == kind} - {None} for kind in KINDS}
    assert by_kind["dump"] == {"drop_connection", "rpc_error", "empty_dump", "stall"}
    assert by_kind["screenshot"] == {"drop_connection", "rpc_error", "stall"}  # a big answer held up
    assert by_kind["action"] == by_kind["other"] == {"drop_connection", "rpc_error"}
    faulted = sum(fault is not None for _, fault in drawn)
    assert faulted == sum(conditions.injected.values()) and 650 <= faulted <= 950  # 10 % of 8,000


def test_a_stall_holds_the_answer_back() -> None:
    conditions = Conditions(stall_s=0.2)
    started = time.monotonic()
    conditions.stall()
    assert time.monotonic() - started >= 0.2


def test_a_rate_is_a_chance() -> None:
    with pytest.raises(ValueError, match="between 0 and 1, not 2"):
        Conditions(fault_rate=2)
    with pytest.raises(UsageError, match=r"--faults 0.033 for 1 request in 30"):
        sim_conditions("zero", faults=-0.5)
    assert sim_conditions("realistic", faults=0.033, seed=4).fault_rate == 0.033


def test_the_command_refuses_a_rate_that_is_no_chance() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "trailblaze", "sim", "android", "--faults", "2"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "--faults" in done.stderr and "Traceback" not in done.stderr
