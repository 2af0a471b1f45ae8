"""Imports inside `trailblaze_sim` flow one way, as inside the core (tests/project/test_layering.py, ADR 0061).

Every import counts — module level, inside functions and under `TYPE_CHECKING`. The simulator grows a
personality per client (uiautomator2, WebDriverAgent, Appium's two drivers); each sits in the package
of its concern, above what it builds on, so a new one cannot quietly reach back down into its peers.
"""

from __future__ import annotations

from tests.support.layering import cycles
from tests.support.sim_layering import PACKAGE, TIERS, TOP_LEVEL_MODULES, import_graph, package_violations


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
