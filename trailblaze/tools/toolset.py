"""The one tool model and the one tool set (docs/adr/0050-one-tool-model.md).

A tool is one `ToolDef`: name, params model, kind, description, handler, who it is offered to, the
platforms it works on and its status in Block's Trailblaze. Built-in tools are defined by decorating
their handler with `defines(params, kind, ...)` (docs/contributing-tools.md);
`trailblaze.tools.registry` collects them, and every table the engine reads (params by name,
kinds, read-compat names) is a view of that collection. A project's Python and YAML tools join them
in a `ToolSet`.

```python
from trailblaze.tools.toolset import all_tools

for tool in all_tools():
    print(tool.name, tool.kind, tool.source, sorted(tool.platforms))
```
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from trailblaze.tools.tooldef import (
    ALL_PLATFORMS,
    Kind,
    Offer,
    Outcome,
    Platform,
    RunContext,
    Source,
    Status,
    ToolDef,
    TrailblazeStatus,
    defines,
)

if TYPE_CHECKING:
    from trailblaze.tools.custom import CustomTool

__all__ = [
    "ALL_PLATFORMS",
    "Kind",
    "Offer",
    "Outcome",
    "Platform",
    "RunContext",
    "Source",
    "Status",
    "ToolDef",
    "ToolSet",
    "TrailblazeStatus",
    "all_tools",
    "defines",
    "get_tool",
]


def all_tools() -> tuple[ToolDef, ...]:
    """Every built-in tool's definition, in the order `trailblaze schema` lists them.

    The tool-catalog reference page is generated from this; a project's own tools are added by
    `ToolSet(custom).tools()`.
    """
    from trailblaze.tools.registry import BUILTIN

    return tuple(BUILTIN.values())


def get_tool(name: str) -> ToolDef | None:
    """The built-in tool recorded as `name`, None for any other name."""
    from trailblaze.tools.registry import builtin

    return builtin(name)


class ToolSet:
    """Every tool a run can call: the built-in ones and the project's Python / YAML tools.

    A custom tool keeps its own `run` (it runs nested tools through its `ToolBox`); here it is
    described by the same `ToolDef` fields as a built-in one, with no handler.
    """

    def __init__(self, custom: Iterable[CustomTool] = ()) -> None:
        self._tools: dict[str, ToolDef] = {t.name: t for t in all_tools()}
        for tool in custom:
            self._tools.setdefault(tool.name, _custom_def(tool))

    def get(self, name: str) -> ToolDef | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def tools(self) -> tuple[ToolDef, ...]:
        """Every tool's definition: the built-in ones first, then the custom ones."""
        return tuple(self._tools.values())

    def offered_to(self, who: Offer) -> tuple[ToolDef, ...]:
        """The tools offered as they are to the agent (`model`), on `verify:` steps, or over MCP."""
        return tuple(t for t in self._tools.values() if who in t.offered_to)


def _custom_def(tool: CustomTool) -> ToolDef:
    from trailblaze.tools.yaml_tools import YamlTool

    source: Source = "yaml" if isinstance(tool, YamlTool) else "python"
    offered: frozenset[Offer] = frozenset(("model", "verify")) if tool.verification else frozenset(("model",))
    return ToolDef(
        name=tool.name,
        params=tool.params,
        kind=tool.kind,
        description=tool.description,
        source=source,
        offered_to=offered,
        trailblaze="extension",
    )
