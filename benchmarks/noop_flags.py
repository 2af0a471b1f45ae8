"""No-op flags on the example trails: how many recorded / replayed actions are judged "no visible change".

Run: `python benchmarks/noop_flags.py [--device sim:android] [--device sim:ios]`. Every example trail
in `trails/` is recorded from an NL-only copy with the demo policy (in process), then the new
recording is replayed, and the shipped recordings in `trails/` are replayed as they are. Printed per
device: device actions (taps, swipes, key presses, typing, launches) and how many of them were
flagged no-op. Every action of the example trails does something, so the goal is 0 flags
(docs/adr/0016-no-op-detection-and-ask-user.md).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import yaml

from trailblaze.device.devices import open_device
from trailblaze.engine.record import RecordOptions, record_trail
from trailblaze.engine.replay import replay_trail
from trailblaze.output.runlog import TrailRecord
from trailblaze.testing.demo_policy import demo_llm
from trailblaze.tools.execute import TOOL_KINDS
from trailblaze.tools.memory import Memory

ROOT = Path(__file__).resolve().parents[1]


_JUDGED = (
    "tapOnElementBySelector",
    "tapOnPoint",
    "swipe",
    "pressKey",
    "pressBack",
    "tapOnElementWithText",
    "tapOnElementWithAccessibilityText",
    "longPressOnElementWithText",
)
"""The recorded tools whose effect is judged (typing, launching, scrolling and waiting are not)."""


def _count(records: list[TrailRecord]) -> tuple[int, int, int]:
    tools = [t for r in records for s in r.steps for t in s.tools if TOOL_KINDS.get(t.name) == "action"]
    return len(tools), sum(t.name in _JUDGED for t in tools), sum(t.no_change for t in tools)


def _nl_copy(source: Path, target: Path) -> Path:
    data = yaml.safe_load(source.read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", action="append", default=None)
    parser.add_argument("--latency", choices=["zero", "realistic"], default="zero")
    ns = parser.parse_args()
    devices = ns.device or ["sim:android", "sim:ios"]
    sources = sorted((ROOT / "trails").glob("*.trail.yaml"))
    flagged = 0
    for device in devices:
        rows: dict[str, list[TrailRecord]] = {
            "record (agent)": [],
            "replay of that": [],
            "replay trails/": [],
        }
        with open_device(device, latency=ns.latency) as session, tempfile.TemporaryDirectory() as tmp:
            for source in sources:
                copy = _nl_copy(source, Path(tmp) / source.name)
                options = RecordOptions(screenshots=False)
                rows["record (agent)"].append(
                    record_trail(copy, session, demo_llm, secrets={"password": "hunter2"}, options=options)
                )
                for name, path in (("replay of that", copy), ("replay trails/", source)):
                    rows[name].append(
                        replay_trail(path, session, memory=Memory(secrets={"password": "hunter2"}))
                    )
        for name, records in rows.items():
            actions, judged, noops = _count(records)
            passed = sum(r.status == "passed" for r in records)
            flagged += noops
            print(
                f"{device:12} {name:15} {passed}/{len(records)} trails passed, {actions:3} device actions "
                f"({judged} taps / swipes / key presses judged), {noops} flagged no-op"
            )
    print(
        f"\ngoal: 0 flagged no-ops on the example trails: {'met' if flagged == 0 else 'NOT met'} ({flagged})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
