"""Where the suite finds the repository, so no helper or test counts `parents[...]` from its own file."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
DATA = TESTS / "data"
TRAILS = ROOT / "trails"
