"""Issue 26: the share of Maestro's public flows that `trailblaze validate` accepts, and why the rest not.

The corpus is a copy of Maestro's `e2e/workspaces/**` and its orchestra / maestro-test flows in
tests/data/maestro/corpus/ (commit and licence in tests/data/maestro/README.md). Each `.yaml` file whose
text is a flow (an `appId` / `url` header, `---`, commands; `trailblaze.tools.maestro.sniff`) is loaded the
way `trailblaze validate` loads it (`trailblaze.trail.model.load_trail`: sub-flows read, every command
checked). Prints the accepted share, the refused flows each with the first problem (the refusing
command), a tally by refusing command, and the number of tracebacks (anything but a TrailblazeError).

Run: python benchmarks/maestro_corpus.py [FOLDER] [--list]
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import traceback
from pathlib import Path

from trailblaze.engine.preflight import validate_trails
from trailblaze.errors import TrailblazeError
from trailblaze.tools.maestro.sniff import FLOW_SUFFIXES, is_flow_file
from trailblaze.trail.model import load_trail

_DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "data" / "maestro" / "corpus"
_COMMAND = re.compile(r"`([A-Za-z]+)`")


def survey(folder: Path) -> tuple[list[Path], dict[Path, str], dict[Path, str]]:
    """The flows below `folder`, the refused ones with their first problem, and the ones that raised."""
    flows = sorted(p for p in folder.rglob("*") if p.name.endswith(FLOW_SUFFIXES) and is_flow_file(p))
    refused: dict[Path, str] = {}
    crashed: dict[Path, str] = {}
    for path in flows:
        try:
            findings = [f for f in validate_trails([(path, load_trail(path))]) if not f.needs_value]
            if findings:
                refused[path] = findings[0].message
        except TrailblazeError as exc:
            refused[path] = exc.message.splitlines()[0]
        except Exception:  # a traceback is the figure this counts
            crashed[path] = traceback.format_exc(limit=3)
    return flows, refused, crashed


def reason_key(message: str) -> str:
    """The refusing command (or the kind of problem) of a refusal message, for the tally."""
    text = message.split(": ", 1)[-1]
    if text.startswith("Maestro command") or text.startswith("unknown Maestro command"):
        found = _COMMAND.search(text)
        return found.group(1) if found else text
    if "selecting by" in text:
        return "selector by " + (_COMMAND.search(text) or re.search(r"(\w+)", text)).group(1)  # type: ignore[union-attr]
    if "JavaScript" in text:
        return "${…} JavaScript expression"
    return text[:70]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=_DEFAULT)
    parser.add_argument("--list", action="store_true", help="list every refused flow with its problem")
    args = parser.parse_args()
    flows, refused, crashed = survey(args.folder)
    accepted = len(flows) - len(refused) - len(crashed)
    share = accepted / len(flows) if flows else 0.0
    print(
        f"Maestro flows: {len(flows)}; accepted by validate: {accepted} ({share:.1%}); refused: {len(refused)}"
    )
    print(f"tracebacks: {len(crashed)}")
    tally = collections.Counter(reason_key(m) for m in refused.values())
    print("refused flows by the command that refused them:")
    for key, count in tally.most_common():
        print(f"  {count:3d}  {key}")
    if args.list:
        for path, message in sorted(refused.items()):
            print(f"{path.relative_to(args.folder)}: {message.split(': ', 1)[-1]}")
    for path, trace in crashed.items():
        print(f"TRACEBACK {path}:\n{trace}", file=sys.stderr)
    return 1 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
