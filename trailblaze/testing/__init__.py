"""Public test doubles: use them to test code that drives an LLM, without a network.

- `ScriptedLLM` / `FunctionLLM`: `LLMClient`s that answer from a script or a function;
  `tool()`, `tool_calls()`, `text()` build their responses.
- `capture_llm_requests()`: collect every LLM call made in a block.
- `FakeMessagesAPI` (in `trailblaze.testing.messages_api`): a local HTTP server speaking the
  Anthropic Messages API (and its Bedrock and Vertex paths), to exercise `AnthropicLLM`,
  `BedrockLLM`, `VertexLLM` and the real `anthropic` SDK offline.
- `FakeChatCompletionsAPI` (in `trailblaze.testing.chat_completions_api`): the same for an
  OpenAI-compatible Chat Completions endpoint and `OpenAILLM` through the real `openai` SDK; it is
  driven by the same policies as `FakeMessagesAPI`.
"""

from __future__ import annotations

from trailblaze.llm.client import LLMExchange
from trailblaze.testing._llm import (
    FunctionLLM,
    ScriptedLLM,
    ScriptExhausted,
    capture_llm_requests,
    text,
    tool,
    tool_calls,
)
from trailblaze.testing.chat_completions_api import FakeChatCompletionsAPI, chat_tool_call_response
from trailblaze.testing.messages_api import (
    Delay,
    FakeError,
    FakeMessagesAPI,
    RawBody,
    text_response,
    tool_use_response,
)

__all__ = [
    "Delay",
    "FakeChatCompletionsAPI",
    "FakeError",
    "FakeMessagesAPI",
    "FunctionLLM",
    "LLMExchange",
    "RawBody",
    "ScriptExhausted",
    "ScriptedLLM",
    "capture_llm_requests",
    "chat_tool_call_response",
    "text",
    "text_response",
    "tool",
    "tool_calls",
    "tool_use_response",
]
