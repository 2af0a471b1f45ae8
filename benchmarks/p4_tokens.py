"""P4: input tokens per agent request, without the screenshot, while recording the demo trails.

Run: `python benchmarks/p4_tokens.py [--device sim:android|sim:ios]`. Every example trail in `trails/`
is recorded (NL-only copies, in a temp dir) through the real `anthropic` SDK against
`FakeMessagesAPI` answering with the scripted demo policy. Tokens are estimated the way
`FakeMessagesAPI` counts them: ceil(characters of each tool / system block / message block as JSON
/ 4), summed — the screenshot block is left out (the fake bills it as 1,000). Goal: ≤ 4,000 per
request. Figures are printed per screen (named by the first element of its compact view).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

from trailblaze.device.devices import open_device
from trailblaze.engine.record import RecordOptions, record_trail
from trailblaze.llm.anthropic import AnthropicLLM
from trailblaze.llm.prompts import SCREEN_HEADER
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy

GOAL = 4000
ROOT = Path(__file__).resolve().parents[1]


def tokens(value: Any) -> int:
    text = value if isinstance(value, str) else json.dumps(value)
    return max(1, math.ceil(len(text) / 4))


def split(body: dict[str, Any]) -> dict[str, int]:
    """Tokens of one request body by part, images excluded."""
    parts = {"tools": sum(tokens(t) for t in body.get("tools", [])), "system": 0, "history": 0, "screen": 0}
    parts["system"] = sum(tokens(b) for b in body.get("system", []))
    for message in body["messages"]:
        for block in message["content"]:
            if block.get("type") == "image":
                continue
            key = "screen" if str(block.get("text", "")).startswith(SCREEN_HEADER) else "history"
            parts[key] += tokens(block)
    return parts


def screen_name(body: dict[str, Any]) -> str:
    for block in body["messages"][-1]["content"]:
        text = str(block.get("text", ""))
        if text.startswith(SCREEN_HEADER):
            first = text[len(SCREEN_HEADER) :].strip().splitlines()[:1]
            return first[0].split("] ", 1)[-1][:40] if first else "(empty)"
    return "?"


def record_all(device: str, api: FakeMessagesAPI, workdir: Path) -> list[dict[str, Any]]:
    with open_device(device, latency="zero") as session, AnthropicLLM(base_url=api.url) as llm:
        for source in sorted((ROOT / "trails").glob("*.trail.yaml")):
            data = yaml.safe_load(source.read_text())
            for step in data["trail"]:
                step.pop("recording", None)
            copy = workdir / source.name
            copy.write_text(yaml.safe_dump(data, sort_keys=False))
            result = record_trail(
                copy, session, lambda: llm, secrets={"password": "hunter2"}, options=RecordOptions()
            )
            print(f"recorded {source.name}: {result.status}")
    return api.bodies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="sim:android")
    ns = parser.parse_args()
    with FakeMessagesAPI(policy=demo_policy) as api, tempfile.TemporaryDirectory() as tmp:
        bodies = record_all(ns.device, api, Path(tmp))
    per_screen: dict[str, list[int]] = defaultdict(list)
    parts_total: dict[str, list[int]] = defaultdict(list)
    for body in bodies:
        parts = split(body)
        total = sum(parts.values())
        per_screen[screen_name(body)].append(total)
        for key, value in parts.items():
            parts_total[key].append(value)
        parts_total["total"].append(total)
    print(f"\n{'screen (first element)':42} {'requests':>8} {'mean tok':>9} {'max tok':>8}")
    for name, values in sorted(per_screen.items(), key=lambda kv: -max(kv[1])):
        print(f"{name:42} {len(values):>8} {statistics.mean(values):>9.0f} {max(values):>8}")
    print(f"\nper request without the image ({len(bodies)} requests, {ns.device}):")
    for key in ("tools", "system", "history", "screen", "total"):
        values = parts_total[key]
        print(f"  {key:8} mean {statistics.mean(values):7.0f}   max {max(values):6}")
    worst = max(parts_total["total"])
    print(f"\ngoal ≤ {GOAL:,} tokens per request without the image: {'met' if worst <= GOAL else 'NOT met'} (max {worst:,})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
