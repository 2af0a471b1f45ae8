"""P8: replay wall time ÷ record wall time on the same trail (goal ≤ 1/50).

Records an NL-only copy of `trails/login.trail.yaml` on the simulated demo app with the real
`anthropic` SDK talking to `FakeMessagesAPI`, whose scripted model (the demo policy) answers every
request after 1.5 s — about what a real model takes — then replays the recording it wrote. Both
runs use the same latency profile (`realistic`, and `zero` for the framework's own floor).

Run: python benchmarks/p8_replay_vs_record.py
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from trailblaze.anthropic_llm import AnthropicLLM
from trailblaze.devices import open_device
from trailblaze.llm import LLMClient
from trailblaze.memory import Memory
from trailblaze.runner import record_trail, replay_trail
from trailblaze.testing import Delay, FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy

_ROOT = Path(__file__).resolve().parents[1]
_ANSWER_S = 1.5


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
                t0 = time.perf_counter()
                replayed = replay_trail(path, session, memory=Memory(secrets={"password": "hunter2"}))
                replay_s = time.perf_counter() - t0
                assert replayed.status == "passed", replayed.error
            print(
                f"{spec:<12} {latency:<9} record {record_s:6.2f} s ({calls} LLM calls)  replay {replay_s:5.2f} s  "
                f"ratio 1/{record_s / replay_s:.1f}  (record minus model wait {record_s - calls * _ANSWER_S:.2f} s)"
            )


if __name__ == "__main__":
    main()
