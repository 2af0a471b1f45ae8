"""The index of the built-in tools (`trailblaze/tools/_index.py`) is generated from their
definitions (`python -m trailblaze.tools.make_index`): it must say what they say."""

from __future__ import annotations

from trailblaze.tools import _index, builtin, make_index
from trailblaze.tools.tooldef import ToolDef


def test_the_index_of_built_in_tools_is_generated_from_their_definitions() -> None:
    text = make_index.render(make_index.rows())
    assert make_index.INDEX.read_text(encoding="utf-8") == text, (
        "trailblaze/tools/_index.py is stale: run `python -m trailblaze.tools.make_index`"
    )
    assert make_index.main(["--check"]) == 0


def test_every_indexed_tool_is_its_definition() -> None:
    assert builtin.BUILTIN_NAMES == tuple(name for name, *_ in _index.TOOLS)
    for name, kind, _, _ in _index.TOOLS:
        tool = builtin.builtin_tool(name)
        assert isinstance(tool, ToolDef) and (tool.name, tool.kind) == (name, kind)
        assert builtin.RECORDED_TOOL_PARAMS[name] is tool.params


def test_a_new_tool_is_listed_last_and_a_gone_one_drops_out() -> None:
    current = (("gone", "other", "m:P", "m:t"), *_index.TOOLS[1:], _index.TOOLS[0])
    table = make_index.rows(current)
    assert table[-1] == _index.TOOLS[0] and table[:-1] == _index.TOOLS[1:]
