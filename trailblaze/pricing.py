"""What a Claude call costs: list prices in USD per million tokens, and the cost of one `Usage`.

Prices are Anthropic's published list prices for the Messages API (standard tier, 5-minute cache
writes) as of 2026-11. Cache writes cost 1.25x and cache reads 0.1x the base input price. A model
not in the table has no price: `cost_usd` returns `None` rather than guessing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trailblaze.llm import Usage

__all__ = ["PRICES", "ModelPrice", "cost_usd", "price_for"]


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


PRICES: dict[str, ModelPrice] = {
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
"""List prices by model id (aliases without a date suffix)."""

_DATE_SUFFIX = re.compile(r"-\d{8}$")


def price_for(model: str) -> ModelPrice | None:
    """The price of `model`, accepting dated ids (`claude-sonnet-4-5-20250929`); `None` if unknown."""
    return PRICES.get(model) or PRICES.get(_DATE_SUFFIX.sub("", model))


def cost_usd(model: str, usage: Usage) -> float | None:
    """USD cost of `usage` on `model`, or `None` when the model has no known price."""
    price = price_for(model)
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
