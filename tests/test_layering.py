"""Imports inside `trailblaze/` flow one way: no module reaches, directly or through others, back to itself.

Every import counts — module level, inside functions and under `TYPE_CHECKING` — because a cycle hidden
in a function body is still a cycle a reader has to hold in their head (CLI / pytest → run orchestration
→ agent and tools → device, trail, hierarchy).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "trailblaze"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


@functools.cache  # parsing the package takes a while; the tests only read the graph
def import_graph() -> dict[str, set[str]]:
    """Module → the `trailblaze` modules it imports; `from pkg import sub` is an edge to `pkg.sub`."""
    modules = _modules()
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


def test_no_import_cycles_inside_trailblaze() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_engine_layers_do_not_reach_up() -> None:
    graph = import_graph()
    # The device/trail/hierarchy layer never imports the agent, tools or run orchestration.
    low = [
        "trailblaze.hierarchy",
        "trailblaze.trail",
        "trailblaze.selector",
        "trailblaze.resolve",
        "trailblaze.settle",
    ]
    high = {
        "trailblaze.agent",
        "trailblaze.tools",
        "trailblaze.engine",
        "trailblaze.engine_policy",
        "trailblaze.replay",
        "trailblaze.runner",
        "trailblaze.cli",
    }
    for module in low:
        assert not (graph[module] & high), module


def test_the_mcp_server_sits_on_top() -> None:
    """`trailblaze mcp` is a thin layer over run orchestration: only the CLI reaches into it."""
    graph = import_graph()
    users = {m for m, deps in graph.items() if any(d.startswith("trailblaze.mcp") for d in deps)}
    assert {m for m in users if not m.startswith("trailblaze.mcp")} == {"trailblaze.cli"}
