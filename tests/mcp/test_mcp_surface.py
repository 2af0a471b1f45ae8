"""The MCP tool surface as a client lists it (issue 25, item 9), without the SDK or a device: an
unknown tool name gets a did-you-mean, the ref note is only on the tools that take a ref,
`trail_verify` names every assertion it allows, and the docs' generated MCP reference counts and names every
tool."""

from __future__ import annotations

import re
from typing import cast

from tests.support.paths import ROOT
from trailblaze.mcp.server import INSTRUCTIONS, call_tool
from trailblaze.mcp.session import McpSession
from trailblaze.mcp.surface import mcp_tools
from trailblaze.tools.toolset import ToolSet

TOOLS = mcp_tools(ToolSet())
BY_NAME = {t.name: t for t in TOOLS}


def test_an_unknown_tool_gets_a_did_you_mean() -> None:
    no_bench = cast(McpSession, None)  # an unknown name never reaches the workbench
    for wrong, right in (("snapshoot", "snapshot"), ("tapp", "tap"), ("Trail_Save", "trail_save")):
        reply = call_tool(no_bench, BY_NAME, wrong, {})
        assert not reply.ok and reply.text.startswith(f"ERROR no tool `{wrong}`; did you mean `{right}`? "), reply.text
    assert "did you mean" not in call_tool(no_bench, BY_NAME, "zzzzzz", {}).text


def test_the_ref_note_is_only_where_a_ref_is_taken() -> None:
    actions = [t for t in TOOLS if t.group == "actions"]
    assert actions
    for tool in actions:
        takes_ref = "ref" in tool.input_schema.get("properties", {})
        assert ("`ref` is a ref of the newest `snapshot`" in tool.description) == takes_ref, tool.name
        assert "status word" not in tool.description, tool.name  # said once, in the instructions
    assert BY_NAME["tap"].description.count("snapshot") == 1
    assert len(BY_NAME["pressBack"].description.split()) < 15  # no 60-word note on a tool with no ref
    assert "Refs come from the newest snapshot" in INSTRUCTIONS and "(as a selector, never the ref)" in INSTRUCTIONS


def test_trail_verify_lists_every_assertion_it_allows() -> None:
    allowed = [n for n in ToolSet().model_names(verify=True) if n != "objectiveStatus"]
    assert {"assertVisible", "assertPref", "assertQuery", "assertLogContains"} <= set(allowed)
    description = BY_NAME["trail_verify"].description
    assert f"{', '.join(allowed)}." in description
    assert [t.name for t in TOOLS if t.group == "trails"][:3] == ["trail_start", "trail_step", "trail_verify"]


def test_the_mcp_reference_counts_and_names_every_tool() -> None:
    from tests.support.docs_site import reference_hook

    page = reference_hook().mcp_page()
    [count] = re.findall(r"lists \*\*(\d+) tools\*\*", page)
    assert int(count) == len(TOOLS)
    assert {t.name for t in TOOLS} == set(re.findall(r"^## (\w+)$", page, re.MULTILINE))
    guide = (ROOT / "docs" / "guides" / "mcp.md").read_text()
    assert "../reference/mcp.md" in guide and not re.search(r"The tools \(\d+\)", guide)  # no count by hand
