"""The scripted demo policy reads the screen text it is sent; it never knows refs in advance."""

from __future__ import annotations

from typing import Any

import pytest

from trailblaze.llm.prompts import OBJECTIVE_HEADER, SCREEN_HEADER
from trailblaze.testing.demo_policy import PHRASINGS, demo_llm, demo_policy, parse_screen

SCREEN = """\
[q1x] TextView "Welcome back"
[w2e] EditText "Email"
[r3t] EditText "Password" [password]
[y4u] Button "Sign in"
"""


def body(objective: str, screen: str, *, verify: bool = False, history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    tools = ["assertVisible", "assertNotVisibleWithText", "objectiveStatus"] if verify else ["tap", "inputText", "objectiveStatus"]
    first = {"role": "user", "content": [{"type": "text", "text": f"{OBJECTIVE_HEADER}\n\nDo: {objective}"}]}
    screen_block = {"type": "text", "text": f"{SCREEN_HEADER}\n{screen}"}
    messages = [first, *(history or [])]
    messages[-1]["content"].append(screen_block)
    return {"tools": [{"name": n} for n in tools], "messages": messages}


def test_parse_screen_reads_refs_labels_and_notes() -> None:
    elements = parse_screen(SCREEN)
    assert [(e.ref, e.cls, e.label) for e in elements][:2] == [("q1x", "TextView", "Welcome back"), ("w2e", "EditText", "Email")]
    assert elements[2].notes.strip() == "[password]" and elements[2].is_field


def test_finds_the_ref_on_whatever_screen_it_is_sent() -> None:
    reply = demo_policy(body("Type user@example.com into the Email field", SCREEN))
    assert reply == {
        "content": [{"type": "tool_use", "name": "tap", "input": {"ref": "w2e", "reasoning": "next: field Email"}}],
        "model": "trailblaze-demo",
    }
    moved = SCREEN.replace("w2e", "k9z")
    again = demo_policy(body("Type user@example.com into the Email field", moved))
    assert isinstance(again, dict) and again["content"][0]["input"]["ref"] == "k9z"


def test_last_action_goes_out_with_completed_and_secrets_as_templates() -> None:
    history = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "tap", "input": {"ref": "r3t"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "OK tapped"}]},
    ]
    reply = demo_policy(body("Type the password from the secret `password` into the Password field", SCREEN, history=history))
    assert isinstance(reply, dict)
    names = [b["name"] for b in reply["content"]]
    assert names == ["inputText", "objectiveStatus"]
    assert reply["content"][0]["input"]["text"] == "{{password}}"
    assert reply["content"][1]["input"]["status"] == "COMPLETED"


def test_verify_asserts_everything_quoted_or_fails() -> None:
    ok = demo_policy(body('The heading "Welcome back" is shown', SCREEN, verify=True))
    assert isinstance(ok, dict) and [b["name"] for b in ok["content"]] == ["assertVisible", "objectiveStatus"]
    missing = demo_policy(body('The heading "Inbox" is shown', SCREEN, verify=True))
    assert isinstance(missing, dict) and missing["content"][0]["input"]["status"] == "FAILED"
    gone = demo_policy(body('The screen no longer shows "Inbox"', SCREEN, verify=True))
    assert isinstance(gone, dict) and gone["content"][0]["name"] == "assertNotVisibleWithText"


def calls(reply: Any) -> list[tuple[str, dict[str, Any]]]:
    assert isinstance(reply, dict)
    return [(b["name"], b["input"]) for b in reply["content"]]


def test_an_off_script_step_fails_up_front_with_the_phrasings_it_understands() -> None:
    """A newcomer's phrasings: before, the first was COMPLETED after only `launchApp`, the second
    after only opening the tab."""
    inbox = '[a1b] TextView "Inbox"\n[c2d] Button "Inbox" [selected]\n[e3f] Button "Settings"\n'
    for objective, screen in (
        ("Launch the app and sign in as user@example.com using the secret `password`", SCREEN),
        ('Open the "Settings" tab and turn off notifications', inbox),
    ):
        [(name, status)] = calls(demo_policy(body(objective, screen)))
        assert name == "objectiveStatus" and status["status"] == "FAILED", objective
        assert "the demo model understands these phrasings: " in status["explanation"]
        assert all(p in status["explanation"] for p in PHRASINGS)
        assert "not a real model" in status["explanation"]


def test_it_never_completes_a_step_it_did_only_part_of() -> None:
    launched = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "launchApp", "input": {"appId": "x"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "OK launched"}]},
    ]
    objective = "Launch the app and then sign in using the secret `password`"
    statuses = [i["status"] for n, i in calls(demo_policy(body(objective, SCREEN, history=launched))) if n == "objectiveStatus"]
    assert statuses == ["FAILED"]


def test_launch_names_a_mode_only_when_the_step_asks_for_one() -> None:
    [(name, args), _] = calls(demo_policy(body("Launch the demo app", SCREEN)))
    assert name == "launchApp" and "launchMode" not in args  # the tool's default: a clean start
    [(_, kept), _] = calls(demo_policy(body("Launch the demo app keeping its data", SCREEN)))
    assert kept["launchMode"] == "FORCE_RESTART"


def test_the_demo_model_is_labelled_as_itself_and_costs_nothing() -> None:
    from trailblaze.llm.client import LLMRequest, Message, TextBlock

    request = LLMRequest(
        system="s",
        messages=(Message(role="user", content=(TextBlock(text=f"{OBJECTIVE_HEADER}\n\nDo: Launch the demo app"), TextBlock(text=f"{SCREEN_HEADER}\n{SCREEN}"))),),
    )
    response = demo_llm().complete(request)
    assert (response.provider, response.model, response.cost_usd) == ("demo", "trailblaze-demo", 0.0)


def test_the_docs_list_the_same_phrasings() -> None:
    from tests.support.doc_examples import doc_section

    listed = doc_section("demo-phrasings")  # in docs/guides/recording.md
    assert listed.splitlines() == [f"- {p}" for p in PHRASINGS]


@pytest.mark.slow
def test_through_the_messages_api_it_is_labelled_demo_and_costs_nothing() -> None:
    """`trailblaze sim llm` is reached as Anthropic (ANTHROPIC_BASE_URL): the answer still says who it is."""
    from trailblaze.llm.anthropic import AnthropicLLM
    from trailblaze.llm.client import LLMRequest, Message, TextBlock, ToolSpec, ToolUseBlock
    from trailblaze.output.runlog import UsageTotals, usage_cost_text
    from trailblaze.testing import FakeMessagesAPI

    tools = tuple(ToolSpec(name=n, description=n, input_schema={"type": "object"}) for n in ("tap", "objectiveStatus"))
    request = LLMRequest(
        system="s",
        tools=tools,
        messages=(
            Message(
                role="user",
                content=(
                    TextBlock(text=f"{OBJECTIVE_HEADER}\n\nDo: Open the Settings tab and turn off notifications"),
                    TextBlock(text=f"{SCREEN_HEADER}\n{SCREEN}"),
                ),
            ),
        ),
    )
    with FakeMessagesAPI(policy=demo_policy) as api:
        response = AnthropicLLM("claude-sonnet-5", base_url=api.url, api_key="x").complete(request)
    assert (response.provider, response.model, response.cost_usd) == ("demo", "trailblaze-demo", 0.0)
    [call] = [b for b in response.content if isinstance(b, ToolUseBlock) and b.name == "objectiveStatus"]
    assert call.input["status"] == "FAILED"
    usage = UsageTotals(llm_calls=1, models=["demo:trailblaze-demo"])
    assert usage_cost_text(usage, lambda usd: f"${usd:.4f}") == "no cost (demo model)"
