"""The tools that act on the one element a `nodeSelector` finds: their params and handlers (see the
package's docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field

from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

__all__ = ["AssertVisibleBySelector", "RememberTextBySelector", "TapOnElementBySelector"]


class TapOnElementBySelector(RecordedToolParams):
    """Tap the one element matching `nodeSelector` (polls until it appears)."""

    tool_name = "tapOnElementBySelector"
    nodeSelector: NodeSelector
    longPress: bool = False


class AssertVisibleBySelector(RecordedToolParams):
    """Assert the element matching `nodeSelector` is visible (optionally with `expectedText`)."""

    tool_name = "assertVisibleBySelector"
    nodeSelector: NodeSelector
    expectedText: str | None = None
    """The text the element shows (trimmed, case-sensitive; its text, label or iOS value)."""
    timeoutMs: int | None = Field(default=None, ge=0)
    textMatchMode: Literal["EXACT", "PREFIX", "REGEX"] | None = None
    """How `expectedText` compares: EXACT (default), PREFIX, or REGEX (full match) — a recording
    widens a text only this way, deliberately (docs/adr/0038-assertions-pin-facts.md)."""


class RememberTextBySelector(RecordedToolParams):
    """Store the text of the element matching `nodeSelector` in memory as `variable`."""

    tool_name = "rememberTextBySelector"
    nodeSelector: NodeSelector
    variable: str = Field(min_length=1)


@defines(TapOnElementBySelector, "action", source="core")
def _tap_on_element(run: ToolContext, p: TapOnElementBySelector) -> ToolResult:
    from trailblaze.tools.lookup import tap_selector

    return tap_selector(run, p.nodeSelector, p.longPress)


@defines(AssertVisibleBySelector, "assertion", source="core")
def _assert_visible_by_selector(run: ToolContext, p: AssertVisibleBySelector) -> ToolResult:
    from trailblaze.tools.lookup import assert_visible

    return assert_visible(run, p.nodeSelector, p.expectedText, p.timeoutMs, p.textMatchMode)


@defines(RememberTextBySelector, "other", source="core")
def _remember_text(run: ToolContext, p: RememberTextBySelector) -> ToolResult:
    from trailblaze.tools.lookup import find_one

    node, outcome = find_one(run, p.nodeSelector)
    if node is None:
        return outcome
    value = node.text or node.label or node.value
    run.memory.remember(p.variable, value)
    return ToolResult("OK", f"remembered {p.variable} = {value!r}")
