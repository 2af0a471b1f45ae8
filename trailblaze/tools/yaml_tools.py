"""YAML composed tools in Trailblaze's pure-YAML form (`<id>.tool.yaml`).

```yaml
id: demo_openTab
description: Open a tab of the demo app's bottom navigation.
parameters:
  - name: tab
    type: string
    description: The tab's label, e.g. Settings.
tools:
  - tapOnElementWithText:
      text: "{{params.tab}}"
```

`{{params.x}}` (Trailblaze's spelling) or `{{x}}` for a declared parameter `x` is replaced by the
call's value: a value that is exactly the template keeps the param's type, a template inside text
becomes text, an omitted optional param without a default removes its key. Any other `{{name}}`
is left for the run's memory, as in a recording. The tool is recorded by its id and params.

The tool is a `ToolDef` (source `yaml`) whose handler is its `YamlBody`, the calls it runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from trailblaze.common import yaml_lines as _yaml
from trailblaze.errors import Problem
from trailblaze.tools.call import ToolCall
from trailblaze.tools.custom import NAME_RE, params_model
from trailblaze.tools.registry import RECORDED_TOOL_PARAMS
from trailblaze.tools.tooldef import Kind, Offer, ToolDef, ToolResult

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext
    from trailblaze.tools.toolset import ToolSet

__all__ = ["YamlBody", "check_bodies", "load_yaml_tool"]

_TYPES: dict[str, tuple[Any, Any]] = {
    "string": (str, "text"),
    "integer": (int, 0),
    "int": (int, 0),
    "long": (int, 0),
    "number": (float, 0.0),
    "float": (float, 0.0),
    "double": (float, 0.0),
    "boolean": (bool, False),
    "bool": (bool, False),
}
"""Declared type → (Python type, a sample value used to check a body's params)."""
_KEYS = (
    "id",
    "description",
    "parameters",
    "tools",
    "surface_to_llm",
    "is_recordable",
    "requires_host",
    "is_verification",
)
_PARAM_KEYS = ("name", "type", "required", "description", "default")
_PARAM_RE = re.compile(r"\{\{\s*(?:params\.)?([A-Za-z_][\w-]*)\s*\}\}")

_YPath = tuple[str | int, ...]


@dataclass(frozen=True)
class YamlBody:
    """What a `*.tool.yaml` runs: its declared params and its body of tool calls (the handler of
    the tool's `ToolDef`)."""

    name: str
    params: type[BaseModel]
    body: tuple[ToolCall, ...]
    declared: tuple[str, ...] = ()
    samples: Mapping[str, Any] = field(default_factory=dict)
    verification: bool = False
    body_paths: tuple[_YPath, ...] = ()
    source: _yaml.YamlDocument | None = field(default=None, compare=False, repr=False)
    path: str = ""

    @property
    def kind(self) -> Kind:
        return "assertion" if self.verification else "action"

    def expand(self, values: Mapping[str, Any]) -> list[ToolCall]:
        """The body with the params filled in (memory templates left as they are)."""
        return [
            ToolCall.model_construct(name=c.name, params=_fill(c.params, values, self.declared))
            for c in self.body
        ]

    def __call__(self, ctx: ToolContext, args: BaseModel) -> ToolResult:
        values = args.model_dump(exclude_unset=False)
        values = {k: v for k, v in values.items() if k in args.model_fields_set or v is not None}
        assert ctx.nested is not None  # `ToolSet.run` gives every tool the run's other tools
        done: list[str] = []
        for i, raw in enumerate(self.expand(values)):
            try:
                nested = ToolCall(name=raw.name, params=raw.params)
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                where = ".".join(str(p) for p in first["loc"])
                return ToolResult("ERROR", f"{self.name}: tool {i + 1} {raw.name}: bad params: {where}: {first['msg']}")
            result = ctx.nested(nested)  # like replay, with the keyboard retry
            if not result.ok:
                return ToolResult(result.status, f"{self.name}: tool {i + 1} {raw.name}: {result.message}")
            done.append(raw.name)
        return ToolResult("OK", f"{self.name}: ran {', '.join(done) or 'nothing'}")


_MISSING = object()


def _fill(value: Any, values: Mapping[str, Any], declared: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        whole = _PARAM_RE.fullmatch(value.strip())
        if whole and whole[1] in declared:
            return values.get(whole[1], _MISSING)
        return _PARAM_RE.sub(lambda m: str(values.get(m[1], "")) if m[1] in declared else m[0], value)
    if isinstance(value, dict):
        out = {k: _fill(v, values, declared) for k, v in value.items()}
        return {k: v for k, v in out.items() if v is not _MISSING}
    if isinstance(value, list):
        return [v for v in (_fill(v, values, declared) for v in value) if v is not _MISSING]
    return value


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false", type(None): "nothing"}.get(
        type(value), type(value).__name__
    )


class _Reader:
    def __init__(self, path: Path, doc: _yaml.YamlDocument) -> None:
        self.path, self.doc = path, doc
        self.problems: list[Problem] = []

    def problem(self, path: _YPath, message: str, *, key: bool = False) -> None:
        line, column = self.doc.position(path, key=key)
        self.problems.append(Problem(line, column, message))


def load_yaml_tool(path: Path) -> tuple[ToolDef | None, list[str]]:
    """The tool in `path` and the problems found (`file:line:col: message`); None when it cannot be used."""
    shown = str(path)
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{shown}: cannot read it: {exc}"]
    try:
        doc = _yaml.parse_document(text)
    except _yaml.YamlSyntaxError as exc:
        return None, [f"{shown}:{p.line}:{p.column}: {p.message}" for p in exc.problems]
    r = _Reader(path, doc)
    tool = _read(r, doc.data)
    return (tool if not r.problems else None), [p.format(shown) for p in r.problems]


def _read(r: _Reader, data: Any) -> ToolDef | None:
    if not isinstance(data, dict):
        r.problem((), f"a tool file is a mapping with `id`, `parameters` and `tools`, found {_kind(data)}")
        return None
    for key in data:
        if key == "class":
            r.problem(
                (key,),
                "class-backed tools are Kotlin classes in Trailblaze; write a Python `@trailblaze.tool` instead",
                key=True,
            )
        elif key not in _KEYS:
            r.problem(
                (key,), f"unknown key `{key}` in a tool file; expected one of: {', '.join(_KEYS)}", key=True
            )
    name = data.get("id")
    if not isinstance(name, str) or not NAME_RE.match(name):
        r.problem(
            ("id",),
            f"`id` must be a tool name of letters, digits and `_` (e.g. myapp_openTab), found {name!r}",
        )
        name = ""
    elif not r.path.name.startswith(name + "."):
        r.problem(("id",), f"the file of tool `{name}` must be named `{name}.tool.yaml`")
    description = data.get("description", "")
    if not isinstance(description, str):
        r.problem(("description",), f"`description` must be text, found {_kind(description)}")
        description = ""
    fields, samples, declared = _parameters(r, data.get("parameters"))
    body, paths = _body(r, data.get("tools"))
    for flag in ("surface_to_llm", "is_recordable", "requires_host", "is_verification"):
        if flag in data and not isinstance(data[flag], bool):
            r.problem((flag,), f"`{flag}` must be true or false")
    if data.get("is_recordable") is False:
        r.problem(
            ("is_recordable",),
            "a tool that is not recordable cannot be replayed; remove `is_recordable: false`",
        )
    for path, text in _yaml.strings(("tools",), data.get("tools")):
        for m in _PARAM_RE.finditer(text):
            if text[m.start() : m.end()].replace(" ", "").startswith("{{params.") and m[1] not in declared:
                r.problem(path, f"`{m[0]}` names no parameter of `{name}`; declare it under `parameters:`")
    if r.problems or not name:
        return None
    verification = data.get("is_verification") is True
    params = params_model(name, fields)
    runs = YamlBody(
        name=name,
        params=params,
        body=tuple(body),
        declared=tuple(declared),
        samples=samples,
        verification=verification,
        body_paths=tuple(paths),
        source=r.doc,
        path=str(r.path),
    )
    # `surface_to_llm: false`: replayable and callable from other tools, never offered to the model
    offered: frozenset[Offer] = (
        frozenset()
        if data.get("surface_to_llm") is False
        else frozenset(("model", "verify")) if verification else frozenset(("model",))
    )
    return ToolDef(
        name=name,
        params=params,
        kind=runs.kind,
        description=description.strip() or name,
        source="yaml",
        handler=runs,
        offered_to=offered,
        block_status="extension",
        origin=f"{r.path}:{r.doc.position(('id',))[0]}",
    )


def _parameters(r: _Reader, value: Any) -> tuple[dict[str, tuple[Any, Any]], dict[str, Any], list[str]]:
    fields: dict[str, tuple[Any, Any]] = {}
    samples: dict[str, Any] = {}
    if value is None:
        return fields, samples, []
    if not isinstance(value, list):
        r.problem(
            ("parameters",),
            f"`parameters` is a list of `{{name, type, required, description}}`, found {_kind(value)}",
        )
        return fields, samples, []
    for i, item in enumerate(value):
        here: _YPath = ("parameters", i)
        if not isinstance(item, dict):
            r.problem(here, f"a parameter is a mapping `{{name: x, type: string}}`, found {_kind(item)}")
            continue
        for key in item:
            if key not in _PARAM_KEYS:
                r.problem(
                    (*here, key),
                    f"unknown key `{key}` in a parameter; expected one of: {', '.join(_PARAM_KEYS)}",
                    key=True,
                )
        pname = item.get("name")
        if (
            not isinstance(pname, str)
            or not re.match(r"^[A-Za-z_]\w*$", pname)
            or pname in ("reason", "reasoning")
        ):
            r.problem(
                (*here, "name"),
                f"a parameter needs a `name` of letters, digits and `_` (not reason/reasoning), found {pname!r}",
            )
            continue
        if pname in fields:
            r.problem((*here, "name"), f"parameter `{pname}` is declared twice")
            continue
        ptype = str(item.get("type", "string")).lower()
        if ptype not in _TYPES:
            r.problem(
                (*here, "type"),
                f"unknown parameter type `{item.get('type')}`; use one of: string, integer, number, boolean",
            )
            continue
        required = item.get("required", True)
        if not isinstance(required, bool):
            r.problem((*here, "required"), "`required` must be true or false")
            required = True
        py, sample = _TYPES[ptype]
        if "default" in item:
            default: Any = item["default"]
        else:
            default = ... if required else None
            py = py if required else py | None
        desc = item.get("description")
        fields[pname] = (py, Field(default, description=desc if isinstance(desc, str) else None))
        samples[pname] = sample
    return fields, samples, list(fields)


def _body(r: _Reader, value: Any) -> tuple[list[ToolCall], list[_YPath]]:
    if not isinstance(value, list) or not value:
        r.problem(
            ("tools",),
            f"`tools` must be a non-empty list of tool calls (`- toolName: {{params}}`), found {_kind(value)}",
        )
        return [], []
    calls: list[ToolCall] = []
    paths: list[_YPath] = []
    for i, item in enumerate(value):
        here: _YPath = ("tools", i)
        name: Any
        params: Any
        if isinstance(item, str) and item:
            name, params = item, {}
        elif isinstance(item, dict) and len(item) == 1:
            name, params = next(iter(item.items()))
            params = {} if params is None else params
        else:
            r.problem(here, f"a tool is a single-key map `- toolName: {{params}}`, found {_kind(item)}")
            continue
        if not isinstance(name, str) or not isinstance(params, dict):
            r.problem(here, f"the params of `{name}` must be a mapping, e.g. `{name}: {{key: value}}`")
            continue
        calls.append(ToolCall.model_construct(name=name, params=params))
        paths.append((*here, name))
    return calls, paths


def check_bodies(tools: ToolSet) -> list[str]:
    """What is wrong with the bodies of the YAML tools in `tools` once every tool is known: a tool
    name nothing defines, params a built-in tool refuses (checked with sample values for the
    templates), a tool that calls itself."""
    problems: list[str] = []
    for tool in tools.custom():
        custom = tool.handler
        if not isinstance(custom, YamlBody) or custom.source is None:
            continue
        for call, path in zip(custom.expand(custom.samples), custom.body_paths, strict=True):
            line, column = custom.source.position(path, key=True)
            where = f"{custom.path}:{line}:{column}"
            if call.name == custom.name:
                problems.append(f"{where}: `{custom.name}` calls itself; a composed tool runs other tools")
                continue
            hint = tools.unknown_hint(call.name)
            if hint is not None:
                problems.append(f"{where}: {hint}")
                continue
            model = RECORDED_TOOL_PARAMS.get(call.name)
            target = tools.get(call.name)
            try:
                if model is not None:
                    model.model_validate(call.params, strict=True)
                elif target is not None:
                    target.params.model_validate(
                        {k: v for k, v in call.params.items() if k not in ("reason", "reasoning")}
                    )
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                loc = tuple(first["loc"])
                line, column = custom.source.position((*path, *loc), key=first["type"] == "extra_forbidden")
                place = ".".join(str(p) for p in loc) or call.name
                problems.append(
                    f"{custom.path}:{line}:{column}: bad params for `{call.name}`: {place}: {first['msg']}"
                )
    return problems
