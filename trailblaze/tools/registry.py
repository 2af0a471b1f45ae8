"""Every built-in tool, collected once from the modules that define them, and the views the rest of
the engine reads: params by name (the trail reader), kinds (the agent, mutation testing, facts), the
read-compat names, and the unknown-tool hint.

A module listed in `_MODULES` holds tools as module-level `ToolDef`s (made by `defines`); their
order there is the order `trailblaze schema` and `all_tools()` list them in.
"""

from __future__ import annotations

import difflib
from types import ModuleType

from trailblaze.tools import compat as _compat
from trailblaze.tools import core as _core
from trailblaze.tools.catalog import handlers as _catalog
from trailblaze.tools.catalog import web_tools as _web
from trailblaze.tools.maestro import handler as _maestro
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.probes import handlers as _probes
from trailblaze.tools.probes import logs as _logs
from trailblaze.tools.tooldef import Kind, ToolDef

__all__ = [
    "BUILTIN",
    "READ_COMPAT_TOOLS",
    "RECORDED_TOOL_PARAMS",
    "TOOL_KINDS",
    "builtin",
    "unknown_tool_hint",
]

_MODULES: tuple[ModuleType, ...] = (_core, _compat, _catalog, _web, _probes, _logs, _maestro)


def _collect(modules: tuple[ModuleType, ...]) -> dict[str, ToolDef]:
    found: dict[str, ToolDef] = {}
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, ToolDef) and value.handler is not None:
                other = found.setdefault(value.name, value)
                if other is not value:
                    raise RuntimeError(f"tool {value.name} is defined twice ({module.__name__})")
    return found


BUILTIN: dict[str, ToolDef] = _collect(_MODULES)
"""Every built-in tool by its recorded name."""

RECORDED_TOOL_PARAMS: dict[str, type[RecordedToolParams]] = {
    name: t.params for name, t in BUILTIN.items() if issubclass(t.params, RecordedToolParams)
}
"""Every tool name a trail may record, mapped to the model of its params."""

TOOL_KINDS: dict[str, Kind] = {name: t.kind for name, t in BUILTIN.items()}
"""What each tool counts as for the agent's success validation."""

READ_COMPAT_TOOLS: frozenset[str] = frozenset(n for n, t in BUILTIN.items() if t.trailblaze == "read-only")
"""Names accepted on read so Trailblaze trails replay, but never written by our recorder."""


def builtin(name: str) -> ToolDef | None:
    """The built-in tool with this recorded name, None for any other name."""
    return BUILTIN.get(name)


def unknown_tool_hint(name: str) -> str | None:
    """None for a tool trailblaze can run, else a one-line message with the closest known name."""
    if name in BUILTIN:
        return None
    close = difflib.get_close_matches(name, list(BUILTIN), n=1, cutoff=0.6)
    fix = f"did you mean `{close[0]}`?" if close else "`trailblaze schema` lists the tools it can run"
    return f"unknown tool `{name}`: trailblaze has no implementation for it; {fix}"
