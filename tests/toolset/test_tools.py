"""The model's tools: what the model sees (names, schemas) and what each tool records."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.screen.compact import compact_view
from trailblaze.testing.demo_policy import parse_screen
from trailblaze.tools.llm_tools import fingerprint
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.memory import Memory
from trailblaze.tools.toolset import ToolSet

LLM_TOOLS = [
    "tap", "inputText", "eraseText", "hideKeyboard", "swipe", "scrollUntilTextIsVisible", "launchApp",
    "pressBack", "pressKey", "assertVisible", "assertState", "assertNotVisibleWithText", "rememberElementText", "wait",
    "readPrefs", "assertPref", "queryDatabase", "assertQuery", "setNetwork", "readLogs", "assertLogContains",
    "objectiveStatus",
]  # fmt: skip


def test_the_model_sees_exactly_the_design_tools() -> None:
    tools = ToolSet()
    assert tools.model_names() == LLM_TOOLS
    assert tools.model_names(verify=True) == [
        "assertVisible", "assertState", "assertNotVisibleWithText", "readPrefs", "assertPref", "queryDatabase", "assertQuery",
        "readLogs", "assertLogContains",
        "objectiveStatus",
    ]  # fmt: skip
    specs = {s.name: s.input_schema for s in tools.specs()}
    for name, schema in specs.items():
        assert schema["type"] == "object"
        assert "reasoning" in schema["properties"], name
        assert "title" not in schema and "title" not in schema["properties"]["reasoning"]
    assert specs["tap"]["required"] == ["ref"]
    assert specs["swipe"]["properties"]["direction"]["enum"] == ["UP", "DOWN", "LEFT", "RIGHT"]
    assert specs["objectiveStatus"]["properties"]["status"]["enum"] == ["IN_PROGRESS", "COMPLETED", "FAILED"]
    assert sorted(specs["objectiveStatus"]["required"]) == ["explanation", "status"]
    assert specs["launchApp"]["properties"]["launchMode"]["enum"] == ["FORCE_RESTART", "RESUME", "CLEAR_STATE"]
    assert specs["pressKey"]["properties"]["keyCode"]["enum"] == ["BACK", "ENTER", "HOME", "BACKSPACE", "TAB"]
    assert "ref" in specs["assertVisible"]["required"] and "expectedText" in specs["assertVisible"]["properties"]


def test_launch_app_defaults_to_a_clean_start_everywhere_and_says_so() -> None:
    from trailblaze.mcp.surface import mcp_tools
    from trailblaze.tools.recorded.app import LaunchApp

    tools = ToolSet()
    spec = next(s for s in tools.specs() if s.name == "launchApp")
    mode = spec.input_schema["properties"]["launchMode"]
    # the agent's tool, the MCP tool (the same spec) and `trailblaze tool` (the recorded form) agree
    assert mode["default"] == "CLEAR_STATE" == LaunchApp.model_fields["launchMode"].default
    assert "CLEAR_STATE (default" in mode["description"] and "clean state" in spec.description
    [mcp] = [t for t in mcp_tools(tools) if t.name == "launchApp"]
    assert mcp.input_schema["properties"]["launchMode"]["default"] == "CLEAR_STATE"
    assert "clean state" in mcp.description
    from click.testing import CliRunner

    from trailblaze.cli.main import cli

    helped = " ".join(CliRunner().invoke(cli, ["tool", "--help"], terminal_width=200).output.split())
    assert "`launchApp` starts the app from a clean state (CLEAR_STATE) unless its launchMode says" in helped


def test_fingerprint_ignores_reasoning_and_key_order() -> None:
    a = fingerprint("tap", {"ref": "a1", "reasoning": "one", "longPress": False})
    b = fingerprint("tap", {"longPress": False, "ref": "a1", "reasoning": "two"})
    assert a == b
    assert a != fingerprint("tap", {"ref": "a2"})


@pytest.fixture(scope="module")
def session() -> Iterator[DeviceSession]:
    with open_device("sim:android", latency="zero", resolve_timeout=0.5) as s:
        s.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
        yield s


def context(session: DeviceSession, memory: Memory | None = None) -> ToolContext:
    hierarchy = session.screen()
    return ToolContext(session, memory or Memory(), seen=(compact_view(hierarchy), hierarchy))


def ref_of(ctx: ToolContext, label: str) -> str:
    return next(e.ref for e in parse_screen(ctx.view.text) if e.label == label)


def test_recorded_forms(session: DeviceSession) -> None:
    tools = ToolSet()
    ctx = context(session)
    tap = tools.call_for_model("tap", {"ref": ref_of(ctx, "Forgot password?"), "longPress": True}, ctx)
    assert tap.ok, tap
    assert tap.recorded[0].to_data() == {
        "tapOnElementBySelector": {
            "nodeSelector": {"androidAccessibility": {"resourceIdRegex": "dev.trailblaze.demo:id/forgot"}},
            "longPress": True,
        }
    }
    ctx = context(session)
    launch = tools.call_for_model("launchApp", {"appId": "dev.trailblaze.demo", "reasoning": "restart"}, ctx)
    # the model's default is replay's: a clean start, so a trail that changes the app replays again
    assert launch.recorded[0].to_data() == {
        "launchApp": {"appId": "dev.trailblaze.demo", "launchMode": "CLEAR_STATE", "reason": "restart"}
    }
    ctx = context(session)
    check = tools.call_for_model("assertVisible", {"ref": ref_of(ctx, "Sign in"), "expectedText": "Sign in"}, ctx)
    assert check.ok and check.kind == "assertion"
    assert check.recorded[0].name == "assertVisibleBySelector"
    assert check.recorded[0].params["expectedText"] == "Sign in"
    erase = tools.call_for_model("eraseText", {"charactersToErase": 3}, ctx)
    assert erase.recorded[0].to_data() == {"eraseText": {"charactersToErase": 3}}


def test_secrets_record_as_templates_and_unknown_templates_are_errors(session: DeviceSession) -> None:
    tools = ToolSet()
    memory = Memory(secrets={"password": "hunter2"})
    ctx = context(session, memory)
    assert tools.call_for_model("tap", {"ref": ref_of(ctx, "Password")}, ctx).ok
    ctx = context(session, memory)
    typed = tools.call_for_model("inputText", {"text": "hunter2"}, ctx)
    assert typed.ok and typed.recorded[0].params == {"text": "{{password}}"}
    unknown = tools.call_for_model("inputText", {"text": "{{nope}}"}, ctx)
    assert not unknown.ok and unknown.status == "ERROR" and "nope" in unknown.message
    assert unknown.recorded == ()


def test_unknown_ref_is_not_found_and_flagged(session: DeviceSession) -> None:
    ctx = context(session)
    for name, args in [("tap", {"ref": "zzz"}), ("assertVisible", {"ref": "[zzz]"}), ("rememberElementText", {"ref": "zzz", "variable": "v"})]:
        outcome = ToolSet().call_for_model(name, args, ctx)
        assert outcome.status == "NOT_FOUND" and outcome.ref_not_found, name
        assert "not on the current screen" in outcome.message
