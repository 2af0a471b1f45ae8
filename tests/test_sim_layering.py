"""Imports inside `trailblaze_sim` flow one way, as inside the core (tests/test_layering.py, ADR 0061).

Every import counts — module level, inside functions and under `TYPE_CHECKING`. The simulator grows a
personality per client (uiautomator2, WebDriverAgent, Appium's two drivers); each sits in the package
of its concern, above what it builds on, so a new one cannot quietly reach back down into its peers.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.test_layering import cycles

PACKAGE = Path(__file__).resolve().parent.parent / "drivers" / "sim" / "trailblaze_sim"

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


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


@functools.cache  # parsing the package takes a while; the tests only read the graph
def import_graph() -> dict[str, set[str]]:
    """Module → the `trailblaze_sim` modules it imports; `from pkg import sub` is an edge to `pkg.sub`."""
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


def test_no_import_cycles_inside_the_simulator() -> None:
    assert cycles(import_graph()) == []


def test_every_package_has_a_tier() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages == {name for names in TIERS for name in names} - {""}


def test_packages_import_only_the_tiers_below() -> None:
    assert package_violations(import_graph()) == []


def test_the_package_check_finds_upward_same_tier_and_top_imports() -> None:
    graph = {
        "trailblaze_sim.model": {"trailblaze_sim.device.simulated"},  # the bottom reaching up
        "trailblaze_sim.device.simulated": {"trailblaze_sim.model", "trailblaze_sim.app.spec"},
        "trailblaze_sim.ios.wda": {"trailblaze_sim.appium.xcuitest"},  # WDA reaching up to Appium
        "trailblaze_sim.android.u2": {"trailblaze_sim.ios.source"},  # a peer of the same tier
        "trailblaze_sim.appium.phone": {"trailblaze_sim.runtime"},  # anything reaching the top
        "trailblaze_sim.app.spec": set(),
    }
    assert package_violations(graph) == [
        "trailblaze_sim.android.u2 (android) -> trailblaze_sim.ios.source (ios)",
        "trailblaze_sim.appium.phone (appium) -> trailblaze_sim.runtime (top level)",
        "trailblaze_sim.ios.wda (ios) -> trailblaze_sim.appium.xcuitest (appium)",
        "trailblaze_sim.model (top level) -> trailblaze_sim.device.simulated (device)",
    ]


def test_the_graph_counts_imports_in_functions_and_under_type_checking() -> None:
    """`runtime` imports the adb server only inside `start_simulator` and `model` only for its types."""
    assert {"trailblaze_sim.server.adb", "trailblaze_sim.model"} <= import_graph()["trailblaze_sim.runtime"]


def test_the_top_level_holds_only_the_public_face() -> None:
    """New modules go into the package of their concern, not back at the top of `trailblaze_sim/`."""
    assert {p.stem for p in PACKAGE.glob("*.py")} == TOP_LEVEL_MODULES
