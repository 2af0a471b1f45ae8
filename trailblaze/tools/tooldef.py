"""The one tool model: what a tool is (`ToolDef`), what it counts as (`Kind`), and what its handler
may use of the running tool (`RunContext`).

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
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel

if TYPE_CHECKING:
    from pathlib import Path

    from trailblaze.device.driver import Driver
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.screen.hierarchy import Node
    from trailblaze.screen.selector import NodeSelector
    from trailblaze.tools.memory import Memory
    from trailblaze.tools.params import RecordedToolParams

__all__ = [
    "ALL_PLATFORMS",
    "Handler",
    "Kind",
    "Offer",
    "StatusMessage",
    "Platform",
    "RunContext",
    "Source",
    "Status",
    "ToolDef",
    "BlockStatus",
    "defines",
]

Kind = Literal["action", "assertion", "other"]
"""What a tool counts as for the agent's success check, mutation testing and the report."""

Status = Literal[
    "OK", "NOT_FOUND", "AMBIGUOUS", "NOT_VISIBLE", "ERROR", "TIMEOUT", "UNSUPPORTED", "NOT_INSTALLED"
]
"""The first word of every tool result (`trailblaze.tools.execute` explains each)."""

StatusMessage = tuple[Any, str]
"""What a handler answers: `(status, message)`; the status is a `Status` word."""

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

Handler = Callable[[Any, Any], StatusMessage]
"""`handler(run, params)`: runs a built-in tool with its validated params on a `RunContext`."""


class RunContext(Protocol):
    """What a handler may use of the running tool (`trailblaze.tools.lookup.HandlerContext` provides it).

    One definition for every handler: the core, catalog, web and probe tools all take it.
    """

    session: DeviceSession
    memory: Memory
    llm: Callable[[], LLMClient] | None
    """Builds the run's LLM client, for the tools that ask one on every run; None without one."""
    ai: bool
    """Set by a tool that asked the LLM (replay reports it as an AI step)."""
    in_trail: bool
    """Set by a tool whose failure lies in the trail's own code (a script that threw), not the screen."""
    asserted: bool
    """Set with `in_trail` by a false assertion over the trail's own values (Maestro's `assertTrue`):
    its message says it all, with no hint to fix the trail."""
    folder: Path | None
    """The trail's folder: relative paths in its tools are read from there (None: the working directory)."""
    secret_inputs: bool
    """A param came from a secret: results are shown as counts and verdicts, never as values."""
    scrolled: str
    """Set by a lookup that scrolled its target into view (`after scrolling messages 1 swipe into
    view`): the result's message ends with it."""

    @property
    def platform(self) -> str: ...

    def act(self, action: Callable[[Driver], Any], point: tuple[float, float] | None = None) -> None: ...

    def find_one(self, selector: NodeSelector) -> tuple[Node | None, StatusMessage]: ...

    def tap_node(self, node: Node, long_press: bool) -> StatusMessage: ...

    def assert_visible(
        self, selector: NodeSelector, expected: str | None, timeout_ms: int | None
    ) -> StatusMessage: ...

    def maestro_text(
        self, text: str, *, ident: str | None = None, index: int | None = None
    ) -> NodeSelector: ...

    def describe(self, node: Node) -> str: ...


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
    handler: Callable[..., Any] | None = None
    """Runs the tool. By `source`: a built-in recorded tool's is a `Handler`, `(run, params) ->
    StatusMessage`; a Python / YAML tool's runs it, `(session, call, memory, tools) -> ToolResult`;
    a model tool's, `(ctx, args) -> ModelCallResult`, runs the recorded tools it writes."""
    offered_to: frozenset[Offer] = frozenset()
    """Who is offered the tool as it is; the model reaches the other recorded tools through the
    model tools (`trailblaze.tools.llm_tools`), which record them."""
    platforms: frozenset[Platform] = ALL_PLATFORMS
    """Where it can do its job; elsewhere it answers UNSUPPORTED with the reason."""
    block_status: BlockStatus = "same"
    records: tuple[str, ...] = ()
    """A model tool's: the recorded tools a call writes into the trail (none: never recorded)."""
    origin: str = ""
    """A Python / YAML tool's: where it is defined (`trails/tools/demo.py:12`), for messages."""

    def __call__(self, run: Any, params: Any) -> Any:
        """Run the handler (so a `@defines`-decorated function stays callable)."""
        if self.handler is None:
            raise TypeError(f"tool {self.name} has no handler")
        return self.handler(run, params)


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
            block_status=block_status,
        )

    return wrap
