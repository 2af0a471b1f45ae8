"""P8: replay wall time ÷ record wall time on the same trail (goal ≤ 1/50).

Records an NL-only copy of `trails/login.trail.yaml` on the simulated demo app with the real
`anthropic` SDK talking to `FakeMessagesAPI`, whose scripted model (the demo policy) answers every
request after 1.5 s — about what a real model takes — then replays the recording it wrote. Both
runs use the same latency profile (`realistic`, and `zero` for the framework's own floor).

It also prints what 1/50 would demand of the replay: the time budget per replayed action next to the
cost of a single hierarchy dump on the same profile and the app's own 1 s sign-in, so the gap between
the goal and what any replay that looks at the screen once per action can do is visible in numbers.

Run: python benchmarks/p8_replay_vs_record.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.engine.record import record_trail
from trailblaze.engine.replay import replay_trail
from trailblaze.llm.anthropic import AnthropicLLM
from trailblaze.llm.client import LLMClient
from trailblaze.testing import Delay, FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.tools.memory import Memory

_ROOT = Path(__file__).resolve().parents[1]
_ANSWER_S = 1.5
_SIGN_IN_S = 1.0  # the demo app shows "Signing in…" for 1 s, in record and replay alike


def _slow_policy(body: dict[str, Any]) -> Any:
    return Delay(_ANSWER_S, then=demo_policy(body))


def _llm_factory(url: str) -> Callable[[], LLMClient]:
    return lambda: AnthropicLLM(api_key="bench", base_url=url)


def main() -> None:
    print(f"P8 — replay ÷ record wall time, login trail, model answering after {_ANSWER_S} s (goal ≤ 1/50)")
    data = yaml.safe_load((_ROOT / "trails" / "login.trail.yaml").read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    with tempfile.TemporaryDirectory() as tmp, FakeMessagesAPI(policy=_slow_policy) as api:
        for spec, latency in (("sim:android", "realistic"), ("sim:ios", "realistic"), ("sim:android", "zero")):
            path = Path(tmp) / f"login-{spec[4:]}-{latency}.trail.yaml"
            path.write_text(yaml.safe_dump(data, sort_keys=False))
            with open_device(spec, latency=latency) as session:
                t0 = time.perf_counter()
                recorded = record_trail(path, session, _llm_factory(api.url), secrets={"password": "hunter2"})
                record_s = time.perf_counter() - t0
                assert recorded.status == "passed", recorded.error
                calls = recorded.usage.llm_calls
                dump_ms = _median_dump_ms(session)
                before = session.stats.copy()
                t0 = time.perf_counter()
                replayed = replay_trail(path, session, memory=Memory(secrets={"password": "hunter2"}))
                replay_s = time.perf_counter() - t0
                assert replayed.status == "passed", replayed.error
                actions = session.stats.actions - before.actions
                dumps = session.stats.dumps - before.dumps
            budget_ms = record_s / 50 * 1000
            print(
                f"{spec:<12} {latency:<9} record {record_s:6.2f} s ({calls} LLM calls)  replay {replay_s:5.2f} s  "
                f"ratio 1/{record_s / replay_s:.1f}  (record minus model wait {record_s - calls * _ANSWER_S:.2f} s)"
            )
            print(
                f"{'':22} replay: {actions} actions, {dumps} dumps, one dump ≈ {dump_ms:.0f} ms.  "
                f"1/50 needs replay ≤ {budget_ms:.0f} ms = {budget_ms / actions:.0f} ms per action; "
                f"the app's sign-in alone is {_SIGN_IN_S * 1000:.0f} ms → best possible 1/{record_s / _SIGN_IN_S:.1f}"
            )


def _median_dump_ms(session: DeviceSession) -> float:
    samples = []
    for _ in range(7):
        t0 = time.perf_counter()
        session.refresh()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


if __name__ == "__main__":
    main()
