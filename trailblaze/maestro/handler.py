"""The `mobile_maestro` tool: one definition in the tool model (trailblaze.tools.toolset)."""

from __future__ import annotations

from trailblaze.maestro.params import MobileMaestro
from trailblaze.maestro.run import run_commands
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.tooldef import ToolResult, defines

__all__ = ["mobile_maestro"]


@defines(MobileMaestro, "action", source="catalog", platforms=frozenset(("android", "ios")))
def mobile_maestro(run: ToolContext, p: MobileMaestro) -> ToolResult:
    return run_commands(run, list(p.commands))
