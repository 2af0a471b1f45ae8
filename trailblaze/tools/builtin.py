"""Every built-in recorded tool, collected once from the modules that define them, and the views the
trail reader and the engine read before a run has its `ToolSet`: params by name (the trail reader),
kinds (the agent, mutation testing, facts) and the read-compat names. Looking a tool up by name is
the `ToolSet`'s job (`trailblaze.tools.toolset`).

A module listed in `_MODULES` holds tools as module-level `ToolDef`s (made by `defines`); their
order there is the order `trailblaze schema` and `all_tools()` list them in.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
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

__all__ = ["BUILTIN_TOOLS", "READ_COMPAT_TOOLS", "RECORDED_TOOL_PARAMS", "TOOL_KINDS", "unknown_tool_hint"]

_MODULES: tuple[ModuleType, ...] = (_core, _compat, _catalog, _web, _probes, _logs, _maestro)


def _collect(modules: tuple[ModuleType, ...]) -> tuple[ToolDef, ...]:
    found: list[ToolDef] = []
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, ToolDef) and value.handler is not None:
                if any(t.name == value.name and t is not value for t in found):
                    raise RuntimeError(f"tool {value.name} is defined twice ({module.__name__})")
                if value not in found:
                    found.append(value)
    return tuple(found)


BUILTIN_TOOLS: tuple[ToolDef, ...] = _collect(_MODULES)
"""Every built-in recorded tool, in the order `trailblaze schema` lists them."""

RECORDED_TOOL_PARAMS: dict[str, type[RecordedToolParams]] = {
    t.name: t.params for t in BUILTIN_TOOLS if issubclass(t.params, RecordedToolParams)
}
"""Every tool name a trail may record, mapped to the model of its params."""

TOOL_KINDS: dict[str, Kind] = {t.name: t.kind for t in BUILTIN_TOOLS}
"""What each tool counts as for the agent's success validation."""

READ_COMPAT_TOOLS: frozenset[str] = frozenset(t.name for t in BUILTIN_TOOLS if t.block_status == "read-only")
"""Names accepted on read so Trailblaze trails replay, but never written by our recorder."""


def unknown_tool_hint(name: str, known: Iterable[str] = RECORDED_TOOL_PARAMS, *, project: bool = False) -> str:
    """The one-line message for a tool name none of `known` is, with the closest one; `project`:
    the project's tools were looked up too, so say where to define one."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    if close:
        fix = f"did you mean `{close[0]}`?"
    elif project:
        fix = (
            "define it in the tools folder (a Python `@trailblaze.tool` or a `*.tool.yaml`); "
            "`trailblaze schema` lists the built-in tools"
        )
    else:
        fix = "`trailblaze schema` lists the tools it can run"
    return f"unknown tool `{name}`: trailblaze has no implementation for it; {fix}"
