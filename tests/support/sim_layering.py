"""The import graph of `trailblaze_sim` and its package tiers, as tests/sim/test_sim_layering.py checks them
(ADR 0061) and benchmarks/architecture.py measures them; the same rules as the core (tests/support/layering.py).
"""

from __future__ import annotations

from pathlib import Path

from tests.support import layering
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
TOP_LEVEL_MODULES = {"__init__", "model", "faults", "access", "runtime", "plugin"}


def module_paths() -> dict[str, Path]:
    return layering.module_paths(PACKAGE)


def import_graph() -> dict[str, set[str]]:
    """Module → the `trailblaze_sim` modules it imports (the core's rule: tests/support/layering.py)."""
    return layering.import_graph(PACKAGE)


def package_of(module: str) -> str:
    return layering.package_of(module, PACKAGE)


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
