"""Claude on Bedrock and Vertex at the wire: the real `AnthropicBedrock` / `AnthropicVertex` clients
pointed at `FakeMessagesAPI` (base_url), with fake credentials from their standard environment."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.llm_wire import example_request
from tests.support.paths import DATA
from trailblaze.errors import LLMError, UsageError
from trailblaze.llm.anthropic import BedrockLLM, VertexLLM
from trailblaze.llm.client import LLMAuthError, LLMRateLimitError, LLMRequest, Message, ToolSpec
from trailblaze.llm.models import build_llm, parse_model
from trailblaze.llm.pricing import cost_usd
from trailblaze.testing import FakeError, FakeMessagesAPI, RawBody

WIRE = DATA / "llm_wire"
BEDROCK_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
VERTEX_MODEL = "claude-sonnet-4-5@20250929"
SIGV4 = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/\d{8}/us-east-1/bedrock/aws4_request, "
    r"SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=[0-9a-f]{64}$"
)


def wire(name: str) -> Any:
    return json.loads((WIRE / name).read_text())


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as server:
        yield server


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEFORTESTS0001")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-aws-secret-0123456789")
    monkeypatch.setenv("AWS_REGION", "us-east-1")


@pytest.fixture
def gcp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.fake-vertex-token")
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "demo-project")
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")


def _small() -> LLMRequest:
    tools = (ToolSpec(name="tap", description="Tap.", input_schema={"type": "object"}),)
    return LLMRequest(tools=tools, messages=(Message.user("hi"),), tool_choice="any")


@pytest.mark.usefixtures("aws")
def test_bedrock_invokes_the_model_path_signed_with_sigv4(api: FakeMessagesAPI) -> None:
    with BedrockLLM(BEDROCK_MODEL, base_url=api.url) as llm:
        response = llm.complete(example_request())
    (sent,) = api.requests
    assert sent.path == f"/model/{BEDROCK_MODEL}/invoke"
    auth = SIGV4.match(sent.headers["authorization"])
    assert auth and auth["key"] == "AKIAFAKEFORTESTS0001"
    assert {"host", "x-amz-date"} <= set(auth["signed"].split(";")) and "x-api-key" not in sent.headers
    assert b"fake-aws-secret" not in sent.raw
    # the Messages body, with the model in the path and the API version in the body
    assert sent.body == wire("bedrock_invoke_request.json")
    assert "model" not in sent.body and sent.body["anthropic_version"]
    assert (
        response.provider == "bedrock" and response.model == BEDROCK_MODEL and response.cost_usd is not None
    )


@pytest.mark.usefixtures("aws")
def test_bedrock_answer_maps_like_the_messages_api(api: FakeMessagesAPI) -> None:
    api.enqueue(RawBody(json.dumps(wire("bedrock_invoke_response.json")).encode()))
    with BedrockLLM(BEDROCK_MODEL, base_url=api.url) as llm:
        response = llm.complete(_small())
    assert response.text == "The Sign in button is b2." and response.tool_uses[0].input == {"ref": "b2"}
    assert response.usage.cache_creation_input_tokens == 1500 and response.stop_reason == "tool_use"
    assert response.cost_usd == pytest.approx(cost_usd("claude-sonnet-4-5", response.usage))


@pytest.mark.usefixtures("aws")
def test_bedrock_fails_like_every_provider(api: FakeMessagesAPI) -> None:
    api.enqueue(FakeError.rate_limited(), FakeError.overloaded())
    with BedrockLLM(BEDROCK_MODEL, base_url=api.url, max_retries=2) as llm:
        assert llm.complete(_small()).tool_uses
    assert (
        len(api.requests) == 3
        and len({r.headers["x-amz-date"] + r.headers["authorization"] for r in api.requests}) >= 1
    )
    api.enqueue(FakeError.rate_limited(), FakeError.rate_limited())
    with BedrockLLM(BEDROCK_MODEL, base_url=api.url, max_retries=1) as llm, pytest.raises(LLMRateLimitError):
        llm.complete(_small())
    api.enqueue(RawBody(b'{"unexpected": true}'))
    with BedrockLLM(BEDROCK_MODEL, base_url=api.url) as llm, pytest.raises(LLMError) as info:
        llm.complete(_small())
    assert info.value.message.startswith(
        f"malformed answer from model endpoint {api.url} (not a Messages API message"
    )


@pytest.mark.usefixtures("gcp")
def test_vertex_raw_predicts_with_a_bearer_token(api: FakeMessagesAPI) -> None:
    with VertexLLM(VERTEX_MODEL, base_url=api.url + "/v1") as llm:
        response = llm.complete(example_request())
    (sent,) = api.requests
    assert (
        sent.path
        == f"/v1/projects/demo-project/locations/us-east5/publishers/anthropic/models/{VERTEX_MODEL}:rawPredict"
    )
    assert sent.headers["authorization"] == "Bearer ya29.fake-vertex-token"
    assert sent.body == wire("vertex_raw_predict_request.json") and "model" not in sent.body
    assert response.provider == "vertex"
    assert response.cost_usd == pytest.approx(cost_usd("claude-sonnet-4-5", response.usage))


def test_no_credential_lookup_asks_a_metadata_server(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no credentials in the environment and a local endpoint, placeholders are used: neither the
    AWS instance metadata service nor Google's metadata server (both pointed at a trap) is asked."""
    with FakeMessagesAPI() as trap:
        monkeypatch.delenv("AWS_EC2_METADATA_DISABLED")
        monkeypatch.setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", trap.url)
        monkeypatch.setenv("GCE_METADATA_HOST", trap.url.removeprefix("http://"))
        monkeypatch.setenv("GCE_METADATA_IP", trap.url.removeprefix("http://"))
        monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "demo-project")
        monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
        with build_llm(parse_model(f"bedrock:{BEDROCK_MODEL}"), base_url=api.url) as bedrock:  # type: ignore[attr-defined]
            bedrock.complete(_small())
        with build_llm(parse_model(f"vertex:{VERTEX_MODEL}"), base_url=api.url + "/v1") as vertex:  # type: ignore[attr-defined]
            vertex.complete(_small())
        assert trap.requests == []
    bedrock_call, vertex_call = api.requests
    assert SIGV4.match(bedrock_call.headers["authorization"])["key"] == "trailblaze-local-no-key"  # type: ignore[index]
    assert vertex_call.headers["authorization"] == "Bearer trailblaze-local-no-key"


def test_missing_platform_settings_are_usage_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_REGION", raising=False)
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    with pytest.raises(UsageError, match="Bedrock needs an AWS region: set `AWS_REGION`"):
        BedrockLLM(BEDROCK_MODEL, base_url="https://bedrock.example.invalid")
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    monkeypatch.delenv("ANTHROPIC_VERTEX_PROJECT_ID", raising=False)
    with pytest.raises(UsageError, match="Vertex AI needs `ANTHROPIC_VERTEX_PROJECT_ID`"):
        VertexLLM(VERTEX_MODEL)


def test_unresolvable_aws_credentials_are_an_auth_error(
    api: FakeMessagesAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real endpoint with no AWS credentials anywhere: one line naming the endpoint, no traceback."""
    # a region no other test uses: the SDK caches one boto3 session per (keys, region, profile)
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    llm = BedrockLLM(BEDROCK_MODEL, base_url="http://localhost.invalid:1")  # not loopback: no placeholders
    llm.base_url = api.url  # reported as; nothing is sent without credentials
    with pytest.raises(LLMAuthError) as info:
        llm.complete(_small())
    assert info.value.message.startswith("no bedrock credentials for model endpoint")
    assert "AWS_ACCESS_KEY_ID" in info.value.message and api.requests == []
