"""Figures of the code's shape (issue 29): modules at the top of `trailblaze/`, the largest parameter
lists, how many tool / context / kind definitions there are, and how many layers the imports make.

    python benchmarks/architecture.py

The import graph is the one tests/test_layering.py checks (every import inside `trailblaze/`, module
level or not); "layers" is the longest import chain, counted in modules.

The simulator's figures (issue 39, ADR 0061) follow: modules at the top of `trailblaze_sim/`, its
packages and tiers (tests/test_sim_layering.py) and the method counts of its five largest classes
(every `def` in the class body, private ones included).
"""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "trailblaze"
sys.path.insert(0, str(ROOT))

from tests.test_layering import _TOP, TIERS, _modules, import_graph, package_of, package_violations  # noqa: E402


def _layers(graph: dict[str, set[str]]) -> int:
    sys.setrecursionlimit(10_000)

    @functools.cache
    def depth(name: str) -> int:
        return 1 + max((depth(d) for d in graph[name]), default=0)

    return max(depth(n) for n in graph)


def _parameters(modules: dict[str, Path]) -> list[tuple[int, str]]:
    found = []
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                count -= 1 if a.args and a.args[0].arg in ("self", "cls") else 0
                found.append((count, f"{name}.{node.name}"))
    return sorted(found, reverse=True)


def main() -> None:
    modules = _modules()
    top = [p for p in PACKAGE.glob("*.py")]
    packages = [p for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    text = {name: path.read_text("utf-8") for name, path in modules.items()}
    kinds = sum(len(re.findall(r"^\s*Kind\s*=\s*Literal\[", t, re.M)) for t in text.values())
    contexts = sorted(
        f"{name}.{m}" for name, t in text.items() for m in re.findall(r"^class (\w*Context)\b", t, re.M)
    )
    tool_classes = sorted(
        f"{name}.{m}" for name, t in text.items() for m in re.findall(r"^class (\w*Tool)\b", t, re.M)
    )
    params = _parameters(modules)
    lines = sum(t.count("\n") for t in text.values())
    print(f"modules in trailblaze/ (all): {len(modules)}; at the top level: {len(top)}; subpackages: {len(packages)}")
    print(f"lines in trailblaze/: {lines}")
    graph = import_graph()
    edges = {(package_of(m), package_of(d)) for m, ds in graph.items() if m not in _TOP for d in ds} - {(p, p) for p in map(package_of, graph)}
    print(f"import layers (longest chain): {_layers(graph)}")
    print(
        f"packages: {sum(len(t) for t in TIERS) - 1} in {len(TIERS)} tiers; package-level import edges: {len(edges)}; "
        f"imports reaching up a tier: {len(package_violations(graph))}"
    )
    print(f"`Kind = Literal[...]` definitions: {kinds}")
    print(f"*Context classes: {len(contexts)} ({', '.join(contexts)})")
    print(f"*Tool classes: {len(tool_classes)} ({', '.join(tool_classes)})")
    print("largest parameter counts:")
    for count, name in params[:5]:
        print(f"  {count:3d}  {name}")
    print(f"functions over 10 parameters: {sum(1 for c, _ in params if c > 10)}")
    _simulator()


def _class_sizes(package: Path) -> list[tuple[int, str]]:
    """Methods per class (`def` directly in the class body), largest first."""
    found = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef):
                count = sum(isinstance(b, ast.FunctionDef | ast.AsyncFunctionDef) for b in node.body)
                found.append((count, f"{path.relative_to(package).with_suffix('')}.{node.name}".replace("/", ".")))
    return sorted(found, reverse=True)


def _simulator() -> None:
    from tests import test_sim_layering as sim

    modules = sim._modules()
    top = list(sim.PACKAGE.glob("*.py"))
    graph = sim.import_graph()
    print("\nthe simulator (drivers/sim/trailblaze_sim):")
    print(f"modules (all): {len(modules)}; at the top level: {len(top)} ({', '.join(sorted(p.stem for p in top))})")
    print(
        f"packages: {sum(len(t) for t in sim.TIERS) - 1} in {len(sim.TIERS)} tiers; import layers (longest chain): "
        f"{_layers(graph)}; imports reaching up a tier: {len(sim.package_violations(graph))}"
    )
    print("largest classes (methods):")
    for count, name in _class_sizes(sim.PACKAGE)[:5]:
        print(f"  {count:3d}  {name}")


if __name__ == "__main__":
    main()
