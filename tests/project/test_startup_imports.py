"""Start-up (issue 39 item 6, docs/adr/0063-start-up.md): a process imports what it runs.

`validate` of one trail imports the params module of the tools it names and builds their models,
none of another tool's, nor the tool runner, the project-tool loaders or the model's tools; the
built-in tools' index (`trailblaze.tools._index`) says what the definitions say. Each check
runs in a fresh interpreter, where `sys.modules` starts empty.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT
from trailblaze.tools import builtin, registry

TRAIL = ROOT / "trails" / "login.trail.yaml"
_DEFINITIONS = {ref.split(":")[0] for ref in builtin._DEFS.values()}
"""The modules that define built-in tools (their handlers)."""

_LOADED = """
import json, sys
from trailblaze.cli.main import cli
from trailblaze.tools.params import RecordedToolParams
try:
    cli.main(args=sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass

def _all(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all(sub)

built = sorted({c.tool_name for c in _all(RecordedToolParams) if c.__dict__.get("__pydantic_complete__")})
print(json.dumps({"modules": sorted(sys.modules), "built": built}))
"""


def _loaded(*args: str) -> dict[str, list[str]]:
    """The modules a fresh `trailblaze …` process imported, and the tools whose params it built."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, *args], capture_output=True, text=True, check=True, cwd=ROOT
    )
    found: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    return found


def _named(trail: Path) -> set[str]:
    from trailblaze.trail.model import load_trail

    loaded = load_trail(trail)
    steps = [*loaded.steps, *([loaded.trailhead] if loaded.trailhead else [])]
    names: set[str] = set()
    for step in steps:
        for calls in (step.recording or {}).values():
            names |= {c.name for c in (calls if isinstance(calls, list) else [calls])}
    return names


def test_validate_of_one_trail_imports_the_params_of_the_tools_it_names_and_no_more() -> None:
    named = _named(TRAIL)
    assert named and named <= set(builtin.BUILTIN_NAMES)
    loaded = _loaded("validate", str(TRAIL))
    modules = set(loaded["modules"])
    needed = {registry._PARAMS[n].split(":")[0] for n in named}
    params_modules = {ref.split(":")[0] for ref in registry._PARAMS.values()}
    assert modules & params_modules == needed
    # a tool's handler sits beside its params (issue 46): the modules of the tools it names, no other
    named_definitions = {builtin._DEFS[n].split(":")[0] for n in named}
    assert named_definitions == needed
    assert modules & _DEFINITIONS == named_definitions, "validate imported other tools' handlers"
    for runs_tools in (
        "trailblaze.tools.execute",  # the tool runner, and the screen lookup under it
        "trailblaze.tools.lookup",
        "trailblaze.tools.custom",  # a project's tools: none here
        "trailblaze.tools.yaml_tools",
        "trailblaze.tools.llm_tools",  # the model's tools
        "trailblaze.device.session",
        "trailblaze.device.noop",
    ):
        assert runs_tools not in modules, f"validate imported {runs_tools}"
    for unused in _NOT_FOR_A_VALIDATE:
        assert unused not in modules, f"validate imported {unused}"
    assert set(loaded["built"]) == named, "validate built the params of tools the trail does not name"


_NOT_FOR_A_VALIDATE = (
    "trailblaze.common.redact_spellings",  # the redactor's matching: imported with the first secret
    "html.entities",
    "ahocorasick",
    "difflib",  # did-you-means: made for a problem only
    "traceback",  # --debug only
    "trailblaze.trail._markdown",  # a .trail.md only
    "trailblaze.device.permissions",  # a launchApp that gives permissions only
)
"""What `validate` of the login trail has no use for (docs/adr/0063-start-up.md): each cost it 0.3-2 ms."""


def test_node_selector_is_built_at_import_and_its_branches_on_first_use() -> None:
    """A model with a field of a deferred model makes that model's schema again for itself: were
    NodeSelector deferred, the params of each selector tool would make its schema anew (~1.2 ms each)."""
    script = (
        "from trailblaze.screen import selector as s\n"
        "print(s.NodeSelector.__pydantic_complete__, s.AndroidAccessibilitySelector.__pydantic_complete__)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]


def test_a_tool_set_imports_the_module_of_a_tool_when_it_is_asked_for() -> None:
    script = (
        "import json, sys\n"
        "from trailblaze.tools.toolset import ToolSet\n"
        "tools = ToolSet()\n"
        "before = set(sys.modules)\n"
        "assert tools.get('web_click') is not None and 'tapOnPoint' in tools\n"
        "print(json.dumps([sorted(before), sorted(set(sys.modules) - before)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    before, added = json.loads(done.stdout)
    assert "trailblaze.tools.llm_tools" not in before + added  # no model, no model tools
    assert not _DEFINITIONS & set(before)
    assert "trailblaze.tools.catalog.web_tools" in added and "trailblaze.tools.recorded.gestures" not in added
