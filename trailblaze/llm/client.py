"""The `LLMClient` seam: our own request/response types and the switch against accidental real calls.

The agent talks to a model only through `LLMClient.complete(LLMRequest) -> LLMResponse`. The types
here are ours, not an SDK's: the adapters translate them to a wire format (`trailblaze.llm.anthropic`:
the Messages API on Anthropic, Bedrock and Vertex; `trailblaze.llm.openai`: Chat Completions on any
OpenAI-compatible endpoint; `trailblaze.llm.models.build_llm` picks one from `--model PROVIDER:MODEL`),
and the test doubles in `trailblaze.testing` answer them directly. Nothing in this module imports an
SDK.

Safety switch: `ALLOW_LLM_REQUESTS` decides whether a real client may send a request at all.
`True` allows everything, `False` nothing, and `"loopback"` only base URLs on 127.0.0.1 / ::1 /
localhost (the local fake Messages API). The test suite runs with `"loopback"`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol, runtime_checkable
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from trailblaze.errors import LLMError

__all__ = [
    "ALLOW_LLM_REQUESTS",
    "ContentBlock",
    "ImageBlock",
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMClient",
    "LLMConnectionError",
    "LLMExchange",
    "LLMRateLimitError",
    "LLMRequest",
    "LLMRequestsBlocked",
    "LLMResponse",
    "LLMTimeoutError",
    "Message",
    "TextBlock",
    "ToolResultBlock",
    "ToolSpec",
    "ToolUseBlock",
    "Usage",
    "StopReason",
    "check_allow_llm_requests",
    "is_loopback_url",
    "override_allow_llm_requests",
    "record_exchange",
    "redact",
    "scrub_request",
    "transcript_entry",
]

AllowSetting = bool | Literal["loopback"]

ALLOW_LLM_REQUESTS: AllowSetting = True
"""Whether real LLM clients may send requests: `True`, `False`, or `"loopback"` (local servers only)."""


# --- errors -----------------------------------------------------------------------------------


class LLMAuthError(LLMError):
    """The endpoint rejected the credentials (401/403), or none were configured."""


class LLMRateLimitError(LLMError):
    """The endpoint kept answering 429 after every retry."""


class LLMTimeoutError(LLMError):
    """The endpoint did not answer within the client timeout."""


class LLMConnectionError(LLMError):
    """The endpoint could not be reached (refused, DNS, TLS, dropped connection)."""


class LLMBadRequestError(LLMError):
    """The endpoint refused the request as malformed (400/404/413/422); retrying will not help."""


class LLMRequestsBlocked(LLMError):
    """A real LLM request was attempted while `ALLOW_LLM_REQUESTS` forbids it."""


# --- content blocks ---------------------------------------------------------------------------

_FROZEN = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built on first use: a replay asks no model

ImageMediaType = Literal["image/png", "image/jpeg", "image/webp", "image/gif"]


class TextBlock(BaseModel):
    """Plain text, in a message or in the system prompt."""

    model_config = _FROZEN

    type: Literal["text"] = "text"
    text: str
    """The text itself."""
    cache: bool = False
    """In `LLMRequest.system` only: end a prompt-cache prefix after this block."""


class ImageBlock(BaseModel):
    """An image (a screenshot), base64-encoded."""

    model_config = _FROZEN

    type: Literal["image"] = "image"
    media_type: ImageMediaType
    """MIME type of the encoded bytes."""
    data_base64: str
    """The image bytes, base64-encoded (no `data:` prefix)."""


class ToolUseBlock(BaseModel):
    """The model asking to run one tool; `id` pairs it with the `ToolResultBlock` that answers it."""

    model_config = _FROZEN

    type: Literal["tool_use"] = "tool_use"
    id: str
    """Opaque id chosen by the model (or the test double)."""
    name: str
    """Tool name, as in `ToolSpec.name`."""
    input: dict[str, Any] = Field(default_factory=dict)
    """The arguments, a JSON object matching the tool's `input_schema`."""


class ToolResultBlock(BaseModel):
    """What running a tool produced, sent back in the next user message."""

    model_config = _FROZEN

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    """The `ToolUseBlock.id` this answers."""
    content: str
    """Result text; by convention it starts with a status word (`OK`, `NOT_FOUND`, ...)."""
    is_error: bool = False
    """Whether the tool failed."""


ContentBlock = Annotated[TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock, Field(discriminator="type")]
"""Any block that can appear in a `Message`."""


class Message(BaseModel):
    """One conversational turn."""

    model_config = _FROZEN

    role: Literal["user", "assistant"]
    content: tuple[ContentBlock, ...]
    """The blocks; a plain string is accepted and becomes one `TextBlock`."""

    @field_validator("content", mode="before")
    @classmethod
    def _text_shorthand(cls, value: object) -> object:
        if isinstance(value, str):
            return (TextBlock(text=value),)
        return value

    @classmethod
    def user(cls, *content: ContentBlock | str) -> Message:
        """A user turn from blocks and/or strings."""
        return cls(role="user", content=tuple(_block(c) for c in content))

    @classmethod
    def assistant(cls, *content: ContentBlock | str) -> Message:
        """An assistant turn from blocks and/or strings."""
        return cls(role="assistant", content=tuple(_block(c) for c in content))


def _block(item: ContentBlock | str) -> ContentBlock:
    return TextBlock(text=item) if isinstance(item, str) else item


class ToolSpec(BaseModel):
    """A tool the model may call; `input_schema` is a JSON Schema object."""

    model_config = _FROZEN

    name: str = Field(pattern=r"^[a-zA-Z0-9_-]{1,64}$")
    description: str
    input_schema: dict[str, Any]


# --- request / response -----------------------------------------------------------------------

_RESERVED_CHOICES = ("any", "auto", "none")


class LLMRequest(BaseModel):
    """Everything one model call needs; built from scratch by the agent for every call.

    `tool_choice` is `"any"` (must call some tool), `"auto"` (may answer in text), `"none"`
    (must not call tools) or the name of one tool in `tools` (must call that tool).
    `metadata` is for accounting (step id, attempt) and is never sent to the model.
    """

    model_config = _FROZEN

    system: tuple[TextBlock, ...] = ()
    """System prompt blocks. Mark a block `cache=True` to end a cached prefix there; with no
    marks the adapter caches through the last block."""
    tools: tuple[ToolSpec, ...] = ()
    messages: tuple[Message, ...]
    tool_choice: str = "auto"
    single_tool_call: bool = False
    """Ask for at most one tool call per answer (`disable_parallel_tool_use`)."""
    max_tokens: int = Field(default=1024, ge=1)
    temperature: float | None = Field(default=None, ge=0.0, le=1.0)
    """`None` (recommended) leaves the model default; Sonnet 5, Opus 4.7 and newer reject any
    other value with a 400."""
    model: str | None = None
    """Overrides the client's model for this call."""
    metadata: dict[str, str | int | float | bool | None] = Field(default_factory=dict)

    @field_validator("system", mode="before")
    @classmethod
    def _system_shorthand(cls, value: object) -> object:
        if isinstance(value, str):
            return (TextBlock(text=value),)
        return value

    @model_validator(mode="after")
    def _check(self) -> LLMRequest:
        if not self.messages:
            raise ValueError("an LLM request needs at least one message")
        if self.tool_choice not in _RESERVED_CHOICES:
            if self.tool_choice not in {t.name for t in self.tools}:
                raise ValueError(f"tool_choice `{self.tool_choice}` names no tool in `tools`")
        elif self.tool_choice == "any" and not self.tools:
            raise ValueError("tool_choice `any` needs at least one tool")
        if sum(b.cache for b in self.system) > 3:
            raise ValueError(
                "at most 3 system blocks can be marked `cache=True` (4 cache breakpoints in all)"
            )
        names = [t.name for t in self.tools]
        if len(names) != len(set(names)):
            raise ValueError("tool names must be unique")
        return self

    @property
    def forces_tool(self) -> bool:
        """Whether the model is required to call a tool."""
        return self.tool_choice not in ("auto", "none")


class Usage(BaseModel):
    """Token counts of one call (or, added up, of many)."""

    model_config = _FROZEN

    input_tokens: int = 0
    """Input tokens billed at the base rate (not read from or written to the cache)."""
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    """Input tokens written to the prompt cache."""
    cache_read_input_tokens: int = 0
    """Input tokens served from the prompt cache."""

    @property
    def total_input_tokens(self) -> int:
        """All input tokens, cached or not."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
        )


StopReason = Literal[
    "end_turn",
    "tool_use",
    "max_tokens",
    "stop_sequence",
    "pause_turn",
    "refusal",
    "model_context_window_exceeded",
]


class LLMResponse(BaseModel):
    """The model's answer to one `LLMRequest`, with accounting."""

    model_config = _FROZEN

    content: tuple[TextBlock | ToolUseBlock, ...]
    """Text and tool calls in the order the model produced them (thinking blocks are dropped)."""
    stop_reason: StopReason | str = "end_turn"
    usage: Usage = Usage()
    model: str = ""
    """The model that answered."""
    provider: str = ""
    """Who served it (`anthropic`, `bedrock`, `vertex`, `openai`); empty for test doubles."""
    cost_usd: float | None = None
    """Cost of this call from `trailblaze.llm.pricing`; `None` when the model's price is unknown."""
    duration_s: float = 0.0
    """Wall time of the call including the SDK's retries."""
    id: str | None = None
    """The provider's message id."""

    @property
    def tool_uses(self) -> list[ToolUseBlock]:
        """The tool calls, in order."""
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    @property
    def text(self) -> str:
        """All text blocks joined by newlines."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


@runtime_checkable
class LLMClient(Protocol):
    """Anything that can answer an `LLMRequest`: the Anthropic adapter or a test double."""

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send one request and return the answer.

        Raises:
            LLMError: the endpoint failed for good (after the client's own retries).
        """
        ...


# --- capture ----------------------------------------------------------------------------------


@dataclass
class LLMExchange:
    """One call seen by `trailblaze.testing.capture_llm_requests`: the request and how it ended."""

    request: LLMRequest
    response: LLMResponse | None = None
    error: BaseException | None = None


_captures: ContextVar[tuple[list[LLMExchange], ...]] = ContextVar("trailblaze_llm_captures", default=())


def scrub_request(request: LLMRequest) -> LLMRequest:
    """`request` with every registered secret redacted from its text (`trailblaze.common.redact`; images as they are)."""
    from trailblaze.common.redact import has_secrets, scrub_value

    if not has_secrets():
        return request
    return LLMRequest.model_validate(scrub_value(request.model_dump()))


def record_exchange(
    request: LLMRequest, response: LLMResponse | None, error: BaseException | None = None
) -> None:
    """Report a finished call to every active capture; `LLMClient` implementations call this."""
    for log in _captures.get():
        log.append(LLMExchange(request, response, error))


# --- safety switch ----------------------------------------------------------------------------


def is_loopback_url(url: str) -> bool:
    """Whether `url` points at this machine (127.0.0.0/8, ::1 or `localhost`)."""
    host = urlsplit(url if "//" in url else f"//{url}").hostname
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_allow_llm_requests(base_url: str) -> None:
    """Refuse a real request to `base_url` unless `ALLOW_LLM_REQUESTS` permits it.

    Every real client calls this first thing in `complete()`.

    Raises:
        LLMRequestsBlocked: requests are disabled, or limited to loopback and `base_url` is not.
    """
    allow = ALLOW_LLM_REQUESTS
    if allow is True:
        return
    if allow == "loopback" and is_loopback_url(base_url):
        return
    scope = "only to loopback URLs" if allow == "loopback" else "not at all"
    raise LLMRequestsBlocked(
        f"LLM request to {base_url} blocked: `trailblaze.llm.client.ALLOW_LLM_REQUESTS` allows requests {scope}; "
        "use a test double, `trailblaze.testing.FakeMessagesAPI` or `FakeChatCompletionsAPI`, "
        "or override the switch on purpose"
    )


@contextmanager
def override_allow_llm_requests(allow: AllowSetting) -> Iterator[None]:
    """Set `ALLOW_LLM_REQUESTS` for the duration of a `with` block, then restore it."""
    global ALLOW_LLM_REQUESTS
    previous = ALLOW_LLM_REQUESTS
    ALLOW_LLM_REQUESTS = allow
    try:
        yield
    finally:
        ALLOW_LLM_REQUESTS = previous


# --- transcripts ------------------------------------------------------------------------------


def redact(
    obj: Any, secrets: Mapping[str, str] | set[str] | frozenset[str] | list[str] | tuple[str, ...]
) -> Any:
    """A copy of a JSON-like value with every secret string replaced.

    Args:
        obj: dicts, lists, tuples and scalars; strings are searched for secrets (keys too).
        secrets: a mapping name -> value replaces each value by `{{name}}`; a plain collection of
            values replaces each by `***`. Empty values are ignored.

    Returns:
        The redacted copy (tuples become lists).
    """
    if isinstance(secrets, Mapping):
        pairs = [(value, "{{" + name + "}}") for name, value in secrets.items() if value]
    else:
        pairs = [(value, "***") for value in secrets if value]
    # Longest first, so a secret containing another is replaced whole.
    pairs.sort(key=lambda p: len(p[0]), reverse=True)
    return _redact(obj, pairs)


def _redact(obj: Any, pairs: list[tuple[str, str]]) -> Any:
    if isinstance(obj, str):
        for value, placeholder in pairs:
            obj = obj.replace(value, placeholder)
        return obj
    if isinstance(obj, Mapping):
        return {_redact(k, pairs): _redact(v, pairs) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_redact(v, pairs) for v in obj]
    return obj


def _strip_images(obj: Any) -> Any:
    if isinstance(obj, dict):
        if obj.get("type") == "image" and isinstance(obj.get("data_base64"), str):
            size = len(obj["data_base64"]) * 3 // 4
            return {"type": "image", "media_type": obj.get("media_type"), "approx_bytes": size}
        return {k: _strip_images(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_strip_images(v) for v in obj]
    return obj


def transcript_entry(
    request: LLMRequest,
    response: LLMResponse | None = None,
    *,
    secrets: Mapping[str, str] | set[str] | frozenset[str] | list[str] | tuple[str, ...] = (),
    include_images: bool = False,
) -> dict[str, Any]:
    """A JSON-ready record of one call for the run transcript, with secrets redacted.

    Images are replaced by their media type and size unless `include_images` is set (the run
    directory stores screenshots separately).
    """
    entry: dict[str, Any] = {"request": request.model_dump(mode="json")}
    if response is not None:
        entry["response"] = response.model_dump(mode="json")
    if not include_images:
        entry = _strip_images(entry)
    return dict(redact(entry, secrets))
