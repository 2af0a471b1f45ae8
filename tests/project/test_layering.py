"""Imports inside `trailblaze/` flow one way: no module reaches, directly or through others, back to itself,
and a package imports only the packages of the tiers below its own (`TIERS`, tests/support/layering.py).

Every import counts — module level, inside functions and under `TYPE_CHECKING` — because a cycle hidden
in a function body is still a cycle a reader has to hold in their head (CLI / pytest → run orchestration
→ agent and tools → device, trail, hierarchy).
"""

from __future__ import annotations

from tests.support.layering import (
    PACKAGE,
    TIERS,
    TOP_LEVEL_MODULES,
    cycles,
    import_graph,
    package_violations,
)


def test_no_import_cycles_inside_trailblaze() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_every_package_has_a_tier() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert packages == {name for names in TIERS for name in names} - {""}


def test_packages_import_only_the_tiers_below() -> None:
    assert package_violations(import_graph()) == []


def test_the_package_check_finds_an_upward_import() -> None:
    graph = {
        "trailblaze.trail.model": {"trailblaze.tools.call", "trailblaze.errors"},
        "trailblaze.tools.call": {"trailblaze.trail.model"},  # a tool reaching up to the trail
        "trailblaze.llm.client": {"trailblaze.screen.hierarchy"},  # a peer of the same tier
        "trailblaze.errors": set(),
    }
    assert package_violations(graph) == [
        "trailblaze.llm.client (llm) -> trailblaze.screen.hierarchy (screen)",
        "trailblaze.tools.call (tools) -> trailblaze.trail.model (trail)",
    ]


def test_the_top_level_holds_only_the_public_face() -> None:
    """New modules go into the package of their layer, not back at the top of `trailblaze/`."""
    assert {p.stem for p in PACKAGE.glob("*.py")} == TOP_LEVEL_MODULES


def test_the_mcp_server_sits_on_top() -> None:
    """`trailblaze mcp` is a thin layer over run orchestration: only the CLI reaches into it."""
    graph = import_graph()
    users = {m for m, deps in graph.items() if any(d.startswith("trailblaze.mcp") for d in deps)}
    assert {m for m in users if not m.startswith("trailblaze.mcp")} == {"trailblaze.cli.mcp_command"}
