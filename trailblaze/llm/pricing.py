"""What a model call costs: list prices in USD per million tokens by provider, and the cost of one `Usage`.

One table, `PRICES`, keyed by `(provider, model)`. Claude rows are Anthropic's published list
prices for the Messages API (standard tier, 5-minute cache writes) as of 2026-11; Bedrock and
Vertex bill the same list prices on their global endpoints, so the Claude rows apply to all three
(a Bedrock id `us.anthropic.claude-sonnet-4-5-20250929-v1:0` or a Vertex id
`claude-sonnet-4-5@20250929` is looked up by its Claude id). Cache writes cost 1.25x and cache reads
0.1x the base input price. OpenAI rows are OpenAI's list prices (standard tier) as of 2025-08;
cached input is billed at the cached rate and there is no cache-write surcharge. A model not in the
table — a local model behind an OpenAI-compatible server, a new release — has no price:
`cost_usd` returns `None` and the report shows the cost as unknown rather than guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the run log prices usage through this module: a replay never loads the LLM clients
    from trailblaze.llm.client import Usage

__all__ = [
    "DEMO_MODEL",
    "DEMO_PROVIDER",
    "PRICES",
    "PROVIDERS",
    "ModelPrice",
    "answered_by",
    "claude_model_id",
    "cost_usd",
    "price_for",
]

PROVIDERS = ("anthropic", "bedrock", "vertex", "openai")
"""The providers `--model PROVIDER:MODEL` accepts."""

DEMO_PROVIDER = "demo"
DEMO_MODEL = "trailblaze-demo"
"""The keyless scripted stand-in (`trailblaze sim llm`, `trailblaze.testing.demo_policy`) names
itself so in its answers: whichever client reached it, the run is labelled `demo:trailblaze-demo`
and costs nothing, never a real model's name and price."""


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens for one model."""

    input: float
    output: float
    cache_write: float
    cache_read: float
    long_context: tuple[int, ModelPrice] | None = None
    """(threshold, price): prompts with more total input tokens than threshold bill at price."""

    @classmethod
    def standard(cls, input: float, output: float, cache_read: float | None = None) -> ModelPrice:
        """A price with the usual cache multipliers (write 1.25x, read 0.1x input)."""
        return cls(input, output, input * 1.25, input * 0.1 if cache_read is None else cache_read)


_CLAUDE_PRICES: dict[str, ModelPrice] = {
    "claude-fable-5-1": ModelPrice.standard(10.0, 50.0, cache_read=0.25),
    "claude-mythos-5-1": ModelPrice.standard(10.0, 50.0, cache_read=0.25),
    "claude-fable-5": ModelPrice.standard(10.0, 50.0, cache_read=1.0),
    "claude-mythos-5": ModelPrice.standard(10.0, 50.0, cache_read=1.0),
    "claude-opus-5-5": ModelPrice.standard(4.0, 20.0),
    "claude-opus-5": ModelPrice.standard(5.0, 25.0),
    "claude-opus-4-8": ModelPrice.standard(5.0, 25.0),
    "claude-opus-4-7": ModelPrice.standard(5.0, 25.0),
    "claude-opus-4-6": ModelPrice.standard(5.0, 25.0),
    "claude-opus-4-5": ModelPrice.standard(5.0, 25.0),
    "claude-opus-4-1": ModelPrice.standard(15.0, 75.0),
    "claude-opus-4": ModelPrice.standard(15.0, 75.0),
    "claude-sonnet-5-5": ModelPrice.standard(2.0, 10.0),
    # Sonnet 5's introductory $2/$10 ended 2026-08-31.
    "claude-sonnet-5": ModelPrice.standard(3.0, 15.0),
    "claude-sonnet-4-6": ModelPrice.standard(3.0, 15.0),
    "claude-sonnet-4-5": ModelPrice.standard(3.0, 15.0),
    "claude-sonnet-4": ModelPrice.standard(3.0, 15.0),
    "claude-haiku-5-5": ModelPrice(
        0.10, 0.50, 0.125, 0.01, long_context=(100_000, ModelPrice(0.50, 2.50, 0.625, 0.05))
    ),
    "claude-haiku-4-5": ModelPrice.standard(1.0, 5.0),
}

_OPENAI_PRICES: dict[str, ModelPrice] = {
    "gpt-5": ModelPrice(1.25, 10.0, 1.25, 0.125),
    "gpt-5-mini": ModelPrice(0.25, 2.0, 0.25, 0.025),
    "gpt-5-nano": ModelPrice(0.05, 0.40, 0.05, 0.005),
    "gpt-4.1": ModelPrice(2.0, 8.0, 2.0, 0.50),
    "gpt-4.1-mini": ModelPrice(0.40, 1.60, 0.40, 0.10),
    "gpt-4.1-nano": ModelPrice(0.10, 0.40, 0.10, 0.025),
    "gpt-4o": ModelPrice(2.50, 10.0, 2.50, 1.25),
    "gpt-4o-mini": ModelPrice(0.15, 0.60, 0.15, 0.075),
}

PRICES: dict[tuple[str, str], ModelPrice] = {
    (DEMO_PROVIDER, DEMO_MODEL): ModelPrice(0.0, 0.0, 0.0, 0.0),
    **{(provider, model): price for provider in ("anthropic", "bedrock", "vertex") for model, price in _CLAUDE_PRICES.items()},
    **{("openai", model): price for model, price in _OPENAI_PRICES.items()},
}
"""List prices by `(provider, model id)` (ids without a date suffix)."""

_DATE_SUFFIX = re.compile(r"(-\d{8}|-\d{4}-\d{2}-\d{2})$")
_BEDROCK_ID = re.compile(r"^(?:[a-z]{2,6}\.)?anthropic\.(?P<id>.+?)(?:-v\d+(?::\d+)?)?$")


def claude_model_id(model: str) -> str:
    """The Anthropic id of a Bedrock or Vertex Claude id; other ids unchanged.

    `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and `claude-sonnet-4-5@20250929` both give
    `claude-sonnet-4-5-20250929`.
    """
    m = _BEDROCK_ID.match(model)
    if m:
        model = m["id"]
    return model.replace("@", "-")


def answered_by(provider: str, model: str) -> str:
    """The provider to label an answer with: `demo` when the scripted demo model answered."""
    return DEMO_PROVIDER if model == DEMO_MODEL else provider


def price_for(model: str, provider: str = "anthropic") -> ModelPrice | None:
    """The price of `model` on `provider`, accepting dated ids (`claude-sonnet-4-5-20250929`,
    `gpt-4o-2024-08-06`) and Bedrock / Vertex ids; `None` if unknown."""
    if provider in ("bedrock", "vertex"):
        model = claude_model_id(model)
    return PRICES.get((provider, model)) or PRICES.get((provider, _DATE_SUFFIX.sub("", model)))


def cost_usd(model: str, usage: Usage, provider: str = "anthropic") -> float | None:
    """USD cost of `usage` on `model` served by `provider`, or `None` when it has no known price."""
    price = price_for(model, provider)
    if price is None:
        return None
    if price.long_context is not None and usage.total_input_tokens > price.long_context[0]:
        price = price.long_context[1]
    total = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    )
    return total / 1_000_000
