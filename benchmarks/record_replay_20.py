"""Issue 11's "done when": recordings made by `trailblaze record` replay green 20 times out of 20.

For each device (`sim:android`, `sim:ios`) and each example trail in `trails/` (including
`sign-out.trail.yaml`, whose fourth step runs while the "Sign out?" confirm dialog covers the Settings
screen), an NL-only copy (every recording stripped) in a temporary directory is recorded with
`trailblaze record` as a user would run it: a subprocess, the real `anthropic` SDK talking to the
local Messages-API fake answering with the demo policy (what `trailblaze sim llm` serves). Then the
recorded copies are replayed RUNS times with `trailblaze replay DIR` with no model at all
(`ANTHROPIC_BASE_URL` points at a closed port, no key).

Prints per device and trail: record's exit code, whether its proof replay verified the recordings,
the proof replay's duration as a ratio to the record's agent part (both from run.json), the replays
green out of RUNS, and for the dialog trail whether any tap recorded for the dialog step resolves,
on the screen the step started on (the run directory's saved dump, with `trailblaze.screen.occlusion`), to
a node covered by the dialog.

Run: python benchmarks/record_replay_20.py [--latency zero|realistic] [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from trailblaze.screen.hierarchy import parse_hierarchy
from trailblaze.screen.occlusion import covers
from trailblaze.screen.resolve import resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import load_trail

_ROOT = Path(__file__).resolve().parents[1]
_SECRET = "password=hunter2"
_DIALOG_TRAIL = "sign-out.trail.yaml"
_DIALOG_STEP = "Confirm signing out"
_TAPS = ("tapOnElementBySelector", "tapOnPoint", "tapOnElementWithText", "tapOnElementWithAccessibilityText",
         "longPressOnElementBySelector")  # fmt: skip


@dataclass
class Row:
    record_rc: int = -1
    verified: str = "-"
    record_s: float = 0.0
    proof_s: float = 0.0
    green: int = 0
    failures: list[str] = field(default_factory=list)
    covered_taps: str = ""


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens there once the socket is closed


def _nl_copy(source: Path, target: Path) -> None:
    data = yaml.safe_load(source.read_text())
    for step in data["trail"]:
        # A `runTrail` recording is composed by hand (the agent does not offer it): keep it.
        tools = [t for ts in (step.get("recording") or {}).values() for t in ts]
        if not any("runTrail" in t for t in tools):
            step.pop("recording", None)
    target.write_text(yaml.safe_dump(data, sort_keys=False))


def _cli(*args: str, base_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": base_url, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args], env=env, capture_output=True, text=True
    )


def _covered_taps(trail_path: Path, trail_run: Path, platform: str) -> str:
    """How the dialog step's recorded taps land on the screen that step started on."""
    trail = load_trail(trail_path)
    index = next(i for i, s in enumerate(trail.steps) if s.text.startswith(_DIALOG_STEP))
    recording = trail.steps[index].recording_for(platform) or []
    dumps = sorted(trail_run.glob(f"step-{index - 1:02d}-after.*"))
    dump = next(p for p in dumps if p.suffix in (".xml", ".json"))
    hierarchy = parse_hierarchy(dump.read_bytes())
    dialogs = [c for c in covers(hierarchy) if c.kind == "dialog"]
    targets, covered = [], 0
    for call in recording:
        if call.name not in _TAPS:
            continue
        if "nodeSelector" not in call.params:
            targets.append(f"{call.name} (not a selector: unchecked)")
            continue
        found = resolve(NodeSelector.model_validate(call.params["nodeSelector"]), hierarchy)
        node = found[0] if found else None
        if node is not None and node.covered:
            covered += 1
        targets.append(
            f"{node.short_id if node else 'nothing'}{' (COVERED)' if node and node.covered else ''}"
        )
    cover = f"{dialogs[0].describe()} covering {dialogs[0].hidden} nodes" if dialogs else "no dialog"
    return (
        f"{covered} covered of {len(targets)} taps -> {', '.join(targets) or 'none'} (saved screen: {cover})"
    )


def _record(platform: str, latency: str, work: Path, runs: Path, api_url: str) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for trail in sorted(work.glob("*.trail.yaml")):
        row = rows.setdefault(trail.name, Row())
        run_dir = runs / f"record-{trail.stem}"
        done = _cli("record", str(trail), "--device", f"sim:{platform}", "--latency", latency,
                    "--secret", _SECRET, "--run-dir", str(run_dir), base_url=api_url)  # fmt: skip
        row.record_rc = done.returncode
        if done.returncode != 0:
            row.failures.append("record: " + (done.stdout + done.stderr).strip().splitlines()[-1])
        try:
            result = json.loads((run_dir / "run.json").read_text())["trails"][0]
        except (OSError, KeyError, IndexError, ValueError):
            continue
        row.verified = result.get("verification") or "-"
        row.record_s = result["duration_ms"] / 1000
        proof = result.get("proof")
        row.proof_s = proof["duration_ms"] / 1000 if proof else 0.0
        if trail.name == _DIALOG_TRAIL and done.returncode == 0:
            row.covered_taps = _covered_taps(trail, run_dir / result["directory"], platform)
    return rows


def _replay(platform: str, latency: str, work: Path, runs: Path, count: int, rows: dict[str, Row]) -> None:
    recorded = work / "recorded"
    recorded.mkdir()
    for name, row in rows.items():
        if row.record_rc == 0:
            shutil.copy(work / name, recorded / name)
    if not any(recorded.iterdir()):
        return
    shutil.copytree(work / "tools", recorded / "tools")
    no_llm = _closed_port_url()
    for i in range(count):
        run_dir = runs / f"replay-{i:02d}"
        _cli("replay", str(recorded), "--device", f"sim:{platform}", "--latency", latency,
             "--secret", _SECRET, "--run-dir", str(run_dir), base_url=no_llm)  # fmt: skip
        try:
            results: list[dict[str, Any]] = json.loads((run_dir / "run.json").read_text())["trails"]
        except (OSError, KeyError, ValueError) as e:
            for row in rows.values():
                row.failures.append(f"replay {i + 1}: no run.json ({e})")
            continue
        for result in results:
            row = rows[Path(result["path"]).name]
            if result["status"] == "passed" and result["usage"]["llm_calls"] == 0:
                row.green += 1
            else:
                row.failures.append(f"replay {i + 1}: {result['status']}: {result.get('error')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", choices=("zero", "realistic"), default="realistic")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--platform", action="append", choices=("android", "ios"))
    args = parser.parse_args()
    platforms = args.platform or ["android", "ios"]
    sources = sorted((_ROOT / "trails").glob("*.trail.yaml"))
    print(f"record + {args.runs} replays, latency profile {args.latency!r}, {len(sources)} trails, "
          f"model: FakeMessagesAPI + demo policy")  # fmt: skip
    ratios: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, FakeMessagesAPI(policy=demo_policy) as api:
        for platform in platforms:
            t0 = time.perf_counter()
            work, runs = Path(tmp) / platform, Path(tmp) / f"runs-{platform}"
            work.mkdir()
            for source in sources:
                _nl_copy(source, work / source.name)
            # the demo's own tools (trails/tools/), which the examples' config.tools offer the agent
            shutil.copytree(_ROOT / "trails" / "tools", work / "tools", ignore=shutil.ignore_patterns("__pycache__"))
            rows = _record(platform, args.latency, work, runs, api.url)
            _replay(platform, args.latency, work, runs, args.runs, rows)
            print(f"\nsim:{platform} ({time.perf_counter() - t0:.0f} s)")
            print(f"  {'trail':<30} {'record rc':>9} {'proof':>9} {'record s':>9} {'proof s':>8} {'proof/rec':>9} "
                  f"{'green':>7}")  # fmt: skip
            for name, row in rows.items():
                ratio = row.proof_s / row.record_s if row.record_s and row.proof_s else 0.0
                if ratio:
                    ratios.append(ratio)
                print(f"  {name:<30} {row.record_rc:>9} {row.verified:>9} {row.record_s:>9.2f} {row.proof_s:>8.2f} "
                      f"{ratio:>9.3f} {row.green:>4}/{args.runs}")  # fmt: skip
                if row.covered_taps:
                    print(f"      dialog step: {row.covered_taps}")
                for failure in row.failures[:3]:
                    print(f"      {failure}")
    if ratios:
        print(f"\nproof replay ÷ record (agent part): mean {sum(ratios) / len(ratios):.3f}, "
              f"min {min(ratios):.3f}, max {max(ratios):.3f} over {len(ratios)} records")  # fmt: skip


if __name__ == "__main__":
    main()
