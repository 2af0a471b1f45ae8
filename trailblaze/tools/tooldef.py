"""The one tool model: what a tool is (`ToolDef`) and what it counts as (`Kind`); what its handler
may use of the running tool is `trailblaze.tools.lookup.ToolContext`.

Every tool is one `ToolDef` (docs/adr/0050-one-tool-model.md, 0059-one-tool-set-per-run.md): the
built-in recorded tools — Trailblaze's, the read-compat ones, the catalog, web and probe tools —
made by `defines` on their handler next to (or importing) their params model and collected by
`trailblaze.tools.builtin`; the tools the model calls by ref (`trailblaze.tools.llm_tools`), which
write recorded tools; and a project's Python and YAML tools (`custom`, `yaml_tools`). A run's
`trailblaze.tools.toolset.ToolSet` holds them all.

This module is the bottom of the package: it imports no handler, so handler modules can import it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from trailblaze.tools.kind import Kind

if TYPE_CHECKING:
    from trailblaze.tools.call import ToolCall
    from trailblaze.tools.params import RecordedToolParams

__all__ = [
    "ALL_PLATFORMS",
    "Handler",
    "Kind",
    "Offer",
    "Platform",
    "Source",
    "Status",
    "ToolDef",
    "ToolResult",
    "BlockStatus",
    "defines",
]

Status = Literal[
    "OK", "NOT_FOUND", "AMBIGUOUS", "NOT_VISIBLE", "ERROR", "TIMEOUT", "UNSUPPORTED", "NOT_INSTALLED"
]
"""The first word of every tool result (`trailblaze.tools.execute` explains each)."""

Offer = Literal["model", "verify"]
"""Who a tool is offered to as it is: the model on action steps, and on `verify:` steps (MCP offers
what the model is offered)."""

Platform = Literal["android", "ios", "web"]
ALL_PLATFORMS: frozenset[Platform] = frozenset(("android", "ios", "web"))

Source = Literal["core", "read-compat", "catalog", "web", "probe", "python", "yaml", "model"]
"""Where a tool comes from: the engine's own recorded tools, Trailblaze's older forms, Trailblaze's
catalog, the web tools, the app-state probes, a project's Python / YAML tools, or the tools only the
model calls (by ref, or as a recorded tool is), which write recorded tools."""

BlockStatus = Literal["same", "read-only", "extension"]
"""`same`: Block's Trailblaze has the tool with these params (recordings move both ways);
`read-only`: older Trailblaze recordings are read and replayed, our recorder never writes it;
`extension`: trailblaze's own, Block's Trailblaze does not know it."""

Handler = Callable[[Any, Any], "ToolResult"]
"""`handler(ctx, params) -> ToolResult`: how every tool runs — a built-in one, a project's Python or
YAML tool and the tools the model calls — with its validated params on the run's
`trailblaze.tools.lookup.ToolContext` (docs/adr/0074-one-way-to-call-a-tool.md)."""


@dataclass(frozen=True)
class ToolDef:
    """One tool: everything the reader, the engine, the agent, MCP and the docs need of it."""

    name: str
    """The recorded name (`tapOnElementBySelector`), the key of `{name: params}` in a trail."""
    params: type[BaseModel]
    """The params model; validated when a trail is read (strict, unknown keys refused)."""
    kind: Kind
    description: str
    """What it does, in one line (the params model's docstring for built-in tools)."""
    source: Source
    handler: Handler | None = None
    """Runs the tool: `(ctx, params) -> ToolResult` for every tool (a model tool's result lists the
    recorded tools it ran, `ToolResult.recorded`)."""
    offered_to: frozenset[Offer] = frozenset()
    """Who is offered the tool as it is; the model reaches the other recorded tools through the
    model tools (`trailblaze.tools.llm_tools`), which record them."""
    platforms: frozenset[Platform] = ALL_PLATFORMS
    """Where it can do its job; elsewhere it answers UNSUPPORTED with the reason."""
    unsupported: str = ""
    """The reason a run answers UNSUPPORTED with, without calling the handler, on a device whose
    platform is not in `platforms` (`{platform}`: the device's); empty: the handler decides."""
    block_status: BlockStatus = "same"
    records: tuple[str, ...] = ()
    """A model tool's: the recorded tools a call writes into the trail (none: never recorded)."""
    origin: str = ""
    """A Python / YAML tool's: where it is defined (`trails/tools/demo.py:12`), for messages."""

    def __call__(self, run: Any, params: Any) -> ToolResult:
        """Run the handler (so a `@defines`-decorated function stays callable)."""
        if self.handler is None:
            raise TypeError(f"tool {self.name} has no handler")
        return self.handler(run, params)


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool: a status word plus a short explanation. Every handler answers one
    (its `kind` is the tool's: the run sets it)."""

    status: Status
    message: str
    kind: Kind = "other"
    no_change: bool = False
    """An OK gesture or key press after which the settled screen was the same as before it."""
    ai: bool = False
    """The tool asked the LLM (`rememberText`, `assertWithAi`, …): an AI step even on replay."""
    in_trail: bool = False
    """The failure lies in the trail itself (a script that threw, a pattern too slow to match), not in
    what the screen shows: the fix is in the file, so no screen candidates and no self-heal."""
    asserted: bool = False
    """With `in_trail`: the trail's own assertion over its values was false (Maestro's `assertTrue`):
    the message (the expression and its value) is the whole failure."""
    recorded: tuple[ToolCall, ...] = ()
    """A model tool's: the recorded-form calls that ran (written to the trail only when `ok`)."""
    objective: Literal["IN_PROGRESS", "COMPLETED", "FAILED"] | None = None
    """`objectiveStatus`'s: what the model says of the step."""
    ref_not_found: bool = False
    """A model tool's: the model named a ref that is not on the current screen."""

    @property
    def ok(self) -> bool:
        return self.status == "OK"

    def __str__(self) -> str:
        return f"{self.status} {self.message}"


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def defines(
    params: type[RecordedToolParams],
    kind: Kind,
    *,
    source: Source,
    offered_to: frozenset[Offer] = frozenset(),
    platforms: frozenset[Platform] = ALL_PLATFORMS,
    block_status: BlockStatus = "same",
    unsupported: str = "",
) -> Callable[[Handler], ToolDef]:
    """Decorate a handler to make it the one definition of the tool whose params are `params`.

    The name is `params.tool_name`, the description the model's docstring. The decorated name is
    the `ToolDef` (still callable as the handler); the registry finds it among the module's names.
    """

    def wrap(handler: Handler) -> ToolDef:
        return ToolDef(
            name=params.tool_name,
            params=params,
            kind=kind,
            description=_one_line(params.__doc__) or params.tool_name,
            source=source,
            handler=handler,
            offered_to=offered_to,
            platforms=platforms,
            unsupported=unsupported,
            block_status=block_status,
        )

    return wrap
