"""The import graph of `trailblaze_sim` and its package tiers, as tests/sim/test_sim_layering.py checks them
(ADR 0061) and benchmarks/architecture.py measures them; the same rules as the core (tests/support/layering.py).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.support.paths import ROOT

PACKAGE = ROOT / "drivers" / "sim" / "trailblaze_sim"

# Packages from the bottom up. A package may import the packages of the tiers below its own, never one
# of its own tier or above; "" is the top-level modules below every package (`model`, `faults`), which
# import nothing of trailblaze_sim.
TIERS: list[tuple[str, ...]] = [
    ("",),
    ("app",),
    ("device",),
    ("android", "ios"),
    ("appium",),
    ("server",),
]
# The public face, the runtime that starts servers and the entry point sit above all; nothing imports them.
TOP = {"trailblaze_sim", "trailblaze_sim.runtime", "trailblaze_sim.plugin"}
TOP_LEVEL_MODULES = {"__init__", "model", "faults", "runtime", "plugin"}


def module_paths() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


@functools.cache  # parsing the package takes a while; the tests only read the graph
def import_graph() -> dict[str, set[str]]:
    """Module → the `trailblaze_sim` modules it imports; `from pkg import sub` is an edge to `pkg.sub`."""
    modules = module_paths()
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


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else ""


def package_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import that goes to a package of the same or a higher tier, or to the top, as `module -> module`."""
    tier = {name: n for n, names in enumerate(TIERS) for name in names}
    found = []
    for module, deps in sorted(graph.items()):
        if module in TOP:
            continue
        here = package_of(module)
        for dep in sorted(deps):
            there = package_of(dep)
            upward = there not in tier or here not in tier or tier[there] >= tier[here]
            if dep in TOP or (there != here and upward):
                found.append(f"{module} ({here or 'top level'}) -> {dep} ({there or 'top level'})")
    return found
