"""MkDocs hook: the reference pages, generated from the code at build time so they cannot drift.

`mkdocs build` calls `on_files`, which adds five pages that exist in no file of the repository:
the CLI reference (the click commands of `trailblaze.cli.main`), the tool catalog (the recorded tools of
`trailblaze.tools.recorded` and the agent's tool registry), the trail file format (the JSON Schema
of `trailblaze.trail.schema`), the pytest options, ini keys and fixtures (the plugin's `pytest_addoption`,
run against a parser that only collects, and its fixtures with the objects they give) and the MCP tools (`trailblaze.mcp.surface`). Each page is
also a plain function of this module (`PAGES`), so tests can read what the site will say.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GENERATED_NOTE = "*Generated from the code when the site is built; edit the code, not this page.*"


def _cell(text: object) -> str:
    """Text fit for one Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _code(text: object) -> str:
    value = str(text)
    return f"`` {value} ``" if "`" in value else f"`{value}`"


# --- CLI ---------------------------------------------------------------------------------------------


def _is_unset(value: object) -> bool:
    return value is None or type(value).__name__ == "Sentinel"  # click 8.3+ marks "no default" so


def _option_row(param: Any) -> str:
    names = ", ".join(_code(o) for o in [*param.opts, *getattr(param, "secondary_opts", [])])
    if getattr(param, "is_flag", False):
        kind = "flag"
    elif hasattr(param.type, "choices"):
        kind = " | ".join(str(c) for c in param.type.choices)
    else:
        kind = param.type.name.lower() if param.type.name else "text"
    if getattr(param, "multiple", False):
        kind += ", repeatable"
    default = param.default
    shown = "" if _is_unset(default) or default is False or default == () or default == "" else _code(default)
    if param.required:
        shown = "required"
    return f"| {names} | {_cell(kind)} | {shown} | {_cell(getattr(param, 'help', '') or '')} |"


def _help_text(text: str) -> str:
    # click's `\b` (no rewrapping) and its indentation mean nothing in Markdown
    lines = [line.strip() for line in text.replace("\b", "").splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def cli_page() -> str:
    import click

    from trailblaze.cli.main import cli

    out = ["# Command line", "", GENERATED_NOTE, "", _help_text(cli.help or ""), ""]
    out += ["| option | what |", "| --- | --- |"]
    out += [
        f"| {', '.join(_code(o) for o in p.opts)} | {_cell(getattr(p, 'help', '') or '')} |"
        for p in cli.params
    ]
    out.append("")
    for name, command in sorted(cli.commands.items()):
        ctx = click.Context(command, info_name=f"trailblaze {name}")
        out += [f"## trailblaze {name}", "", _help_text(command.help or command.short_help or ""), ""]
        out += ["```text", command.get_usage(ctx).strip(), "```", ""]
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        if arguments:
            out += ["Arguments: " + ", ".join(
                f"{_code(p.human_readable_name)}{' (required)' if p.required else ''}"
                f"{' (one or more)' if p.nargs == -1 else ''}" for p in arguments
            ), ""]  # fmt: skip
        options = [p for p in command.params if isinstance(p, click.Option)]
        out += ["| option | takes | default | what |", "| --- | --- | --- | --- |"]
        out += [_option_row(p) for p in options]
        out.append("")
        epilog = (command.epilog or "").replace("\b", "")
        prose, _, examples = epilog.partition("Examples:")
        if prose.strip():
            out += [_help_text(prose), ""]
        lines = [line.strip() for line in examples.splitlines() if line.strip()]
        if lines:
            out += ["Examples:", "", "```bash", *lines, "```", ""]
    return "\n".join(out)


# --- JSON Schema types -------------------------------------------------------------------------------


def _type(schema: dict[str, Any]) -> str:
    """A JSON Schema type as a reader says it: `string`, `integer ≥ 0`, `array of string`, `NodeSelector`."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            kinds = [_type(s) for s in schema[key]]
            return " or ".join(dict.fromkeys(k for k in kinds if k))
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array":
        items = schema.get("items")
        return f"array of {_type(items)}" if isinstance(items, dict) else "array"
    if kind == "object":
        values = schema.get("additionalProperties")
        return f"map of {_type(values)}" if isinstance(values, dict) else "object"
    text = str(kind or "any")
    bounds = [
        f"≥ {schema['minimum']}" if "minimum" in schema else "",
        f"≤ {schema['maximum']}" if "maximum" in schema else "",
    ]
    return " ".join([text, *[b for b in bounds if b]])


def _fields(schema: dict[str, Any]) -> Iterable[tuple[str, str, str, str]]:
    """(name, type, default or `required`, description) of each property of an object schema."""
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        default = "required" if name in required else ""
        if "default" in prop and prop["default"] is not None:
            default = _code(json.dumps(prop["default"]))
        yield name, _type(prop), default, prop.get("description", "")


def _fields_table(schema: dict[str, Any]) -> list[str]:
    rows = [f"| {_code(n)} | {_cell(t)} | {d} | {_cell(text)} |" for n, t, d, text in _fields(schema)]
    if not rows:
        return ["No params."]
    return ["| field | type | default | what |", "| --- | --- | --- | --- |", *rows]


# --- tools -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolEntry:
    """One recorded tool as the catalog lists it."""

    name: str
    status: str
    platforms: str
    description: str
    schema: dict[str, Any] = field(default_factory=dict)


def _platforms(t: Any) -> str:
    shown = [p for p in ("android", "ios", "web") if p in t.platforms]
    return ", ".join(shown) if shown else "none here (answers UNSUPPORTED)"


def tool_entries() -> list[ToolEntry]:
    """Every built-in tool, from the tool registry (`trailblaze.tools.toolset.all_tools()`)."""
    from trailblaze.tools.llm_tools import params_schema
    from trailblaze.tools.toolset import all_tools

    entries = []
    for t in sorted(all_tools(), key=lambda t: t.name.lower()):
        if t.source == "probe":
            status, platforms = "trailblaze's own (app-state probe)", _platforms(t)
        elif t.source == "web":
            status, platforms = "Trailblaze catalog (web)", _platforms(t)
        elif t.block_status == "read-only":
            status, platforms = "Trailblaze, read only (replayed, never recorded here)", "android, ios"
        elif t.source == "catalog":
            status = "Trailblaze catalog"
            # the mobile catalog; a tool limited further says so in its definition
            platforms = _platforms(t) if t.platforms != frozenset(("android", "ios", "web")) else "android, ios"
        else:
            status, platforms = "Trailblaze core (recorded here)", "android, ios, web"
        doc = " ".join((t.params.__doc__ or "").split())
        entries.append(ToolEntry(t.name, status, platforms, doc, params_schema(t.params)))
    return entries


def tools_page() -> str:
    from trailblaze.tools.toolset import ToolSet

    entries = tool_entries()
    out = ["# Tools", "", GENERATED_NOTE, "",
           f"A recording holds **{len(entries)} tools** by their Trailblaze names; "
           "[Coming from Trailblaze](../guides/from-trailblaze.md) says how they map to Block Trailblaze's, "
           "and [the catalog notes](../trailblaze-catalog.md) give each one's fine print. Every tool also takes "
           "`reason` and `reasoning` (notes, ignored on replay).", "",
           "| tool | status | platforms |", "| --- | --- | --- |"]  # fmt: skip
    out += [f"| [{_code(e.name)}](#{e.name.lower()}) | {e.status} | {e.platforms} |" for e in entries]
    out.append("")
    for e in entries:
        out += [f"## {e.name}", "", e.description or "", "", f"*{e.status}; {e.platforms}.*", ""]
        props = {k: v for k, v in e.schema.get("properties", {}).items() if k not in ("reason", "reasoning")}
        out += _fields_table({**e.schema, "properties": props})
        out.append("")
    specs = ToolSet().specs()
    out += ["## The agent's tools", "",
            f"While recording, the model calls these {len(specs)} tools by ref (`tap {{ref}}`); what it does is "
            "written into the trail as the recorded tools above, with selectors.", "",
            "| tool | params | what |", "| --- | --- | --- |"]  # fmt: skip
    for spec in specs:
        params = ", ".join(f"{n}: {_type(p)}" for n, p in spec.input_schema.get("properties", {}).items())
        out.append(f"| {_code(spec.name)} | {_cell(params)} | {_cell(spec.description)} |")
    return "\n".join(out) + "\n"


# --- trail format ------------------------------------------------------------------------------------


def trail_format_page() -> str:
    from trailblaze.trail.schema import trail_json_schema

    schema = trail_json_schema()
    defs = schema["$defs"]
    out = ["# Trail file format", "", GENERATED_NOTE, "", schema.get("description", ""), "",
           "A trail file is YAML: an optional `config:`, an optional `trailhead:` and the `trail:` list of steps. "
           "`trailblaze schema` prints the whole JSON Schema (for editors); "
           "[Writing trails](../guides/trails.md) shows them in use.", ""]  # fmt: skip
    unified = schema["anyOf"][0]
    out += ["## The file", "", *_fields_table(unified), ""]
    out += [
        "## config",
        "",
        defs["TrailConfig"].get("description", ""),
        "",
        *_fields_table(defs["TrailConfig"]),
        "",
    ]
    if "Trailhead" in defs:
        out += [
            "## trailhead",
            "",
            defs["Trailhead"].get("description")
            or "The trail's start: a step whose recording brings the app to the state the steps start from "
            "(record's proof replay relaunches the app through it).",
            "",
            *_fields_table(defs["Trailhead"]),
            "",
        ]
    out += ["## A step", "", "Exactly one of `step` and `verify`.", "", *_fields_table(defs["Step"]), ""]
    out += ["## recording", "", defs["Recording"]["description"], "",
            "Its keys are device classifiers (`android`, `android-phone`, `ios`, `web`, …); each holds a list of "
            "[tools](tools.md), written `- toolName: {params}`.", ""]  # fmt: skip
    selectors = [n for n in ("NodeSelector", "AndroidAccessibilitySelector", "AndroidMaestroSelector",
                             "IosMaestroSelector", "WebSelector") if n in defs]  # fmt: skip
    for name in selectors:
        out += [f"## {name}", "", defs[name].get("description", ""), "", *_fields_table(defs[name]), ""]
    return "\n".join(out)


# --- pytest ------------------------------------------------------------------------------------------


@dataclass
class _Collected:
    """What `pytest_addoption` declares: options (names, keyword arguments) and ini keys."""

    options: list[tuple[tuple[str, ...], dict[str, Any]]] = field(default_factory=list)
    ini: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)


class _Collector:
    """Stands in for pytest's `Parser` and its option group: collects, parses nothing."""

    def __init__(self) -> None:
        self.collected = _Collected()

    def getgroup(self, *_args: Any, **_kwargs: Any) -> _Collector:
        return self

    def addoption(self, *names: str, **kwargs: Any) -> None:
        self.collected.options.append((names, kwargs))

    def addini(self, name: str, help: str, **kwargs: Any) -> None:
        self.collected.ini.append((name, help, kwargs))


def pytest_declarations() -> _Collected:
    from trailblaze.pytest.plugin import pytest_addoption

    parser = _Collector()
    pytest_addoption(parser)  # type: ignore[arg-type]
    return parser.collected


def pytest_page() -> str:
    collected = pytest_declarations()
    out = ["# pytest options and ini keys", "", GENERATED_NOTE, "",
           "The plugin's command-line options (group `trailblaze`) and the keys it reads from `[tool.pytest.ini_options]` "
           "/ `pytest.ini`. [The pytest guide](../guides/pytest.md) shows them in use.", "",
           "## Options", "", "| option | takes | default | what |", "| --- | --- | --- | --- |"]  # fmt: skip
    for names, kwargs in collected.options:
        action = kwargs.get("action", "store")
        takes = "flag" if action in ("store_true", "store_false") else kwargs.get("metavar") or "value"
        if action == "append":
            takes = f"{takes}, repeatable"
        if "choices" in kwargs:
            takes = " | ".join(kwargs["choices"])
        default = kwargs.get("default")
        shown = "" if default in (None, False, "", []) else _code(default)
        out.append(
            f"| {', '.join(_code(n) for n in names)} | {_cell(takes)} | {shown} | {_cell(kwargs.get('help', ''))} |"
        )
    out += ["", "## ini keys", "", "| key | type | default | what |", "| --- | --- | --- | --- |"]
    for name, text, kwargs in collected.ini:
        default = kwargs.get("default")
        shown = "" if default in (None, "", []) else _code(default)
        out.append(f"| {_code(name)} | {kwargs.get('type') or 'string'} | {shown} | {_cell(text)} |")
    return "\n".join(out + ["", *fixtures_section()]) + "\n"


# --- pytest fixtures -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fixture:
    name: str
    scope: str
    returns: str
    doc: str


def pytest_fixtures() -> list[Fixture]:
    """The plugin's fixtures, read from its source: every function decorated with `pytest.fixture`."""
    import ast
    import inspect

    from trailblaze.pytest import plugin

    found = []
    for node in ast.parse(inspect.getsource(plugin)).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if ast.unparse(target) != "pytest.fixture":
                continue
            scope = "function"
            for keyword in decorator.keywords if isinstance(decorator, ast.Call) else []:
                if keyword.arg == "scope" and isinstance(keyword.value, ast.Constant):
                    scope = str(keyword.value.value)
            returns = ast.unparse(node.returns) if node.returns is not None else ""
            returns = re.sub(r"^(Iterator|Generator)\[(.+?)(, .*)?\]$", r"\2", returns)
            found.append(Fixture(node.name, scope, returns, _first_paragraph(ast.get_docstring(node) or "")))
    return found


def _first_paragraph(doc: str) -> str:
    return " ".join(doc.split("\n\n", 1)[0].split())


def _members(cls: type, *, fields: bool = False) -> list[tuple[str, str, str]]:
    """(name, signature or type, first paragraph of the docstring) of a class's public methods and
    properties (and, with `fields`, its dataclass fields)."""
    import dataclasses
    import inspect

    rows = []
    if fields and dataclasses.is_dataclass(cls):
        said = _attribute_docs(cls)
        rows += [(f.name, str(f.type), said.get(f.name, "")) for f in dataclasses.fields(cls)]
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            returns = member.fget.__annotations__.get("return", "") if member.fget else ""
            rows.append((name, str(returns), _first_paragraph(inspect.getdoc(member) or "")))
        elif inspect.isfunction(member):
            signature = str(inspect.signature(member)).replace("(self, ", "(").replace("(self)", "()")
            signature = signature.replace("'", "")  # the annotations are strings (`from __future__`)
            rows.append((f"{name}()", signature, _first_paragraph(inspect.getdoc(member) or "")))
    return rows


def _attribute_docs(cls: type) -> dict[str, str]:
    """The string literal under each annotated attribute of the class body: its documentation."""
    import ast
    import inspect
    import textwrap

    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    docs: dict[str, str] = {}
    statements = body.body if isinstance(body, ast.ClassDef) else []
    for node, after in zip(statements, statements[1:], strict=False):
        said = after.value.value if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) else None
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(said, str):
            docs[node.target.id] = _first_paragraph(said)
    return docs


def _member_table(title: str, rows: list[tuple[str, str, str]]) -> list[str]:
    # types as plain text: a `|` escaped for the table would show its backslash inside a code span
    out = [title, "", "| member | type or signature | what |", "| --- | --- | --- |"]
    out += [f"| {_code(name)} | {_cell(kind)} | {_cell(doc)} |" for name, kind, doc in rows]
    return [*out, ""]


def fixtures_section() -> list[str]:
    """The fixtures, and the objects the two that drive the device give: `TrailRunner` (its `replay`
    and `record` return a `TrailResult`, its `tool` a `ToolResult`) and the `Driver`."""
    from trailblaze.device.driver import Driver
    from trailblaze.pytest._runner import TrailResult, TrailRunner
    from trailblaze.tools.execute import ToolResult

    out = ["## Fixtures", "", "Read from the plugin's source; override any of them in `conftest.py`.", "",
           "| fixture | scope | gives | what |", "| --- | --- | --- | --- |"]  # fmt: skip
    out += [f"| {_code(f.name)} | {f.scope} | {_cell(f.returns)} | {_cell(f.doc)} |" for f in pytest_fixtures()]
    out.append("")
    out += _member_table("### `trail_runner`: `TrailRunner`", _members(TrailRunner))
    out += _member_table("### `TrailResult` (from `replay` and `record`)", _members(TrailResult, fields=True))
    out += _member_table("### `ToolResult` (from `tool`)", _members(ToolResult, fields=True))
    out += _member_table(
        "### `driver`: `Driver`",
        [row for row in _members(Driver) if not row[0].startswith("__")],
    )
    return out


# --- MCP ---------------------------------------------------------------------------------------------


def mcp_page() -> str:
    from trailblaze.mcp.surface import mcp_tools
    from trailblaze.tools.toolset import ToolSet

    tools = mcp_tools(ToolSet())
    out = ["# MCP tools", "", GENERATED_NOTE, "",
           f"`trailblaze mcp` lists **{len(tools)} tools**, each with a JSON schema and a description written for "
           "a model. [The MCP guide](../guides/mcp.md) shows a session.", "",
           "| group | tools |", "| --- | --- |"]  # fmt: skip
    groups: dict[str, list[str]] = {}
    for tool in tools:
        groups.setdefault(tool.group, []).append(f"[{_code(tool.name)}](#{tool.name.lower()})")
    out += [f"| {group} | {', '.join(names)} |" for group, names in groups.items()]
    out.append("")
    for tool in tools:
        note = " (read only)" if tool.read_only else ""
        out += [
            f"## {tool.name}",
            "",
            f"*{tool.group}{note}*",
            "",
            tool.description,
            "",
            *_fields_table(tool.input_schema),
            "",
        ]
    return "\n".join(out)


# --- the hook ----------------------------------------------------------------------------------------

PAGES: dict[str, Callable[[], str]] = {
    "reference/cli.md": cli_page,
    "reference/tools.md": tools_page,
    "reference/trail-format.md": trail_format_page,
    "reference/pytest.md": pytest_page,
    "reference/mcp.md": mcp_page,
}


ADR_TEMPLATE = "0000-template.md"
ADR_TEMPLATE_TITLE = "Writing a decision (the template)"


def decisions_nav(docs_dir: Path) -> list[Any]:
    """The "Decisions" section: how to write one (the template, named as such: its own title is the
    `NNNN — …` placeholder), then every ADR in number order."""
    adrs = sorted(p.name for p in (docs_dir / "adr").glob("[0-9][0-9][0-9][0-9]-*.md") if p.name != ADR_TEMPLATE)
    return [{ADR_TEMPLATE_TITLE: f"adr/{ADR_TEMPLATE}"}, *(f"adr/{name}" for name in adrs)]


def on_config(config: Any) -> Any:
    """Fills the nav's empty "Decisions" section: the template, then every ADR in number order."""
    for entry in config.nav:
        if isinstance(entry, dict) and entry.get("Decisions") == []:
            entry["Decisions"] = decisions_nav(Path(config.docs_dir))
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for path, page in PAGES.items():
        files.append(File.generated(config, path, content=page()))
    return files
