"""No function in `trailblaze/` or `drivers/` takes more than 10 parameters (issue 46 item 4): an entry
point that needs more takes an options object (`RunInputs`, `RecordOptions`, `Recorded`, …).

Exempt are the front ends whose parameters *are* the user's flags, one keyword per flag: click
commands, and the pytest fixture's `trail_runner.record`, which mirrors `trailblaze record` keyword for
keyword (docs/adr/0080-one-event-seam.md).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 10
# A front end's keyword API, not a call between our own modules: its keywords are the CLI's flags.
_FRONT_ENDS = {"trailblaze/pytest/_runner.py::record"}


def _sources() -> list[Path]:
    found = []
    for top in ("trailblaze", "drivers"):
        for path in (ROOT / top).rglob("*.py"):
            parts = set(path.relative_to(ROOT).parts)
            if not parts & {".venv", "node_modules", "build", "__pycache__"}:
                found.append(path)
    return sorted(found)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
    return count - (1 if a.args and a.args[0].arg in ("self", "cls") else 0)


def _click_command(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(".command" in ast.unparse(d) or ".group" in ast.unparse(d) for d in node.decorator_list)


def long_signatures(paths: list[Path], root: Path = ROOT) -> list[str]:
    """`file::function (N parameters)` for every function over the limit that is not a front end."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            where = f"{path.relative_to(root).as_posix()}::{node.name}"
            if _parameters(node) > LIMIT and not _click_command(node) and where not in _FRONT_ENDS:
                found.append(f"{where} ({_parameters(node)} parameters)")
    return found


def test_no_function_takes_more_than_ten_parameters() -> None:
    assert long_signatures(_sources()) == []


def test_the_check_finds_a_long_signature_and_lets_a_click_command_through(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import click\n"
        "def run(a, b, c, d, e, f, g, h, i, j, k): ...\n"
        "def short(a, b, c, d, e, f, g, h, i, j): ...\n"
        "@click.command()\n"
        "def command(a, b, c, d, e, f, g, h, i, j, k): ...\n"
        "class C:\n"
        "    def method(self, a, b, c, d, e, f, g, h, i, j): ...\n"
    )
    assert long_signatures([probe], tmp_path) == ["probe.py::run (11 parameters)"]


def _calls(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        f.id if isinstance(f, ast.Name) else f.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(f := n.func, ast.Name | ast.Attribute)
    }


def test_replay_and_the_pytest_runner_replay_a_trail_through_one_function() -> None:
    """Issue 46 item 2: `trailblaze replay` and `trail_runner.replay` share how a trail is replayed
    (memory per attempt, retries from a clean launch), so the two cannot drift apart."""
    package = Path(__file__).resolve().parents[2] / "trailblaze"
    for module in (package / "engine" / "commands.py", package / "pytest" / "_runner.py"):
        calls = _calls(module)
        assert "replay_with_retries" in calls, module
        assert not calls & {"replay_trail", "run_with_retries"}, module
