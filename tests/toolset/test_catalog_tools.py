"""Trailblaze's catalog tools (docs/trailblaze-catalog.md) replay through the unmodified uiautomator2 /
facebook-wda clients on the simulated devices, with Trailblaze's names and params; a tool a platform
cannot run answers UNSUPPORTED with the reason."""

from __future__ import annotations

import base64
from pathlib import Path

import jsonschema
import pytest

from tests.support.paths import DATA
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.engine.replay import replay_trail
from trailblaze.llm.anthropic import AnthropicLLM
from trailblaze.screen.hierarchy import parse_hierarchy
from trailblaze.screen.resolve import resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze.testing.messages_api import FakeMessagesAPI, tool_use_response
from trailblaze.tools.execute import ToolResult, run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.tools.toolset import all_tools
from trailblaze.trail.model import parse_tool
from trailblaze.trail.schema import trail_json_schema

APP = "dev.trailblaze.demo"


def _field(platform: str, name: str) -> str:
    return (
        f"{{androidAccessibility: {{resourceIdRegex: {name}}}}}"
        if platform == "android"
        else (f"{{iosMaestro: {{resourceIdRegex: {name}}}}}")
    )


def _ref(session: DeviceSession, short_id: str) -> str:
    from trailblaze.screen.compact import compact_view

    view = compact_view(session.settle())
    return next(r for r, n in view.refs.items() if n.short_id == short_id)


def _text_of(session: DeviceSession, short_id: str) -> str:
    session.invalidate()
    return next(n.text for n in session.screen().nodes if n.short_id == short_id)


@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.slow
def test_catalog_tools_replay_on_both_platforms(platform: str) -> None:
    memory = Memory()
    with open_device(f"sim:{platform}", latency="zero", resolve_timeout=0.3) as session:

        def run(tool: str) -> str:
            return str(run_recorded_tool(session, parse_tool(tool), memory))

        email = _ref(session, "email")
        # ref tools: refs are stable across captures of the same screen, unknown ones fail clearly
        assert run(f"assertVisible: {{ref: {email}, reasoning: the form is up}}").startswith("OK")
        assert run("tap: {ref: zzz9}") == "NOT_FOUND Element ref 'zzz9' not found on current screen"
        assert run(f"tap: {{ref: {email}}}").startswith("OK tapped")
        # typing tools, the clipboard, memory
        assert run(
            "inputTextRandom: {variable: id, prefix: U-, digitCount: 4, hideKeyboardAfter: false}"
        ).startswith("OK")
        typed = memory.lookup("id")
        assert typed is not None and len(typed) == 6 and _text_of(session, "email") == typed
        assert run("clearText").startswith("OK cleared the field (6 characters)")
        assert _text_of(session, "email") in ("", "Email")
        assert run("mobile_setClipboard: {text: 480}") == "OK set the clipboard to '480'"
        assert run("mobile_pasteClipboard").startswith("OK pasted '480'")
        assert _text_of(session, "email") == "480"
        assert run("assertEquals: {actual: '{{id}}', expected: '{{id}}'}").startswith("OK")
        assert run("assertNotEquals: {actual: '{{id}}', expected: '{{id}}'}").startswith("NOT_VISIBLE")
        assert run("assertMath: {expression: '(2 + 3) * 4 ^ 2', expected: 80}").startswith("OK")
        assert run("assertMath: {expression: '1 / 3', expected: '0.3'}").startswith("NOT_VISIBLE")
        assert run("assertMath: {expression: '[[the total]] * 2', expected: 4}").startswith("UNSUPPORTED")
        assert run("dumpMemory").startswith("OK memory: {{id}} = ")
        # selectors and points
        tapped = run(f"tapOn: {{selector: {_field(platform, 'password')}, relativePoint: '10%,50%'}}")
        assert tapped.startswith("OK tapped") and "(id password)" in tapped
        assert run(
            "dragByPoints: {startX: 100, startY: 600, endX: 100, endY: 300, durationMs: 200}"
        ).startswith("OK")
        assert run(
            "swipeWithRelativeCoordinates: {startRelative: '50%,70%', endRelative: '50%,30%'}"
        ).startswith("OK")
        assert run("longPressElementWithAccessibilityText: {accessibilityText: Sign in}").startswith(
            "OK long-pressed"
        )
        accessibility = run("tapOnAccessibilityNode: {textRegex: 'Forgot.*'}")
        assert accessibility.startswith("OK tapped" if platform == "android" else "UNSUPPORTED")
        # queries for scripted flows: never fail, answer what they found
        found = run(f"findMatches: {{selector: {_field(platform, 'sign_in')}, timeoutMs: 100}}")
        assert found.startswith("OK findMatches: 1 match [{") and '"resourceId": ' in found
        assert (
            run(f"findMatches: {{selector: {_field(platform, 'nowhere')}}}") == "OK findMatches: 0 matches []"
        )
        assert (
            run(f"waitUntilNotVisible: {{nodeSelector: {_field(platform, 'sign_in')}, timeoutMs: 50}}")
            == "OK false"
        )
        assert run(f"waitUntilNotVisible: {{nodeSelector: {_field(platform, 'nowhere')}}}") == "OK true"
        # screen, waits, snapshots
        assert run("takeSnapshot: {screenName: login, description: the form}").startswith(
            "OK snapshot 'login'"
        )
        assert run("waitForChange: {timeoutMs: 200}").startswith("TIMEOUT")
        assert run("waitForChange: {timeoutMs: 200, requireChange: false}").startswith("OK")
        assert 'Button "Sign in"' in run("requestDetailedViewHierarchy")
        # apps
        assert run(f"stopApp: {{appId: {APP}}}").startswith("OK") and session.driver.current_app() != APP
        assert (
            run(f"openUrl: {{url: '{APP}://inbox'}}").startswith("OK") and session.driver.current_app() == APP
        )
        assert (
            run("openUrl: {url: 'nobody-handles-this://x'}")
            == "NOT_FOUND no app on the device handles nobody-handles-this://x"
        )
        assert run(f"mobile_clearAppData: {{appId: {APP}}}").startswith("OK")
        apps = run("mobile_listInstalledApps")
        if platform == "android":
            assert apps.startswith('OK {"appIds": [') and f'"{APP}"' in apps
        else:
            assert apps.startswith("UNSUPPORTED") and "WebDriverAgent" in apps
        # what needs an LLM (and this run has none), waypoints or airplane mode: refused with the reason
        for tool in (
            "rememberText: {prompt: total, variable: t}",
            "assertWithAi: {prompt: all ok}",
            "assertWaypoint: {waypoint: home}",
            "networkConnection: {connected: false}",
        ):
            assert run(tool).startswith("UNSUPPORTED "), tool


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_trailblaze_params_real_files_use(platform: str) -> None:
    with open_device(f"sim:{platform}", latency="zero", resolve_timeout=0.3) as session:

        def run(tool: str) -> str:
            return str(run_recorded_tool(session, parse_tool(tool), Memory()))

        assert run(
            f"tapOnElementBySelector: {{nodeSelector: {_field(platform, 'email')}, reasoning: r}}"
        ).startswith("OK")
        # `8:00` is text in YAML 1.2 (kaml), and a number where text is expected is its text
        assert run("inputText: {text: 8:00, hideKeyboardAfter: false}") == "OK typed '8:00'"
        assert run("eraseText").startswith("OK")
        assert run("inputText: {text: 480, hideKeyboardAfter: true}") == "OK typed '480' and hid the keyboard"
        assert not session.screen().keyboard_shown
        assert run("swipe: {direction: UP, swipeOnElementText: Password}").startswith("OK swiped UP on")
        assert run("scrollUntilTextIsVisible: {textRegex: 'Forgot pass.*'}").startswith("OK")
        assert run("scrollUntilTextIsVisible: {textRegex: 'Nowhere.*'}").startswith("NOT_FOUND")


def test_android_accessibility_fields_read_the_dump_attributes() -> None:
    xml = (
        '<hierarchy rotation="0"><node index="0" class="android.widget.FrameLayout" package="p" '
        'bounds="[0,0][100,200]" visible-to-user="true">'
        '<node index="0" text="Title" class="android.widget.TextView" package="p" bounds="[0,0][100,50]" '
        'visible-to-user="true" heading="true" pane-title="Home" collection-item-row-index="2"/>'
        '<node index="1" text="" class="android.widget.EditText" package="p" bounds="[0,50][100,100]" '
        'visible-to-user="true" input-type="33" multi-line="false" unique-id="u-7"/>'
        "</node></hierarchy>"
    )
    h = parse_hierarchy(xml)

    def match(**fields: object) -> list[str]:
        return [
            n.short_class for n in resolve(NodeSelector.model_validate({"androidAccessibility": fields}), h)
        ]

    assert match(isHeading=True) == ["TextView"]
    assert match(paneTitleRegex="Ho.*", collectionItemRowIndex=2) == ["TextView"]
    assert match(isEditable=True, inputType=33, isMultiLine=False, uniqueId="u-7") == ["EditText"]
    assert match(isEditable=False, isHeading=False) == []
    assert match(stateDescriptionRegex=".*") == []


def test_a_selector_field_the_dump_lacks_names_the_attribute() -> None:
    with open_device("sim:android", latency="zero", resolve_timeout=0.1) as session:
        out = str(
            run_recorded_tool(
                session,
                parse_tool(
                    "tapOnElementBySelector: {nodeSelector: {androidAccessibility: {textRegex: Email, isHeading: true}}}"
                ),
                Memory(),
            )
        )
    assert out.startswith("NOT_FOUND") and "no attribute for isHeading (`heading`)" in out


@pytest.mark.slow
def test_validate_and_schema_know_the_catalog_tools() -> None:
    schema = trail_json_schema()
    trail = {
        "trail": [
            {"step": "s", "recording": {"android": [{name: {}} for name in ("clearText", "dumpMemory")]}},
            {"step": "t", "recording": {"ios": [{"openUrl": {"url": "x://y"}}, {"tap": {"ref": "k4f"}}]}},
        ]
    }
    jsonschema.validate(trail, schema)
    numbers = {
        "trail": [
            {
                "step": "s",
                "recording": {
                    "android": [
                        {"inputText": {"text": 480}},
                        {
                            "assertVisibleBySelector": {
                                "nodeSelector": {"androidAccessibility": {"textRegex": 480}}
                            }
                        },
                    ]
                },
            }
        ]
    }
    jsonschema.validate(numbers, schema)  # numbers where text is expected, as Trailblaze reads them
    assert parse_tool("assertNotVisibleBySelector: {selector: {textRegex: 480}}").params == {
        "selector": {"textRegex": 480}
    }
    typed = parse_tool(
        "tapOnElementBySelector: {nodeSelector: {androidAccessibility: {textRegex: 480}}}"
    ).model
    assert typed is not None and typed.nodeSelector.androidAccessibility.textRegex == "480"  # type: ignore[attr-defined]
    bad = {"trail": [{"step": "s", "recording": {"android": [{"openUrl": {"link": "x"}}]}}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    catalog = [t for t in all_tools() if t.source in ("catalog", "web")]
    assert len(catalog) == 33 + 10  # Trailblaze's mobile catalog tools (mobile_maestro among them), 10 web_*
    with pytest.raises(Exception, match="dragTo takes either toRef or both toX and toY"):
        parse_tool("dragTo: {ref: a}")


TRAIL = DATA / "trails" / "catalog.trail.yaml"


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_trailblaze_trail_of_catalog_tools_replays(platform: str, tmp_path: Path) -> None:
    path = tmp_path / TRAIL.name
    path.write_bytes(TRAIL.read_bytes())
    with open_device(f"sim:{platform}", latency="zero", resolve_timeout=2.0) as session:
        record = replay_trail(path, session)
    assert record.status == "passed", record.error
    names = {t.name for s in record.steps for t in s.tools}
    assert {"openUrl", "tap", "tapOn", "mobile_pasteClipboard", "inputTextRandom", "clearText"} <= names
    assert all(t.status == "OK" for s in record.steps for t in s.tools)
    assert path.read_bytes() == TRAIL.read_bytes()  # replay leaves the file as it was


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_tools_that_ask_the_llm_on_every_run_go_through_the_llm_seam(platform: str) -> None:
    memory = Memory()
    with FakeMessagesAPI() as api, open_device(f"sim:{platform}", latency="zero") as session:

        def llm() -> AnthropicLLM:
            return AnthropicLLM(base_url=api.url, api_key="sk-ant-test-catalog-0000", timeout=5.0)

        def run(tool: str) -> ToolResult:
            return run_recorded_tool(session, parse_tool(tool), memory, llm=llm)

        api.enqueue(
            tool_use_response("answer", {"value": "Welcome back"}),
            tool_use_response("answer", {"value": "about 1,234.5 items"}),
            tool_use_response("verdict", {"passed": True, "explanation": "The sign-in form is shown."}),
            tool_use_response("verdict", {"passed": False, "explanation": "No inbox is shown."}),
            tool_use_response("answer", {"value": "no digits here"}),
            tool_use_response("answer", {"value": "12"}),
        )
        title = run("rememberText: {prompt: The screen title, variable: title}")
        assert title.ok and title.ai and memory.lookup("title") == "Welcome back"
        assert run("rememberNumber: {prompt: How many, variable: n}").ok and memory.lookup("n") == "1234.5"
        assert (
            str(run("assertWithAi: {prompt: The sign-in form is shown}"))
            == "OK AI: The sign-in form is shown."
        )
        assert run("assertWithAi: {prompt: The inbox is shown}").status == "NOT_VISIBLE"
        assert run("rememberNumber: {prompt: Count, variable: m}").status == "NOT_FOUND"
        math = run("assertMath: {expression: '[[unread count]] * 2', expected: 24}")
        assert str(math) == "OK 12 * 2 = 24" and math.ai
        first = api.bodies[0]
        assert first["tool_choice"] == {"type": "tool", "name": "answer"}
        content = first["messages"][0]["content"]
        assert content[0]["type"] == "image" and "The screen title" in content[1]["text"]
        # the device's picture as it came, labelled with its own type (uiautomator2 JPEG, WDA PNG)
        sent = base64.b64decode(content[0]["source"]["data"])
        kind = {b"\xff\xd8\xff": "image/jpeg", b"\x89PN": "image/png"}[sent[:3]]
        assert (
            content[0]["source"]["media_type"]
            == kind
            == ("image/jpeg" if platform == "android" else "image/png")
        )
        assert "Welcome back" in content[1]["text"]  # the compact view of the screen
