"""Real-world hierarchy dumps in `tests/data/hierarchy` (see its README for where each came from).

`FIXTURES` lists every file; `load(path)` parses one. Tests that check properties over many
captures take `Hierarchy` objects, so other screens (the demo app) can be added to them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from tests.support.paths import DATA
from trailblaze.screen.hierarchy import Hierarchy, parse_hierarchy

FIXTURE_DIR = DATA / "hierarchy"
FIXTURES = sorted(FIXTURE_DIR.glob("*/*.xml"))
FIXTURE_IDS = [f"{p.parent.name}/{p.name}" for p in FIXTURES]


@cache
def load(path: Path) -> Hierarchy:
    """Parses a fixture once per test session (hierarchies are treated as immutable)."""
    return parse_hierarchy(path.read_bytes())
