"""Trailblaze's catalog tools that read or wait on the screen: each one's params (Trailblaze's names, fields and defaults) and its handler.

Semantics come from block/trailblaze's tool classes (`trailblaze-common/.../toolcalls/commands/`);
docs/trailblaze-catalog.md lists each one and where it differs here. A handler imports what it runs on
when it runs: reading a trail imports this module for the params of the tools it names (start-up).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from pydantic import Field

from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.catalog import catalog_tool
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

__all__: list[str] = []


class TakeSnapshot(RecordedToolParams):
    """Capture the screen under `screenName` (kept in the run's report)."""

    tool_name = "takeSnapshot"
    screenName: str = Field(min_length=1)
    description: str | None = None


@catalog_tool(TakeSnapshot, "other")
def _take_snapshot(run: ToolContext, p: TakeSnapshot) -> ToolResult:
    shot = run.session.screenshot()
    note = f" - {p.description}" if p.description else ""
    return ToolResult("OK", f"snapshot '{p.screenName}'{note} captured ({len(shot)} bytes)")


class WaitForChange(RecordedToolParams):
    """Wait until the screen changes and then stays quiet for `quietWindowMs`; without a change
    within `timeoutMs` it fails only when `requireChange`."""

    tool_name = "waitForChange"
    timeoutMs: int = Field(default=8000, ge=0, le=600_000)
    quietWindowMs: int = Field(default=300, ge=0, le=60_000)
    requireChange: bool = True


@catalog_tool(WaitForChange, "other")
def _wait_for_change(run: ToolContext, p: WaitForChange) -> ToolResult:
    from trailblaze.device.settle import backoff, same_screen

    before = run.session.screen()
    deadline = time.monotonic() + p.timeoutMs / 1000
    changed_at: float | None = None
    current = before
    pauses = backoff(0.025, 0.2)
    while time.monotonic() < deadline:
        run.session.invalidate()
        latest = run.session.screen()
        now = time.monotonic()
        if not same_screen(latest, current):
            changed_at, current = now, latest
        elif changed_at is not None and now - changed_at >= p.quietWindowMs / 1000:
            return ToolResult("OK", "the screen changed and settled")
        time.sleep(min(next(pauses), max(0.0, deadline - time.monotonic())))
    if changed_at is not None:
        return ToolResult("OK", "the screen changed (still changing at the timeout)")
    if p.requireChange:
        return ToolResult("TIMEOUT", f"the screen did not change within {p.timeoutMs} ms")
    return ToolResult("OK", f"no change within {p.timeoutMs} ms")


class RequestDetailedViewHierarchy(RecordedToolParams):
    """The full view hierarchy, offscreen elements included, as the tool's result."""

    tool_name = "requestDetailedViewHierarchy"


@catalog_tool(RequestDetailedViewHierarchy, "other")
def _detailed_hierarchy(run: ToolContext, p: RequestDetailedViewHierarchy) -> ToolResult:
    from trailblaze.screen.compact import compact_view

    view = compact_view(run.session.settle())
    return ToolResult("OK", view.text)


class FindMatches(RecordedToolParams):
    """The elements `selector` matches (polling up to `timeoutMs` for at least one); never fails for
    none: a query for scripted flows, not an assertion."""

    tool_name = "findMatches"
    selector: NodeSelector
    timeoutMs: int | None = Field(default=None, le=600_000)


@catalog_tool(FindMatches, "other")
def _find_matches(run: ToolContext, p: FindMatches) -> ToolResult:
    timeout = 0.0 if p.timeoutMs is None else max(0, p.timeoutMs) / 1000
    nodes = run.session.resolve(p.selector, timeout=timeout, until=bool).nodes
    found = [
        {
            "text": n.text or n.label or n.hint,
            "resourceId": n.resource_id,
            "className": n.class_name,
            "bounds": [round(v) for v in n.bounds],
        }
        for n in nodes
    ]
    return ToolResult("OK", f"findMatches: {len(nodes)} match{'es' * (len(nodes) != 1)} {json.dumps(found)}")


class WaitUntilNotVisible(RecordedToolParams):
    """Wait up to `timeoutMs` for `nodeSelector` to match nothing; answers `true` / `false`."""

    tool_name = "waitUntilNotVisible"
    nodeSelector: NodeSelector
    timeoutMs: int | None = Field(default=None, ge=0, le=600_000)


@catalog_tool(WaitUntilNotVisible, "other")
def _wait_until_not_visible(run: ToolContext, p: WaitUntilNotVisible) -> ToolResult:
    timeout = None if p.timeoutMs is None else p.timeoutMs / 1000
    res = run.session.resolve(p.nodeSelector, timeout=timeout, until=lambda nodes: not nodes)
    return ToolResult("OK", "true" if not res.nodes else "false")


class AssertWaypoint(RecordedToolParams):
    """Assert the screen is a Trailblaze waypoint (waypoint files are not supported here)."""

    tool_name = "assertWaypoint"
    waypoint: str
    timeoutMs: int = Field(default=5000, ge=0)
    pollIntervalMs: int = Field(default=250, ge=0)


@catalog_tool(AssertWaypoint, "assertion", platforms=frozenset())
def _waypoint(run: ToolContext, p: AssertWaypoint) -> ToolResult:
    return ToolResult("UNSUPPORTED", "assertWaypoint needs Trailblaze waypoint files, which trailblaze does not read")
