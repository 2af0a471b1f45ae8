"""Running one recorded-form tool on a device session (replay, `trailblaze tool`, the agent's delegate).

A run looks a tool up by name in its `trailblaze.tools.toolset.ToolSet`, and every recorded tool —
built in, or the project's Python / YAML tool — runs through `ToolSet.run`, which calls its handler
in `trailblaze.tools.runner` the one way, `handler(ctx, params) -> ToolResult`, on a
`trailblaze.tools.lookup.ToolContext`. `run_recorded_tool` is `ToolSet.run` on the built-in tools (the
model's tools, which only write built-in ones). Element tools
poll-resolve their selector until exactly one node matches (`DeviceSession.resolve`), act at the
centre of that node's visible part, and settle (every action goes through `DeviceSession.act`).
Results start with a status word the model and the report can act on:

- `OK` — done; a tap, long-press, swipe or key press that left the screen as it was says so
  (`OK tapped … (no visible change)`, `ToolResult.no_change`, see `trailblaze.device.noop`), and a
  target scrolled into view says how (`… after scrolling messages 1 swipe into view`,
  `trailblaze.tools.scroll_into_view`);
- `NOT_FOUND` — nothing matched before the timeout (names the selector and the 3 closest candidates);
- `AMBIGUOUS` — several nodes matched and the selector has no `index` (lists them);
- `NOT_VISIBLE` — an assertion's element did not show (or showed other text), or a tap's target is
  covered by a dialog or the keyboard (docs/adr/0014-occlusion.md);
- `TIMEOUT` — something that should go away did not;
- `ERROR` — the tool itself cannot run (unknown tool, bad params), or the app's state refuses it
  (typing with nothing focused: `ActionRefused` from the driver);
- `UNSUPPORTED` — a Trailblaze tool this platform or this library cannot run (says why);
- `NOT_INSTALLED` — `launchApp` named an app the device does not have (lists near-matching ids).

Trail-level failures are results, never exceptions. A broken device raises `DeviceError`; an unknown
`{{variable}}` raises `UsageError` (the trail or the command line is wrong, not the app).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.tools.lookup import closest_nodes, covered_message
from trailblaze.tools.registry import TOOL_KINDS
from trailblaze.tools.runner import run_with_keyboard_retry
from trailblaze.tools.tooldef import Kind, Status, ToolResult

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.tools.call import ToolCall
    from trailblaze.tools.memory import Memory

__all__ = [
    "TOOL_KINDS",
    "Kind",
    "Status",
    "ToolResult",
    "closest_nodes",
    "covered_message",
    "run_recorded_tool",
    "run_with_keyboard_retry",
]


def run_recorded_tool(
    session: DeviceSession,
    call: ToolCall,
    memory: Memory,
    *,
    llm: Callable[[], LLMClient] | None = None,
    folder: Path | None = None,
) -> ToolResult:
    """Runs one built-in recorded-form tool against `session`: `ToolSet.run` on the built-in tools
    (`trailblaze.tools.toolset.builtin_tools`), for a caller with no project tools (the model's
    tools, which only write built-in ones; mutation testing; benchmarks). See `ToolSet.run`."""
    from trailblaze.tools.toolset import builtin_tools

    return builtin_tools().run(session, call, memory, llm=llm, folder=folder)
