"""The one tool model: every built-in tool is one `ToolDef`, and the engine's tables are views of them."""

from __future__ import annotations

import re
import types

import pytest
from pydantic import Field

from tests.support.paths import ROOT
from trailblaze.tools.builtin import READ_COMPAT_TOOLS, RECORDED_TOOL_PARAMS, _collect
from trailblaze.tools.custom import python_tool
from trailblaze.tools.execute import TOOL_KINDS
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.toolset import ToolSet, all_tools, defines, get_tool

PACKAGE = ROOT / "trailblaze"


def _sources() -> dict[str, str]:
    return {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}


def test_kind_and_the_run_context_are_defined_once() -> None:
    kinds = [f for f, text in _sources().items() if 'Literal["action", "assertion", "other"]' in text]
    assert kinds == ["tools/kind.py"]
    contexts = [(f, m) for f, text in _sources().items() for m in re.findall(r"^class (\w*Context)\b", text, re.M)]
    # one context for every tool: built-in handlers, Python / YAML tools and the model's tools
    assert contexts == [("tools/lookup.py", "ToolContext")]


def test_every_tool_is_called_one_way_and_answers_a_tool_result() -> None:
    """Issue 46 item 1: built-in, model and project tools all have `handler(ctx, params) -> ToolResult`."""
    import inspect

    from trailblaze.tools.llm_tools import MODEL_TOOLS

    checked = 0
    for tool in (*all_tools(), *MODEL_TOOLS):
        assert tool.handler is not None
        signature = inspect.signature(tool.handler)  # annotations as written: the context is a type-only import
        assert len(signature.parameters) == 2, tool.name
        assert signature.return_annotation == "ToolResult", tool.name
        checked += 1
    assert checked == len(all_tools()) + len(MODEL_TOOLS) > 80


def test_every_built_in_tool_is_one_definition_and_the_tables_are_views_of_them() -> None:
    tools = all_tools()
    names = [t.name for t in tools]
    assert len(names) == len(set(names)) == 72
    assert all(t.handler is not None and t.params.tool_name == t.name for t in tools)  # type: ignore[attr-defined]
    assert list(RECORDED_TOOL_PARAMS) == names
    assert {n: t.kind for n, t in zip(names, tools, strict=True)} == TOOL_KINDS
    assert READ_COMPAT_TOOLS == {t.name for t in tools if t.source == "read-compat"}
    assert {t.source for t in tools} == {"core", "read-compat", "catalog", "web", "probe"}


def test_a_definition_carries_what_the_docs_and_the_agent_need() -> None:
    tap = get_tool("tapOnElementBySelector")
    assert tap is not None
    assert (tap.kind, tap.source, tap.block_status) == ("action", "core", "same")
    assert tap.description.startswith("Tap the one element matching `nodeSelector`")
    network = get_tool("setNetwork")
    assert network is not None and network.platforms == {"android"} and network.block_status == "extension"
    assert network.offered_to == {"model"}
    compat = get_tool("tapOnElementWithText")
    assert compat is not None and compat.block_status == "read-only"
    web = get_tool("web_click")
    assert web is not None and web.platforms == {"web"}
    assert get_tool("noSuchTool") is None


def test_the_agent_is_offered_exactly_the_tools_whose_definition_says_so() -> None:
    tools = ToolSet()
    offered = [t.name for t in all_tools() if "model" in t.offered_to]
    assert offered and set(offered) <= set(tools.model_names())
    verify = [t.name for t in all_tools() if "verify" in t.offered_to]
    assert [n for n in tools.model_names(verify=True) if n in offered] == verify


class _Shout(RecordedToolParams):
    """Say something loudly (a tool defined in a test)."""

    tool_name = "shout"
    text: str = Field(min_length=1)


def test_adding_a_tool_is_one_decorated_handler() -> None:
    module = types.ModuleType("extra_tools")

    @defines(_Shout, "other", source="core", block_status="extension")
    def shout(run: object, p: _Shout) -> tuple[str, str]:
        return "OK", p.text.upper()

    module.shout = shout  # type: ignore[attr-defined]
    (found,) = _collect((module,))
    assert found.name == "shout"
    assert found.kind == "other"
    assert found.description == "Say something loudly (a tool defined in a test)."
    assert found(None, _Shout(text="hi")) == ("OK", "HI")


def test_a_tool_defined_twice_is_refused() -> None:
    first = types.ModuleType("a")
    second = types.ModuleType("b")
    first.t = defines(_Shout, "other", source="core")(lambda run, p: ("OK", ""))  # type: ignore[attr-defined]
    second.t = defines(_Shout, "other", source="core")(lambda run, p: ("OK", ""))  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError, match="shout is defined twice"):
        _collect((first, second))


def test_a_tool_set_joins_the_project_tools_to_the_built_in_ones() -> None:
    def demo_signIn(ctx: object, email: str) -> None:
        """Sign in on the demo app."""

    tools = ToolSet([python_tool(demo_signIn, verification=True)], offer=["demo_signIn"])
    custom = tools.get("demo_signIn")
    assert custom is not None
    assert (custom.source, custom.description) == ("python", "Sign in on the demo app.")
    assert callable(custom.handler)  # runs the function (`custom.python_tool`)
    assert custom.offered_to == {"model", "verify"}
    assert [t.name for t in tools.tools()][-1] == "demo_signIn"
    assert "tapOnElementBySelector" in tools
    assert "demo_signIn" in {t.name for t in tools.offered_to("verify")}
    # offered to the model as a built-in ref tool is: a model tool that records the custom tool
    (offered,) = [t for t in tools.for_model(verify=True) if t.name == "demo_signIn"]
    assert (offered.source, offered.records) == ("model", ("demo_signIn",))
    assert "reasoning" in offered.params.model_fields


def test_one_tool_set_is_asked_by_name_with_the_did_you_mean() -> None:
    tools = ToolSet()
    assert tools.get("tapOnElementBySelector") is get_tool("tapOnElementBySelector")
    assert tools.get("objectiveStatus") is None  # the model's own tools are not recorded tools
    (tap,) = [t for t in tools.for_model() if t.name == "tap"]
    assert tap is not tools.get("tap")  # the model's `tap` records a selector; Trailblaze's takes a ref
    hint = tools.unknown_hint("tapOnElementBySelectr")
    assert hint is not None and "did you mean `tapOnElementBySelector`?" in hint
    assert tools.unknown_hint("tapOnElementBySelector") is None


def test_every_model_facing_tool_maps_to_the_recorded_tools_it_writes() -> None:
    tools = {t.name: t for t in ToolSet().for_model()}
    assert all(t.source == "model" for t in tools.values())
    for name, tool in tools.items():
        assert all(get_tool(r) is not None for r in tool.records), name
    assert tools["objectiveStatus"].records == ()
    assert tools["tap"].records == ("tapOnElementBySelector", "tapOnPoint")
    # A model-facing name that is also a recorded tool's name but records another form of it: `tap`
    # and `assertVisible` keep Trailblaze's meaning (a ref, recorded as its selector form). The
    # model's ref lookup is `rememberElementText`, so `rememberText` means only Trailblaze's LLM
    # question (docs/adr/0050-one-tool-model.md). No other may appear.
    two_meanings = {n for n, t in tools.items() if get_tool(n) is not None and t.records != (n,)}
    assert two_meanings == {"tap", "assertVisible"}
    for name in two_meanings:  # both forms take the element by its ref
        assert "ref" in tools[name].params.model_fields and "ref" in get_tool(name).params.model_fields  # type: ignore[union-attr]
    assert "rememberText" not in tools and get_tool("rememberText") is not None


def test_the_contributor_docs_new_tool_example_defines_a_tool() -> None:
    text = (PACKAGE.parent / "docs" / "contributing-tools.md").read_text(encoding="utf-8")
    section = text.split("## A new tool in one place", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    from trailblaze.tools.recorded import keyboard

    namespace = dict(vars(keyboard))
    exec(code.group(1), namespace)  # the example as written, in the module it says it goes into
    module = types.ModuleType("example")
    module.tool = namespace["_press_home"]  # type: ignore[attr-defined]
    (tool,) = _collect((module,))
    assert tool.name == "pressHome"
    assert (tool.kind, tool.source, tool.block_status) == ("action", "core", "same")
    assert tool.description == "Press the home key: the app goes to the background."
    assert get_tool("pressHome") is None  # an example, not a shipped tool


def test_the_real_example_in_the_contributor_docs_is_the_shipped_code() -> None:
    text = (PACKAGE.parent / "docs" / "contributing-tools.md").read_text(encoding="utf-8")
    section = text.split("## A real example", 1)[1].split("## A new tool", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks[0] in (PACKAGE / "tools" / "recorded" / "keyboard.py").read_text(encoding="utf-8")
    assert blocks[1] in (PACKAGE / "tools" / "recorded" / "keyboard.py").read_text(encoding="utf-8")


def _architecture() -> types.ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location("architecture", PACKAGE.parent / "benchmarks" / "architecture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_tool_model_is_one_type_one_collection_and_a_ref_tool_is_two_places_in_one_file() -> None:
    """The figures of docs/adr/0059-one-tool-set-per-run.md, counted from the code as
    `benchmarks/architecture.py` prints them."""
    arch = _architecture()
    from tests.support.layering import module_paths

    trees = arch._trees({name: path.read_text("utf-8") for name, path in module_paths().items()})
    types_ = arch.tool_types(trees)
    # a tool is a `ToolDef`; `McpTool` is one line of the MCP listing (its actions come from the ToolSet)
    assert types_ == ["trailblaze.mcp.surface.McpTool", "trailblaze.tools.tooldef.ToolDef"]
    assert arch.tool_collections(trees, types_) == ["trailblaze.tools.toolset.ToolSet"]
    names, classes = arch.context_names(trees)
    assert len(names) == classes  # one name for each context
    places = arch.ref_tool_places(trees)
    assert places and all(p[:2] == (2, 1) for p in places.values())  # its params model and its function
