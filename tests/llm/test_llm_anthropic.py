"""`AnthropicLLM` through the real `anthropic` SDK against `FakeMessagesAPI` over real sockets.

Nothing in the SDK is patched: retries, backoff (`retry-after`), timeouts and error parsing are the
SDK's own. Retry waits are kept to ~10 ms with `retry-after` headers.
"""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from trailblaze.common.flags import PYTEST
from trailblaze.errors import LLMError
from trailblaze.llm.anthropic import (
    DEFAULT_MODEL,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    LOCAL_PLACEHOLDER_KEY,
    AnthropicLLM,
)
from trailblaze.llm.client import (
    ImageBlock,
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMRateLimitError,
    LLMRequest,
    LLMRequestsBlocked,
    LLMTimeoutError,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
    override_allow_llm_requests,
)
from trailblaze.llm.pricing import cost_usd
from trailblaze.testing import (
    Delay,
    FakeError,
    FakeMessagesAPI,
    RawBody,
    capture_llm_requests,
    text_response,
    tool_use_response,
)

SECRET_KEY = "sk-ant-api03-TOPSECRET-key"
TAP = ToolSpec(
    name="tap",
    description="Tap the element with this ref.",
    input_schema={"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]},
)
STATUS = ToolSpec(
    name="objectiveStatus",
    description="Report whether the step is done.",
    input_schema={
        "type": "object",
        "properties": {"status": {"enum": ["IN_PROGRESS", "COMPLETED", "FAILED"]}},
    },
)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n fake pixels").decode()


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as server:
        yield server


def _client(api: FakeMessagesAPI, **kwargs: Any) -> AnthropicLLM:
    options: dict[str, Any] = {"base_url": api.url, "api_key": SECRET_KEY, "timeout": 5.0}
    options.update(kwargs)
    return AnthropicLLM(**options)


def _agent_request(**kwargs: Any) -> LLMRequest:
    """A request shaped like the agent's: a finished tool call, then the current screen."""
    return LLMRequest(
        system=(TextBlock(text="You test mobile apps."), TextBlock(text="Context: demo app.")),
        tools=(TAP, STATUS),
        messages=(
            Message.user("Objective: sign in"),
            Message.assistant(ToolUseBlock(id="toolu_1", name="tap", input={"ref": "a1"})),
            Message.user(
                ToolResultBlock(tool_use_id="toolu_1", content="OK tapped Sign in"),
                TextBlock(text='[b2] Button "Continue"'),
                ImageBlock(media_type="image/png", data_base64=PNG),
            ),
        ),
        tool_choice="any",
        max_tokens=512,
        metadata={"step": 3},
        **kwargs,
    )


@pytest.mark.slow
def test_tool_use_answer_is_parsed_into_our_types(api: FakeMessagesAPI) -> None:
    api.enqueue(tool_use_response("tap", {"ref": "b2"}, text="Continue is visible", id="toolu_abc"))
    with _client(api) as llm:
        response = llm.complete(_agent_request())
    assert response.content == (
        TextBlock(text="Continue is visible"),
        ToolUseBlock(id="toolu_abc", name="tap", input={"ref": "b2"}),
    )
    assert response.stop_reason == "tool_use"
    assert response.model == DEFAULT_MODEL
    assert response.id is not None and response.id.startswith("msg_")
    assert response.duration_s > 0


def test_request_body_is_what_the_messages_api_expects(api: FakeMessagesAPI) -> None:
    with _client(api, model="claude-sonnet-4-6") as llm:
        llm.complete(_agent_request())
    (recorded,) = api.requests
    body = recorded.body
    assert body is not None
    assert recorded.path == "/v1/messages"
    assert recorded.credential == SECRET_KEY
    assert "anthropic-version" in recorded.headers
    assert body["model"] == "claude-sonnet-4-6"
    assert body["max_tokens"] == 512
    assert body["system"] == [
        {"type": "text", "text": "You test mobile apps."},
        {"type": "text", "text": "Context: demo app.", "cache_control": {"type": "ephemeral"}},
    ]
    assert [t["name"] for t in body["tools"]] == ["tap", "objectiveStatus"]
    assert body["tools"][0]["input_schema"] == TAP.input_schema
    assert "cache_control" not in body["tools"][0]
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral"}
    assert body["tool_choice"] == {"type": "any"}
    assert body["thinking"] == {"type": "disabled"}
    assert "temperature" not in body and "metadata" not in body
    assistant, user = body["messages"][1], body["messages"][2]
    assert assistant == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "tap", "input": {"ref": "a1"}}],
    }
    assert user["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "OK tapped Sign in",
        "is_error": False,
    }
    assert user["content"][2] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }


def test_named_tool_choice_single_call_and_temperature(api: FakeMessagesAPI) -> None:
    request = _agent_request().model_copy(
        update={"tool_choice": "objectiveStatus", "single_tool_call": True, "temperature": 0.0}
    )
    with _client(api, model="claude-sonnet-4-6") as llm:
        response = llm.complete(request)
    body = api.bodies[0]
    assert body["tool_choice"] == {
        "type": "tool",
        "name": "objectiveStatus",
        "disable_parallel_tool_use": True,
    }
    assert body["temperature"] == 0.0
    assert response.tool_uses[0].name == "objectiveStatus"


def test_models_that_reject_forced_tool_use_get_auto(api: FakeMessagesAPI) -> None:
    with _client(api, model="claude-sonnet-5-5") as llm:
        llm.complete(_agent_request())
    body = api.bodies[0]
    assert body["tool_choice"] == {"type": "auto"}
    assert "thinking" not in body


def test_model_from_environment(api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAILBLAZE_MODEL", "claude-haiku-4-5")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET_KEY)
    with AnthropicLLM() as llm:
        assert llm.base_url == api.url
        response = llm.complete(_agent_request(model=None))
    assert api.bodies[0]["model"] == "claude-haiku-4-5" == response.model


def test_rate_limit_is_retried_by_the_sdk(api: FakeMessagesAPI) -> None:
    api.enqueue(FakeError.rate_limited(retry_after=0.01), tool_use_response("tap", {"ref": "b2"}))
    with _client(api) as llm:
        response = llm.complete(_agent_request())
    assert response.tool_uses[0].input == {"ref": "b2"}
    assert [r.headers["x-stainless-retry-count"] for r in api.requests] == ["0", "1"]
    # The SDK keeps one idempotency key across retries.
    assert len({r.headers.get("idempotency-key") for r in api.requests}) == 1


@pytest.mark.parametrize("error", [FakeError.overloaded(), FakeError.server_error()], ids=["529", "500"])
def test_server_errors_are_retried(api: FakeMessagesAPI, error: FakeError) -> None:
    api.enqueue(error, error, text_response("recovered"))
    with _client(api) as llm:
        assert llm.complete(_agent_request()).text == "recovered"
    assert len(api.requests) == 3


def test_persistent_overload_fails_after_all_retries(api: FakeMessagesAPI) -> None:
    api.policy = lambda body: FakeError.overloaded(retry_after=0.005)
    with _client(api, max_retries=4) as llm, pytest.raises(LLMError) as info:
        llm.complete(_agent_request())
    assert len(api.requests) == 5
    message = str(info.value)
    assert "HTTP 529 overloaded_error" in message and "after 4 retries" in message
    assert "\n" not in message


def test_persistent_rate_limit_is_a_rate_limit_error(api: FakeMessagesAPI) -> None:
    api.policy = lambda body: FakeError.rate_limited(retry_after=0.005)
    with _client(api, max_retries=1) as llm, pytest.raises(LLMRateLimitError, match="after 1 retry;"):
        llm.complete(_agent_request())
    assert len(api.requests) == 2


def test_timeout_names_the_timeout(api: FakeMessagesAPI) -> None:
    api.enqueue(Delay(10))
    with _client(api, timeout=0.2, max_retries=0) as llm, pytest.raises(LLMTimeoutError) as info:
        llm.complete(_agent_request())
    assert "timed out (no answer within 0.2 s)" in str(info.value)
    assert len(api.requests) == 1


@pytest.mark.slow
def test_timeout_names_the_options_that_raise_it(api: FakeMessagesAPI) -> None:
    api.policy = lambda body: Delay(10)
    with _client(api, timeout=0.2, max_retries=1) as llm, pytest.raises(LLMTimeoutError) as info:
        llm.complete(_agent_request())
    message = str(info.value)
    assert "after 1 retry" in message and "--llm-timeout SECONDS or --llm-retries N" in message
    assert "--trailblaze-" not in message and len(api.requests) == 2
    # the pytest plugin's client names pytest's options (issue 40): the CLI's would be refused there
    with _client(api, timeout=0.2, max_retries=0, flags=PYTEST) as llm, pytest.raises(LLMTimeoutError) as info:
        llm.complete(_agent_request())
    assert "raise --trailblaze-llm-timeout SECONDS or --trailblaze-llm-retries N" in str(info.value)


def test_default_limits_wait_at_most_two_minutes_for_a_dead_endpoint() -> None:
    with AnthropicLLM(base_url="http://127.0.0.1:9") as llm:
        assert (llm.timeout, llm.max_retries) == (DEFAULT_TIMEOUT, DEFAULT_RETRIES) == (30.0, 2)
    # the SDK sleeps 0.5 s * 2**n (at most) between tries
    backoff = sum(0.5 * 2**n for n in range(DEFAULT_RETRIES))
    assert DEFAULT_TIMEOUT * (1 + DEFAULT_RETRIES) + backoff <= 120


@pytest.mark.parametrize(
    "body",
    [
        b'{"id": "msg_1", "type": "message", "role": "assis',  # truncated
        b"<html><body>502 Bad Gateway</body></html>",  # a proxy's page, sent as 200
        b'{"type": "error"}',  # JSON, but no message
        b'{"id": "msg_1", "type": "message", "content": "not a list", "usage": {}}',
        b"[1, 2, 3]",
    ],
)
def test_malformed_answers_are_llm_errors_naming_the_endpoint(api: FakeMessagesAPI, body: bytes) -> None:
    api.enqueue(RawBody(body))
    with _client(api, max_retries=0) as llm, capture_llm_requests() as captured, pytest.raises(LLMError) as info:
        llm.complete(_agent_request())
    message = str(info.value)
    assert message.startswith(f"malformed answer from model endpoint {api.url} ")
    assert "ANTHROPIC_BASE_URL" in message and SECRET_KEY not in message and "\n" not in message
    assert info.value.exit_code == 3
    assert captured[-1].error is info.value


def test_a_slow_answer_within_the_timeout_succeeds(api: FakeMessagesAPI) -> None:
    api.enqueue(Delay(0.05, text_response("late but fine")))
    with _client(api, timeout=2.0) as llm:
        assert llm.complete(_agent_request()).text == "late but fine"


def test_bad_credentials_give_an_auth_error_without_the_key() -> None:
    with FakeMessagesAPI(api_key="the-right-key") as api, _client(api) as llm:
        with pytest.raises(LLMAuthError) as info:
            llm.complete(_agent_request())
    message = str(info.value)
    assert "HTTP 401 authentication_error" in message and "ANTHROPIC_API_KEY" in message
    assert SECRET_KEY not in message and "TOPSECRET" not in repr(info.value.args)
    assert len(api.requests) == 1  # 401 is not retried


def test_connection_refused_is_a_connection_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with AnthropicLLM(base_url=f"http://127.0.0.1:{port}", api_key=SECRET_KEY, max_retries=0) as llm:
        with pytest.raises(LLMConnectionError, match=rf"cannot reach model endpoint http://127.0.0.1:{port}"):
            llm.complete(_agent_request())


def test_malformed_conversation_is_a_bad_request_and_not_retried(api: FakeMessagesAPI) -> None:
    orphan = LLMRequest(
        tools=(TAP,),
        messages=(Message.user(ToolResultBlock(tool_use_id="toolu_missing", content="OK")),),
        tool_choice="any",
    )
    with (
        _client(api) as llm,
        pytest.raises(LLMBadRequestError, match="HTTP 400 invalid_request_error.*toolu_missing"),
    ):
        llm.complete(orphan)
    assert len(api.requests) == 1


def test_usage_and_cost_follow_the_prompt_cache(api: FakeMessagesAPI) -> None:
    long_prompt = TextBlock(text="Rules for driving the app. " * 400)  # ~2,700 tokens: cacheable
    request = _agent_request().model_copy(update={"system": (long_prompt,)})
    with _client(api, model="claude-sonnet-4-6") as llm:
        first = llm.complete(request)
        second = llm.complete(request)
    assert first.usage.cache_creation_input_tokens > 2_000
    assert first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens == 0
    assert second.usage.input_tokens == first.usage.input_tokens > 0
    assert first.cost_usd == pytest.approx(cost_usd("claude-sonnet-4-6", first.usage))
    assert second.cost_usd is not None and first.cost_usd is not None
    assert second.cost_usd < first.cost_usd / 3


def test_usage_reported_by_the_server_is_taken_as_is(api: FakeMessagesAPI) -> None:
    usage = {
        "input_tokens": 1200,
        "output_tokens": 40,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 3000,
    }
    api.enqueue(tool_use_response("tap", {"ref": "a"}, usage=usage))
    with _client(api, model="claude-sonnet-5") as llm:
        response = llm.complete(_agent_request())
    assert response.usage.model_dump() == usage
    assert response.cost_usd == pytest.approx((1200 * 3 + 40 * 15 + 3000 * 0.3) / 1e6)


def test_local_endpoint_without_a_key_uses_a_placeholder(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with AnthropicLLM(base_url=api.url) as llm:
        llm.complete(_agent_request())
    assert api.requests[0].credential == LOCAL_PLACEHOLDER_KEY


def test_remote_endpoint_without_a_key_says_how_to_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    with pytest.raises(LLMAuthError, match="set `ANTHROPIC_API_KEY`"):
        AnthropicLLM(base_url="https://api.anthropic.com")


def test_switch_blocks_non_loopback_before_any_traffic(api: FakeMessagesAPI) -> None:
    with AnthropicLLM(base_url="https://api.anthropic.com", api_key=SECRET_KEY, max_retries=0) as remote:
        with pytest.raises(LLMRequestsBlocked, match="ALLOW_LLM_REQUESTS"):
            remote.complete(_agent_request())
    with override_allow_llm_requests(False), _client(api) as local, pytest.raises(LLMRequestsBlocked):
        local.complete(_agent_request())
    assert api.requests == []


def test_capture_sees_real_client_calls_and_failures(api: FakeMessagesAPI) -> None:
    api.enqueue(text_response("fine"), FakeError.invalid_request("nope"))
    with _client(api) as llm, capture_llm_requests() as log:
        llm.complete(_agent_request())
        with pytest.raises(LLMBadRequestError):
            llm.complete(_agent_request())
    assert [e.response.text if e.response else None for e in log] == ["fine", None]
    assert isinstance(log[1].error, LLMBadRequestError)
    assert log[0].request.metadata == {"step": 3}
