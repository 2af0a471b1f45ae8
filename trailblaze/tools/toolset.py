"""The one tool model and the one tool set (docs/adr/0050-one-tool-model.md,
docs/adr/0059-one-tool-set-per-run.md).

A tool is one `ToolDef`: name, params model, kind, description, handler, who it is offered to, the
platforms it works on and its status in Block's Trailblaze. Built-in tools are defined by decorating
their handler with `defines(params, kind, ...)` (docs/contributing-tools.md) and collected by
`trailblaze.tools.builtin`; the tools the model calls by ref are defined by `offers` in
`trailblaze.tools.llm_tools`. A run has one `ToolSet`: the built-in tools, the model's, the
project's Python and YAML tools and `askUser`. The engine, `run_recorded_tool`, the agent, MCP and
`trailblaze tool` all ask it.

```python
from trailblaze.tools.toolset import all_tools

for tool in all_tools():
    print(tool.name, tool.kind, tool.source, sorted(tool.platforms))
```
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from trailblaze.errors import UsageError
from trailblaze.tools.builtin import BUILTIN_NAMES, builtin_defs, builtin_tool, unknown_tool_hint
from trailblaze.tools.tooldef import (
    ALL_PLATFORMS,
    BlockStatus,
    Kind,
    Offer,
    Platform,
    Source,
    Status,
    ToolDef,
    ToolResult,
    defines,
)

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient, ToolSpec
    from trailblaze.tools.call import ToolCall
    from trailblaze.tools.lookup import ToolContext
    from trailblaze.tools.memory import Memory

__all__ = [
    "ALL_PLATFORMS",
    "BlockStatus",
    "Kind",
    "Offer",
    "Platform",
    "Source",
    "Status",
    "ToolDef",
    "ToolResult",
    "ToolSet",
    "all_tools",
    "builtin_tools",
    "defines",
    "get_tool",
]

_CUSTOM: tuple[Source, ...] = ("python", "yaml")


def all_tools() -> tuple[ToolDef, ...]:
    """Every built-in tool's definition, in the order `trailblaze schema` lists them.

    The tool-catalog reference page is generated from this; a project's own tools are added by
    `ToolSet(custom).tools()`.
    """
    return builtin_defs()


def get_tool(name: str) -> ToolDef | None:
    """The built-in tool recorded as `name`, None for any other name."""
    return builtin_tools().get(name)


@functools.cache
def builtin_tools() -> ToolSet:
    """The tool set of a run with no project tools looked up (its unknown-tool hint says so)."""
    return ToolSet(project=False)


class ToolSet:
    """Every tool a run can call, by name: built once per trail, asked by everything that runs a tool.

    Two names spaces, because a trail and the model name tools differently: `get` finds a recorded
    tool (built in, or the project's Python / YAML tool) the way replay runs it; `for_model` lists
    what the model is offered (the model tools, the project's tools the trail's `config.tools`
    names, `askUser`) and `call_for_model` runs one of them.
    """

    def __init__(
        self,
        custom: Iterable[ToolDef] = (),
        *,
        offer: Iterable[str] = (),
        model_only: Iterable[ToolDef] = (),
        project: bool = True,
    ) -> None:
        """`custom`: the project's tools (a name taken twice is a `UsageError`); `offer`: the ones
        the model is offered (unknown names are skipped: preflight says so); `model_only`: tools
        only the model calls (`askUser`); `project`: whether project tools were looked up, for the
        unknown-tool hint.

        A built-in tool's module, and the model's tools, are imported when first asked for: a replay
        imports the modules of the tools its trails name (start-up, docs/adr/0063-start-up.md)."""
        self._custom: dict[str, ToolDef] = {}
        self._offered: dict[str, ToolDef] | None = None
        """The model's tools, made on first use (`_model`)."""
        self._project = project
        self._specs: dict[bool, tuple[ToolSpec, ...]] = {}
        """`specs()` by `verify`: pydantic builds a JSON schema in ~1 ms a tool, and the agent asks
        for the same definitions at every step."""
        for tool in custom:
            self.add(tool)
        for name in offer:
            found = self._custom.get(name)
            if found is not None and found.source in _CUSTOM and "model" in found.offered_to:
                self.offer(_for_model(found, self))
        for tool in model_only:
            self.offer(tool)

    # --- recorded tools: what a trail holds and replay runs ---------------------------------------

    def add(self, tool: ToolDef) -> None:
        """Add a project tool; a name taken by a built-in or another definition is a `UsageError`."""
        if tool.name in BUILTIN_NAMES or tool.name in self._model() or tool.name == "askUser":
            raise UsageError(
                f"{tool.origin}: `{tool.name}` is a built-in tool; give the custom tool another name"
            )
        other = self._custom.get(tool.name)
        if other is not None and other.origin != tool.origin:
            raise UsageError(
                f"{tool.origin}: tool `{tool.name}` is already defined at {other.origin}; rename one of them"
            )
        self._custom[tool.name] = tool

    def get(self, name: str) -> ToolDef | None:
        """The recorded tool `name` (built in or the project's), None for any other name."""
        return self._custom.get(name) or builtin_tool(name)

    def __contains__(self, name: object) -> bool:
        return name in self._custom or name in BUILTIN_NAMES

    def tools(self) -> tuple[ToolDef, ...]:
        """Every recorded tool's definition: the built-in ones first, then the project's."""
        return (*builtin_defs(), *self._custom.values())

    def custom(self) -> tuple[ToolDef, ...]:
        """The project's Python and YAML tools."""
        return tuple(self._custom.values())

    def __iter__(self) -> Iterator[ToolDef]:
        return iter(self.custom())

    def __len__(self) -> int:
        return len(self.custom())

    def names(self) -> list[str]:
        """The project's tools' names, sorted."""
        return sorted(t.name for t in self.custom())

    def offered_to(self, who: Offer) -> tuple[ToolDef, ...]:
        """The recorded tools offered as they are to the model (`model`) or on `verify:` steps."""
        return tuple(t for t in self.tools() if who in t.offered_to)

    def unknown_hint(self, name: str) -> str | None:
        """None for a tool this set can run, else a one-line message with the closest known name."""
        if name in self:
            return None
        return unknown_tool_hint(name, (*BUILTIN_NAMES, *self._custom), project=self._project)

    def run(
        self,
        session: DeviceSession,
        call: ToolCall,
        memory: Memory,
        *,
        llm: Callable[[], LLMClient] | None = None,
        folder: Path | None = None,
        run_trail: Callable[[ToolCall], ToolResult] | None = None,
    ) -> ToolResult:
        """Run one recorded-form call, whoever defined the tool: the one door every recorded tool
        runs through (replay, the agent's tools, a custom tool's nested calls, `trailblaze tool`,
        MCP). An unknown name is an ERROR result with the closest name.

        The call's `{{templates}}` are filled from `memory` (the call itself is left untouched), its
        params validated against the tool's model, the tool's `platforms` checked, and its handler
        called as every handler is, `handler(ctx, params) -> ToolResult`, on a `ToolContext`.

        Args:
            session: The device session (settle + cache discipline).
            call: The tool as recorded.
            memory: Variables, args and secrets; `rememberTextBySelector` writes into it.
            llm: Builds an LLM client for the catalog tools that ask one on every run (`rememberText`,
                `assertWithAi`, …); without it they answer `UNSUPPORTED`.
            folder: The folder of the trail the tool belongs to: relative paths in it (`web_navigate`'s
                file URL) are read from there, as `runTrail` paths are; None: the working directory.
            run_trail: How a `runTrail` call runs its trail, given by the step engine (none: it
                cannot, outside a trail).

        Returns:
            A `ToolResult`; trail-level failures are non-OK results (`trailblaze.tools.execute`
            lists the status words).

        Raises:
            DeviceError: The device failed (unreachable, protocol error).
            UsageError: A template names an unknown variable.
        """
        from trailblaze.tools.runner import run_handler  # the device layer: imported when a tool runs

        tool = self.get(call.name)
        if tool is None or tool.handler is None:
            return _error(self.unknown_hint(call.name) or f"unknown tool {call.name!r}")
        return run_handler(
            tool, session, call, memory, llm=llm, folder=folder, run_trail=run_trail,
            run_other=lambda other: self.run(session, other, memory),
        )  # fmt: skip

    # --- the model's tools -------------------------------------------------------------------------

    def offer(self, tool: ToolDef) -> None:
        """Offer the model one more tool (or replace the one of that name)."""
        self._model()[tool.name] = tool
        self._specs.clear()

    def _model(self) -> dict[str, ToolDef]:
        """The tools the model is offered, by name: the model's own, then what `offer` added."""
        if self._offered is None:
            from trailblaze.tools.llm_tools import MODEL_TOOLS

            self._offered = {t.name: t for t in MODEL_TOOLS}
        return self._offered

    def for_model(self, *, verify: bool = False) -> tuple[ToolDef, ...]:
        """The tools offered on an action step, or on a `verify:` step (assertions only)."""
        return tuple(t for t in self._model().values() if "verify" in t.offered_to or not verify)

    def model_names(self, *, verify: bool = False) -> list[str]:
        return [t.name for t in self.for_model(verify=verify)]

    def specs(self, *, verify: bool = False) -> tuple[ToolSpec, ...]:
        """The tool definitions sent to the model (built once per set and `verify`)."""
        from trailblaze.llm.client import ToolSpec
        from trailblaze.tools.llm_tools import params_schema

        specs = self._specs.get(verify)
        if specs is None:
            specs = self._specs[verify] = tuple(
                ToolSpec(name=t.name, description=t.description, input_schema=params_schema(t.params))
                for t in self.for_model(verify=verify)
            )
        return specs

    def call_for_model(
        self, name: str, raw: Mapping[str, Any], ctx: ToolContext, *, verify: bool = False
    ) -> ToolResult:
        """Validate the model's arguments and run the tool, `handler(ctx, args) -> ToolResult` like
        every tool (the recorded tools it runs go through `run`); bad input is an ERROR result."""
        from trailblaze.tools.llm_tools import argument_problems

        tool = self._model().get(name)
        if tool is None or tool.handler is None or not ("verify" in tool.offered_to or not verify):
            offered = ", ".join(self.model_names(verify=verify))
            return _error(f"no tool `{name}` here; call one of: {offered}")
        try:
            args = tool.params.model_validate(dict(raw))
        except ValidationError as exc:
            return _error(f"invalid arguments for `{name}`: {argument_problems(exc)}")
        if ctx.nested is None:  # the recorded tools a model tool writes run through this set, as replay's do
            ctx.nested = lambda call: self.run(ctx.session, call, ctx.memory)
        result: ToolResult = tool.handler(ctx, args)
        return result


def _error(message: str, kind: Kind = "other") -> ToolResult:
    return ToolResult("ERROR", message, kind)


class _Reasoning(BaseModel):
    model_config = ConfigDict(defer_build=True)  # only its field is used, by a project's tool for the model

    reasoning: str | None = Field(
        default=None, description="Brief: what you see, what is done, why this call is next."
    )


def _for_model(custom: ToolDef, tools: ToolSet) -> ToolDef:
    """A project tool as the model sees it, like the built-in ones: its params plus `reasoning`;
    the call is recorded by the tool's name."""
    from trailblaze.tools.call import ToolCall

    params: type[BaseModel] = create_model(
        f"{custom.name}_args",
        __base__=custom.params,
        reasoning=(str | None, _Reasoning.model_fields["reasoning"]),
    )

    def run(ctx: ToolContext, args: Any) -> ToolResult:
        given = args.model_dump(mode="json", exclude_unset=True, exclude={"reasoning"})
        # the recording keeps templates: a secret value the model typed becomes `{{name}}` again
        call = ToolCall(name=custom.name, params=ctx.memory.redact(given))
        try:
            result = tools.run(ctx.session, call, ctx.memory)
        except UsageError as exc:  # e.g. `{{name}}` the run does not know: the model can fix it
            return _error(exc.message, custom.kind)
        return replace(result, recorded=(call,))

    return ToolDef(
        name=custom.name,
        params=params,
        kind=custom.kind,
        description=custom.description,
        source="model",
        handler=run,
        offered_to=custom.offered_to,
        block_status="extension",
        records=(custom.name,),
        origin=custom.origin,
    )
