"""The recorded-tool executor on both platforms against the demo app, through the real clients."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.device import PKG, Rig, rig
from trailblaze.errors import UsageError
from trailblaze.tools.builtin import RECORDED_TOOL_PARAMS
from trailblaze.tools.execute import TOOL_KINDS, ToolResult, run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import ToolCall, parse_tool
from trailblaze_sim.model import ManualClock


def _branch(r: Rig) -> str:
    return "androidAccessibility" if r.session.info.platform == "android" else "iosMaestro"


def _by_id(r: Rig, short_id: str) -> str:
    return f"{{{_branch(r)}: {{resourceIdRegex: '.*{short_id}'}}}}"


def run(r: Rig, tool: str, memory: Memory | None = None) -> ToolResult:
    return run_recorded_tool(r.session, parse_tool(tool), memory or Memory())


def ok(r: Rig, tool: str, memory: Memory | None = None) -> ToolResult:
    result = run(r, tool, memory)
    assert result.ok, f"{tool} -> {result}"
    return result


@pytest.fixture(params=["android", "ios"])
def r(request: pytest.FixtureRequest) -> Iterator[Rig]:
    with rig(request.param, clock=ManualClock()) as opened:
        yield opened


def _log_in(r: Rig, memory: Memory) -> None:
    ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'email')}}}", memory)
    ok(r, "inputText: {text: '{{email}}'}", memory)
    ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'password')}}}", memory)
    typed = ok(r, "inputText: {text: '{{password}}'}", memory)
    assert "hunter2" not in typed.message and "{{password}}" in typed.message
    ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'sign_in')}}}", memory)
    clock = r.device.clock
    assert isinstance(clock, ManualClock)
    clock.advance(1.0)  # the 1 s "Signing in…" of the demo app, in device time
    ok(r, "assertVisibleWithText: {text: Inbox}")


def test_every_tool_is_classified_and_implemented() -> None:
    assert set(TOOL_KINDS) == set(RECORDED_TOOL_PARAMS)


@pytest.mark.slow
def test_demo_flow_login_scroll_open_archive(r: Rig) -> None:
    memory = Memory({"email": "ada@example.com"}, secrets={"password": "hunter2"})
    _log_in(r, memory)
    assert r.device.state["signed_in"] is True
    found = ok(r, "scrollUntilTextIsVisible: {text: Message 30, direction: DOWN}")
    assert "Message 30" in found.message and "swipes" in found.message
    ok(r, "rememberTextBySelector: {nodeSelector: {" + _branch(r) + ": {textRegex: 'Message 30'}}, variable: subject}",
       memory)
    assert memory.lookup("subject") == "Message 30"
    ok(r, "tapOnElementWithText: {text: '{{subject}}'}", memory)
    ok(r, f"assertVisibleBySelector: {{nodeSelector: {_by_id(r, 'message_body')}, expectedText: This is message 30.}}")
    mismatch = run(r, f"assertVisibleBySelector: {{nodeSelector: {_by_id(r, 'message_body')}, expectedText: Nope, timeoutMs: 100}}")
    assert mismatch.status == "NOT_VISIBLE" and "expected 'Nope'" in mismatch.message
    ok(r, "tapOnElementWithText: {text: Archive}")
    ok(r, "assertVisibleWithText: {text: Message archived}")
    ok(r, "assertNotVisibleWithText: {text: Message 30}")
    assert r.device.screen_name == "inbox"


@pytest.mark.slow
def test_keys_gestures_and_app_tools(r: Rig) -> None:
    _log_in(r, Memory({"email": "a@b.c"}, secrets={"password": "hunter2"}))
    top = r.by_id("row_title").text
    ok(r, "swipe: {direction: UP}")
    scrolled = r.by_id("row_title").text
    assert scrolled != top
    ok(r, f"swipe: {{direction: DOWN, nodeSelector: {_by_id(r, 'messages')}}}")
    back = r.by_id("row_title").text
    assert int(back.split()[1]) < int(scrolled.split()[1])
    ok(r, "tapOnElementWithAccessibilityText: {accessibilityText: Compose}")
    assert r.device.screen_name == "compose"
    ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'subject')}}}")
    ok(r, "inputText: {text: Hello there}")
    ok(r, "eraseText: {charactersToErase: 6}")
    subject = r.by_id("subject")
    assert subject.text == "Hello"
    ok(r, "eraseText")
    ok(r, "hideKeyboard")
    assert not r.device.keyboard_shown()
    ok(r, "hideKeyboard")  # nothing to hide is still OK
    ok(r, "pressBack")
    assert r.device.screen_name == "inbox"
    x, y = r.by_id("tab_settings").center
    ok(r, f"tapOnPoint: {{x: {int(x)}, y: {int(y)}}}")
    assert r.device.screen_name == "settings"
    ok(r, "assertVisibleWithResourceId: {resourceId: dark_mode}")
    ok(r, "pressKey: {keyCode: HOME}")
    assert r.driver.current_app() is None
    ok(r, f"launchApp: {{appId: {PKG}, launchMode: RESUME}}")
    assert r.device.screen_name == "settings"
    ok(r, f"launchApp: {{appId: {PKG}, launchMode: REINSTALL}}")
    assert r.device.screen_name == "login" and r.device.state["signed_in"] is False
    ok(r, "wait: {timeToWaitInSeconds: 0.05}")
    ok(r, "longPressOnElementWithText: {text: Sign in}")
    assert r.device.screen_name == "login"
    ok(r, "assertVisibleWithAccessibilityText: {accessibilityText: Sign in}")


@pytest.mark.slow
def test_failures_are_status_words_with_candidates(r: Rig) -> None:
    missing = run(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'sign_inn')}}}")
    assert missing.status == "NOT_FOUND" and not missing.ok
    assert "closest on screen: Button \"Sign in\" (id sign_in)" in missing.message
    assert str(missing).startswith("NOT_FOUND no element matches")
    fields = "{" + _branch(r) + ": {classNameRegex: '.*(EditText|TextField)'}"
    twins = run(r, f"tapOnElementBySelector: {{nodeSelector: {fields}}}}}")
    assert twins.status == "AMBIGUOUS" and "2 elements match" in twins.message and "Password" in twins.message
    second = run(r, f"assertVisibleBySelector: {{nodeSelector: {fields}, index: 1}}}}")
    assert second.ok and "Password" in second.message
    still = run(r, "assertNotVisibleWithText: {text: Welcome back}")
    assert still.status == "TIMEOUT" and "still visible" in still.message
    gone = run(r, f"assertVisibleBySelector: {{nodeSelector: {_by_id(r, 'nothing_here')}, timeoutMs: 50}}")
    assert gone.status == "NOT_VISIBLE" and gone.kind == "assertion"
    end = run(r, "scrollUntilTextIsVisible: {text: Not on this screen}")
    assert end.status == "NOT_FOUND" and "reached the end" in end.message
    unknown = run_recorded_tool(r.session, ToolCall(name="mysteryTool", params={}), Memory())
    assert unknown.status == "ERROR" and unknown.kind == "other"
    with pytest.raises(UsageError, match="unknown variable"):
        run(r, "inputText: {text: '{{nobody}}'}")


@pytest.mark.slow
def test_poll_resolve_waits_for_the_element_to_appear() -> None:
    import time

    with rig("android", resolve_timeout=3.0, poll_interval=0.05) as r:  # real clock: sign-in takes 1 s
        memory = Memory({"email": "a@b.c"}, secrets={"password": "hunter2"})
        ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'email')}}}", memory)
        ok(r, "inputText: {text: '{{email}}'}", memory)
        ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'password')}}}", memory)
        ok(r, "inputText: {text: '{{password}}'}", memory)
        sign_in = r.by_id("sign_in").center
        r.session.act(lambda d: d.tap(*sign_in), settle=False)  # no settle: the next tool must poll
        t0 = time.monotonic()
        ok(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'compose')}}}")
        assert 0.7 <= time.monotonic() - t0 < 3.0
        assert r.device.screen_name == "compose"


def test_a_read_tool_is_validated_once_and_again_only_when_a_template_changes_it(
    r: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trailblaze.tools.recorded import keyboard as rt
    seen: list[object] = []
    validate = rt.EraseText.model_validate

    def counting(obj: object, **kwargs: object) -> object:
        seen.append(obj)
        return validate(obj, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rt.EraseText, "model_validate", counting)
    ok(r, "eraseText: {charactersToErase: 0}")
    assert seen == [{"charactersToErase": 0}]  # when the tool was read; the run reuses it
    seen.clear()
    memory = Memory()
    memory.remember("why", "cleanup")
    ok(r, "eraseText: {charactersToErase: 0, reason: '{{why}}'}", memory)
    assert seen == [{"charactersToErase": 0, "reason": "{{why}}"}, {"charactersToErase": 0, "reason": "cleanup"}]


def test_a_pattern_too_slow_is_the_trails_fault_and_a_missing_element_is_not() -> None:
    with rig("android", clock=ManualClock()) as r:  # its ids (`dev.trailblaze.demo:id/…`) make it backtrack
        slow = run(r, "tapOnElementBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: '(.|..|...)*d\\d'}}}")
        assert slow.status == "ERROR" and "took too long to match" in slow.message and slow.in_trail
        missing = run(r, f"tapOnElementBySelector: {{nodeSelector: {_by_id(r, 'nowhere')}}}")
        assert missing.status == "NOT_FOUND" and not missing.in_trail
