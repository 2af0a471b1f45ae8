"""Helpers live in one place, `tests/support/`, imported one way (ADR 0062): a test imports
`tests.support.X`; no module of the suite imports a test module; every other module is a test file,
in the folder of what it tests (`tests/engine/`, `tests/sim/`, …), not at the top of `tests/`."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.paths import TESTS

_SKIP = ("data", "appium")  # trails, captures and the npm package, not Python of the suite
_FREE = {"__init__.py", "conftest.py"}


def layout_problems(tests: Path) -> list[str]:
    """Every helper outside `support/` and every import of a test module or of a helper by another
    way than `tests.support`, as `path: problem`."""
    problems = []
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(tests)
        if rel.parts[0] in _SKIP:
            continue
        where = rel.as_posix()
        if rel.parts[0] != "support" and path.name not in _FREE and not path.name.startswith("test_"):
            problems.append(f"{where}: a helper outside tests/support/")
        if len(rel.parts) == 1 and path.name.startswith("test_"):
            problems.append(f"{where}: a test outside the folders of the package tiers")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                problems.append(f"{where}:{node.lineno}: a relative import")
                continue
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if names[0].split(".")[0] == "support":
                problems.append(f"{where}:{node.lineno}: imports {names[0]}, not tests.support.<module>")
            for name in names:
                parts = name.split(".")
                if any(p.startswith("test_") for p in parts) and (parts[0] == "tests" or len(parts) == 1):
                    problems.append(f"{where}:{node.lineno}: imports the test module {name}")
                    break  # `from tests.x.test_y import z`: the module once, not each of its names
    return sorted(set(problems))


def test_helpers_live_in_support_and_no_test_module_is_imported() -> None:
    assert layout_problems(TESTS) == []


def test_the_layout_check_finds_helpers_and_imports_of_test_modules(tmp_path: Path) -> None:
    (tmp_path / "support").mkdir()
    (tmp_path / "engine").mkdir()
    (tmp_path / "conftest.py").write_text("from tests.support.cli import external_sim\n")
    (tmp_path / "device_support.py").write_text("PKG = 'demo'\n")
    (tmp_path / "test_top.py").write_text("def test_it() -> None: ...\n")
    (tmp_path / "support" / "rig.py").write_text("from tests.engine.test_replay import TRAIL\n")
    (tmp_path / "engine" / "test_replay.py").write_text("TRAIL = 'x'\n")
    (tmp_path / "engine" / "test_record.py").write_text(
        "from tests.engine import test_replay\nimport test_shard\nfrom .test_replay import TRAIL\n"
        "from support.rig import PKG\nfrom tests.support.rig import PKG as ok\n"
    )
    assert layout_problems(tmp_path) == [
        "device_support.py: a helper outside tests/support/",
        "engine/test_record.py:1: imports the test module tests.engine.test_replay",
        "engine/test_record.py:2: imports the test module test_shard",
        "engine/test_record.py:3: a relative import",
        "engine/test_record.py:4: imports support.rig, not tests.support.<module>",
        "support/rig.py:1: imports the test module tests.engine.test_replay",
        "test_top.py: a test outside the folders of the package tiers",
    ]
