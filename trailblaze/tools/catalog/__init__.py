"""Trailblaze's catalog tools beyond the core recorded set (docs/trailblaze-catalog.md), one module per
family, each tool's params beside its handler: `elements` (one element, by ref, selector or point),
`app` (the app, text fields, clipboard, network), `screen` (reading and waiting on the screen),
`values` (comparisons, arithmetic, memory, LLM questions) and the `web_*` tools. Names and params are
Trailblaze's; `trailblaze.tools.builtin` collects the definitions and `ToolSet.run` runs them.
"""

from __future__ import annotations

from collections.abc import Callable

from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ALL_PLATFORMS, Handler, Kind, Platform, ToolDef, defines

__all__ = ["ANDROID", "catalog_tool"]

ANDROID: frozenset[Platform] = frozenset(("android",))


def catalog_tool(
    params: type[RecordedToolParams], kind: Kind, *, platforms: frozenset[Platform] = ALL_PLATFORMS
) -> Callable[[Handler], ToolDef]:
    """`defines` for a Trailblaze catalog tool (source `catalog`)."""
    return defines(params, kind, source="catalog", platforms=platforms)
