"""Issue 26: how many of Block Trailblaze's own trail files `trailblaze validate` accepts, by reason.

Give a Block Trailblaze checkout (a work tree) or its bare git directory. Every `*.trail.yaml`,
`trail.yaml` and `blaze.yaml` in it is loaded as `trailblaze validate` loads it. Files that record
a tool trailblaze does not know are "custom": Block's target-specific tools (its sample apps' own
tool sets), which a trail can only run with those tools defined (docs/adr/0020-custom-tools.md). The
figure the issue asks for is the share of the other files that validate.

Run: python benchmarks/block_corpus.py PATH [--list]
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

from trailblaze.engine.preflight import uses_custom_tools, validate_trails
from trailblaze.errors import TrailblazeError, TrailFileError
from trailblaze.tools.builtin import RECORDED_TOOL_PARAMS
from trailblaze.trail.discovery import is_trail_name
from trailblaze.trail.model import Trail, load_trail


def _export(git_dir: Path, into: Path) -> None:
    """Writes the trail files of the bare repository's HEAD below `into`."""
    names = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    for name in names:
        if not is_trail_name(Path(name).name) or name.endswith(".trail.md"):
            continue
        blob = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"HEAD:{name}"], check=True, capture_output=True
        )
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob.stdout)


def survey(root: Path) -> dict[str, list[tuple[Path, str]]]:
    """The trail files below `root` grouped: `valid`, `custom` (unknown tools), `invalid`, `traceback`."""
    groups: dict[str, list[tuple[Path, str]]] = collections.defaultdict(list)
    files = sorted(p for p in root.rglob("*") if is_trail_name(p.name) and not p.name.endswith(".trail.md"))
    for path in files:
        try:
            trail = load_trail(path)
            if uses_custom_tools(trail):
                groups["custom"].append((path, ", ".join(_custom_names(trail))))
                continue
            findings = [f for f in validate_trails([(path, trail)]) if not f.needs_value]
        except TrailFileError as exc:
            groups["invalid"].append((path, exc.problems[0].message))
        except TrailblazeError as exc:
            groups["invalid"].append((path, exc.message))
        except Exception:  # a traceback is what this counts
            groups["traceback"].append((path, traceback.format_exc(limit=3)))
        else:
            groups["invalid" if findings else "valid"].append((path, findings[0].message if findings else ""))
    return groups


def _custom_names(trail: Trail) -> list[str]:
    names = {
        tool.name
        for step in trail.steps
        for tools in (step.recording or {}).values()
        for tool in tools
        if tool.name not in RECORDED_TOOL_PARAMS
    }
    return sorted(names) or ["config.tools"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="a Block Trailblaze checkout, or its bare git directory")
    parser.add_argument("--list", action="store_true", help="list each file that does not validate")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.path
        if (root / "HEAD").is_file() and (root / "objects").is_dir():
            root = Path(tmp)
            _export(args.path, root)
        groups = survey(root)
        total = sum(len(v) for v in groups.values())
        valid, custom, invalid = (len(groups[k]) for k in ("valid", "custom", "invalid"))
        plain = total - custom
        print(f"trail files: {total}; using target-specific custom tools: {custom}")
        print(f"without custom tools: {plain}; validate: {valid} ({valid / plain:.1%}); do not: {invalid}")
        print(f"tracebacks: {len(groups['traceback'])}")
        reasons = collections.Counter(m for _, m in groups["invalid"])
        for message, count in reasons.most_common():
            print(f"  {count:3d}  {message}")
        tools = collections.Counter(t for _, m in groups["custom"] for t in m.split(", "))
        print("custom tools (files): " + ", ".join(f"{t} ({n})" for t, n in tools.most_common()))
        if args.list:
            for path, message in groups["invalid"] + groups["custom"]:
                print(f"{path.relative_to(root)}: {message}")
        for path, trace in groups["traceback"]:
            print(f"TRACEBACK {path}:\n{trace}", file=sys.stderr)
    return 1 if groups["traceback"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
