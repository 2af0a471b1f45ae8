"""`FakeChatCompletionsAPI`: a local HTTP server that speaks OpenAI's `POST /v1/chat/completions`.

Point the real `openai` SDK (or `OpenAILLM`, `--model openai:... --llm-base-url URL`) at `.url`
and every byte goes over a real socket. The server checks requests the way the API does (shape,
bearer token, tool_calls answered by `tool` messages, tool_choice, image data URLs), records every
request, and answers from a queue, then a policy, then a default — like `FakeMessagesAPI`, whose
queue entries (`FakeError`, `Delay`, `RawBody`) it shares.

The policy is the same `Policy` that drives `FakeMessagesAPI`: it is called with the request
translated into a Messages API body (`messages_body`), and its Messages-shaped answer
(`{"content": [tool_use / text blocks]}`) is sent back as a chat completion. So one scripted model
(`trailblaze.testing.demo_policy.demo_policy`) drives both wire formats. A queued or returned dict
that already has `choices` is sent as is (with defaults filled in).

```python
with FakeChatCompletionsAPI(policy=demo_policy) as api:
    ...  # trailblaze record trails/login.trail.yaml --model openai:gpt-4.1 --llm-base-url {api.url}
```

Usage is estimated at ~4 characters per token; prompt caching is emulated the way OpenAI does it
by itself: a prompt prefix of at least `min_cacheable_tokens` seen before is reported in
`prompt_tokens_details.cached_tokens`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import time
from typing import Any

from trailblaze.llm.openai import ERROR_PREFIX
from trailblaze.testing.messages_api import FakeError, FakeMessagesAPI, Reply, _Invalid, _tokens

__all__ = ["FakeChatCompletionsAPI", "chat_tool_call_response", "messages_body"]

_TOP_LEVEL = {
    "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "max_tokens", "max_completion_tokens",
    "temperature", "top_p", "stop", "stream", "seed", "user", "n", "response_format", "metadata", "store",
    "reasoning_effort", "prompt_cache_key", "service_tier", "frequency_penalty", "presence_penalty",
}  # fmt: skip
_DATA_URL = re.compile(r"^data:(?P<type>image/(?:png|jpeg|webp|gif));base64,(?P<data>.*)$", re.DOTALL)
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class FakeChatCompletionsAPI(FakeMessagesAPI):
    """A threaded HTTP server on 127.0.0.1 imitating an OpenAI-compatible Chat Completions endpoint.

    Args:
        policy: decides the answer when the queue is empty; called with the Messages-shaped body.
        api_key: if set, any other bearer token gets 401 `invalid_api_key`.
        min_cacheable_tokens: shorter prompt prefixes are never reported as cached (OpenAI: 1,024).
        port: the port to listen on (default: a free one); always on the loopback interface only.
        keep_requests: record every request in `requests`.

    `url` ends in `/v1`, as `OPENAI_BASE_URL` / `--llm-base-url` expect.
    """

    __test__ = False

    @property
    def url(self) -> str:
        """Base URL for `--llm-base-url` / `OPENAI_BASE_URL` / `base_url=` (ends in `/v1`)."""
        return super().url + "/v1"

    def __enter__(self) -> FakeChatCompletionsAPI:
        return self

    def _check(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any] | None
    ) -> dict[str, Any] | FakeError:
        if method != "POST" or path.split("?")[0].rstrip("/") != "/v1/chat/completions":
            return FakeError(404, "not_found", f"Unknown request URL: {method} {path}")
        auth = headers.get("authorization", "")
        token = auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else ""
        if not token or (self.api_key is not None and token != self.api_key):
            return FakeError(401, "invalid_api_key", "Incorrect API key provided")
        if body is None:
            return FakeError(
                400, "invalid_request_error", "We could not parse the JSON body of your request."
            )
        try:
            _validate(body)
        except _Invalid as exc:
            return FakeError(400, "invalid_request_error", str(exc))
        return messages_body(body)

    def _answer(self, sent: dict[str, Any], body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        return self._chat_completion(sent, reply)

    def _error(self, error: FakeError) -> tuple[int, dict[str, str], bytes]:
        return _chat_error(error)

    def _policy_reply(self, body: dict[str, Any]) -> Reply:
        reply = self.policy(body) if self.policy is not None else None
        return reply if reply is not None else _default_reply(body)

    def _chat_completion(self, body: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        if "choices" in reply:
            answer = {"id": f"chatcmpl-fake-{next(self._ids):04d}", "object": "chat.completion",
                      "created": int(time.time()), "model": body["model"], **reply}  # fmt: skip
            answer.setdefault("usage", self._chat_usage(body, reply["choices"]))
            return answer
        text = "\n".join(b["text"] for b in reply.get("content", []) if b.get("type") == "text")
        calls = [
            {
                "id": b.get("id") or f"call_fake_{next(self._ids):04d}",
                "type": "function",
                "function": {"name": b["name"], "arguments": json.dumps(b.get("input") or {})},
            }
            for b in reply.get("content", [])
            if b.get("type") == "tool_use"
        ]
        message: dict[str, Any] = {"role": "assistant", "content": text or None, "refusal": None}
        if calls:
            message["tool_calls"] = calls
        choices = [{"index": 0, "message": message, "logprobs": None,
                    "finish_reason": reply.get("finish_reason") or ("tool_calls" if calls else "stop")}]  # fmt: skip
        return {
            "id": f"chatcmpl-fake-{next(self._ids):04d}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": reply.get("model", body["model"]),
            "choices": choices,
            "usage": {**self._chat_usage(body, choices), **reply.get("usage", {})},
        }

    def _chat_usage(self, body: dict[str, Any], choices: list[dict[str, Any]]) -> dict[str, Any]:
        items = [json.dumps(t, sort_keys=True) for t in body.get("tools", [])]
        items += [json.dumps(m, sort_keys=True) for m in body["messages"]]
        digest = hashlib.sha256(body["model"].encode())
        prefixes: list[tuple[str, int]] = []
        running = 0
        for item in items:
            running += _tokens(_without_images(item))
            digest.update(item.encode())
            prefixes.append((digest.copy().hexdigest(), running))
        with self._lock:
            cached = max(
                (n for key, n in prefixes if key in self._cache and n >= self.min_cacheable_tokens), default=0
            )
            self._cache.update(key for key, _ in prefixes)
        completion = max(
            1, sum(_tokens(c["message"]) for c in choices if isinstance(c, dict) and "message" in c)
        )
        return {
            "prompt_tokens": running,
            "completion_tokens": completion,
            "total_tokens": running + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }


def _without_images(item: str) -> str:
    # An image costs a fixed ~1,000 tokens, not its base64 length (as `FakeMessagesAPI` counts it).
    return re.sub(r'"data:image/[^"]*"', "x" * 4000, item)


def chat_tool_call_response(
    name: str, arguments: dict[str, Any] | str | None = None, **extra: Any
) -> dict[str, Any]:
    """A chat-completion-shaped reply calling tool `name` (`arguments` may be a raw, even broken, string)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    call = {"id": f"call_{name}", "type": "function", "function": {"name": name, "arguments": raw}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}], **extra}


# --- the Messages-shaped view the policy reads ---------------------------------------------------


def messages_body(chat: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions request as the equivalent Messages API body (what `Policy` functions read)."""
    system = [
        {"type": "text", "text": _text_of(m.get("content"))}
        for m in chat["messages"]
        if m["role"] in ("system", "developer")
    ]
    messages: list[dict[str, Any]] = []
    for m in chat["messages"]:
        role = m["role"]
        if role in ("system", "developer"):
            continue
        if role == "assistant":
            blocks: list[dict[str, Any]] = []
            if _text_of(m.get("content")):
                blocks.append({"type": "text", "text": _text_of(m.get("content"))})
            for call in m.get("tool_calls") or []:
                try:
                    args = json.loads(call["function"].get("arguments") or "{}")
                except ValueError:
                    args = {}
                blocks.append(
                    {"type": "tool_use", "id": call["id"], "name": call["function"]["name"], "input": args}
                )
            messages.append({"role": "assistant", "content": blocks})
            continue
        if role == "tool":
            content = _text_of(m.get("content"))
            block = {"type": "tool_result", "tool_use_id": m["tool_call_id"],
                     "content": content.removeprefix(ERROR_PREFIX), "is_error": content.startswith(ERROR_PREFIX)}  # fmt: skip
            blocks = [block]
        else:
            blocks = _user_blocks(m.get("content"))
        if messages and messages[-1]["role"] == "user":
            messages[-1]["content"].extend(blocks)  # tool messages and the user turn after them are one turn
        else:
            messages.append({"role": "user", "content": blocks})
    body: dict[str, Any] = {"model": chat["model"], "messages": messages}
    if system:
        body["system"] = system
    if chat.get("tools"):
        body["tools"] = [
            {
                "name": t["function"]["name"],
                "description": t["function"].get("description", ""),
                "input_schema": t["function"].get("parameters") or {"type": "object"},
            }  # fmt: skip
            for t in chat["tools"]
        ]
    choice = chat.get("tool_choice")
    if isinstance(choice, dict):
        body["tool_choice"] = {"type": "tool", "name": choice["function"]["name"]}
    elif choice is not None:
        body["tool_choice"] = {"type": {"required": "any"}.get(choice, choice)}
    return body


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def _user_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[dict[str, Any]] = []
    for part in content or []:
        if part.get("type") == "text":
            blocks.append({"type": "text", "text": part["text"]})
        elif part.get("type") == "image_url":
            m = _DATA_URL.match(part["image_url"]["url"])
            if m:
                source = {"type": "base64", "media_type": m["type"], "data": m["data"]}
                blocks.append({"type": "image", "source": source})
    return blocks


def _default_reply(body: dict[str, Any]) -> dict[str, Any]:
    choice = body.get("tool_choice") or {}
    tools = body.get("tools") or []
    if choice.get("type") == "tool":
        return {"content": [{"type": "tool_use", "name": choice["name"], "input": {}}]}
    if choice.get("type") == "any" and tools:
        return {"content": [{"type": "tool_use", "name": tools[0]["name"], "input": {}}]}
    return {"content": [{"type": "text", "text": "OK"}]}


def _chat_error(error: FakeError) -> tuple[int, dict[str, str], bytes]:
    payload = {"error": {"message": error.message, "type": error.type, "param": None, "code": error.type}}
    request_id = "req_fake_" + hashlib.sha1(error.message.encode()).hexdigest()[:12]
    headers = {"content-type": "application/json", "x-request-id": request_id, **error.headers}
    return error.status, headers, json.dumps(payload).encode()


# --- request validation --------------------------------------------------------------------------


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise _Invalid(message)


def _validate(body: dict[str, Any]) -> None:
    extra = sorted(set(body) - _TOP_LEVEL)
    _check(not extra, f"Unrecognized request argument supplied: {extra[0] if extra else ''}")
    _check(isinstance(body.get("model"), str) and bool(body["model"]), "you must provide a model parameter")
    _check(not body.get("stream"), "stream: this fake serves non-streaming requests only")
    for key in ("max_tokens", "max_completion_tokens"):
        _check(
            key not in body or (isinstance(body[key], int) and body[key] >= 1),
            f"{key}: must be an integer >= 1",
        )
    temperature = body.get("temperature")
    _check(
        temperature is None or (isinstance(temperature, int | float) and 0 <= temperature <= 2),
        "temperature: must be between 0 and 2",
    )
    names = _validate_tools(body.get("tools"))
    choice = body.get("tool_choice")
    if choice is not None:
        if isinstance(choice, str):
            _check(choice in ("none", "auto", "required"), f"tool_choice: invalid value {choice!r}")
            _check(
                choice != "required" or bool(names),
                "tool_choice 'required' is only allowed when 'tools' are specified",
            )
        else:
            _check(
                isinstance(choice, dict) and choice.get("type") == "function"
                and isinstance(choice.get("function"), dict) and choice["function"].get("name") in names,
                "tool_choice: must name a function in `tools`",
            )  # fmt: skip
    _check(
        "parallel_tool_calls" not in body or bool(names),
        "parallel_tool_calls is only allowed when 'tools' are specified",
    )
    _validate_messages(body.get("messages"))


def _validate_tools(tools: Any) -> set[str]:
    if tools is None:
        return set()
    _check(isinstance(tools, list) and bool(tools), "tools: must be a non-empty array")
    names: set[str] = set()
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        _check(isinstance(tool, dict) and tool.get("type") == "function" and isinstance(function, dict),
               f"tools[{i}]: must be {{'type': 'function', 'function': {{...}}}}")  # fmt: skip
        assert isinstance(function, dict)
        name = function.get("name")
        _check(isinstance(name, str) and bool(_TOOL_NAME.match(name)), f"tools[{i}].function.name: invalid")
        _check(name not in names, f"tools: duplicate function name {name}")
        names.add(str(name))
        params = function.get("parameters", {"type": "object"})
        _check(isinstance(params, dict) and params.get("type") == "object",
               f"tools[{i}].function.parameters: must be a JSON schema object")  # fmt: skip
    return names


def _validate_messages(messages: Any) -> None:
    _check(isinstance(messages, list) and bool(messages), "messages: must be a non-empty array")
    pending: set[str] = set()
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        _check(isinstance(message, dict), f"{where}: must be an object")
        role = message.get("role")
        _check(
            role in ("system", "developer", "user", "assistant", "tool"),
            f"{where}.role: invalid role {role!r}",
        )
        if role == "tool":
            call_id = message.get("tool_call_id")
            _check(call_id in pending, f"{where}: messages with role 'tool' must be a response to a preceding "
                   f"message with 'tool_calls' (no pending call {call_id!r})")  # fmt: skip
            _check(isinstance(message.get("content"), str | list), f"{where}.content: required")
            pending.discard(call_id)
            continue
        _check(not pending, f"{where}: an assistant message with 'tool_calls' must be followed by tool messages "
               f"responding to each 'tool_call_id'; missing: {', '.join(sorted(pending))}")  # fmt: skip
        content = message.get("content")
        if role == "assistant":
            calls = message.get("tool_calls") or []
            _check(content is not None or bool(calls), f"{where}: content or tool_calls is required")
            for j, call in enumerate(calls):
                fn = call.get("function") if isinstance(call, dict) else None
                _check(
                    isinstance(call, dict) and isinstance(call.get("id"), str) and call.get("type") == "function"
                    and isinstance(fn, dict) and isinstance(fn.get("name"), str) and isinstance(fn.get("arguments"), str),
                    f"{where}.tool_calls[{j}]: needs id, type function, function.name and function.arguments (a string)",
                )  # fmt: skip
                pending.add(str(call["id"]))
            continue
        _check(isinstance(content, str | list), f"{where}.content: must be a string or an array of parts")
        for j, part in enumerate(content if isinstance(content, list) else []):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text":
                _check(isinstance(part.get("text"), str), f"{where}.content[{j}].text: required")
            elif kind == "image_url":
                _check(role == "user", f"{where}.content[{j}]: image parts are only allowed in user messages")
                _validate_image(part, f"{where}.content[{j}]")
            else:
                raise _Invalid(f"{where}.content[{j}].type: unsupported part type {kind!r}")
    _check(not pending, f"tool_calls without tool messages: {', '.join(sorted(pending))}")


def _validate_image(part: dict[str, Any], where: str) -> None:
    image = part.get("image_url")
    url = image.get("url") if isinstance(image, dict) else None
    _check(isinstance(url, str), f"{where}.image_url.url: required")
    assert isinstance(url, str)
    if url.startswith(("http://", "https://")):
        return
    m = _DATA_URL.match(url)
    _check(m is not None, f"{where}.image_url.url: must be an http(s) URL or a data:image/...;base64 URL")
    assert m is not None
    try:
        base64.b64decode(m["data"], validate=True)
    except (binascii.Error, ValueError):
        raise _Invalid(f"{where}.image_url.url: invalid base64 image data") from None
