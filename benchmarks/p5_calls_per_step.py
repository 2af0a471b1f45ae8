"""P5: LLM calls per recorded step with the scripted demo policy.

Run: `python benchmarks/p5_calls_per_step.py [--device sim:android|sim:ios]`. Every example trail in
`trails/` is recorded (NL-only copies) with the demo policy answering in process (`demo_llm`, the
same request translation as the real SDK path). Printed: calls per action step, per verify step, and
per recorded tool — an action step with k device actions needs at least k calls, because the loop
runs one action per call and looks at the screen again before the next one. Goal: ≤ 1.5
calls per recorded action (the P5 figure; a single-action step takes one call because
the action and `objectiveStatus COMPLETED` may share an answer).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import yaml

from trailblaze.device.devices import open_device
from trailblaze.engine.record import RecordOptions, record_trail
from trailblaze.output.rundir import RunDir
from trailblaze.testing.demo_policy import demo_llm
from trailblaze.tools.memory import Memory

GOAL = 1.5
ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="sim:android")
    ns = parser.parse_args()
    counts = {"step": [0, 0, 0], "verify": [0, 0, 0], "single-action step": [0, 0, 0]}  # steps, calls, tools
    with open_device(ns.device, latency="zero") as session, tempfile.TemporaryDirectory() as tmp:
        run = RunDir(Path(tmp) / "run", Memory(), command=["p5"], device=ns.device)
        for source in sorted((ROOT / "trails").glob("*.trail.yaml")):
            data = yaml.safe_load(source.read_text())
            for step in data["trail"]:
                step.pop("recording", None)
            copy = Path(tmp) / source.name
            copy.write_text(yaml.safe_dump(data, sort_keys=False))
            result = record_trail(
                copy,
                session,
                demo_llm,
                secrets={"password": "hunter2"},
                options=RecordOptions(screenshots=False),
                rundir=run,
            )
            print(f"{source.name:34} {result.status:7} {result.usage.llm_calls:3} calls, {len(result.steps)} steps")
            for rec in result.steps:
                bucket = counts["verify" if rec.kind == "verify" else "step"]
                bucket[0] += 1
                bucket[1] += rec.usage.llm_calls
                bucket[2] += sum(t.recorded for t in rec.tools)
                if rec.kind == "step" and sum(t.recorded for t in rec.tools) == 1:
                    single = counts["single-action step"]
                    single[0], single[1], single[2] = single[0] + 1, single[1] + rec.usage.llm_calls, single[2] + 1
    print()
    for kind, (steps, calls, tools) in counts.items():
        if not steps:
            continue
        print(
            f"{kind:18}: {steps:3} steps, {calls:3} LLM calls, {tools:3} recorded tools -> "
            f"{calls / steps:.2f} calls/step, {calls / tools:.2f} calls/recorded tool"
        )
    steps, calls, tools = counts["step"]
    per_action = calls / tools
    print(f"\ngoal ≤ {GOAL} LLM calls per recorded action: {'met' if per_action <= GOAL else 'NOT met'} ({per_action:.2f})")
    print(
        f"calls per action step: {calls / steps:.2f} "
        "(multi-action steps such as 'launch and sign in' need one call per action)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
