"""What a user sees of trailblaze, written down so a refactor can show it changed nothing (issue 46).

    python benchmarks/behaviour.py snapshot before.json     # in the old checkout
    python benchmarks/behaviour.py snapshot after.json      # in the new one
    python benchmarks/behaviour.py compare before.json after.json

A snapshot holds:
- the model's tool list (name, description, input schema), with and without the verify tools;
- the MCP server's tool list (name, group, description, input schema, read-only);
- `trail_json_schema()`, and the built-in tools' definitions (`trailblaze schema`'s order);
- every command's `--help`;
- the example trails (trails/) replayed on `sim:android` and `sim:ios`, and the Maestro flows
  (tests/data/maestro/flows/) replayed the same way: run.json with the fields that change from run to
  run (times, durations, ids, pids, run folders) taken out, and
  random values seeded (`TRAILBLAZE_SEED=46`) and the
  waits' lengths in messages (`after 5.0 s`) written as `after <t> s`, so the rest compares field by field.

`compare` prints each path that differs and exits 1 if any does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
_VARYING = {"started_at", "finished_at", "duration_ms", "pid", "uid", "run_id", "commit", "branch", "command"}
"""run.json fields that differ between two runs of the same code."""
_WAITED = re.compile(r"after \d+\.\d s")
"""A wait's length in a message ("no element matches … after 5.0 s") moves with the machine's load."""


def _tools() -> dict[str, Any]:
    from trailblaze.mcp.surface import mcp_tools
    from trailblaze.tools.toolset import all_tools, builtin_tools
    from trailblaze.trail.schema import trail_json_schema

    tools = builtin_tools()
    model = {
        str(verify): [
            {"name": s.name, "description": s.description, "input_schema": s.input_schema}
            for s in tools.specs(verify=verify)
        ]
        for verify in (False, True)
    }
    mcp = [
        {"name": t.name, "group": t.group, "description": t.description, "input_schema": t.input_schema,
         "read_only": t.read_only}
        for t in mcp_tools(tools)
    ]
    builtins = [{"name": t.name, "kind": t.kind, "offered_to": sorted(t.offered_to),
                 "platforms": sorted(t.platforms) if t.platforms else None} for t in all_tools()]
    return {"model_tools": model, "mcp_tools": mcp, "trail_json_schema": trail_json_schema(),
            "builtin_tools": builtins}


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "COLUMNS": "200", "TRAILBLAZE_SEED": "46"}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "trailblaze", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


def _helps() -> dict[str, str]:
    top = _run("--help", cwd=ROOT).stdout
    commands = [line.split()[0] for line in top.split("Commands:")[1].splitlines() if line.startswith("  ")
                and not line.startswith("   ")]
    helps = {"": top}
    for command in commands:
        helps[command] = _run(command, "--help", cwd=ROOT).stdout
    return helps


def _stable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in _VARYING}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def _replays(source: Path, pattern: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for platform in ("android", "ios"):
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / "work"
            shutil.copytree(source, work, ignore=shutil.ignore_patterns("__pycache__"))
            done = _run("replay", *sorted(p.name for p in work.glob(pattern)), "--device", f"sim:{platform}",
                        "--secret", "password=hunter2", "--run-dir", str(Path(tmp) / "run"), cwd=work)
            text = (Path(tmp) / "run" / "run.json").read_text(encoding="utf-8")
            text = _WAITED.sub(r"after <t> s", text.replace(str(Path(tmp)), "<tmp>"))
            run = json.loads(text)
            out[platform] = {"exit": done.returncode, "run": _stable(run)}
    return out


def snapshot(path: Path) -> None:
    data = {
        **_tools(),
        "help": _helps(),
        "examples": _replays(ROOT / "trails", "*.trail.yaml"),
        "maestro_flows": _replays(ROOT / "tests" / "data" / "maestro" / "flows", "*.yaml"),
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8")
    trails = sum(len(r["run"]["trails"]) for k in ("examples", "maestro_flows") for r in data[k].values())
    print(f"{path}: {len(data['model_tools']['True'])} model tools, {len(data['mcp_tools'])} MCP tools, "
          f"{len(data['help'])} help pages, {trails} trail results")


def _diff(a: Any, b: Any, where: str, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                out.append(f"{where}/{key}: only in {'after' if key in b else 'before'}")
            else:
                _diff(a[key], b[key], f"{where}/{key}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{where}[{i}]", out)
    elif a != b:
        out.append(f"{where}: {json.dumps(a)[:200]} -> {json.dumps(b)[:200]}")


def compare(before: Path, after: Path) -> int:
    a = json.loads(before.read_text(encoding="utf-8"))
    b = json.loads(after.read_text(encoding="utf-8"))
    out: list[str] = []
    _diff(a, b, "", out)
    for line in out:
        print(line)
    fields = 0
    stack = [a]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            fields += 1
    print(f"{fields} fields compared, {len(out)} differ")
    return 1 if out else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("snapshot").add_argument("out", type=Path)
    pair = sub.add_parser("compare")
    pair.add_argument("before", type=Path)
    pair.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.what == "snapshot":
        snapshot(args.out)
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
