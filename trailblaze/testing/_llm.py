"""LLM test doubles: `ScriptedLLM`, `FunctionLLM`, `capture_llm_requests()` and response builders."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from trailblaze.llm.client import (
    LLMExchange,
    LLMRequest,
    LLMResponse,
    TextBlock,
    ToolUseBlock,
    Usage,
    _captures,
    record_exchange,
)

__all__ = [
    "FunctionLLM",
    "ScriptExhausted",
    "ScriptedLLM",
    "capture_llm_requests",
    "text",
    "tool",
    "tool_calls",
]

_ids = itertools.count(1)


def tool(name: str, /, **input: Any) -> LLMResponse:
    """A response calling one tool, e.g. `tool("tap", ref="a1")`."""
    return tool_calls((name, input))


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> LLMResponse:
    """A response calling several tools in one turn, e.g. `tool_calls(("tap", {"ref": "a1"}), ...)`."""
    blocks = tuple(
        ToolUseBlock(id=f"toolu_scripted_{next(_ids):04d}", name=n, input=dict(i)) for n, i in calls
    )
    return LLMResponse(content=blocks, stop_reason="tool_use")


def text(content: str) -> LLMResponse:
    """A response with text only (no tool call)."""
    return LLMResponse(content=(TextBlock(text=content),), stop_reason="end_turn")


class ScriptExhausted(AssertionError):
    """A `ScriptedLLM` was asked for more responses than it was given."""


ScriptItem = LLMResponse | str | BaseException


class ScriptedLLM:
    """An `LLMClient` that returns scripted responses in order and records every request.

    Items may be `LLMResponse`s (see `tool()` / `text()`), plain strings (text answers) or
    exceptions (raised instead of answering, e.g. an `LLMError` to test failure handling).

    ```python
    llm = ScriptedLLM([tool("tap", ref="a1"), tool("objectiveStatus", status="COMPLETED", explanation="done")])
    ```
    """

    __test__ = False

    def __init__(self, script: Iterable[ScriptItem], *, model: str = "scripted") -> None:
        self.model = model
        self.requests: list[LLMRequest] = []
        self._script: deque[ScriptItem] = deque(script)
        self._total = len(self._script)

    @property
    def remaining(self) -> int:
        """How many scripted items are still unused."""
        return len(self._script)

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Record `request` and return (or raise) the next scripted item.

        Raises:
            ScriptExhausted: the script has no items left.
        """
        self.requests.append(request)
        if not self._script:
            error = ScriptExhausted(
                f"ScriptedLLM ran out of responses: call {len(self.requests)} but only {self._total} scripted; "
                f"last message: {_summary(request)}"
            )
            record_exchange(request, None, error)
            raise error
        item = self._script.popleft()
        if isinstance(item, BaseException):
            record_exchange(request, None, item)
            raise item
        response = _finish(item, request, self.model)
        record_exchange(request, response)
        return response


class FunctionLLM:
    """An `LLMClient` that answers with `fn(request)`; records every request.

    `fn` returns an `LLMResponse` or a string (a text answer) and may raise.
    """

    __test__ = False

    def __init__(self, fn: Callable[[LLMRequest], LLMResponse | str], *, model: str = "function") -> None:
        self.fn = fn
        self.model = model
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Record `request` and return `fn(request)`."""
        self.requests.append(request)
        try:
            response = _finish(self.fn(request), request, self.model)
        except BaseException as exc:
            record_exchange(request, None, exc)
            raise
        record_exchange(request, response)
        return response


@contextmanager
def capture_llm_requests() -> Iterator[list[LLMExchange]]:
    """Collect every LLM call made inside the block (by any client in this context).

    Yields the live list of `LLMExchange(request, response, error)`; it keeps what was captured
    when the block raises, so a failing run can still be inspected.
    """
    log: list[LLMExchange] = []
    token = _captures.set((*_captures.get(), log))
    try:
        yield log
    finally:
        _captures.reset(token)


def _finish(item: LLMResponse | str, request: LLMRequest, model: str) -> LLMResponse:
    response = text(item) if isinstance(item, str) else item
    update: dict[str, Any] = {}
    if not response.model:
        update["model"] = request.model or model
    if response.cost_usd is None:
        update["cost_usd"] = 0.0
    if response.usage == Usage():
        update["usage"] = _estimate_usage(request, response)
    return response.model_copy(update=update) if update else response


def _estimate_usage(request: LLMRequest, response: LLMResponse) -> Usage:
    # A rough size so token accounting in agent tests sees non-zero, request-dependent numbers.
    return Usage(
        input_tokens=max(1, len(request.model_dump_json()) // 4),
        output_tokens=max(1, len(response.model_dump_json(include={"content"})) // 4),
    )


def _summary(request: LLMRequest) -> str:
    last = request.messages[-1]
    parts = [b.text if isinstance(b, TextBlock) else f"<{b.type}>" for b in last.content]
    summary = " ".join(" ".join(parts).split())
    return f"{last.role}: {summary[:200]}"
