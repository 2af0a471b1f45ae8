"""Small presentation helpers shared by the HTML and JUnit reports: escaping and number formats."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trailblaze.output.runlog import UsageTotals

__all__ = ["esc", "format_cost", "format_count", "format_duration", "format_usage_cost", "step_label"]


def esc(value: object) -> str:
    """HTML-escapes any value, quotes included (safe in text and in attribute values), with every
    registered secret redacted first: the report is redacted value by value, so a secret equal to
    a word of the page's markup (`class`, `div`) cannot break it."""
    from trailblaze.common.redact import scrub

    return html.escape(scrub(str(value)), quote=True)


def format_duration(ms: float) -> str:
    """A duration for people: `812 ms`, `3.4 s`, `2 min 05 s`, `1 h 02 min`."""
    if ms < 0:
        ms = 0.0
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole // 60 % 60:02d} min"


def format_count(n: int) -> str:
    """An integer with thousands separators: `12,345`."""
    return f"{n:,}"


def format_cost(usd: float | None) -> str:
    """A dollar cost: `$0`, `$0.0042`, `$1.23`; an em dash when unknown (model without a price)."""
    if usd is None:
        return "—"
    if usd == 0:
        return "$0"
    if usd < 0.01:
        return f"${usd:.4f}"
    return f"${usd:.2f}"


def format_usage_cost(usage: UsageTotals) -> str:
    """The cost of a run, trail or step: `$0.0042`, `unknown` (no model with a price) or `$0.01 + unknown`."""
    from trailblaze.output.runlog import usage_cost_text

    return usage_cost_text(usage, format_cost)


def step_label(index: int) -> str:
    """How a step is named to people: `trailhead` for index -1, else its 1-based number."""
    return "trailhead" if index < 0 else f"step {index + 1}"
