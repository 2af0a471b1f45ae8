"""`trailblaze port` over the example trails: the other platform's recordings with zero model calls.

For each direction (Android → iOS, iOS → Android): every example trail is copied with the target
platform's recordings taken out, `trailblaze port` runs over the folder on the simulator, and this prints
- steps ported with 0 model calls, of the steps that wanted porting (the figure to reach: ≥ 90 %);
- steps written and proven by a replay (record's proof runs before anything is written: 100 %);
- ported steps whose recording is, call for call, the one recorded with a model (`reason` aside);
- the mutant kills of the ported recordings against those of the recorded ones (every app mutant of
  tests/data/mutants/ replayed with each trail it contradicts, on the target platform).

Run: python benchmarks/port_examples.py
Exit status: 0 when every step is ported and the ported recordings kill every mutant the recorded do.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))

from tests.support.mutants import (  # noqa: E402 — the repo root goes on sys.path first
    Job,
    load_manifest,
    mutant_path,
    run_jobs,
    verdict,
)
from tests.support.recordings import examples_without  # noqa: E402

_PORTED = re.compile(r"^ported (\d+) of (\d+) steps? with 0 model calls", re.M)


def _calls(path: Path, key: str) -> list[list[dict[str, object]]]:
    steps = yaml.safe_load(path.read_text("utf-8"))["trail"]
    return [
        [{n: {k: v for k, v in (p or {}).items() if k != "reason"} for n, p in c.items()} for c in calls]
        for calls in ((s.get("recording") or {}).get(key) or [] for s in steps)
    ]


def _kills(trails: list[Path], platform: str) -> tuple[int, int]:
    manifest = load_manifest()
    by_name = {t.name: t for t in trails}
    pairs = [(name, c) for name, c in manifest.pairs() if c.trail in by_name]
    jobs = {(name, c.trail): Job(by_name[c.trail], str(mutant_path(name)), platform) for name, c in pairs}
    out = run_jobs(set(jobs.values()), workers=8)
    killed = sum(verdict(out[jobs[(name, c.trail)]], c) == "killed" for name, c in pairs)
    return killed, len(pairs)


def one_way(source: str, target: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="port-") as tmp:
        folder = Path(tmp)
        trails = examples_without(folder, target)
        env = {**os.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}  # a closed port: no model
        env.pop("ANTHROPIC_API_KEY", None)
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "trailblaze", "port", ".", "--from", source, "--device", f"sim:{target}",
             "--secret", "password=hunter2", "--run-dir", "run"],
            cwd=folder, env=env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        seconds = time.perf_counter() - t0
        totals = _PORTED.findall(done.stdout)
        ported, wanted = map(int, totals[-1]) if totals else (0, 0)
        run = json.loads((folder / "run" / "run.json").read_text("utf-8"))
        calls = run["usage"]["llm_calls"]
        written = same = 0
        for trail in trails:
            mine, recorded = _calls(trail, target), _calls(_ROOT / "trails" / trail.name, target)
            written += sum(bool(c) for c in mine)
            same += sum(bool(a) and a == b for a, b in zip(mine, recorded, strict=True))
        proven = sum(t.get("verification") == "verified" for t in run["trails"] if t.get("mode") == "record")
        recorded_runs = sum(t.get("mode") == "record" for t in run["trails"])
        killed, pairs = _kills(trails, target)
        killed_recorded, _ = _kills(sorted((_ROOT / "trails").glob("*.trail.yaml")), target)
        print(
            f"\n{source} → {target}: `trailblaze port` over {len(trails)} example trails ({seconds:.0f} s, exit {done.returncode})"
        )
        print(
            f"  steps ported with 0 model calls: {ported}/{wanted} = {ported / wanted:.0%} (LLM calls in run.json: {calls})"
        )
        print(
            f"  trails written after a proof replay: {proven}/{recorded_runs} verified; steps written: {written}"
        )
        print(f"  ported steps identical to the recorded ones: {same}/{written}")
        print(f"  mutants killed: ported {killed}/{pairs}, recorded {killed_recorded}/{pairs}")
        if done.returncode != 0:
            print(done.stdout[-3000:] + done.stderr[-2000:])
        return done.returncode == 0 and ported == wanted and calls == 0 and killed == killed_recorded == pairs


def main() -> int:
    ok = one_way("android", "ios")
    ok = one_way("ios", "android") and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
