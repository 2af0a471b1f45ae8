"""The Claude adapters on the `anthropic` SDK: `AnthropicLLM`, `BedrockLLM` and `VertexLLM`.

All three send the same Messages API body (`to_anthropic_params`); they differ only in the SDK
client: `anthropic.Anthropic` (`POST /v1/messages`, an API key), `anthropic.AnthropicBedrock`
(`POST /model/{id}/invoke`, AWS SigV4 credentials from the standard AWS chain) and
`anthropic.AnthropicVertex` (`POST .../publishers/anthropic/models/{id}:rawPredict`, a Google
bearer token). This module imports `anthropic` inside functions only, so importing it stays cheap;
`boto3` / `google-auth` are needed only for Bedrock / Vertex (`trailblaze[bedrock]`,
`trailblaze[vertex]`). Retries, timeouts and error translation are `trailblaze.llm._sdk`'s.
"""

from __future__ import annotations

import logging
import os
from types import ModuleType
from typing import TYPE_CHECKING, Any

from trailblaze.common.flags import CLI, Flags
from trailblaze.errors import UsageError
from trailblaze.llm._sdk import DEFAULT_RETRIES, DEFAULT_TIMEOUT, LOCAL_PLACEHOLDER_KEY, SDKLLM
from trailblaze.llm.client import (
    ImageBlock,
    LLMAuthError,
    LLMRequest,
    LLMResponse,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    is_loopback_url,
)
from trailblaze.llm.pricing import claude_model_id

if TYPE_CHECKING:
    import anthropic
    import httpx2

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "LOCAL_PLACEHOLDER_KEY",
    "AnthropicLLM",
    "BedrockLLM",
    "VertexLLM",
    "to_anthropic_params",
]

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-sonnet-5"
"""The newest Sonnet that accepts forced tool use (Sonnet 5.5 rejects it; see ADR 0005)."""

DEFAULT_BASE_URL = "https://api.anthropic.com"

# Models that answer a forced `tool_choice` with a 400: adaptive thinking is always on there
# (Opus 5.5, Fable, Mythos) or forcing was removed (Sonnet 5.5). For them a forced choice is
# sent as `auto`, and the agent handles a text-only answer like any other miss.
_NO_FORCED_TOOL_USE = ("claude-sonnet-5-5", "claude-opus-5-5", "claude-fable-", "claude-mythos-")


def _supports_forced_tool_use(model: str) -> bool:
    return not claude_model_id(model).startswith(_NO_FORCED_TOOL_USE)


class _ClaudeLLM(SDKLLM):
    """The Messages API wire format, shared by the three Claude clients."""

    wire_format = "a Messages API message"

    def _params(self, request: LLMRequest, model: str) -> dict[str, Any]:
        return to_anthropic_params(request, model)

    def _send(self, params: dict[str, Any]) -> Any:
        return self._client.messages.create(**params)

    def _response(self, answer: Any, model: str) -> LLMResponse:
        return _to_response(answer, model)

    def _sdk(self) -> tuple[ModuleType, type[Exception]]:
        import anthropic

        return anthropic, anthropic.AnthropicError


class AnthropicLLM(_ClaudeLLM):
    """Calls the Anthropic Messages API (`messages.create`, non-streaming).

    Args:
        model: model id; default `TRAILBLAZE_MODEL` (when it names an Anthropic model), then
            `DEFAULT_MODEL`.
        api_key: default `ANTHROPIC_API_KEY`, then `ANTHROPIC_AUTH_TOKEN` (sent as a bearer
            token). With neither and a loopback base URL, `LOCAL_PLACEHOLDER_KEY` is sent.
        base_url: default `ANTHROPIC_BASE_URL`, then `https://api.anthropic.com`.
        max_retries: retries the SDK makes on 408/409/429/5xx/529 and connection errors.
        timeout: seconds per attempt.
        http_client: an `httpx2.Client` to send through (proxies, custom transports).
        default_headers: extra headers sent with every request.

    Raises:
        LLMAuthError: no credential is configured and the base URL is not loopback.
    """

    provider = "anthropic"
    base_url_hint = "`ANTHROPIC_BASE_URL` (or {flag})"
    credential_hint = "`ANTHROPIC_API_KEY`"

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = DEFAULT_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        http_client: httpx2.Client | None = None,
        default_headers: dict[str, str] | None = None,
        flags: Flags = CLI,
    ) -> None:
        import anthropic

        self.flags = flags

        self.model = model or _env_model("anthropic") or DEFAULT_MODEL
        self.base_url = (base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout
        key = api_key or os.environ.get("ANTHROPIC_API_KEY") or None
        token = None if key else (os.environ.get("ANTHROPIC_AUTH_TOKEN") or None)
        if key is None and token is None:
            if not is_loopback_url(self.base_url):
                raise LLMAuthError(
                    f"no API key for {self.base_url}: set `ANTHROPIC_API_KEY` (or `ANTHROPIC_AUTH_TOKEN`), "
                    "or point `ANTHROPIC_BASE_URL` at a local endpoint"
                )
            key = LOCAL_PLACEHOLDER_KEY
        self._secrets = tuple(s for s in (key, token) if s and s != LOCAL_PLACEHOLDER_KEY)
        # An explicit credential also keeps the SDK from auto-discovering profiles on disk.
        self._client = anthropic.Anthropic(
            api_key=key,
            auth_token=token,
            base_url=self.base_url,
            max_retries=max_retries,
            timeout=timeout,
            http_client=http_client,
            default_headers=default_headers,
        )


class BedrockLLM(_ClaudeLLM):
    """Claude on Amazon Bedrock through `anthropic.AnthropicBedrock` (needs `trailblaze[bedrock]`).

    Args:
        model: a Bedrock model or inference-profile id (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`).
        base_url: default `ANTHROPIC_BEDROCK_BASE_URL`, then the region's `bedrock-runtime` endpoint.
        max_retries, timeout: as `AnthropicLLM`.

    Credentials come from the standard AWS chain (`AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` /
    `AWS_SESSION_TOKEN`, `AWS_PROFILE`, SSO, instance roles) or `AWS_BEARER_TOKEN_BEDROCK`; the
    region from `AWS_REGION` / `AWS_DEFAULT_REGION` or the profile. Against a loopback base URL
    with no credentials in the environment, placeholder keys are signed with, so nothing asks an
    instance metadata server.

    Raises:
        UsageError: `boto3` is not installed, or no region is configured.
    """

    provider = "bedrock"
    base_url_hint = "`ANTHROPIC_BEDROCK_BASE_URL` (or {flag}) and `AWS_REGION`"
    credential_hint = "the AWS credentials (`AWS_ACCESS_KEY_ID` / `AWS_PROFILE`) and their Bedrock permissions"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        max_retries: int = DEFAULT_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        flags: Flags = CLI,
    ) -> None:
        import anthropic

        self.flags = flags

        _require("boto3", "bedrock")
        self.model, self.max_retries, self.timeout = model, max_retries, timeout
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or None
        base_url = base_url or os.environ.get("ANTHROPIC_BEDROCK_BASE_URL") or None
        local = base_url is not None and is_loopback_url(base_url)
        keys: dict[str, Any] = {}
        has_env_keys = bool(os.environ.get("AWS_ACCESS_KEY_ID") or os.environ.get("AWS_BEARER_TOKEN_BEDROCK"))
        if local and not has_env_keys and not os.environ.get("AWS_PROFILE"):
            keys = {"aws_access_key": LOCAL_PLACEHOLDER_KEY, "aws_secret_key": LOCAL_PLACEHOLDER_KEY}
        try:
            self._client = anthropic.AnthropicBedrock(
                aws_region=region or ("us-east-1" if local else None),
                base_url=base_url,
                max_retries=max_retries,
                timeout=timeout,
                **keys,
            )
        except ValueError as exc:  # the SDK's "No AWS region was provided"
            raise UsageError(
                f"Bedrock needs an AWS region: set `AWS_REGION` (e.g. us-east-1) or configure one for `AWS_PROFILE` ({exc})"
            ) from exc
        self.base_url = str(self._client.base_url).rstrip("/")
        self._secrets = tuple(
            s
            for s in (os.environ.get("AWS_SECRET_ACCESS_KEY"), os.environ.get("AWS_SESSION_TOKEN"),
                      os.environ.get("AWS_BEARER_TOKEN_BEDROCK"))  # fmt: skip
            if s
        )

    def _credential_errors(self) -> tuple[type[Exception], ...]:
        from botocore.exceptions import BotoCoreError

        # the SDK raises RuntimeError("Could not resolve AWS credentials from session")
        return (BotoCoreError, RuntimeError)


class VertexLLM(_ClaudeLLM):
    """Claude on Google Vertex AI through `anthropic.AnthropicVertex` (needs `trailblaze[vertex]`).

    Args:
        model: a Vertex model id (`claude-sonnet-4-5@20250929`).
        base_url: default `ANTHROPIC_VERTEX_BASE_URL`, then the region's `aiplatform` endpoint.
        max_retries, timeout: as `AnthropicLLM`.

    The region comes from `CLOUD_ML_REGION`, the project from `ANTHROPIC_VERTEX_PROJECT_ID`, and the
    bearer token from `GOOGLE_OAUTH_ACCESS_TOKEN` when set (e.g. `gcloud auth print-access-token`),
    else from Application Default Credentials. Against a loopback base URL with no token, a
    placeholder is sent, so nothing asks a metadata server.

    Raises:
        UsageError: `google-auth` is not installed, or no region / project is configured.
    """

    provider = "vertex"
    base_url_hint = "`ANTHROPIC_VERTEX_BASE_URL` (or {flag}) and `CLOUD_ML_REGION`"
    credential_hint = "`GOOGLE_OAUTH_ACCESS_TOKEN` or the Application Default Credentials and their Vertex permissions"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        max_retries: int = DEFAULT_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        flags: Flags = CLI,
    ) -> None:
        import anthropic

        self.flags = flags

        _require("google.auth", "vertex")
        self.model, self.max_retries, self.timeout = model, max_retries, timeout
        region = os.environ.get("CLOUD_ML_REGION") or None
        project = os.environ.get("ANTHROPIC_VERTEX_PROJECT_ID") or None
        base_url = base_url or os.environ.get("ANTHROPIC_VERTEX_BASE_URL") or None
        token = os.environ.get("GOOGLE_OAUTH_ACCESS_TOKEN") or None
        if token is None and base_url is not None and is_loopback_url(base_url):
            token = LOCAL_PLACEHOLDER_KEY
        missing = [name for name, value in (("CLOUD_ML_REGION", region), ("ANTHROPIC_VERTEX_PROJECT_ID", project)) if not value]
        if missing:
            raise UsageError(
                f"Vertex AI needs {' and '.join(f'`{m}`' for m in missing)}: set the region (e.g. us-east5 or global) "
                "and the Google Cloud project that has Claude enabled"
            )
        self._client = anthropic.AnthropicVertex(
            region=region,  # type: ignore[arg-type]
            project_id=project,  # type: ignore[arg-type]
            access_token=token,
            base_url=base_url,
            max_retries=max_retries,
            timeout=timeout,
        )
        self.base_url = str(self._client.base_url).rstrip("/")
        self._secrets = tuple(s for s in (token,) if s and s != LOCAL_PLACEHOLDER_KEY)

    def _credential_errors(self) -> tuple[type[Exception], ...]:
        from google.auth.exceptions import GoogleAuthError

        # the SDK raises RuntimeError("Could not resolve API token from the environment")
        return (GoogleAuthError, RuntimeError)


def _env_model(provider: str) -> str | None:
    """The model of `TRAILBLAZE_MODEL` when it names `provider` (a bare name is Anthropic's)."""
    value = (os.environ.get("TRAILBLAZE_MODEL") or "").strip()
    if not value:
        return None
    head, sep, rest = value.partition(":")
    if sep and head == provider:
        return rest or None
    return value if provider == "anthropic" and not sep else None


def _require(module: str, extra: str) -> None:
    """Imports `module` (which the SDK would import lazily, mid-request) or says which extra brings it."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        package = "google-auth" if module.startswith("google") else module
        raise UsageError(
            f"the {extra} provider needs the `{package}` package: pip install 'trailblaze[{extra}]'"
        ) from None


def to_anthropic_params(request: LLMRequest, model: str) -> dict[str, Any]:
    """The keyword arguments for `messages.create` that express `request` on `model`.

    Prompt caching: `cache_control: ephemeral` goes on the last tool and on every system block
    marked `cache=True` (or the last system block when none is marked).
    """
    params: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": [_message_param(m) for m in request.messages],
    }
    if request.system:
        marked = any(b.cache for b in request.system)
        last = len(request.system) - 1
        params["system"] = [
            _text_param(b, cache=b.cache if marked else i == last) for i, b in enumerate(request.system)
        ]
    if request.tools:
        tools: list[dict[str, Any]] = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools
        ]
        tools[-1]["cache_control"] = {"type": "ephemeral"}
        params["tools"] = tools
        params["tool_choice"] = _tool_choice_param(request, model)
        if request.forces_tool and _supports_forced_tool_use(model):
            # Forced tool use is rejected while thinking is on, and newer models think by default.
            params["thinking"] = {"type": "disabled"}
    if request.temperature is not None:
        # This SDK's `messages.create` has no `temperature` parameter any more (newer models reject
        # non-default sampling); older models still take it in the body.
        params["extra_body"] = {"temperature": request.temperature}
    return params


def _tool_choice_param(request: LLMRequest, model: str) -> dict[str, Any]:
    choice = request.tool_choice
    param: dict[str, Any]
    if choice == "none":
        return {"type": "none"}
    if choice == "auto" or not _supports_forced_tool_use(model):
        if choice != "auto":
            log.debug("%s rejects forced tool use; sending tool_choice auto instead of %s", model, choice)
        param = {"type": "auto"}
    elif choice == "any":
        param = {"type": "any"}
    else:
        param = {"type": "tool", "name": choice}
    if request.single_tool_call:
        param["disable_parallel_tool_use"] = True
    return param


def _text_param(block: TextBlock, *, cache: bool = False) -> dict[str, Any]:
    param: dict[str, Any] = {"type": "text", "text": block.text}
    if cache:
        param["cache_control"] = {"type": "ephemeral"}
    return param


def _message_param(message: Message) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            content.append(_text_param(block))
        elif isinstance(block, ImageBlock):
            source = {"type": "base64", "media_type": block.media_type, "data": block.data_base64}
            content.append({"type": "image", "source": source})
        elif isinstance(block, ToolUseBlock):
            content.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
        else:
            content.append(_tool_result_param(block))
    return {"role": message.role, "content": content}


def _tool_result_param(block: ToolResultBlock) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": block.tool_use_id,
        "content": block.content,
        "is_error": block.is_error,
    }


def _to_response(message: anthropic.types.Message, requested_model: str) -> LLMResponse:
    content: list[TextBlock | ToolUseBlock] = []
    for block in message.content:
        if block.type == "text":
            content.append(TextBlock(text=block.text))
        elif block.type == "tool_use":
            args = block.input if isinstance(block.input, dict) else {}
            content.append(ToolUseBlock(id=block.id, name=block.name, input=args))
        # Thinking and server-tool blocks carry nothing the agent acts on.
    raw = message.usage
    usage = Usage(
        input_tokens=raw.input_tokens,
        output_tokens=raw.output_tokens,
        cache_creation_input_tokens=raw.cache_creation_input_tokens or 0,
        cache_read_input_tokens=raw.cache_read_input_tokens or 0,
    )
    model = str(message.model or requested_model)
    return LLMResponse(
        content=tuple(content),
        stop_reason=message.stop_reason or "end_turn",
        usage=usage,
        model=model,
        id=message.id,
    )
