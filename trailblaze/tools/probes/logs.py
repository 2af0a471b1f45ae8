"""The log probes, each one's params beside its handler: `readLogs` and `assertLogContains` over the session's app log
(`trailblaze.device.logs`; Android logcat by the app's pids). iOS and drivers without an app log
answer UNSUPPORTED with what would be needed."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from trailblaze.common.redact import scrub
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.probes.params import AppTool
from trailblaze.tools.tooldef import Kind, Offer, ToolDef, ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

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


def _read_logs(ctx: ToolContext, p: ReadLogs, app: str) -> ToolResult:
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


def _assert_log_contains(ctx: ToolContext, p: AssertLogContains, app: str) -> ToolResult:
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


def _regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{value!r} is not a regular expression: {exc}") from None
    return value


class ReadLogs(AppTool):
    """Read the app's device log (Android logcat, the app's own processes) since the run started, or
    since a step started; optionally only the lines matching a regular expression."""

    tool_name = "readLogs"
    sinceStep: int | None = Field(
        default=None, ge=1, description="Only lines since step N (1-based, as replay numbers them) started."
    )
    grep: str | None = Field(default=None, min_length=1, description="A regular expression lines must match.")

    _grep_is_a_regex = field_validator("grep")(_regex)


class AssertLogContains(AppTool):
    """Assert that the app's device log (Android logcat, since the run started) has a line matching
    `pattern` (a regular expression), waiting up to `timeoutMs` for it to be written."""

    tool_name = "assertLogContains"
    pattern: str = Field(
        min_length=1, description="A regular expression, e.g. `Signed in as .*@example.com`."
    )
    timeoutMs: int | None = Field(
        default=None,
        ge=0,
        le=600_000,
        description="How long to wait for the line (default: the element timeout, 5 s).",
    )

    _pattern_is_a_regex = field_validator("pattern")(_regex)


_read_logs_tool = _log_tool(ReadLogs, "other", _read_logs)
_assert_log_contains_tool = _log_tool(AssertLogContains, "assertion", _assert_log_contains)
