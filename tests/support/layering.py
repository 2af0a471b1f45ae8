"""The import graph of `trailblaze/` and its package tiers, as tests/project/test_layering.py checks them (ADR 0053)
and benchmarks/architecture.py measures them.

Every import counts — module level, inside functions and under `TYPE_CHECKING` — because a cycle hidden
in a function body is still a cycle a reader has to hold in their head.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.support.paths import ROOT

PACKAGE = ROOT / "trailblaze"


def module_paths(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of `package` (a folder) by dotted name."""
    out = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


@functools.cache  # parsing the package takes a while; the tests only read the graph
def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module → the modules of `package` it imports; `from pkg import sub` is an edge to `pkg.sub`."""
    modules = module_paths(package)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                subs = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules]
                # Only names that are not submodules make the package itself a dependency.
                targets = subs if len(subs) == len(node.names) else [node.module, *subs]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


# Packages from the bottom up (docs/explanations/architecture.md, ADR 0053). A package may import the
# packages of the tiers below its own, never one of its own tier or above; "" is the top-level modules
# (`errors`, `__about__`), which import nothing of trailblaze.
TIERS: list[tuple[str, ...]] = [
    ("",),
    ("common",),
    ("screen", "llm"),
    ("device", "testing"),
    ("tools",),
    ("maestro",),
    ("trail",),
    ("mutation",),
    ("output",),
    ("agent", "port"),
    ("results",),
    ("engine",),
    ("mcp", "pytest"),
    ("cli",),
]
TOP = {"trailblaze", "trailblaze.__main__"}  # the public face and `python -m trailblaze` sit above all
TOP_LEVEL_MODULES = {"__init__", "__about__", "__main__", "errors"}


def package_of(module: str, package: Path = PACKAGE) -> str:
    """The subpackage of `package` that `module` lies in; "" for a module at its top level."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (package / parts[1]).is_dir()) else ""


def package_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import that goes to a package of the same or a higher tier, as `module -> module`."""
    tier = {name: n for n, names in enumerate(TIERS) for name in names}
    found = []
    for module, deps in sorted(graph.items()):
        if module in TOP:
            continue
        here = package_of(module)
        for dep in sorted(deps):
            there = package_of(dep)
            if there != here and (there not in tier or here not in tier or tier[there] >= tier[here]):
                found.append(f"{module} ({here or 'top level'}) -> {dep} ({there or 'top level'})")
    return found
