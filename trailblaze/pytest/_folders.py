"""Which folders named on the pytest command line are folders of trails.

`pytest e2e/` should run the trails in `e2e/` like `pytest e2e/login.trail.yaml` runs that one file,
while `pytest tests/` must leave the trail fixtures under `tests/data/` alone. The rule: a folder
named on the command line is a trail folder unless it holds Python test files (pytest's
`python_files` patterns, `test_*.py` by default) — a folder of Python tests keeps its trail files as
data.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

import pytest

from trailblaze.trail.discovery import SKIPPED_DIRS

__all__ = ["named_trail_folders"]


def named_trail_folders(config: pytest.Config) -> tuple[Path, ...]:
    """The folders named on the command line that are searched for trails (cached per session)."""
    cached = config.stash.get(_NAMED_KEY, None)
    if cached is None:
        patterns = [str(p) for p in config.getini("python_files")]
        base = config.invocation_params.dir
        folders = {(base / arg.split("::")[0]).resolve() for arg in config.args}
        cached = tuple(sorted(f for f in folders if f.is_dir() and not _holds_python_tests(f, patterns)))
        config.stash[_NAMED_KEY] = cached
    return cached


def _holds_python_tests(folder: Path, patterns: list[str]) -> bool:
    for _, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS]
        if any(fnmatch.fnmatch(name, pattern) for name in files for pattern in patterns):
            return True
    return False


_NAMED_KEY = pytest.StashKey[tuple[Path, ...]]()
