"""Issue 26: the share of Maestro's public flows that `trailblaze validate` accepts, and why the rest not.

The corpus is a copy of Maestro's `e2e/workspaces/**` and its orchestra / maestro-test flows in
tests/data/maestro/corpus/ (commit and licence in tests/data/maestro/README.md). Each `.yaml` file whose
text is a flow (an `appId` / `url` header, `---`, commands; `trailblaze.maestro.sniff`) is loaded the
way `trailblaze validate` loads it (`trailblaze.trail.model.load_trail`: sub-flows read, every command
checked). Prints the accepted share of all flows and of the flows Maestro itself considers valid (not
one of its invalid-flow fixtures, no missing media file), the refusals by reason, and the number of
tracebacks (anything but a TrailblazeError). The `.js` scripts and media files the flows use are
copied beside them.

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
from trailblaze.maestro.sniff import FLOW_SUFFIXES, flow_file_kind
from trailblaze.trail.model import load_trail

_DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "data" / "maestro" / "corpus"
_COMMAND = re.compile(r"`([A-Za-z]+)`")


def survey(folder: Path) -> tuple[list[Path], dict[Path, str], dict[Path, str]]:
    """The flows below `folder`, the refused ones with their first problem, and the ones that raised."""
    flows = sorted(
        p for p in folder.rglob("*") if p.name.endswith(FLOW_SUFFIXES) and flow_file_kind(p) != "other"
    )
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


_MAESTRO_INVALID = re.compile(
    r"YamlCommandReaderTest/0(?:06|09|10|21|26)_|/workspaces/e0(?:0[6-9]|1[0-4])_"
)  # the flows Maestro's own tests expect it to refuse (YamlCommandReaderTest.kt; workspaces/e006–e014:
# e000–e005 are workspace errors — a missing folder, a pattern or tags matching nothing — whose flows are valid)


def maestro_refuses(path: Path, message: str | None) -> bool:
    """Whether Maestro itself refuses the flow: one of its invalid-flow fixtures, or a media file that
    is not in its repository (Maestro checks `addMedia` files when it reads a flow: its e013 fixture)."""
    if _MAESTRO_INVALID.search(path.as_posix()):
        return True
    return message is not None and message.split(": ", 1)[-1].startswith("addMedia file ")


def reason_key(message: str) -> str:
    """The refusing command (or the kind of problem) of a refusal message, for the tally."""
    text = message.split(": ", 1)[-1]
    if text.startswith("Maestro command") or text.startswith("unknown Maestro command"):
        found = _COMMAND.search(text)
        return found.group(1) if found else text
    if "selecting by" in text:
        return "selector by " + (_COMMAND.search(text) or re.search(r"(\w+)", text)).group(1)  # type: ignore[union-attr]
    if " does not exist (looked in" in text:
        return text.split(" ", 1)[0] + " file not found"
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
    invalid = {p for p in flows if maestro_refuses(p, refused.get(p))}
    valid = [p for p in flows if p not in invalid]
    kept = [p for p in valid if p not in refused and p not in crashed]
    print(
        f"flows Maestro considers valid: {len(valid)}; accepted: {len(kept)} "
        f"({len(kept) / len(valid) if valid else 0.0:.1%})"
    )
    for title, group in (
        ("refused flows Maestro considers valid, by reason:", [p for p in refused if p not in invalid]),
        ("refused flows Maestro refuses too, by reason:", [p for p in refused if p in invalid]),
    ):
        print(title)
        for key, count in collections.Counter(reason_key(refused[p]) for p in group).most_common():
            print(f"  {count:3d}  {key}")
    if args.list:
        for path, message in sorted(refused.items()):
            print(f"{path.relative_to(args.folder)}: {message.split(': ', 1)[-1]}")
    for path, trace in crashed.items():
        print(f"TRACEBACK {path}:\n{trace}", file=sys.stderr)
    return 1 if crashed else 0


if __name__ == "__main__":
    raise SystemExit(main())
