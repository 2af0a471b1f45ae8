"""Your own tools: Python functions (`@trailblaze.tool`); YAML composed tools are in `yaml_tools`.
Each is a `ToolDef` (source `python` / `yaml`) whose handler runs it; a run's `ToolSet` holds them.

A custom tool is recorded by its name with its params (`demo_signIn: {email: …, password:
'{{password}}'}`), never by what it expands to; replay calls the same tool again. Inside, it runs
other tools in their recorded form through the run's tool set (`ToolContext.run`), so a custom tool
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
import inspect
import os
import re
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from trailblaze.errors import TrailblazeError
from trailblaze.tools.tooldef import Handler, Kind, Offer, ToolDef, ToolResult

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

__all__ = [
    "params_model",
    "python_tool",
    "tool",
]

NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
"""Tool names: letters, digits and `_` (model APIs reject dots), as Trailblaze names them."""
MAX_DEPTH = 10
_IGNORED = ("reason", "reasoning")
"""Annotations every recorded tool may carry; a custom tool's function never sees them."""
_depth: contextvars.ContextVar[int] = contextvars.ContextVar("trailblaze_tool_depth", default=0)


# --- Python tools -------------------------------------------------------------------------------------


def _python_handler(fn: Callable[..., Any], name: str) -> Handler:
    """What runs a Python tool, like every tool's handler: `(ctx, params) -> ToolResult`; its function
    is called with the context and the params as keywords."""

    def run(ctx: ToolContext, args: BaseModel) -> ToolResult:
        from trailblaze.tools.lookup import NestedFailed  # the device layer: imported when a tool runs

        token = _depth.set(_depth.get() + 1)
        try:
            if _depth.get() > MAX_DEPTH:
                return ToolResult("ERROR", f"{name}: tools nest more than {MAX_DEPTH} deep; does it call itself?")
            out = fn(ctx, **{k: getattr(args, k) for k in type(args).model_fields})
        except NestedFailed as failed:
            return ToolResult(failed.result.status, f"{name}: {failed.call.name}: {failed.result.message}")
        except TrailblazeError:
            raise  # the device broke, or a template has no value: not this tool's failure
        except Exception as exc:
            _show_traceback()
            first = (str(exc).strip().splitlines() or [""])[0]
            return ToolResult("ERROR", f"{name} raised {type(exc).__name__}: {first}".rstrip(": "))
        finally:
            _depth.reset(token)
        if isinstance(out, ToolResult):
            return out
        return ToolResult("OK", f"{name} done" if out is None else str(out))

    return run


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
) -> ToolDef:
    """The tool (source `python`) for a function whose first parameter is the `ToolContext`.

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
    params = params_model(tool_name, fields)
    offered: frozenset[Offer] = frozenset(("model", "verify")) if verification else frozenset(("model",))
    return ToolDef(
        name=tool_name,
        params=params,
        kind=kind,
        description=description or summary or tool_name,
        source="python",
        handler=_python_handler(fn, tool_name),
        offered_to=offered,
        block_status="extension",
        origin=origin,
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


def tools_in(obj: Any) -> list[ToolDef]:
    """The tools a module, a decorated function, a Python tool's `ToolDef` or a list of them holds."""
    if inspect.ismodule(obj):
        return [t for v in vars(obj).values() if (t := _one(v)) is not None]
    if isinstance(obj, (list, tuple)):
        return [t for v in obj if (t := _one(v)) is not None]
    one = _one(obj)
    return [one] if one is not None else []


def _one(obj: Any) -> ToolDef | None:
    if isinstance(obj, ToolDef):
        return obj if obj.source == "python" else None
    found = getattr(obj, TOOL_ATTRIBUTE, None) if callable(obj) else None
    return found if isinstance(found, ToolDef) and found.source == "python" else None
