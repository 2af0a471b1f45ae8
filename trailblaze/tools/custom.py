"""Your own tools: Python functions (`@trailblaze.tool`), YAML composed tools, and the box they join.

A custom tool is recorded by its name with its params (`demo_signIn: {email: …, password:
'{{password}}'}`), never by what it expands to; replay calls the same tool again. Inside, it runs
other tools in their recorded form through `trailblaze.tools.execute.run_recorded_tool`, so a custom tool
behaves on the device exactly like the tools it is made of. See docs/adr/0020-custom-tools.md.

```python
import trailblaze

@trailblaze.tool
def demo_signIn(ctx: trailblaze.ToolContext, email: str, password: str) -> str:
    \"\"\"Sign in on the demo app's login screen.\"\"\"
    ctx.run("inputText", {"text": email})
    ...
```
"""

from __future__ import annotations

import contextvars
import difflib
import inspect
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from trailblaze.errors import TrailblazeError, UsageError
from trailblaze.tools.call import ToolCall
from trailblaze.tools.execute import ToolResult, run_recorded_tool
from trailblaze.tools.llm_tools import DEFAULT_TOOLS, Tool, ToolOutcome
from trailblaze.tools.registry import RECORDED_TOOL_PARAMS
from trailblaze.tools.tooldef import Kind

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.tools.llm_tools import CallContext, LLMTool
    from trailblaze.tools.memory import Memory

__all__ = [
    "CustomTool",
    "PythonTool",
    "ToolBox",
    "ToolContext",
    "params_model",
    "python_tool",
    "tool",
]

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
"""Tool names: letters, digits and `_` (model APIs reject dots), as Trailblaze names them."""
MAX_DEPTH = 10
_IGNORED = ("reason", "reasoning")
"""Annotations every recorded tool may carry; a custom tool's function never sees them."""
_LLM_ONLY = frozenset(t.name for t in DEFAULT_TOOLS) | {"askUser"}
_depth: contextvars.ContextVar[int] = contextvars.ContextVar("trailblaze_tool_depth", default=0)


class CustomTool(Protocol):
    """A tool that is not built in: what the registry, the agent, preflight and replay need of it."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def params(self) -> type[BaseModel]:
        """Its params (the recorded keys); strict about unknown keys, lenient about `480` vs `"480"`."""
        ...

    @property
    def kind(self) -> Kind: ...

    @property
    def verification(self) -> bool:
        """Offered on `verify:` steps too."""
        ...

    @property
    def origin(self) -> str:
        """Where it is defined (`trails/tools/demo.py:12`), for messages."""
        ...

    def run(self, session: DeviceSession, call: ToolCall, memory: Memory, tools: ToolBox) -> ToolResult: ...


class ToolBox:
    """The custom tools of a run, by name, on top of the built-in recorded tools.

    Everything that looks a tool up by name — replay (`run_recorded_tool`), preflight and
    `validate`, the agent's offered tools — asks one box, so they cannot disagree.
    """

    def __init__(self, tools: Iterable[CustomTool] = ()) -> None:
        self._tools: dict[str, CustomTool] = {}
        for t in tools:
            self.add(t)

    def add(self, custom: CustomTool) -> None:
        """Register a tool; a name taken by a built-in or another definition is a `UsageError`."""
        name = custom.name
        if name in RECORDED_TOOL_PARAMS or name in _LLM_ONLY:
            raise UsageError(
                f"{custom.origin}: `{name}` is a built-in tool; give the custom tool another name"
            )
        other = self._tools.get(name)
        if other is not None and other.origin != custom.origin:
            raise UsageError(
                f"{custom.origin}: tool `{name}` is already defined at {other.origin}; rename one of them"
            )
        self._tools[name] = custom

    def get(self, name: str) -> CustomTool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[CustomTool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def knows(self, name: str) -> bool:
        """A built-in recorded tool or one of these."""
        return name in RECORDED_TOOL_PARAMS or name in self._tools

    def unknown_hint(self, name: str) -> str | None:
        """None for a tool this box can run, else a one-line message with the closest known name."""
        if self.knows(name):
            return None
        close = difflib.get_close_matches(name, [*RECORDED_TOOL_PARAMS, *self._tools], n=1, cutoff=0.6)
        fix = (
            f"did you mean `{close[0]}`?"
            if close
            else "define it in the tools folder (a Python `@trailblaze.tool` or a `*.tool.yaml`); "
            "`trailblaze schema` lists the built-in tools"
        )
        return f"unknown tool `{name}`: trailblaze has no implementation for it; {fix}"

    def llm_tools(self, names: Iterable[str]) -> list[LLMTool]:
        """The named tools as tools the agent is offered (unknown names are skipped: preflight says so)."""
        found = [t for n in names if (t := self._tools.get(n)) is not None]
        return [_offered(t, self) for t in found if getattr(t, "surface", True)]


# --- running nested tools -----------------------------------------------------------------------------


def run_nested(session: DeviceSession, call: ToolCall, memory: Memory, tools: ToolBox) -> ToolResult:
    """One tool inside a custom tool; like replay, a target hidden by the keyboard is tried again
    once after hiding it."""
    result = run_recorded_tool(session, call, memory, tools)
    if result.status in ("NOT_FOUND", "NOT_VISIBLE") and session.screen().keyboard_shown:
        run_recorded_tool(session, ToolCall(name="hideKeyboard"), memory, tools)
        result = run_recorded_tool(session, call, memory, tools)
    return result


class _NestedFailed(Exception):
    def __init__(self, call: ToolCall, result: ToolResult) -> None:
        super().__init__(str(result))
        self.call, self.result = call, result


@dataclass
class ToolContext:
    """What a Python tool receives first: the device, the run's memory and the other tools."""

    session: DeviceSession
    memory: Memory
    tools: ToolBox
    name: str
    """The name of the tool being run."""

    @property
    def platform(self) -> str:
        """`android` or `ios`."""
        return self.session.info.platform

    def run(self, name: str, params: Mapping[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        """Run another tool in its recorded form, e.g. `ctx.run("inputText", text=email)`.

        Returns the tool's OK result; a failed tool fails this tool with that tool's status and
        message (no need to check). `{{templates}}` in the params are filled from memory.
        """
        call = ToolCall(name=name, params={**(params or {}), **kwargs})
        result = run_nested(self.session, call, self.memory, self.tools)
        if not result.ok:
            raise _NestedFailed(call, result)
        return result

    def remember(self, name: str, value: str) -> None:
        """Store a value for later `{{name}}` templates."""
        self.memory.remember(name, value)


# --- Python tools -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PythonTool:
    """A Python function made a tool by `@trailblaze.tool`."""

    name: str
    description: str
    params: type[BaseModel]
    fn: Callable[..., Any]
    origin: str
    kind: Kind = "action"
    verification: bool = False

    def run(self, session: DeviceSession, call: ToolCall, memory: Memory, tools: ToolBox) -> ToolResult:
        args = _validated(self, call, memory)
        if isinstance(args, ToolResult):
            return args
        ctx = ToolContext(session, memory, tools, self.name)
        token = _depth.set(_depth.get() + 1)
        try:
            if _depth.get() > MAX_DEPTH:
                return _result(
                    "ERROR",
                    f"{self.name}: tools nest more than {MAX_DEPTH} deep; does it call itself?",
                    self.kind,
                )
            out = self.fn(ctx, **{k: getattr(args, k) for k in type(args).model_fields})
        except _NestedFailed as failed:
            return _result(
                failed.result.status,
                memory.redact(f"{self.name}: {failed.call.name}: {failed.result.message}"),
                self.kind,
            )
        except TrailblazeError:
            raise  # the device broke, or a template has no value: not this tool's failure
        except Exception as exc:
            _show_traceback()
            first = (str(exc).strip().splitlines() or [""])[0]
            return _result(
                "ERROR",
                memory.redact(f"{self.name} raised {type(exc).__name__}: {first}".rstrip(": ")),
                self.kind,
            )
        finally:
            _depth.reset(token)
        if isinstance(out, ToolResult):
            return out
        message = f"{self.name} done" if out is None else str(out)
        return _result("OK", memory.redact(message), self.kind)


def _result(status: str, message: str, kind: Kind) -> ToolResult:
    return ToolResult(status, message, kind)  # type: ignore[arg-type]


def _validated(custom: CustomTool, call: ToolCall, memory: Memory) -> BaseModel | ToolResult:
    params = {k: v for k, v in call.params.items() if k not in _IGNORED}
    values = memory.interpolate(params, where=f"{custom.name} params")
    try:
        return custom.params.model_validate(values)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or custom.name
        return _result(
            "ERROR", memory.redact(f"bad params for {custom.name}: {where}: {first['msg']}"), custom.kind
        )


def _show_traceback() -> None:
    """Under `--debug` (TRAILBLAZE_DEBUG=1) the tool's traceback goes to stderr, scrubbed of secrets."""
    if os.environ.get("TRAILBLAZE_DEBUG", "") in ("", "0", "false"):
        return
    from trailblaze.common.redact import scrub

    sys.stderr.write(scrub(traceback.format_exc()))


_PARAMS_CONFIG = ConfigDict(extra="forbid", coerce_numbers_to_str=True, frozen=True)


def params_model(name: str, fields: Mapping[str, tuple[Any, Any]]) -> type[BaseModel]:
    """A custom tool's params model: unknown keys refused, a number where text is expected read as
    text (Trailblaze reads `text: 480` as "480")."""
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        f"{name}_params", __config__=_PARAMS_CONFIG, **fields
    )
    return model


def _arg_docs(doc: str) -> dict[str, str]:
    """`name: text` lines of a Google-style `Args:` section."""
    out: dict[str, str] = {}
    section = re.split(r"^\s*Args:\s*$", doc, maxsplit=1, flags=re.MULTILINE)
    if len(section) < 2:
        return out
    current = ""
    for line in section[1].splitlines():
        if re.match(r"^\s*(Returns|Raises|Yields|Example|Examples):\s*$", line):
            break
        m = re.match(r"^\s*(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if m:
            current = m[1]
            out[current] = m[2].strip()
        elif current and line.strip():
            out[current] += " " + line.strip()
    return out


def python_tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    kind: Kind = "action",
    verification: bool = False,
) -> PythonTool:
    """The `PythonTool` for a function whose first parameter is the `ToolContext`.

    Raises:
        TypeError: a parameter has no type annotation, or the name is not a valid tool name.
    """
    tool_name = name or fn.__name__
    if not NAME_RE.match(tool_name):
        raise TypeError(f"tool name {tool_name!r}: use letters, digits and `_` only (e.g. myapp_signIn)")
    doc = inspect.cleandoc(fn.__doc__ or "")
    summary = re.split(r"^\s*Args:\s*$", doc, maxsplit=1, flags=re.MULTILINE)[0].strip()
    hints = get_type_hints(fn)
    parameters = list(inspect.signature(fn).parameters.values())
    if not parameters:
        raise TypeError(
            f"tool {tool_name}: the first parameter must be the context (`ctx: trailblaze.ToolContext`)"
        )
    docs = _arg_docs(doc)
    fields: dict[str, tuple[Any, Any]] = {}
    for p in parameters[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
            raise TypeError(f"tool {tool_name}: parameter {p.name!r} must be a plain named parameter")
        if p.name not in hints:
            raise TypeError(
                f"tool {tool_name}: parameter {p.name!r} needs a type annotation (e.g. `{p.name}: str`)"
            )
        if p.name in _IGNORED:
            raise TypeError(
                f"tool {tool_name}: `{p.name}` is reserved for the recorder's note; rename the parameter"
            )
        default = ... if p.default is p.empty else p.default
        fields[p.name] = (hints[p.name], Field(default, description=docs.get(p.name)))
    try:
        lines = inspect.getsourcelines(fn)[1]
        origin = f"{_short_path(inspect.getsourcefile(fn) or fn.__module__)}:{lines}"
    except (OSError, TypeError):
        origin = f"{fn.__module__}.{fn.__qualname__}"
    return PythonTool(
        name=tool_name,
        description=description or summary or tool_name,
        params=params_model(tool_name, fields),
        fn=fn,
        origin=origin,
        kind=kind,
        verification=verification,
    )


def _short_path(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return path


TOOL_ATTRIBUTE = "__trailblaze_tool__"


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    kind: Kind = "action",
    verification: bool = False,
) -> Any:
    """Make a function a trailblaze tool: `@trailblaze.tool` or `@trailblaze.tool(name=..., ...)`.

    The function's first parameter receives a `ToolContext`; the others, with their type
    annotations, are the tool's params; the docstring is the description the model reads (an
    `Args:` section describes the params). It returns None, a message, or a `ToolResult`; an
    exception is the tool's ERROR. The function itself is returned unchanged (still callable).

    Args:
        name: The recorded name (default: the function's name).
        description: What the model reads (default: the docstring).
        kind: `action` (default), `assertion` or `other`, for the agent's success check.
        verification: Also offered on `verify:` steps.
    """

    def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
        setattr(
            f,
            TOOL_ATTRIBUTE,
            python_tool(f, name=name, description=description, kind=kind, verification=verification),
        )
        return f

    return wrap(fn) if fn is not None else wrap


def tools_in(obj: Any) -> list[CustomTool]:
    """The tools a module, a decorated function, a `PythonTool` or a list of them holds."""
    if inspect.ismodule(obj):
        return [t for v in vars(obj).values() if (t := _one(v)) is not None]
    if isinstance(obj, (list, tuple)):
        return [t for v in obj if (t := _one(v)) is not None]
    one = _one(obj)
    return [one] if one is not None else []


def _one(obj: Any) -> PythonTool | None:
    if isinstance(obj, PythonTool):
        return obj
    found = getattr(obj, TOOL_ATTRIBUTE, None) if callable(obj) else None
    return found if isinstance(found, PythonTool) else None


# --- offering custom tools to the agent -----------------------------------------------------------------


class _Reasoning(BaseModel):
    reasoning: str | None = Field(
        default=None, description="Brief: what you see, what is done, why this call is next."
    )


def _offered(custom: CustomTool, box: ToolBox) -> Tool:
    """A custom tool as the model sees it, a `Tool` like the built-in ones: its params plus
    `reasoning`; the call is recorded by the tool's name."""
    params: type[BaseModel] = create_model(
        f"{custom.name}_args",
        __base__=custom.params,
        reasoning=(str | None, _Reasoning.model_fields["reasoning"]),
    )

    def run(args: Any, ctx: CallContext) -> ToolOutcome:
        given = args.model_dump(mode="json", exclude_unset=True, exclude={"reasoning"})
        # the recording keeps templates: a secret value the model typed becomes `{{name}}` again
        call = ToolCall(name=custom.name, params=ctx.memory.redact(given))
        try:
            result = run_recorded_tool(ctx.session, call, ctx.memory, box)
        except UsageError as exc:  # e.g. `{{name}}` the run does not know: the model can fix it
            return ToolOutcome(_result("ERROR", exc.message, custom.kind))
        return ToolOutcome(result, [call])

    return Tool(custom.name, custom.description, params, run, custom.verification, records=(custom.name,))
