"""The engine prints nothing (issue 39, item 2): the console is the CLI's, and start-up stays at the floor
(item 6): `validate` does not load the device stack, a replay does not load the LLM clients."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

ENGINE = ROOT / "trailblaze" / "engine"


def _rich_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        found += [f"{path.name}:{node.lineno} imports {n}" for n in names if n == "rich" or n.startswith("rich.")]
    return found


def test_the_engine_imports_no_rich() -> None:
    files = sorted(ENGINE.glob("*.py"))
    assert len(files) > 10  # the scan reads the engine, not an empty folder
    assert [hit for file in files for hit in _rich_imports(file)] == []


def test_the_scan_finds_a_rich_import(tmp_path: Path) -> None:
    module = tmp_path / "printing.py"
    module.write_text("def f() -> None:\n    from rich.console import Console\n    Console().print('x')\n")
    assert _rich_imports(module) == ["printing.py:2 imports rich.console"]


def _loaded_after(code: str, wanted: tuple[str, ...]) -> list[str]:
    probe = f"{code}\nimport sys\nprint(','.join(m for m in {wanted!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    last = done.stdout.strip().splitlines()[-1]  # after what the command printed
    return [m for m in last.split(",") if m]


def test_validate_does_not_load_the_device_stack() -> None:
    trail = ROOT / "trails" / "login.trail.yaml"
    code = (
        "import sys\nfrom trailblaze.cli.main import cli\n"
        f"try:\n    cli.main(args=['validate', {str(trail)!r}], prog_name='trailblaze')\n"
        "except SystemExit as exc:\n    assert exc.code == 0, exc.code\n"
    )
    wanted = ("trailblaze.cli.main", "trailblaze.engine.check", "trailblaze.device.session", "trailblaze.mutation.mutants")
    assert _loaded_after(code, wanted) == ["trailblaze.cli.main", "trailblaze.engine.check"]


def test_the_replay_command_loads_neither_rich_nor_the_llm_clients() -> None:
    wanted = ("trailblaze.engine.commands", "rich", "trailblaze.llm.client", "trailblaze.llm.models")
    assert _loaded_after("import trailblaze.engine.commands", wanted) == ["trailblaze.engine.commands"]
