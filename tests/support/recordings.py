"""Trail files with one platform's recordings taken out, as a team that recorded one platform has them
(tests/port/, benchmarks/device_matrix.py)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.cli import copy_example

_KEY = re.compile(r"^(?P<indent>\s*)(?P<key>[a-z0-9-]+):\s*$")


def without_recordings(text: str, key: str) -> str:
    """`text` with every `KEY:` block under a `recording:` removed (the lines indented below it too)."""
    out: list[str] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        m = _KEY.match(lines[i])
        if m and m["key"] == key and _in_recording(out, len(m["indent"])):
            depth = len(m["indent"])
            i += 1
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > depth):
                i += 1
            continue
        out.append(lines[i])
        i += 1
    return "".join(out)


def _in_recording(out: list[str], depth: int) -> bool:
    """Whether the nearest line above, indented less than `depth`, is `recording:`."""
    for line in reversed(out):
        if line.strip() and len(line) - len(line.lstrip()) < depth:
            return line.strip() == "recording:"
    return False


def examples_without(folder: Path, key: str, names: list[str] | None = None) -> list[Path]:
    """Every example trail (or those `names`) copied into `folder` (with the tools and the trails they
    run), its `key` recordings taken out."""
    from tests.support.paths import TRAILS

    chosen = names if names is not None else [p.name for p in sorted(TRAILS.glob("*.trail.yaml"))]
    copied = [copy_example(name, folder) for name in chosen]
    for path in folder.glob("*.trail.yaml"):
        path.write_text(without_recordings(path.read_text("utf-8"), key), "utf-8")
    return copied
