"""`FakeMessagesAPI`: a local HTTP server that speaks Anthropic's `POST /v1/messages`.

It also answers the same Messages body where Bedrock (`POST /model/{id}/invoke`) and Vertex AI
(`POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{id}:rawPredict`) take it, so
`anthropic.AnthropicBedrock` / `AnthropicVertex` can be pointed at it with `base_url=`: there the
model comes from the path and `anthropic_version` from the body, as on those platforms.

Point the real `anthropic` SDK (or `AnthropicLLM`) at `.url` and every byte goes over a real
socket: headers, retries, timeouts and error parsing are the SDK's own. The server checks the
request the way the API does (shape, auth header, tool_use/tool_result pairing, cache
breakpoints), records every request, and answers from a queue, then a policy, then a default.

```python
with FakeMessagesAPI() as api:
    api.enqueue(FakeError.rate_limited(), tool_use_response("tap", {"ref": "a1"}))
    llm = AnthropicLLM(base_url=api.url)
    llm.complete(request)           # retried once by the SDK, then answered
    assert len(api.requests) == 2
```

Usage is computed like the API does: roughly 4 characters per token, and a prompt-cache emulation
(prefixes ending at `cache_control` breakpoints are written once, then read) that fills
`cache_creation_input_tokens` / `cache_read_input_tokens`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
import json
import math
import re
import socket
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Delay",
    "FakeError",
    "FakeMessagesAPI",
    "Policy",
    "RawBody",
    "RecordedRequest",
    "Reply",
    "text_response",
    "tool_use_response",
]


@dataclass(frozen=True)
class FakeError:
    """An error answer: HTTP `status` with Anthropic's error body `{type, message}`."""

    status: int
    type: str
    message: str
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def rate_limited(cls, retry_after: float = 0.01) -> FakeError:
        """429 `rate_limit_error` asking the client to wait `retry_after` seconds."""
        return cls(
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
            {"retry-after": f"{retry_after:g}"},
        )

    @classmethod
    def overloaded(cls, retry_after: float = 0.01) -> FakeError:
        """529 `overloaded_error`."""
        return cls(529, "overloaded_error", "Overloaded", {"retry-after": f"{retry_after:g}"})

    @classmethod
    def server_error(cls, retry_after: float = 0.01) -> FakeError:
        """500 `api_error`."""
        return cls(500, "api_error", "Internal server error", {"retry-after": f"{retry_after:g}"})

    @classmethod
    def unauthorized(cls) -> FakeError:
        """401 `authentication_error`."""
        return cls(401, "authentication_error", "invalid x-api-key")

    @classmethod
    def invalid_request(cls, message: str) -> FakeError:
        """400 `invalid_request_error`."""
        return cls(400, "invalid_request_error", message)


@dataclass(frozen=True)
class Delay:
    """Wait `seconds` (interrupted when the server closes), then answer `then`.

    With `then=None` the answer comes from the policy or the default, as if there were no delay.
    """

    seconds: float
    then: Reply | None = None


@dataclass(frozen=True)
class RawBody:
    """Answer exactly these bytes (a truncated or wrongly shaped body, as a broken proxy sends)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"


Reply = dict[str, Any] | FakeError | Delay | RawBody
"""What a queue entry or a policy gives: a (partial) Messages API response body, an error, a delay,
or raw bytes."""

Policy = Callable[[dict[str, Any]], "Reply | None"]
"""Called with the request body; returning `None` falls through to the default answer."""


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: dict[str, Any] | None
    """The parsed JSON body, or `None` when it was not a JSON object."""
    raw: bytes = field(default=b"", repr=False)
    """The body's bytes as they arrived (for tests that scan what left the client)."""

    @property
    def credential(self) -> str | None:
        """The API key or bearer token the client sent."""
        if "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        auth = self.headers.get("authorization", "")
        return auth.removeprefix("Bearer ").strip() or None


def text_response(text: str, **extra: Any) -> dict[str, Any]:
    """A response body with one text block (`stop_reason` end_turn)."""
    return {"content": [{"type": "text", "text": text}], **extra}


def tool_use_response(
    name: str,
    input: Mapping[str, Any] | None = None,
    *,
    text: str | None = None,
    id: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A response body calling tool `name` (optionally preceded by `text`)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    block: dict[str, Any] = {"type": "tool_use", "name": name, "input": dict(input or {})}
    if id is not None:
        block["id"] = id
    content.append(block)
    return {"content": content, **extra}


class _Invalid(Exception):
    pass


class FakeMessagesAPI:
    """A threaded HTTP server on 127.0.0.1 imitating the Anthropic Messages API.

    Args:
        policy: decides the answer for a request when the queue is empty.
        api_key: if set, any other credential gets 401 `authentication_error`.
        min_cacheable_tokens: prefixes shorter than this are not cached (the API's minimum is
            1,024 tokens on most models).
        port: the port to listen on (default: a free one); always on the loopback interface only.
        keep_requests: record every request in `requests` (off for a long-running server).
    """

    __test__ = False

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        api_key: str | None = None,
        min_cacheable_tokens: int = 1024,
        port: int = 0,
        keep_requests: bool = True,
    ) -> None:
        self.policy = policy
        self.api_key = api_key
        self.min_cacheable_tokens = min_cacheable_tokens
        self.keep_requests = keep_requests
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Reply] = deque()
        self._cache: set[str] = set()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._ids = itertools.count(1)
        self._connections: set[socket.socket] = set()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="fake-messages-api",
            daemon=True,
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """Base URL for `ANTHROPIC_BASE_URL` / `base_url=`."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def enqueue(self, *replies: Reply) -> None:
        """Answer the next requests with `replies`, in order, before consulting the policy."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of all recorded requests."""
        return [r.body for r in self.requests if r.body is not None]

    def close(self) -> None:
        """Stop serving, wake delayed handlers and drop open connections."""
        self._closing.set()
        self._server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeMessagesAPI:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- request handling (called from handler threads) ---------------------------------------

    def _handle(
        self, method: str, path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes] | None:
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        body = parsed if isinstance(parsed, dict) else None
        if self.keep_requests:
            with self._lock:
                self.requests.append(RecordedRequest(method, path, headers, body, raw))
        checked = self._check(method, path, headers, body)
        if isinstance(checked, FakeError):
            return self._error(checked)
        reply = self._next_reply(checked)
        while isinstance(reply, Delay):
            if self._closing.wait(reply.seconds):
                return None
            reply = reply.then if reply.then is not None else self._policy_reply(checked)
        if isinstance(reply, FakeError):
            return self._error(reply)
        if isinstance(reply, RawBody):
            return reply.status, {"content-type": reply.content_type}, reply.body
        assert body is not None
        return 200, {"content-type": "application/json"}, json.dumps(self._answer(body, checked, reply)).encode()

    # The wire format (`FakeChatCompletionsAPI` overrides these three).

    def _check(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any] | None
    ) -> dict[str, Any] | FakeError:
        """The error the API would answer, or the Messages body the queue and the policy see."""
        route = _route(path) if method == "POST" else None
        if route is None:
            return FakeError(404, "not_found_error", f"{method} {path} not found")
        platform, path_model = route
        credential = RecordedRequest(method, path, headers, body).credential
        if not credential or (self.api_key is not None and credential != self.api_key):
            return FakeError.unauthorized()
        if platform == "anthropic" and "anthropic-version" not in headers:
            return FakeError.invalid_request("anthropic-version: header is required")
        if body is None:
            return FakeError.invalid_request("request body must be a JSON object")
        if platform != "anthropic":
            # Bedrock and Vertex take the model from the path and the API version from the body.
            version = body.get("anthropic_version")
            if not isinstance(version, str) or not version:
                return FakeError.invalid_request("anthropic_version: Field required")
            if "model" in body:
                return FakeError.invalid_request("model: Extra inputs are not permitted (the model is in the path)")
            body = {**{k: v for k, v in body.items() if k != "anthropic_version"}, "model": path_model}
        try:
            _validate(body)
        except _Invalid as exc:
            return FakeError.invalid_request(str(exc))
        return body

    def _answer(self, sent: dict[str, Any], body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        """The 200 answer's JSON for `reply` to the request `sent` (seen as `body`)."""
        return self._complete(body, reply)

    def _error(self, error: FakeError) -> tuple[int, dict[str, str], bytes]:
        return _error(error)

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self._policy_reply(body)

    def _policy_reply(self, body: dict[str, Any]) -> Reply:
        reply = self.policy(body) if self.policy is not None else None
        return reply if reply is not None else _default_reply(body)

    def _complete(self, body: dict[str, Any], partial: dict[str, Any]) -> dict[str, Any]:
        content = [dict(b) for b in partial.get("content", [])]
        for block in content:
            if block.get("type") == "tool_use" and "id" not in block:
                block["id"] = f"toolu_fake_{next(self._ids):04d}"
        stop = "tool_use" if any(b.get("type") == "tool_use" for b in content) else "end_turn"
        response: dict[str, Any] = {
            "id": f"msg_fake_{next(self._ids):04d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
        }
        response.update({k: v for k, v in partial.items() if k != "content"})
        response["usage"] = {**self._usage(body, content), **partial.get("usage", {})}
        return response

    def _usage(self, body: dict[str, Any], content: list[dict[str, Any]]) -> dict[str, int]:
        # The cached prefix is tools, then system, then messages, in that order (as the API).
        segments: list[tuple[int, bool]] = []
        for tool in body.get("tools", []):
            segments.append((_tokens(tool), "cache_control" in tool))
        system = body.get("system")
        if isinstance(system, str):
            segments.append((_tokens(system), False))
        for block in system if isinstance(system, list) else []:
            segments.append((_tokens(block), "cache_control" in block))
        for message in body["messages"]:
            blocks = message["content"]
            for block in [blocks] if isinstance(blocks, str) else blocks:
                marked = isinstance(block, dict) and "cache_control" in block
                segments.append((_tokens(block), marked))
        total = sum(t for t, _ in segments)
        prefix_keys: list[tuple[str, int]] = []
        running = 0
        digest = hashlib.sha256(body["model"].encode())
        for (tokens, marked), item in zip(segments, _prefix_items(body), strict=True):
            running += tokens
            digest.update(item)
            if marked and running >= self.min_cacheable_tokens:
                prefix_keys.append((digest.copy().hexdigest(), running))
        read = created = 0
        with self._lock:
            hits = [n for key, n in prefix_keys if key in self._cache]
            read = max(hits, default=0)
            if prefix_keys:
                created = prefix_keys[-1][1] - read
            self._cache.update(key for key, _ in prefix_keys)
        return {
            "input_tokens": total - read - created,
            "output_tokens": max(1, sum(_tokens(b) for b in content)),
            "cache_creation_input_tokens": created,
            "cache_read_input_tokens": read,
        }


_BEDROCK_PATH = re.compile(r"^/model/(?P<model>[^/]+)/invoke$")
_VERTEX_PATH = re.compile(
    r"^/v1/projects/[^/]+/locations/[^/]+/publishers/anthropic/models/(?P<model>[^/:]+(?::[^/:]+)?):rawPredict$"
)


def _route(path: str) -> tuple[str, str] | None:
    """(platform, model from the path) of a Messages request: the API's own, Bedrock's or Vertex's."""
    from urllib.parse import unquote

    plain = path.split("?")[0].rstrip("/")
    if plain == "/v1/messages":
        return "anthropic", ""
    if m := _BEDROCK_PATH.match(plain):
        return "bedrock", unquote(m["model"])
    if m := _VERTEX_PATH.match(plain):
        return "vertex", unquote(m["model"])
    return None


def _prefix_items(body: dict[str, Any]) -> list[bytes]:
    def canon(value: Any) -> bytes:
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if k != "cache_control"}
        return json.dumps(value, sort_keys=True).encode()

    items = [canon(t) for t in body.get("tools", [])]
    system = body.get("system")
    if isinstance(system, str):
        items.append(canon(system))
    items += [canon(b) for b in (system if isinstance(system, list) else [])]
    for message in body["messages"]:
        blocks = message["content"]
        items += [canon([message["role"], b]) for b in ([blocks] if isinstance(blocks, str) else blocks)]
    return items


def _tokens(value: Any) -> int:
    if isinstance(value, dict) and value.get("type") == "image":
        return 1_000  # roughly what a downscaled phone screenshot costs
    text = value if isinstance(value, str) else json.dumps(value)
    return max(1, math.ceil(len(text) / 4))


def _default_reply(body: dict[str, Any]) -> dict[str, Any]:
    choice = body.get("tool_choice") or {}
    tools = body.get("tools") or []
    if choice.get("type") == "tool":
        return tool_use_response(choice["name"])
    if choice.get("type") == "any" and tools:
        return tool_use_response(tools[0]["name"])
    return text_response("OK")


def _error(error: FakeError) -> tuple[int, dict[str, str], bytes]:
    request_id = "req_fake_" + hashlib.sha1(error.message.encode()).hexdigest()[:12]
    payload = {
        "type": "error",
        "error": {"type": error.type, "message": error.message},
        "request_id": request_id,
    }
    headers = {"content-type": "application/json", "request-id": request_id, **error.headers}
    return error.status, headers, json.dumps(payload).encode()


def _handler_for(api: FakeMessagesAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            with api._lock:
                api._connections.add(self.connection)

        def finish(self) -> None:
            with api._lock:
                api._connections.discard(self.connection)
            try:
                super().finish()
            except OSError:
                pass

        def do_POST(self) -> None:
            self._serve()

        def do_GET(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            answer = api._handle(self.command, self.path, headers, raw)
            if answer is None:
                self.close_connection = True
                return
            status, out_headers, payload = answer
            try:
                self.send_response(status)
                for name, value in out_headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except OSError:
                # The client gave up (its timeout fired) before the answer was ready.
                self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


# --- request validation ----------------------------------------------------------------------

_TOP_LEVEL = {
    "model",
    "max_tokens",
    "messages",
    "system",
    "tools",
    "tool_choice",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "stream",
    "metadata",
    "thinking",
    "service_tier",
    "output_config",
    "container",
    "cache_control",
    "inference_geo",
    "speed",
    "diagnostics",
    "user_profile_id",
    "workspace_id",
}
_MEDIA_TYPES = {"image/png", "image/jpeg", "image/webp", "image/gif"}
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise _Invalid(message)


def _validate(body: dict[str, Any]) -> None:
    extra = sorted(set(body) - _TOP_LEVEL)
    _check(not extra, f"{extra[0] if extra else ''}: Extra inputs are not permitted")
    _check(isinstance(body.get("model"), str) and bool(body["model"]), "model: Field required")
    _check(
        isinstance(body.get("max_tokens"), int) and body["max_tokens"] >= 0,
        "max_tokens: must be an integer >= 0",
    )
    _check(not body.get("stream"), "stream: this fake serves non-streaming requests only")
    temperature = body.get("temperature")
    _check(
        temperature is None or (isinstance(temperature, int | float) and 0 <= temperature <= 1),
        "temperature: must be between 0 and 1",
    )
    breakpoints = 0
    system = body.get("system")
    if system is not None and not isinstance(system, str):
        _check(isinstance(system, list), "system: must be a string or a list of text blocks")
        for i, block in enumerate(system):
            _check(
                isinstance(block, dict)
                and block.get("type") == "text"
                and isinstance(block.get("text"), str),
                f"system.{i}: must be a text block",
            )
            breakpoints += _cache_control(block, f"system.{i}")
    tool_names = _validate_tools(body.get("tools"))
    breakpoints += sum(1 for t in body.get("tools") or [] if "cache_control" in t)
    _validate_tool_choice(body.get("tool_choice"), tool_names)
    thinking = body.get("thinking")
    _check(
        thinking is None
        or (
            isinstance(thinking, dict)
            and thinking.get("type") in ("enabled", "disabled", "adaptive", "between_tools")
        ),
        "thinking: unknown type",
    )
    breakpoints += _validate_messages(body.get("messages"))
    _check(
        breakpoints <= 4, f"A maximum of 4 blocks with cache_control may be provided. Found {breakpoints}."
    )


def _cache_control(block: dict[str, Any], where: str) -> int:
    if "cache_control" not in block:
        return 0
    control = block["cache_control"]
    _check(
        isinstance(control, dict)
        and control.get("type") == "ephemeral"
        and control.get("ttl", "5m") in ("5m", "1h"),
        f"{where}.cache_control: must be {{'type': 'ephemeral'}}",
    )
    return 1


def _validate_tools(tools: Any) -> set[str]:
    if tools is None:
        return set()
    _check(isinstance(tools, list), "tools: must be a list")
    names: set[str] = set()
    for i, tool in enumerate(tools):
        _check(isinstance(tool, dict), f"tools.{i}: must be an object")
        name = tool.get("name")
        _check(isinstance(name, str) and bool(_TOOL_NAME.match(name)), f"tools.{i}.name: invalid tool name")
        _check(name not in names, f"tools: Tool names must be unique ({name})")
        names.add(name)
        schema = tool.get("input_schema")
        _check(
            isinstance(schema, dict) and schema.get("type") == "object",
            f"tools.{i}.input_schema: must be a JSON schema with type 'object'",
        )
        _check(isinstance(tool.get("description", ""), str), f"tools.{i}.description: must be a string")
        _cache_control(tool, f"tools.{i}")
    return names


def _validate_tool_choice(choice: Any, tool_names: set[str]) -> None:
    if choice is None:
        return
    _check(
        isinstance(choice, dict) and choice.get("type") in ("auto", "any", "tool", "none"),
        "tool_choice: must be auto, any, tool or none",
    )
    if choice["type"] in ("any", "tool"):
        _check(bool(tool_names), "tool_choice: requires `tools` to be provided")
    if choice["type"] == "tool":
        _check(choice.get("name") in tool_names, f"tool_choice.name: no tool named {choice.get('name')!r}")


def _validate_messages(messages: Any) -> int:
    _check(isinstance(messages, list) and bool(messages), "messages: at least one message is required")
    _check(
        messages[0].get("role") == "user" if isinstance(messages[0], dict) else False,
        "messages.0.role: the first message must use the `user` role",
    )
    breakpoints = 0
    pending: set[str] = set()  # tool_use ids of the previous assistant turn, still unanswered
    for i, message in enumerate(messages):
        _check(
            isinstance(message, dict) and message.get("role") in ("user", "assistant"),
            f"messages.{i}.role: must be `user` or `assistant`",
        )
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        _check(isinstance(blocks, list) and bool(blocks), f"messages.{i}.content: must be a non-empty list")
        uses: set[str] = set()
        answered: set[str] = set()
        seen_other = False
        for j, block in enumerate(blocks):
            where = f"messages.{i}.content.{j}"
            _check(isinstance(block, dict), f"{where}: must be an object")
            kind = block.get("type")
            breakpoints += _cache_control(block, where)
            if kind == "text":
                _check(isinstance(block.get("text"), str), f"{where}.text: Field required")
                seen_other = True
            elif kind == "image":
                _check(message["role"] == "user", f"{where}: images are only allowed in user messages")
                _validate_image(block, where)
                seen_other = True
            elif kind == "tool_use":
                _check(
                    message["role"] == "assistant", f"{where}: tool_use is only allowed in assistant messages"
                )
                _check(
                    isinstance(block.get("id"), str)
                    and isinstance(block.get("name"), str)
                    and isinstance(block.get("input"), dict),
                    f"{where}: tool_use needs id, name and input",
                )
                uses.add(block["id"])
            elif kind == "tool_result":
                _check(message["role"] == "user", f"{where}: tool_result is only allowed in user messages")
                _check(not seen_other, f"{where}: tool_result blocks must come first in the user message")
                tool_use_id = block.get("tool_use_id")
                _check(
                    tool_use_id in pending,
                    f"{where}: unexpected `tool_use_id` {tool_use_id!r}: no matching "
                    "tool_use block in the previous message",
                )
                _check(
                    isinstance(block.get("content", ""), str | list),
                    f"{where}.content: must be text or blocks",
                )
                _check(isinstance(block.get("is_error", False), bool), f"{where}.is_error: must be a boolean")
                answered.add(tool_use_id)
            elif kind in ("thinking", "redacted_thinking"):
                _check(
                    message["role"] == "assistant", f"{where}: thinking is only allowed in assistant messages"
                )
            else:
                raise _Invalid(f"{where}.type: unsupported block type {kind!r}")
        missing = pending - answered
        _check(
            not missing,
            f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
            f"after: {', '.join(sorted(missing))}",
        )
        pending = uses
    _check(not pending or messages[-1]["role"] == "assistant", "tool_use without tool_result")
    return breakpoints


def _validate_image(block: dict[str, Any], where: str) -> None:
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        raise _Invalid(f"{where}.source: must be base64")
    _check(source.get("media_type") in _MEDIA_TYPES, f"{where}.source.media_type: unsupported media type")
    data = source.get("data")
    if not isinstance(data, str) or not data:
        raise _Invalid(f"{where}.source.data: Field required")
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise _Invalid(f"{where}.source.data: invalid base64 data") from None
