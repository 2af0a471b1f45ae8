"""The one context every tool runs on (`ToolContext`): a built-in tool's handler, a project's Python
tool and the tools the model calls all receive it (docs/adr/0074-one-way-to-call-a-tool.md).

It holds what the run gives a tool (the device session, the run's memory, the run's tool set, the
LLM, the trail's folder, the screen the model saw) and what the tool did that its result reports (no
visible change, an LLM call, a failure in the trail's own code, a target scrolled into view). Its
element lookups are `trailblaze.tools.lookup`'s, imported when a tool first looks. It is the public
`trailblaze.ToolContext` a project's `@trailblaze.tool` function receives first (`trailblaze.tools.custom`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.tools.tooldef import StatusMessage

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.screen.compact import CompactView
    from trailblaze.screen.hierarchy import Hierarchy, Node
    from trailblaze.screen.selector import NodeSelector
    from trailblaze.tools.call import ToolCall
    from trailblaze.tools.execute import ToolResult
    from trailblaze.tools.memory import Memory
    from trailblaze.tools.toolset import ToolSet

__all__ = ["NestedFailed", "ToolContext", "run_nested"]


def run_nested(session: DeviceSession, call: ToolCall, memory: Memory, tools: ToolSet) -> ToolResult:
    """One tool inside another (a Python or YAML tool); like replay, a target hidden by the keyboard
    is tried again once after hiding it."""
    from trailblaze.tools.execute import run_with_keyboard_retry  # the device layer: when a tool runs

    return run_with_keyboard_retry(session, lambda c, _auto: tools.run(session, c, memory), call)


class NestedFailed(Exception):
    """A tool run by `ToolContext.run` failed: the tool that ran it fails with its status."""

    def __init__(self, call: ToolCall, result: ToolResult) -> None:
        super().__init__(str(result))
        self.call, self.result = call, result


@dataclass
class ToolContext:
    """What every tool receives first: the device, the run's memory and the other tools; and what
    the tool did that its result reports."""

    session: DeviceSession
    memory: Memory
    _: KW_ONLY
    tools: ToolSet | None = None
    """The run's tool set: `run` runs another tool through it (None: the built-in tools)."""
    name: str = ""
    """The name of the tool being run (a Python tool's)."""
    llm: Callable[[], LLMClient] | None = None
    """Builds the run's LLM client, for the tools that ask one on every run; None without one."""
    folder: Path | None = None
    """The trail's folder: where relative paths are read from (None: the working directory)."""
    secret_inputs: bool = False
    """A param of this tool was filled from a secret: what it reads back may be derived from it
    (`SELECT hex('{{password}}')`), so probes show no values (the secret's spellings alone are redacted)."""
    call: ToolCall | None = None
    """The call being run, as recorded (its `{{templates}}` unfilled)."""
    run_trail: Callable[[ToolCall], ToolResult] | None = None
    """Runs a `runTrail` call's trail as a step of the calling one: the step engine provides it
    (`trailblaze.engine.steps`); None: the tool runs outside a trail."""
    seen: tuple[CompactView, Hierarchy] | None = None
    """A model tool's: the compact view sent in the request (its refs are the ones the model may
    use) and the capture it was built from."""
    no_change: bool = False
    """The gesture / key press of this tool left the screen as it was."""
    ai: bool = False
    """Set by a tool that asked the LLM (replay reports it as an AI step)."""
    in_trail: bool = False
    """The tool failed on the trail's own code (a Maestro script that threw, a pattern too slow)."""
    asserted: bool = False
    """With `in_trail`: an assertion over the trail's own values was false (Maestro's `assertTrue`):
    its message says it all, with no hint to fix the trail."""
    scrolled: str = ""
    """How the tool's lookup scrolled its target into view (`after scrolling messages 1 swipe into
    view`); the result's message ends with it."""

    @property
    def platform(self) -> str:
        """`android`, `ios` or `web`."""
        return self.session.info.platform

    @property
    def view(self) -> CompactView:
        """The compact view the model saw (a model tool's context only)."""
        if self.seen is None:
            raise RuntimeError(f"tool {self.name or '?'}: no screen seen by the model here")
        return self.seen[0]

    @property
    def hierarchy(self) -> Hierarchy:
        """The capture the model's view was built from (a model tool's context only)."""
        if self.seen is None:
            raise RuntimeError(f"tool {self.name or '?'}: no screen seen by the model here")
        return self.seen[1]

    # --- running other tools, remembering values (a Python tool's) ---

    def run(self, name: str, params: Mapping[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        """Run another tool in its recorded form, e.g. `ctx.run("inputText", text=email)`.

        Returns the tool's OK result; a failed tool fails this tool with that tool's status and
        message (no need to check). `{{templates}}` in the params are filled from memory.
        """
        from trailblaze.tools.call import ToolCall
        from trailblaze.tools.toolset import builtin_tools

        call = ToolCall(name=name, params={**(params or {}), **kwargs})
        result = run_nested(self.session, call, self.memory, self.tools or builtin_tools())
        if not result.ok:
            raise NestedFailed(call, result)
        return result

    def remember(self, name: str, value: str) -> None:
        """Store a value for later `{{name}}` templates."""
        self.memory.remember(name, value)

    # --- acting on the device and finding elements (the built-in tools') ---

    def act(self, action: Callable[[Driver], Any], point: tuple[float, float] | None = None) -> None:
        """Runs a gesture or key press (settling after it) and notes whether it changed the screen."""
        from trailblaze.device.noop import act_and_compare

        self.no_change = act_and_compare(self.session, action, point=point)

    def find_one(self, selector: NodeSelector) -> tuple[Node | None, StatusMessage]:
        from trailblaze.tools.lookup import find_one

        return find_one(self, selector)

    def tap_node(self, node: Node, long_press: bool) -> StatusMessage:
        from trailblaze.tools.lookup import tap_at

        return tap_at(self, node, long_press)

    def assert_visible(self, selector: NodeSelector, expected: str | None, timeout_ms: int | None) -> StatusMessage:
        from trailblaze.tools.lookup import assert_visible

        return assert_visible(self, selector, expected, timeout_ms)

    def maestro_text(self, text: str, *, ident: str | None = None, index: int | None = None) -> NodeSelector:
        """Maestro's text lookup (text, label or hint; regex or literal; any case)."""
        from trailblaze.tools.lookup import maestro_text, text_selector

        pattern = maestro_text(text, contains=False)[0]
        return text_selector(self, pattern, ident=ident, index=index)

    def describe(self, node: Node) -> str:
        from trailblaze.tools.lookup import describe

        return describe(node)
