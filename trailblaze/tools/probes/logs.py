"""The log probes: `readLogs` and `assertLogContains` over the session's app log
(`trailblaze.device.logs`; Android logcat by the app's pids). iOS and drivers without an app log
answer UNSUPPORTED with what would be needed."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from trailblaze.common.redact import scrub
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.probes import params as pp
from trailblaze.tools.tooldef import Kind, Offer, ToolDef, ToolResult, defines

__all__: list[str] = []

_SHOWN = 50
_IOS = (
    "WebDriverAgent has no access to app logs; reading an iOS app's log needs the host "
    "(`xcrun simctl spawn booted log stream --process <app>` on a Simulator, `idevicesyslog` on a phone)"
)


def _needs_log(run: Callable[[ToolContext, Any, str], ToolResult]) -> Callable[[ToolContext, Any], ToolResult]:
    def handler(ctx: ToolContext, p: RecordedToolParams) -> ToolResult:
        if ctx.platform == "ios":
            return ToolResult("UNSUPPORTED", f"{p.tool_name}: {_IOS}")
        logs = ctx.session.app_logs
        if not logs.supported:
            return ToolResult("UNSUPPORTED", f"{p.tool_name}: this {ctx.platform} driver cannot read the device log")
        app = getattr(p, "appId", None) or logs.app()
        if app is None:
            return ToolResult("ERROR", "no app is in the foreground or was launched; launch it first or pass appId")
        return run(ctx, p, app)

    return handler


def _log_tool(
    params: type[RecordedToolParams], kind: Kind, run: Callable[[ToolContext, Any, str], ToolResult]
) -> ToolDef:
    offered: frozenset[Offer] = frozenset(("model", "verify"))
    return defines(
        params,
        kind,
        source="probe",
        offered_to=offered,
        platforms=frozenset(("android",)),
        block_status="extension",
    )(_needs_log(run))


def _lines(lines: list[str]) -> str:
    shown = lines[-_SHOWN:]
    more = f" (last {_SHOWN} of {len(lines)})" if len(lines) > _SHOWN else ""
    return scrub(f"{more}:\n" + "\n".join(shown))


def _read_logs(ctx: ToolContext, p: pp.ReadLogs, app: str) -> ToolResult:
    since = None if p.sinceStep is None else p.sinceStep - 1
    lines = ctx.session.app_logs.read(app, since).lines
    if p.grep is not None:
        wanted = re.compile(p.grep)
        lines = [line for line in lines if wanted.search(line)]
    what = f"{app} log lines" + (f" matching /{p.grep}/" if p.grep else "")
    where = f"since step {p.sinceStep}" if p.sinceStep else "since the run started"
    if not lines:
        return ToolResult("OK", scrub(f"no {what} {where}"))
    return ToolResult("OK", f"{len(lines)} {what} {where}" + _lines(lines))


def _assert_log_contains(ctx: ToolContext, p: pp.AssertLogContains, app: str) -> ToolResult:
    session = ctx.session
    wanted = re.compile(p.pattern)
    timeout = session.resolve_timeout if p.timeoutMs is None else p.timeoutMs / 1000
    deadline = time.monotonic() + timeout
    while True:
        lines = session.app_logs.read(app).lines
        found = next((line for line in lines if wanted.search(line)), None)
        if found is not None:
            return ToolResult("OK", scrub(f"{app} logged: {found}"))
        if time.monotonic() >= deadline:
            break
        time.sleep(session.poll_interval)
    tail = _lines(lines[-5:]) if lines else f": {app} wrote no log lines since the run started"
    return ToolResult("NOT_FOUND", scrub(f"no line of {app}'s log matches /{p.pattern}/ after {timeout:g} s") + tail)


_read_logs_tool = _log_tool(pp.ReadLogs, "other", _read_logs)
_assert_log_contains_tool = _log_tool(pp.AssertLogContains, "assertion", _assert_log_contains)
