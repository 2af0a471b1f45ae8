"""`OpenAILLM`: the Chat Completions mapping against saved wire examples, and the real `openai` SDK
against `FakeChatCompletionsAPI` for retries, timeouts, malformed answers, auth and secrets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.llm_wire import example_request
from tests.support.paths import DATA
from trailblaze.common.redact import register_secrets
from trailblaze.errors import LLMError
from trailblaze.llm.client import (
    LLMAuthError,
    LLMRateLimitError,
    LLMRequest,
    LLMTimeoutError,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    Usage,
)
from trailblaze.llm.openai import OpenAILLM, from_openai_completion, to_openai_params
from trailblaze.llm.pricing import cost_usd
from trailblaze.testing import (
    Delay,
    FakeChatCompletionsAPI,
    FakeError,
    RawBody,
    chat_tool_call_response,
    tool_use_response,
)
from trailblaze.testing.chat_completions_api import messages_body

WIRE = DATA / "llm_wire"


def wire(name: str) -> Any:
    return json.loads((WIRE / name).read_text())


@pytest.fixture
def api() -> Any:
    with FakeChatCompletionsAPI() as server:
        yield server


def _request(**kw: Any) -> LLMRequest:
    tools = (ToolSpec(name="tap", description="Tap.", input_schema={"type": "object"}),)
    return LLMRequest(tools=tools, messages=(Message.user("hi"),), **{"tool_choice": "any", **kw})


# --- the mapping against saved wire examples ---------------------------------------------------------


def test_request_maps_to_the_saved_chat_completions_body() -> None:
    params = to_openai_params(example_request(), "gpt-4.1", max_tokens_field="max_tokens")
    assert params == wire("openai_chat_request.json")
    # what each part became: system text, tool schema, required choice, is_error, data-URL image
    assert params["messages"][0] == {
        "role": "system",
        "content": "You drive a phone app.\n\nDevice: sim android.",
    }
    assert params["tool_choice"] == "required"
    assert params["tools"][0]["function"]["parameters"]["required"] == ["ref"]
    tool_message = params["messages"][3]
    assert tool_message == {
        "role": "tool",
        "tool_call_id": "toolu_01",
        "content": "ERROR: NOT_FOUND: no element a7",
    }
    assert params["messages"][4]["content"][1]["image_url"]["url"].startswith("data:image/jpeg;base64,/9j/")


@pytest.mark.parametrize(
    ("choice", "single", "expected"),
    [
        ("auto", False, "auto"),
        ("none", False, "none"),
        ("any", False, "required"),
        ("tap", True, {"type": "function", "function": {"name": "tap"}}),
    ],
)
def test_tool_choice_mapping(choice: str, single: bool, expected: Any) -> None:
    params = to_openai_params(_request(tool_choice=choice, single_tool_call=single), "m")
    assert params["tool_choice"] == expected
    assert params.get("parallel_tool_calls", True) is not single
    assert params["max_completion_tokens"] == 1024 and "max_tokens" not in params


def test_a_successful_tool_result_has_no_error_prefix() -> None:
    request = example_request()
    last = request.messages[-1]
    ok = last.model_copy(
        update={"content": (last.content[0].model_copy(update={"is_error": False}), *last.content[1:])}
    )
    params = to_openai_params(request.model_copy(update={"messages": (*request.messages[:-1], ok)}), "m")
    assert params["messages"][3]["content"] == "NOT_FOUND: no element a7"


def test_tool_calls_response_maps_calls_usage_and_cached_tokens() -> None:
    response = from_openai_completion(wire("openai_chat_response_tool_calls.json"), "gpt-4.1")
    assert response.stop_reason == "tool_use" and response.model == "gpt-4.1-2025-04-14"
    assert [(u.name, u.input) for u in response.tool_uses] == [
        ("tap", {"ref": "b2"}),
        ("objectiveStatus", {"status": "COMPLETED", "explanation": "Signed in"}),
    ]
    assert response.usage == Usage(input_tokens=230, output_tokens=41, cache_read_input_tokens=1920)
    # priced on the dated id, cached input at the cached rate
    expected = (230 * 2.0 + 41 * 8.0 + 1920 * 0.50) / 1e6
    assert cost_usd(response.model, response.usage, provider="openai") == pytest.approx(expected)


@pytest.mark.parametrize(
    ("name", "stop", "text"),
    [
        ("openai_chat_response_text.json", "end_turn", "I would tap the Sign in button, element b2."),
        ("openai_chat_response_length.json", "max_tokens", "The screen shows a sign-in form with"),
    ],
)
def test_text_and_truncated_responses(name: str, stop: str, text: str) -> None:
    response = from_openai_completion(wire(name), "m")
    assert response.stop_reason == stop and response.text == text and not response.tool_uses


def test_local_servers_answers_map_too() -> None:
    ollama = from_openai_completion(wire("ollama_chat_response.json"), "qwen2.5vl:7b")
    assert ollama.stop_reason == "tool_use"  # Ollama says `stop` although it called a tool
    assert ollama.content == (ToolUseBlock(id="call_p1x9kq3d", name="tap", input={"ref": "b2"}),)
    assert ollama.usage == Usage(input_tokens=1533, output_tokens=24)
    assert cost_usd(ollama.model, ollama.usage, provider="openai") is None  # a local model has no price
    vllm = from_openai_completion(wire("vllm_chat_response.json"), "x")
    assert vllm.tool_uses[0].input == {"ref": "b2"} and vllm.usage.cache_read_input_tokens == 1024


def test_unreadable_arguments_become_an_empty_call_the_tool_can_reject() -> None:
    body = wire("ollama_chat_response.json")
    body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"ref": "b2"'
    assert from_openai_completion(body, "m").tool_uses[0].input == {}


def test_the_fake_shows_the_policy_the_same_conversation_as_the_messages_api() -> None:
    body = messages_body(wire("openai_chat_request.json"))
    assert body["system"] == [{"type": "text", "text": "You drive a phone app.\n\nDevice: sim android."}]
    assert body["tool_choice"] == {"type": "any"}
    assert body["messages"][1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_01",
        "name": "tap",
        "input": {"ref": "a7"},
    }
    result, screen, image = body["messages"][2]["content"]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_01",
        "content": "NOT_FOUND: no element a7",
        "is_error": True,
    }
    assert screen["type"] == "text" and image["source"]["media_type"] == "image/jpeg"


# --- through the real SDK ----------------------------------------------------------------------------


def test_round_trip_through_the_sdk(api: FakeChatCompletionsAPI) -> None:
    api.enqueue(tool_use_response("tap", {"ref": "b2"}, text="b2 it is"))
    with OpenAILLM("gpt-4.1", base_url=api.url) as llm:
        response = llm.complete(example_request())
    assert response.provider == "openai" and response.text == "b2 it is"
    assert response.tool_uses[0].input == {"ref": "b2"} and response.cost_usd is not None
    sent = api.requests[0]
    assert (
        sent.path == "/v1/chat/completions"
        and sent.headers["authorization"] == "Bearer trailblaze-local-no-key"
    )
    assert sent.body == wire("openai_chat_request.json")


def test_retries_429_and_5xx_with_backoff(api: FakeChatCompletionsAPI) -> None:
    api.enqueue(
        FakeError.rate_limited(), FakeError.server_error(), chat_tool_call_response("tap", {"ref": "b2"})
    )
    with OpenAILLM("gpt-4.1", base_url=api.url, max_retries=2) as llm:
        assert llm.complete(_request()).tool_uses[0].name == "tap"
    assert len(api.requests) == 3
    api.enqueue(*[FakeError.rate_limited()] * 2)
    with (
        OpenAILLM("gpt-4.1", base_url=api.url, max_retries=1) as llm,
        pytest.raises(LLMRateLimitError) as info,
    ):
        llm.complete(_request())
    assert (
        f"model endpoint {api.url} kept rate-limiting" in info.value.message
        and "after 1 retry" in info.value.message
    )


def test_timeout_is_bounded_and_named(api: FakeChatCompletionsAPI) -> None:
    api.enqueue(Delay(30), Delay(30))
    with (
        OpenAILLM("m", base_url=api.url, timeout=0.2, max_retries=1) as llm,
        pytest.raises(LLMTimeoutError) as info,
    ):
        llm.complete(_request())
    assert f"model endpoint {api.url} timed out (no answer within 0.2 s) after 1 retry" in info.value.message
    assert len(api.requests) == 2


@pytest.mark.parametrize("raw", [b'{"id": "chatcmpl-1", "choi', b'{"unexpected": true}', b'{"choices": []}'])
def test_a_malformed_answer_names_the_endpoint(api: FakeChatCompletionsAPI, raw: bytes) -> None:
    api.enqueue(RawBody(raw))
    with OpenAILLM("m", base_url=api.url) as llm, pytest.raises(LLMError) as info:
        llm.complete(_request())
    assert type(info.value) is LLMError
    assert info.value.message.startswith(
        f"malformed answer from model endpoint {api.url} (not a Chat Completions answer"
    )
    assert "--llm-base-url" in info.value.message


def test_auth_errors_never_show_the_key(api: FakeChatCompletionsAPI) -> None:
    api.api_key = "right-key"
    with (
        OpenAILLM("m", base_url=api.url, api_key="sk-wrong-0123456789") as llm,
        pytest.raises(LLMAuthError) as info,
    ):
        llm.complete(_request())
    assert (
        "rejected the credentials (HTTP 401" in info.value.message and "OPENAI_API_KEY" in info.value.message
    )
    assert "sk-wrong" not in info.value.message


def test_no_key_for_a_remote_endpoint_is_an_auth_error() -> None:
    with pytest.raises(LLMAuthError, match="set `OPENAI_API_KEY`"):
        OpenAILLM("gpt-4.1", base_url="https://api.openai.com/v1")


def test_secrets_never_reach_the_request_body(api: FakeChatCompletionsAPI) -> None:
    """Whoever built the request, the adapter scrubs it: system, text, tool arguments and results."""
    register_secrets({"password": "hunter2-openai"})
    request = LLMRequest(
        system="the password is hunter2-openai",
        tools=(ToolSpec(name="tap", description="Tap.", input_schema={"type": "object"}),),
        messages=(
            Message.user("type hunter2-openai"),
            Message.assistant(ToolUseBlock(id="call_1", name="tap", input={"text": "hunter2-openai"})),
            Message.user(
                ToolResultBlock(tool_use_id="call_1", content="OK typed hunter2-openai"),
                TextBlock(text="the field shows hunter2-openai"),
            ),
        ),
        tool_choice="any",
    )
    with OpenAILLM("m", base_url=api.url) as llm:
        llm.complete(request)
    (sent,) = api.requests
    assert b"hunter2-openai" not in sent.raw and sent.raw.count(b"{{password}}") == 5


def test_a_malformed_answer_during_record_is_exit_3_naming_step_and_endpoint(
    api: FakeChatCompletionsAPI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same as on the Messages API (tests/cli/test_llm_faults_cli.py), in process through `main`."""
    from trailblaze.cli.main import main

    trail = tmp_path / "t.trail.yaml"
    trail.write_text("trail:\n  - step: Tap the Sign in button\n")
    api.policy = lambda request: RawBody(b'{"id": "chatcmpl-1", "object": "chat.completion", "choi')
    with pytest.raises(SystemExit) as exc:
        main(["record", str(trail), "--device", "sim:android", "--model", "openai:gpt-4.1",
              "--llm-base-url", api.url, "--llm-retries", "0", "--run-dir", str(tmp_path / "run")])  # fmt: skip
    err = capsys.readouterr().err
    assert exc.value.code == 3, err
    assert "t.trail.yaml:2 step 1 ('Tap the Sign in button')" in err and "Traceback" not in err
    assert f"malformed answer from model endpoint {api.url} (not a Chat Completions answer" in err
