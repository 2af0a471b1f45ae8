"""The agent loop against the simulated demo app (real uiautomator2 client), with scripted models."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from trailblaze.agent.loop import Agent
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.llm import prompts
from trailblaze.llm.client import ImageBlock, LLMRequest, TextBlock, ToolResultBlock, ToolUseBlock
from trailblaze.testing import FunctionLLM, ScriptedLLM, text, tool, tool_calls
from trailblaze.testing.demo_policy import parse_screen
from trailblaze.tools.llm_tools import detect_cycle
from trailblaze.tools.memory import Memory


@pytest.fixture(scope="module")
def session() -> Iterator[DeviceSession]:
    with open_device("sim:android", latency="zero", resolve_timeout=0.5) as s:
        yield s


@pytest.fixture
def login(session: DeviceSession) -> DeviceSession:
    """The demo app freshly launched on its login screen."""
    session.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
    return session


def ref(session: DeviceSession, label: str) -> str:
    """The ref of the first element showing `label`, read from the compact view like a model would."""
    from trailblaze.screen.compact import compact_view

    for element in parse_screen(compact_view(session.screen()).text):
        if element.label == label:
            return element.ref
    raise AssertionError(f"{label!r} not on screen")


def results(request: LLMRequest) -> list[ToolResultBlock]:
    return [b for m in request.messages for b in m.content if isinstance(b, ToolResultBlock)]


def all_text(request: LLMRequest) -> str:
    """Every text the request carries (system, messages, tool inputs and results), unescaped."""
    parts = [b.text for b in request.system]
    for message in request.messages:
        for block in message.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, ToolResultBlock):
                parts.append(block.content)
            elif isinstance(block, ToolUseBlock):
                parts.append(json.dumps(block.input))
    return "\n".join(parts)


def agent(session: DeviceSession, llm: ScriptedLLM | FunctionLLM, **kwargs: object) -> Agent:
    memory = Memory(secrets={"password": "hunter2"})
    return Agent(llm, session, memory, screenshots=False, **kwargs)  # type: ignore[arg-type]


def test_completes_and_records_selectors_not_refs(login: DeviceSession) -> None:
    email = ref(login, "Email")
    llm = ScriptedLLM(
        [
            tool("tap", ref=email, reasoning="focus the email field"),
            tool_calls(
                ("inputText", {"text": "user@example.com"}),
                ("objectiveStatus", {"status": "COMPLETED", "explanation": "typed"}),
            ),
        ]
    )
    result = agent(login, llm).run_step("Type user@example.com into the Email field")
    assert result.status == "COMPLETED" and result.explanation == "typed"
    assert result.llm_calls == 2
    recorded = [c.to_data() for c in result.recorded]
    assert recorded == [
        {
            "tapOnElementBySelector": {
                "nodeSelector": {"androidAccessibility": {"resourceIdRegex": "dev.trailblaze.demo:id/email"}},
                "reason": "focus the email field",
            }
        },
        {"inputText": {"text": "user@example.com"}},
    ]
    assert email not in json.dumps(recorded)
    # The second request carries the first call and its result as a pair, then the new screen.
    second = llm.requests[1]
    assert second.tool_choice == "any"
    assert [m.role for m in second.messages] == ["user", "assistant", "user"]
    assert isinstance(second.messages[1].content[0], ToolUseBlock)
    last = second.messages[2].content
    assert isinstance(last[0], ToolResultBlock) and last[0].content.startswith("OK")
    assert isinstance(last[1], TextBlock) and last[1].text.startswith(prompts.SCREEN_HEADER)
    assert f'[{email}] EditText "Email" [focused]' in last[1].text  # the screen after the tap
    assert result.usage.input_tokens > 0


def test_failed_status_ends_the_step(login: DeviceSession) -> None:
    llm = ScriptedLLM([tool("objectiveStatus", status="FAILED", explanation="there is no Logout button")])
    result = agent(login, llm).run_step("Tap Logout")
    assert result.status == "FAILED"
    assert result.explanation == "there is no Logout button"
    assert result.recorded == []


def test_gives_up_after_max_llm_calls(login: DeviceSession) -> None:
    llm = FunctionLLM(lambda r: tool("objectiveStatus", status="IN_PROGRESS", explanation="thinking"))
    result = agent(login, llm, max_llm_calls=4).run_step("Do something")
    assert result.status == "FAILED"
    assert result.llm_calls == 4 and "4 LLM calls" in result.explanation


def test_early_completed_is_rejected_and_fed_back(login: DeviceSession) -> None:
    sign_in = ref(login, "Sign in")
    llm = ScriptedLLM(
        [
            tool("objectiveStatus", status="COMPLETED", explanation="looks done"),
            tool("tap", ref=sign_in),
            tool("objectiveStatus", status="COMPLETED", explanation="tapped"),
        ]
    )
    result = agent(login, llm).run_step('Tap "Sign in"')
    assert result.status == "COMPLETED" and result.llm_calls == 3
    rejected = results(llm.requests[1])[0]
    assert rejected.is_error and "COMPLETED refused" in rejected.content


def test_trailing_completed_counts_only_after_a_successful_action(login: DeviceSession) -> None:
    llm = ScriptedLLM(
        [
            tool_calls(("tap", {"ref": "nope"}), ("objectiveStatus", {"status": "COMPLETED", "explanation": "x"})),
            tool("objectiveStatus", status="FAILED", explanation="gave up"),
        ]
    )
    result = agent(login, llm).run_step("Tap nothing")
    assert result.status == "FAILED"
    # only the failed tap went into the history: its objectiveStatus never ran
    second = llm.requests[1]
    uses = [b for m in second.messages for b in m.content if isinstance(b, ToolUseBlock)]
    assert [u.name for u in uses] == ["tap"]


@pytest.mark.slow
def test_stuck_detection_warns_then_fails(login: DeviceSession) -> None:
    heading = ref(login, "Welcome back")
    llm = FunctionLLM(lambda r: tool("tap", ref=heading, reasoning=f"try {len(r.messages)}"))
    result = agent(login, llm).run_step("Make the heading do something")
    assert result.status == "FAILED" and result.explanation.startswith("stuck")
    assert result.llm_calls == 6  # same call six times, reasoning differences ignored
    assert "STUCK-DETECTION WARNING" in all_text(llm.requests[3])
    assert "STUCK-DETECTION WARNING" not in all_text(llm.requests[2])


def test_detect_cycle() -> None:
    assert detect_cycle([]) == ([], 0)
    assert detect_cycle(["a", "b", "a", "b"]) == (["a", "b"], 2)
    assert detect_cycle(["x", "a", "a", "a"]) == (["a"], 3)
    assert detect_cycle(["a", "b", "c", "a", "b", "c", "a", "b", "c"]) == (["a", "b", "c"], 3)
    assert detect_cycle(["a", "b", "c", "d"]) == ([], 0)


def test_stale_refs_inject_a_re_read_hint(login: DeviceSession) -> None:
    llm = ScriptedLLM(
        [tool("tap", ref="zz1"), tool("tap", ref="zz2"), tool("tap", ref="zz3"), tool("objectiveStatus", status="FAILED", explanation="lost")]
    )
    result = agent(login, llm).run_step("Tap the ghost")
    assert result.status == "FAILED"
    assert all(r.outcome.status == "NOT_FOUND" for r in result.runs[:3])
    assert "STALE REFS" in all_text(llm.requests[3])
    assert "STALE REFS" not in all_text(llm.requests[2])


def test_invalid_arguments_and_unknown_tools_are_fed_back(login: DeviceSession) -> None:
    llm = ScriptedLLM(
        [
            tool("tap"),  # no ref
            tool("swipe", direction="SIDEWAYS"),
            tool("teleport", to="Inbox"),
            tool("objectiveStatus", status="FAILED", explanation="cannot"),
        ]
    )
    result = agent(login, llm).run_step("Do it")
    assert result.status == "FAILED"
    fed = results(llm.requests[3])
    assert len(fed) == 3 and all(r.is_error for r in fed)
    assert "invalid arguments for `tap`: ref: Field required" in fed[0].content
    assert "direction" in fed[1].content
    assert "no tool `teleport`" in fed[2].content


def test_text_only_answer_gets_a_reminder(login: DeviceSession) -> None:
    llm = ScriptedLLM([text("I think I should tap sign in."), tool("objectiveStatus", status="FAILED", explanation="no")])
    agent(login, llm).run_step("Tap sign in")
    assert prompts.TEXT_ONLY_HINT in all_text(llm.requests[1])


def test_verify_step_offers_assertions_only_and_runs_several(login: DeviceSession) -> None:
    welcome, sign_in = ref(login, "Welcome back"), ref(login, "Sign in")
    llm = ScriptedLLM(
        [
            tool("tap", ref=sign_in),  # not offered on a verify step
            tool_calls(
                ("assertVisible", {"ref": welcome}),
                ("assertNotVisibleWithText", {"text": "Inbox"}),
                ("objectiveStatus", {"status": "COMPLETED", "explanation": "login shown"}),
            ),
        ]
    )
    result = agent(login, llm).run_step("The login screen is shown", verify=True)
    assert {t.name for t in llm.requests[0].tools} == {
        "assertVisible", "assertState", "assertNotVisibleWithText", "readPrefs", "assertPref", "queryDatabase", "assertQuery",
        "readLogs", "assertLogContains",
        "objectiveStatus",
    }  # fmt: skip
    assert result.status == "COMPLETED" and result.llm_calls == 2
    assert [c.name for c in result.recorded] == ["assertVisibleBySelector", "assertNotVisibleWithText"]
    assert "no tool `tap`" in results(llm.requests[1])[0].content


def test_verify_completion_is_refused_when_an_assertion_in_the_answer_failed(login: DeviceSession) -> None:
    welcome = ref(login, "Welcome back")
    llm = ScriptedLLM(
        [
            tool_calls(
                ("assertVisible", {"ref": welcome}),
                ("assertVisible", {"ref": "gone1"}),  # not on screen: fails
                ("objectiveStatus", {"status": "COMPLETED", "explanation": "fine"}),
            ),
            tool("objectiveStatus", status="FAILED", explanation="Sign in is still there"),
        ]
    )
    result = agent(login, llm).run_step("No sign-in button is shown", verify=True)
    assert result.status == "FAILED"
    fed = results(llm.requests[1])
    assert fed[1].is_error and fed[2].is_error and "COMPLETED refused" in fed[2].content


def test_secrets_never_reach_the_model_and_record_as_templates(login: DeviceSession) -> None:
    password = ref(login, "Password")
    llm = ScriptedLLM(
        [
            tool("tap", ref=password),
            tool("inputText", text="hunter2", reasoning="typing hunter2"),  # the model typed the literal value
            tool("objectiveStatus", status="COMPLETED", explanation="typed hunter2"),
        ]
    )
    result = agent(login, llm).run_step("Type the password")
    assert result.status == "COMPLETED"
    assert result.recorded[1].to_data() == {"inputText": {"text": "{{password}}", "reason": "typing {{password}}"}}
    for request in llm.requests:
        assert "hunter2" not in all_text(request)
    assert "{{password}}" in all_text(llm.requests[0])  # the reminder names the secret


@pytest.mark.slow
def test_request_layout_with_screenshot_and_trimmed_history(login: DeviceSession) -> None:
    heading = ref(login, "Welcome back")
    calls = [tool("tap", ref=heading, reasoning=str(i)) if i % 2 else tool("wait", timeToWaitInSeconds=0) for i in range(5)]
    llm = ScriptedLLM([*calls, tool("objectiveStatus", status="FAILED", explanation="done")])
    memory = Memory()
    Agent(llm, login, memory, screenshots=True, max_history=3, context="Extra context line.").run_step("Look around")
    last = llm.requests[-1]
    assert last.system[0].cache and "Extra context line." in last.system[0].text
    assert re.search(r"android-\w+ \(android\) \d+x\d+", last.system[0].text)
    assert len(last.messages) == 1 + 2 * 3  # objective + 3 trimmed turns
    assert last.messages[1].role == "assistant"  # no orphan tool_result after trimming
    images = [b for b in last.messages[-1].content if isinstance(b, ImageBlock)]
    assert len(images) == 1 and images[0].media_type == "image/jpeg"
    first = llm.requests[0].messages[0].content
    assert isinstance(first[0], TextBlock) and first[0].text.startswith(prompts.OBJECTIVE_HEADER)
