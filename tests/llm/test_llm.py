"""The LLM seam without a network: types, redaction, the safety switch, pricing and the test doubles."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import ValidationError

import trailblaze.llm.client as llm_module
from trailblaze.errors import LLMError
from trailblaze.llm.client import (
    ImageBlock,
    LLMClient,
    LLMExchange,
    LLMRequest,
    LLMRequestsBlocked,
    LLMResponse,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
    check_allow_llm_requests,
    is_loopback_url,
    override_allow_llm_requests,
    redact,
    transcript_entry,
)
from trailblaze.llm.pricing import cost_usd, price_for
from trailblaze.testing import (
    FunctionLLM,
    ScriptedLLM,
    ScriptExhausted,
    capture_llm_requests,
    text,
    tool,
    tool_calls,
)

TAP = ToolSpec(name="tap", description="Tap an element", input_schema={"type": "object"})
STATUS = ToolSpec(
    name="objectiveStatus", description="Report the step status", input_schema={"type": "object"}
)


def _request(*messages: Message, **kwargs: object) -> LLMRequest:
    return LLMRequest(
        system="You drive a phone.",
        tools=(TAP, STATUS),
        messages=messages or (Message.user("Tap Sign in"),),
        tool_choice="any",
        **kwargs,  # type: ignore[arg-type,unused-ignore]
    )


# --- types -------------------------------------------------------------------------------------


def test_request_accepts_string_shorthands() -> None:
    request = _request()
    assert request.system == (TextBlock(text="You drive a phone."),)
    assert request.messages[0].content == (TextBlock(text="Tap Sign in"),)
    assert request.forces_tool


def test_request_rejects_unknown_forced_tool_and_any_without_tools() -> None:
    with pytest.raises(ValidationError, match="names no tool"):
        LLMRequest(tools=(TAP,), messages=(Message.user("x"),), tool_choice="swipe")
    with pytest.raises(ValidationError, match="needs at least one tool"):
        LLMRequest(messages=(Message.user("x"),), tool_choice="any")
    with pytest.raises(ValidationError, match="at least one message"):
        LLMRequest(messages=())


def test_request_limits_cache_breakpoints() -> None:
    blocks = tuple(TextBlock(text=str(i), cache=True) for i in range(4))
    with pytest.raises(ValidationError, match="at most 3"):
        LLMRequest(system=blocks, messages=(Message.user("x"),))


def test_request_round_trips_through_json() -> None:
    request = _request(
        Message.user("Tap Sign in", ImageBlock(media_type="image/webp", data_base64="AAAA")),
        Message.assistant(ToolUseBlock(id="t1", name="tap", input={"ref": "a1"})),
        Message.user(ToolResultBlock(tool_use_id="t1", content="OK tapped"), "screen changed"),
    )
    assert LLMRequest.model_validate_json(request.model_dump_json()) == request


def test_usage_adds_up() -> None:
    total = Usage(input_tokens=10, output_tokens=2, cache_read_input_tokens=100) + Usage(
        input_tokens=5, output_tokens=1, cache_creation_input_tokens=7
    )
    assert total == Usage(
        input_tokens=15, output_tokens=3, cache_creation_input_tokens=7, cache_read_input_tokens=100
    )
    assert total.total_input_tokens == 122


def test_response_helpers() -> None:
    response = LLMResponse(
        content=(TextBlock(text="I will tap"), ToolUseBlock(id="t", name="tap", input={"ref": "b2"})),
        stop_reason="tool_use",
    )
    assert [u.name for u in response.tool_uses] == ["tap"]
    assert response.text == "I will tap"


# --- redaction ---------------------------------------------------------------------------------


def test_redact_named_secrets_become_placeholders() -> None:
    data = {"text": "type hunter2 then hunter2!", "nested": [("pw=hunter2",)], "hunter2": 3}
    assert redact(data, {"password": "hunter2"}) == {
        "text": "type {{password}} then {{password}}!",
        "nested": [["pw={{password}}"]],
        "{{password}}": 3,
    }


def test_redact_anonymous_secrets_and_longest_first() -> None:
    assert redact("token abc and abcdef", {"abc", "abcdef", ""}) == "token *** and ***"
    assert redact({"n": 1, "ok": None}, ["x"]) == {"n": 1, "ok": None}


def test_transcript_entry_redacts_and_drops_image_bytes() -> None:
    request = _request(
        Message.user("log in with s3cret!", ImageBlock(media_type="image/png", data_base64="QUJD" * 10))
    )
    response = LLMResponse(content=(ToolUseBlock(id="t", name="inputText", input={"text": "s3cret!"}),))
    entry = transcript_entry(request, response, secrets={"PASSWORD": "s3cret!"})
    dumped = repr(entry)
    assert "s3cret!" not in dumped
    assert entry["response"]["content"][0]["input"] == {"text": "{{PASSWORD}}"}
    image = entry["request"]["messages"][0]["content"][1]
    assert image == {"type": "image", "media_type": "image/png", "approx_bytes": 30}
    with_images = transcript_entry(request, include_images=True)
    assert with_images["request"]["messages"][0]["content"][1]["data_base64"] == "QUJD" * 10


# --- safety switch -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080", True),
        ("http://127.8.0.1", True),
        ("http://localhost:1234/v1", True),
        ("http://[::1]:99", True),
        ("https://api.anthropic.com", False),
        ("http://10.0.0.1", False),
        ("http://localhost.evil.com", False),
        ("not a url", False),
    ],
)
def test_is_loopback_url(url: str, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


def test_suite_runs_with_loopback_only() -> None:
    assert llm_module.ALLOW_LLM_REQUESTS == "loopback"
    check_allow_llm_requests("http://127.0.0.1:5")
    with pytest.raises(LLMRequestsBlocked, match="only to loopback") as info:
        check_allow_llm_requests("https://api.anthropic.com")
    assert isinstance(info.value, LLMError)


def test_override_switch_and_restore() -> None:
    with override_allow_llm_requests(False):
        with pytest.raises(LLMRequestsBlocked, match="not at all"):
            check_allow_llm_requests("http://127.0.0.1:5")
        with override_allow_llm_requests(True):
            check_allow_llm_requests("https://api.anthropic.com")
    assert llm_module.ALLOW_LLM_REQUESTS == "loopback"


def test_importing_the_seam_does_not_import_anthropic() -> None:
    code = (
        "import sys, trailblaze.llm.client, trailblaze.llm.pricing, trailblaze.testing, trailblaze.llm.anthropic;"
        "print('anthropic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- pricing -----------------------------------------------------------------------------------


def test_cost_includes_cache_reads_and_writes() -> None:
    usage = Usage(
        input_tokens=1_000_000,
        output_tokens=1_000_000,
        cache_creation_input_tokens=1_000_000,
        cache_read_input_tokens=1_000_000,
    )
    # Sonnet 4.5: $3 in, $15 out, $3.75 cache write, $0.30 cache read.
    assert cost_usd("claude-sonnet-4-5", usage) == pytest.approx(3 + 15 + 3.75 + 0.30)
    assert cost_usd("claude-sonnet-4-5-20250929", usage) == cost_usd("claude-sonnet-4-5", usage)


def test_cost_of_small_call_and_unknown_model() -> None:
    usage = Usage(input_tokens=3_000, output_tokens=200, cache_read_input_tokens=2_000)
    assert cost_usd("claude-sonnet-5-5", usage) == pytest.approx((3_000 * 2 + 200 * 10 + 2_000 * 0.2) / 1e6)
    assert cost_usd("gpt-4o", usage) is None
    assert price_for("claude-opus-4-1-20250805") == price_for("claude-opus-4-1")


def test_long_context_tier() -> None:
    short = cost_usd("claude-haiku-5-5", Usage(input_tokens=100_000))
    long = cost_usd("claude-haiku-5-5", Usage(input_tokens=100_001))
    assert short == pytest.approx(0.01)
    assert long == pytest.approx(100_001 * 0.5 / 1e6)


# --- test doubles ------------------------------------------------------------------------------


def test_scripted_llm_answers_in_order_and_records() -> None:
    llm = ScriptedLLM(
        [tool("tap", ref="a1"), tool("objectiveStatus", status="COMPLETED", explanation="done")]
    )
    assert isinstance(llm, LLMClient)
    first = llm.complete(_request())
    second = llm.complete(_request(Message.user("again")))
    assert first.tool_uses[0].name == "tap" and first.tool_uses[0].input == {"ref": "a1"}
    assert second.tool_uses[0].input == {"status": "COMPLETED", "explanation": "done"}
    assert first.tool_uses[0].id != second.tool_uses[0].id
    assert [r.messages[0].content[0] for r in llm.requests] == [
        TextBlock(text="Tap Sign in"),
        TextBlock(text="again"),
    ]
    assert first.usage.input_tokens > 0 and first.cost_usd == 0.0 and first.model == "scripted"
    assert llm.remaining == 0


def test_scripted_llm_runs_out_clearly() -> None:
    llm = ScriptedLLM([text("nothing to do")])
    assert llm.complete(_request()).text == "nothing to do"
    with pytest.raises(ScriptExhausted, match=r"call 2 but only 1 scripted; last message: user: Tap Sign in"):
        llm.complete(_request())
    assert len(llm.requests) == 2


def test_scripted_llm_raises_scripted_errors_and_accepts_strings() -> None:
    llm = ScriptedLLM([LLMError("endpoint down"), "plain text"])
    with pytest.raises(LLMError, match="endpoint down"):
        llm.complete(_request())
    assert llm.complete(_request()).text == "plain text"


def test_tool_calls_builds_parallel_calls() -> None:
    response = tool_calls(("assertVisible", {"ref": "a"}), ("assertVisible", {"ref": "b"}))
    assert [u.input["ref"] for u in response.tool_uses] == ["a", "b"]
    assert response.stop_reason == "tool_use"


def test_function_llm_sees_the_request() -> None:
    def answer(request: LLMRequest) -> LLMResponse:
        last = request.messages[-1].content[0]
        if isinstance(last, ToolResultBlock):
            return tool("objectiveStatus", status="COMPLETED", explanation=last.content)
        return tool("tap", ref="a1")

    llm = FunctionLLM(answer)
    assert llm.complete(_request()).tool_uses[0].name == "tap"
    follow_up = _request(
        Message.user("Tap Sign in"),
        Message.assistant(ToolUseBlock(id="t1", name="tap", input={"ref": "a1"})),
        Message.user(ToolResultBlock(tool_use_id="t1", content="OK tapped")),
    )
    assert llm.complete(follow_up).tool_uses[0].input["explanation"] == "OK tapped"
    assert len(llm.requests) == 2


def test_capture_llm_requests_keeps_exchanges_when_the_block_raises() -> None:
    llm = ScriptedLLM([tool("tap", ref="a1")])
    captured: list[LLMExchange] = []
    with pytest.raises(ScriptExhausted), capture_llm_requests() as log:
        captured = log
        llm.complete(_request())
        llm.complete(_request())
    assert len(captured) == 2
    first, second = log
    assert first.response is not None and first.error is None
    assert second.response is None and isinstance(second.error, ScriptExhausted)
    llm2 = ScriptedLLM(["x"])
    llm2.complete(_request())
    assert len(log) == 2  # nothing recorded after the block
