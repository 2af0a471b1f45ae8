"""`validate` and `schema` import a project's `tools/*.py` only when a trail uses a custom tool
(issue 31, item 15): checking a plain trail from a pull request runs none of its Python."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

MARKER_TOOL = """\
from pathlib import Path

import trailblaze

Path(__file__).with_name("IMPORTED").touch()


@trailblaze.tool
def shop_addItem(ctx: trailblaze.ToolContext, item: str) -> str:
    '''Add an item.

    Args:
        item: What to add.
    '''
    return item
"""
PLAIN = "trail:\n  - step: Back\n    recording:\n      android:\n        - pressBack\n"
CUSTOM = "trail:\n  - step: Add\n    recording:\n      android:\n        - shop_addItem: {item: milk}\n"


def _project(tmp_path: Path, trail: str) -> Path:
    (tmp_path / "trails" / "tools").mkdir(parents=True)
    (tmp_path / "trails" / "tools" / "shop.py").write_text(MARKER_TOOL, encoding="utf-8")
    (tmp_path / "trails" / "a.trail.yaml").write_text(trail, encoding="utf-8")
    return tmp_path


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args], cwd=cwd, env={**os.environ}, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


@pytest.mark.slow
def test_a_plain_trail_imports_no_tools(tmp_path: Path) -> None:
    project = _project(tmp_path, PLAIN)
    for args in (("validate", "trails"), ("schema",)):
        done = _run(project, *args)
        assert done.returncode == 0, done.stdout + done.stderr
        assert not (project / "trails" / "tools" / "IMPORTED").exists(), args
    assert "shop_addItem" not in _run(project, "schema").stdout


@pytest.mark.slow
def test_a_trail_using_a_custom_tool_imports_them(tmp_path: Path) -> None:
    project = _project(tmp_path, CUSTOM)
    done = _run(project, "validate", "trails")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / "trails" / "tools" / "IMPORTED").exists()
    (project / "trails" / "tools" / "IMPORTED").unlink()
    schema = _run(project, "schema")
    assert schema.returncode == 0 and "shop_addItem" in schema.stdout, schema.stderr
    assert (project / "trails" / "tools" / "IMPORTED").exists()
