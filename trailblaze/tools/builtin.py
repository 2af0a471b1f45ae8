"""Every built-in recorded tool's definition (`ToolDef`), by name, and the read-compat names; the
index's views that need no definition — names, params by name, kinds — are
`trailblaze.tools.registry`'s (re-exported here). Looking a tool up by name in a run is the
`ToolSet`'s job (`trailblaze.tools.toolset`).

The generated index (`trailblaze.tools._index`, written by `python -m trailblaze.tools.make_index`
from the `defines` decorators) names each tool's params model and its definition by module and
attribute; a module is imported only when a tool it defines is asked for, so reading a trail builds
the params of the tools it names and no more (start-up, issue 39; docs/adr/0063-start-up.md). Its
order is the order `trailblaze schema` and `all_tools()` list them in; tests/toolset/test_tool_index.py
fails when it is stale.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from trailblaze.tools._index import TOOLS
from trailblaze.tools.registry import BUILTIN_NAMES, RECORDED_TOOL_PARAMS, TOOL_KINDS, resolve_ref
from trailblaze.tools.tooldef import ToolDef

__all__ = [
    "BUILTIN_NAMES",
    "READ_COMPAT_TOOLS",
    "RECORDED_TOOL_PARAMS",
    "TOOL_KINDS",
    "builtin_defs",
    "builtin_tool",
    "unknown_tool_hint",
]


_DEFS = {name: ref for name, _, _, ref in TOOLS}


def builtin_tool(name: str) -> ToolDef | None:
    """The definition of the built-in tool recorded as `name` (its module imported), None for any
    other name."""
    ref = _DEFS.get(name)
    if ref is None:
        return None
    tool = resolve_ref(ref)
    if not isinstance(tool, ToolDef) or tool.name != name:
        raise RuntimeError(f"trailblaze.tools.builtin: {ref} is not the definition of {name}")
    return tool


@functools.cache
def builtin_defs() -> tuple[ToolDef, ...]:
    """Every built-in recorded tool (every module that defines one imported), in the order
    `trailblaze schema` lists them."""
    return tuple(t for name in BUILTIN_NAMES if (t := builtin_tool(name)) is not None)


def _collect(modules: Iterable[ModuleType]) -> tuple[ToolDef, ...]:
    """The tools `modules` define, in order (what the index says; a name defined twice is an error)."""
    found: list[ToolDef] = []
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, ToolDef) and value.handler is not None:
                if any(t.name == value.name and t is not value for t in found):
                    raise RuntimeError(f"tool {value.name} is defined twice ({module.__name__})")
                if value not in found:
                    found.append(value)
    return tuple(found)


def _read_compat() -> frozenset[str]:
    return frozenset(t.name for t in builtin_defs() if t.block_status == "read-only")


if TYPE_CHECKING:
    READ_COMPAT_TOOLS: frozenset[str]
    """Names accepted on read so Trailblaze trails replay, but never written by our recorder."""


def __getattr__(name: str) -> Any:
    if name == "READ_COMPAT_TOOLS":  # every definition has to be imported to know
        return _read_compat()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def unknown_tool_hint(name: str, known: Iterable[str] = BUILTIN_NAMES, *, project: bool = False) -> str:
    """The one-line message for a tool name none of `known` is, with the closest one; `project`:
    the project's tools were looked up too, so say where to define one."""
    import difflib  # for a did-you-mean only: not imported at start-up

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
