"""`OpenAILLM`: the `LLMClient` for OpenAI and any OpenAI-compatible endpoint (Ollama, vLLM, LM Studio).

It speaks Chat Completions (`POST {base_url}/chat/completions`, non-streaming) through the official
`openai` SDK (`trailblaze[openai]`), imported inside functions only. The mapping from our
provider-neutral request:

- system blocks → one `system` message (their texts joined by a blank line);
- tools → `{"type": "function", "function": {name, description, parameters}}`;
- tool_choice `any` → `"required"`, `auto` / `none` as is, a tool name →
  `{"type": "function", "function": {"name": ...}}`; `single_tool_call` → `parallel_tool_calls: false`;
- an assistant turn's tool calls → `tool_calls` with JSON-encoded `arguments`;
- tool results → one `tool` message each, right after the assistant turn, content prefixed with
  `ERROR: ` when `is_error` (the wire has no error flag); the rest of that user turn (the screen
  text and screenshot) follows as a `user` message;
- images → `image_url` parts with a `data:` URL;
- usage: `prompt_tokens` minus `prompt_tokens_details.cached_tokens` is billed input, the cached
  tokens are cache reads (OpenAI and vLLM cache prompt prefixes by themselves);
- finish_reason `stop` / `tool_calls` / `length` / `content_filter` → `end_turn` / `tool_use` /
  `max_tokens` / `refusal`.

Retries, timeouts and error translation are `trailblaze.llm._sdk`'s, the same as for Claude.
"""

from __future__ import annotations

import json
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

if TYPE_CHECKING:
    import httpx2

__all__ = [
    "DEFAULT_OPENAI_BASE_URL",
    "ERROR_PREFIX",
    "OpenAILLM",
    "from_openai_completion",
    "to_openai_params",
]

log = logging.getLogger(__name__)

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

ERROR_PREFIX = "ERROR: "
"""Starts the content of a `tool` message whose tool failed (Chat Completions has no `is_error`)."""

_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


class OpenAILLM(SDKLLM):
    """Calls an OpenAI-compatible Chat Completions endpoint through the `openai` SDK.

    Args:
        model: model id as the endpoint names it (`gpt-4.1`, `qwen2.5vl:7b`, `Qwen/Qwen2.5-VL-7B-Instruct`).
        api_key: default `OPENAI_API_KEY`. With none and a loopback base URL (a local Ollama or
            vLLM), `LOCAL_PLACEHOLDER_KEY` is sent.
        base_url: default `OPENAI_BASE_URL`, then `https://api.openai.com/v1` (`--llm-base-url`).
        max_retries, timeout: as `AnthropicLLM` (the SDK retries 408/409/429/5xx with backoff).
        http_client: an `httpx2.Client` to send through.

    Raises:
        UsageError: the `openai` package is not installed.
        LLMAuthError: no API key and the base URL is not loopback.
    """

    provider = "openai"
    wire_format = "a Chat Completions answer"
    base_url_hint = "{flag} (or `OPENAI_BASE_URL`)"
    credential_hint = "`OPENAI_API_KEY`"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = DEFAULT_RETRIES,
        timeout: float = DEFAULT_TIMEOUT,
        http_client: httpx2.Client | None = None,
        flags: Flags = CLI,
    ) -> None:
        self.flags = flags
        try:
            import openai
        except ImportError:
            raise UsageError(
                "the openai provider needs the `openai` package: pip install 'trailblaze[openai]'"
            ) from None
        self.model, self.max_retries, self.timeout = model, max_retries, timeout
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL).rstrip("/")
        key = api_key or os.environ.get("OPENAI_API_KEY") or None
        if key is None:
            if not is_loopback_url(self.base_url):
                raise LLMAuthError(
                    f"no API key for {self.base_url}: set `OPENAI_API_KEY`, or point {flags.llm_base_url or CLI.llm_base_url} "
                    "at a local OpenAI-compatible server (Ollama, vLLM)"
                )
            key = LOCAL_PLACEHOLDER_KEY
        self._secrets = (key,) if key != LOCAL_PLACEHOLDER_KEY else ()
        # OpenAI itself takes `max_completion_tokens` (its reasoning models reject `max_tokens`);
        # compatible servers know `max_tokens` best.
        self._max_tokens_field = (
            "max_completion_tokens" if self.base_url == DEFAULT_OPENAI_BASE_URL else "max_tokens"
        )
        self._client = openai.OpenAI(
            api_key=key,
            base_url=self.base_url,
            max_retries=max_retries,
            timeout=timeout,
            http_client=http_client,
            organization=None,
            project=None,
        )

    def _params(self, request: LLMRequest, model: str) -> dict[str, Any]:
        return to_openai_params(request, model, max_tokens_field=self._max_tokens_field)

    def _send(self, params: dict[str, Any]) -> Any:
        # The raw JSON, not the SDK's lenient model: a wrongly shaped answer must fail loudly here.
        raw = self._client.chat.completions.with_raw_response.create(**params)
        return raw.http_response.json()

    def _response(self, answer: Any, model: str) -> LLMResponse:
        return from_openai_completion(answer, model)

    def _sdk(self) -> tuple[ModuleType, type[Exception]]:
        import openai

        return openai, openai.OpenAIError


# --- request ------------------------------------------------------------------------------------


def to_openai_params(
    request: LLMRequest, model: str, *, max_tokens_field: str = "max_completion_tokens"
) -> dict[str, Any]:
    """The keyword arguments for `chat.completions.create` that express `request` on `model`."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": "\n\n".join(b.text for b in request.system)})
    for message in request.messages:
        messages += _messages(message)
    params: dict[str, Any] = {"model": model, "messages": messages, max_tokens_field: request.max_tokens}
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
            for t in request.tools
        ]
        params["tool_choice"] = _tool_choice(request.tool_choice)
        if request.single_tool_call:
            params["parallel_tool_calls"] = False
    if request.temperature is not None:
        params["temperature"] = request.temperature
    return params


def _tool_choice(choice: str) -> Any:
    if choice == "any":
        return "required"
    if choice in ("auto", "none"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def _messages(message: Message) -> list[dict[str, Any]]:
    if message.role == "assistant":
        text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock))
        calls = [
            {
                "id": b.id,
                "type": "function",
                "function": {"name": b.name, "arguments": json.dumps(b.input, ensure_ascii=False)},
            }
            for b in message.content
            if isinstance(b, ToolUseBlock)
        ]
        out: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            out["tool_calls"] = calls
        return [out]
    # tool messages must follow the assistant turn directly; the rest of the user turn comes after
    results = [
        {
            "role": "tool",
            "tool_call_id": b.tool_use_id,
            "content": (ERROR_PREFIX if b.is_error else "") + b.content,
        }
        for b in message.content
        if isinstance(b, ToolResultBlock)
    ]
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            url = f"data:{block.media_type};base64,{block.data_base64}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return [*results, *([{"role": "user", "content": parts}] if parts else [])]


# --- response -----------------------------------------------------------------------------------


def from_openai_completion(completion: dict[str, Any], requested_model: str) -> LLMResponse:
    """The `LLMResponse` of a Chat Completions answer (a parsed JSON body).

    Raises:
        KeyError, TypeError, ValueError, IndexError: it is not a chat completion.
    """
    if not isinstance(completion, dict) or completion.get("object", "chat.completion") != "chat.completion":
        raise ValueError("not a chat.completion object")
    choice = completion["choices"][0]
    message = choice["message"]
    content: list[TextBlock | ToolUseBlock] = []
    text = message.get("content")
    if isinstance(text, list):  # some servers answer with content parts
        text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
    if text:
        content.append(TextBlock(text=text))
    for call in message.get("tool_calls") or []:
        function = call["function"]
        content.append(
            ToolUseBlock(id=call["id"], name=function["name"], input=_arguments(function.get("arguments")))
        )
    reason = choice.get("finish_reason") or "stop"
    stop = _STOP_REASONS.get(reason, reason)
    if stop == "end_turn" and any(isinstance(b, ToolUseBlock) for b in content):
        stop = "tool_use"  # Ollama says `stop` even when it called a tool
    return LLMResponse(
        content=tuple(content),
        stop_reason=stop,
        usage=_usage(completion.get("usage") or {}),
        model=str(completion.get("model") or requested_model),
        id=completion.get("id"),
    )


def _arguments(raw: Any) -> dict[str, Any]:
    """The tool call's arguments; an unreadable string becomes `{}` and the tool reports what is missing."""
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        log.debug("tool call arguments are not JSON: %.200s", raw)
        return {}
    return value if isinstance(value, dict) else {}


def _usage(raw: dict[str, Any]) -> Usage:
    prompt = int(raw.get("prompt_tokens") or 0)
    details = raw.get("prompt_tokens_details") or {}
    cached = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
    return Usage(
        input_tokens=max(0, prompt - cached),
        output_tokens=int(raw.get("completion_tokens") or 0),
        cache_read_input_tokens=cached,
    )
