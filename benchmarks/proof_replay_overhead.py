"""The proof replay's cost: its wall time as a ratio to the record time of the same trail.

Records an NL-only copy of `trails/login.trail.yaml` (5 steps) on the simulated demo app with the real
`anthropic` SDK talking to `FakeMessagesAPI`, whose scripted model (the demo policy) answers every
request after 1.5 s — about what a real model takes, as in `p8_replay_vs_record.py`. The record runs
as `trailblaze record` does: with a run directory (screenshots and dumps around every step) and the
proof replay (relaunch, the whole trail from the new recordings, no LLM) before the file is written.

Prints, per device: the agent part of the record (solving the steps), the proof replay, and the proof
as a ratio to the agent part and as a share of the whole record. `realistic` is the device latency
profile a user meets; `zero` shows the framework's own floor.

Run: python benchmarks/proof_replay_overhead.py
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from trailblaze.device.devices import open_device
from trailblaze.engine.record import record_trail
from trailblaze.llm.anthropic import AnthropicLLM
from trailblaze.llm.client import LLMClient
from trailblaze.output.rundir import RunDir
from trailblaze.testing import Delay, FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.tools.memory import Memory

_ROOT = Path(__file__).resolve().parents[1]
_ANSWER_S = 1.5
_SECRETS = {"password": "hunter2"}


def _slow_policy(body: dict[str, Any]) -> Any:
    return Delay(_ANSWER_S, then=demo_policy(body))


def _llm_factory(url: str) -> Callable[[], LLMClient]:
    return lambda: AnthropicLLM(api_key="bench", base_url=url)


def main() -> None:
    print(f"Proof replay overhead — login trail (5 steps), model answering after {_ANSWER_S} s")
    data = yaml.safe_load((_ROOT / "trails" / "login.trail.yaml").read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    with tempfile.TemporaryDirectory() as tmp, FakeMessagesAPI(policy=_slow_policy) as api:
        for spec, latency in (
            ("sim:android", "realistic"),
            ("sim:ios", "realistic"),
            ("sim:android", "zero"),
        ):
            name = f"{spec[4:]}-{latency}"
            path = Path(tmp) / f"login-{name}.trail.yaml"
            path.write_text(yaml.safe_dump(data, sort_keys=False))
            rundir = RunDir(
                Path(tmp) / f"run-{name}", Memory(secrets=_SECRETS), command=["bench"], device=spec
            )
            with open_device(spec, latency=latency) as session:
                t0 = time.perf_counter()
                record = record_trail(
                    path, session, _llm_factory(api.url), secrets=_SECRETS, rundir=rundir, device=spec
                )
                total_s = time.perf_counter() - t0
            assert record.status == "passed" and record.verification == "verified", record.error
            assert record.proof is not None
            proof_s = record.proof.duration_ms / 1000
            solve_s = total_s - proof_s
            calls = record.usage.llm_calls
            print(
                f"{spec:<12} {latency:<9} record {total_s:6.2f} s = solve {solve_s:6.2f} s ({calls} LLM calls) "
                f"+ proof {proof_s:5.2f} s   proof ÷ solve {proof_s / solve_s:.3f} (1/{solve_s / proof_s:.1f}), "
                f"{proof_s / total_s:.1%} of the record"
            )


if __name__ == "__main__":
    main()
