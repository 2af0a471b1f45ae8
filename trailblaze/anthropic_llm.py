"""`AnthropicLLM`: the `LLMClient` that calls Claude through the `anthropic` SDK.

This is the only module that imports `anthropic`, and it does so inside functions, so importing
it stays cheap. Retries on 408/409/429/5xx/529 and connection errors are the SDK's own (honouring
`retry-after` / `retry-after-ms`), configured through `max_retries`; every SDK exception that
escapes is translated into the `trailblaze.errors.LLMError` family with a one-line message that
never contains the credential.
"""

from __future__ import annotations

import json
import logging
import os
import time
from typing import TYPE_CHECKING, Any

from trailblaze import pricing
from trailblaze.errors import LLMError
from trailblaze.llm import (
    ImageBlock,
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMRateLimitError,
    LLMRequest,
    LLMResponse,
    LLMTimeoutError,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    check_allow_llm_requests,
    is_loopback_url,
    record_exchange,
    redact,
)
from trailblaze.redact import scrub, scrub_value

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
    "to_anthropic_params",
]

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-sonnet-5"
"""The newest Sonnet that accepts forced tool use (Sonnet 5.5 rejects it; see ADR 0005)."""

DEFAULT_BASE_URL = "https://api.anthropic.com"

DEFAULT_TIMEOUT = 30.0
"""Seconds one attempt may take (`--llm-timeout`). A step's model call answers in ~2-15 s."""

DEFAULT_RETRIES = 2
"""Retries after a failed attempt (`--llm-retries`). With the SDK's backoff (0.5 s, then 1 s) a dead
endpoint costs at most 3 x 30 s + 1.5 s = 91.5 s, not the SDK's 5 x 60 s (ADR 0019)."""

_HOW_TO_WAIT_LONGER = (
    "raise --llm-timeout SECONDS or --llm-retries N "
    "(pytest: --trailblaze-llm-timeout / --trailblaze-llm-retries), or check the endpoint"
)

LOCAL_PLACEHOLDER_KEY = "trailblaze-local-no-key"
"""Sent when no key is configured and the base URL is loopback (a local fake or proxy)."""

# Models that answer a forced `tool_choice` with a 400: adaptive thinking is always on there
# (Opus 5.5, Fable, Mythos) or forcing was removed (Sonnet 5.5). For them a forced choice is
# sent as `auto`, and the agent handles a text-only answer like any other miss.
_NO_FORCED_TOOL_USE = ("claude-sonnet-5-5", "claude-opus-5-5", "claude-fable-", "claude-mythos-")


def _supports_forced_tool_use(model: str) -> bool:
    return not model.startswith(_NO_FORCED_TOOL_USE)


class AnthropicLLM:
    """Calls the Anthropic Messages API (`messages.create`, non-streaming).

    Args:
        model: model id; default `TRAILBLAZE_MODEL`, then `DEFAULT_MODEL`.
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
    ) -> None:
        import anthropic

        self.model = model or os.environ.get("TRAILBLAZE_MODEL") or DEFAULT_MODEL
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

    def __repr__(self) -> str:
        return f"AnthropicLLM(model={self.model!r}, base_url={self.base_url!r})"

    def __enter__(self) -> AnthropicLLM:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send `request` and translate the answer; the SDK retries transient failures.

        Raises:
            LLMRequestsBlocked: `ALLOW_LLM_REQUESTS` forbids requests to this base URL.
            LLMError: (or a subclass) the call failed for good.
        """
        import anthropic

        check_allow_llm_requests(self.base_url)
        model = request.model or self.model
        params = scrub_value(to_anthropic_params(request, model))  # secrets never leave, whoever built it
        started = time.monotonic()
        try:
            message = self._client.messages.create(**params)
        except anthropic.AnthropicError as exc:
            error = self._translate(exc)
            record_exchange(request, None, error)
            raise error from exc
        except json.JSONDecodeError as exc:  # the SDK hands a body that is not JSON through as is
            error = self._malformed(exc)
            record_exchange(request, None, error)
            raise error from exc
        try:
            response = _to_response(message, model, time.monotonic() - started)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:  # JSON, not a Message
            error = self._malformed(exc)
            record_exchange(request, None, error)
            raise error from exc
        record_exchange(request, response)
        return response

    def _malformed(self, exc: Exception) -> LLMError:
        """A 200 answer that is not a Messages API message: truncated, or another service's."""
        detail = " ".join(str(redact(f"{type(exc).__name__}: {exc}", self._secrets)).split())
        if len(detail) > 120:
            detail = detail[:119] + "…"
        return LLMError(
            f"malformed answer from model endpoint {self.base_url} (not a Messages API message: {detail}); "
            "check that `ANTHROPIC_BASE_URL` points at the Messages API and that no proxy cuts answers short"
        )

    def _translate(self, exc: anthropic.AnthropicError) -> LLMError:
        error = _translate(exc, self.base_url, self.timeout)
        error.message = " ".join(scrub(str(redact(error.message, self._secrets))).split())
        error.args = (error.message,)
        return error


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


def _to_response(message: anthropic.types.Message, requested_model: str, duration: float) -> LLMResponse:
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
        cost_usd=pricing.cost_usd(model, usage),
        duration_s=duration,
        id=message.id,
    )


def _translate(exc: anthropic.AnthropicError, base_url: str, timeout: float) -> LLMError:
    """Map an SDK exception to our tree; the most specific class first."""
    import anthropic

    retries = _retries_taken(exc)
    after = f" after {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""
    if isinstance(exc, anthropic.APITimeoutError):
        return LLMTimeoutError(
            f"model endpoint {base_url} timed out (no answer within {timeout:g} s){after}; {_HOW_TO_WAIT_LONGER}"
        )
    if isinstance(exc, anthropic.APIConnectionError):
        cause = exc.__cause__
        detail = f"{type(cause).__name__}: {cause}" if cause else exc.message
        return LLMConnectionError(
            f"cannot reach model endpoint {base_url} ({detail}){after}; check `ANTHROPIC_BASE_URL` and the network"
        )
    if isinstance(exc, anthropic.APIStatusError):
        what = f"HTTP {exc.status_code}" + (f" {exc.type}" if exc.type else "")
        said = f": {exc.api_message}" if exc.api_message else ""
        if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
            return LLMAuthError(
                f"model endpoint {base_url} rejected the credentials ({what}{said}); check `ANTHROPIC_API_KEY`"
            )
        if isinstance(exc, anthropic.RateLimitError):
            return LLMRateLimitError(
                f"model endpoint {base_url} kept rate-limiting ({what}{said}){after}; "
                "wait, lower concurrency or raise --llm-retries N (pytest: --trailblaze-llm-retries)"
            )
        if exc.status_code in (400, 404, 413, 422):
            return LLMBadRequestError(f"model endpoint {base_url} refused the request ({what}{said})")
        return LLMError(f"model endpoint {base_url} failed ({what}{said}){after}; try again later")
    return LLMError(f"unexpected answer from model endpoint {base_url}: {type(exc).__name__}: {exc}")


def _retries_taken(exc: anthropic.AnthropicError) -> int:
    request = getattr(exc, "request", None)
    value = request.headers.get("x-stainless-retry-count") if request is not None else None
    try:
        return int(value) if value is not None else 0
    except ValueError:
        return 0
