"""How `ToolSet.run` runs a tool it has found: the call's templates filled, its params validated,
its platform checked, its handler called the one way every handler is, `handler(ctx, params) ->
ToolResult`, on a `trailblaze.tools.lookup.ToolContext`, and the result finished (a target scrolled
into view, no visible change, secrets redacted). The status words are listed in
`trailblaze.tools.execute`.

It imports neither the tool set nor `execute`: the set passes itself in as the runner of the tool's
nested calls (a Python / YAML tool's `ctx.run`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from trailblaze.device.noop import NO_CHANGE
from trailblaze.errors import ActionRefused, DeviceUnsupported
from trailblaze.screen.patterns import PatternTooSlow
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.memory import TEMPLATE_RE
from trailblaze.tools.tooldef import ToolResult

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.tools.call import ToolCall
    from trailblaze.tools.memory import Memory
    from trailblaze.tools.tooldef import ToolDef

__all__ = ["run_handler", "run_with_keyboard_retry"]


def run_handler(
    tool: ToolDef,
    session: DeviceSession,
    call: ToolCall,
    memory: Memory,
    *,
    llm: Callable[[], LLMClient] | None = None,
    folder: Path | None = None,
    run_trail: Callable[[ToolCall], ToolResult] | None = None,
    run_other: Callable[[ToolCall], ToolResult],
) -> ToolResult:
    """What `ToolSet.run` does once it has found `tool`: fill the templates, validate the params,
    check the platform, call `tool.handler(ctx, params)` and finish its result. `run_other`: runs
    another recorded tool of the set (`ToolSet.run`), for the calls a Python / YAML tool makes."""
    assert tool.handler is not None
    kind = tool.kind
    typed = _typed(tool, call, memory)
    if isinstance(typed, ToolResult):
        return typed
    run = ToolContext(
        session, memory, llm=llm, secret_inputs=_uses_secret(call.params, memory), folder=folder,
        call=call, run_trail=run_trail, name=tool.name,
        nested=lambda c: run_with_keyboard_retry(session, lambda n, _auto: run_other(n), c),
    )  # fmt: skip
    handler = tool.handler
    try:
        result: ToolResult = _off_platform(tool, run) or handler(run, typed)
    except PatternTooSlow as exc:  # the trail's regex is the cause, not the app: this tool fails
        result = ToolResult("ERROR", exc.message)
        run.in_trail = True
    except DeviceUnsupported as exc:  # e.g. a farm refuses shell: the tool cannot run on this connection
        result = ToolResult("UNSUPPORTED", exc.message)
    except ActionRefused as exc:  # e.g. no on-screen keyboard: this tool fails, the device is fine
        result = ToolResult("ERROR", exc.message)
    status, message = result.status, result.message
    if run.scrolled:
        message = f"{message} {run.scrolled}"
    no_change = status == "OK" and (run.no_change or result.no_change)
    if no_change:
        message = f"{message} {NO_CHANGE}"
    in_trail = status != "OK" and (run.in_trail or result.in_trail)
    return replace(
        result, message=memory.redact(message), kind=kind, no_change=no_change, ai=run.ai or result.ai,
        in_trail=in_trail, asserted=in_trail and (run.asserted or result.asserted),
    )  # fmt: skip


_CUSTOM = ("python", "yaml")
_IGNORED = ("reason", "reasoning")
"""Keys a project tool's call may carry that are not its params (the model's reasons)."""


def _typed(tool: ToolDef, call: ToolCall, memory: Memory) -> BaseModel | ToolResult:
    """`call`'s params, templates filled, validated against `tool.params`: strictly for a built-in
    tool (once, when the trail was read: `ToolCall.validated_as`), as a project tool's own model says
    for a Python / YAML one; bad params are an ERROR result naming the first problem."""
    custom = tool.source in _CUSTOM
    if custom:
        params = {k: v for k, v in call.params.items() if k not in _IGNORED}
    else:
        params = call.params
    own = getattr(tool.params, "templates_at_run", False)  # e.g. mobile_maestro: per command, in its own scope
    if not own:
        params = memory.interpolate(params, where=f"{call.name} params")
    typed = None if custom else call.validated_as(params)  # validated when the trail was read
    if isinstance(typed, tool.params):
        return typed
    try:
        return tool.params.model_validate(params, strict=not custom)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or call.name
        return ToolResult("ERROR", memory.redact(f"bad params for {call.name}: {where}: {first['msg']}"), tool.kind)


def _off_platform(tool: ToolDef, run: ToolContext) -> ToolResult | None:
    """UNSUPPORTED for a tool that declares its reason, on a device it cannot work on: checked here,
    where every tool runs, not in each handler."""
    if tool.unsupported and run.platform not in tool.platforms:
        return ToolResult("UNSUPPORTED", tool.unsupported.format(platform=run.platform))
    return None


def _uses_secret(params: Any, memory: Memory) -> bool:
    """Whether any `{{template}}` in the params as written names a secret."""
    if isinstance(params, str):
        return any(memory.is_secret(m.group(2) or m.group(3)) for m in TEMPLATE_RE.finditer(params))
    if isinstance(params, dict):
        return any(_uses_secret(v, memory) for v in params.values())
    if isinstance(params, (list, tuple)):
        return any(_uses_secret(v, memory) for v in params)
    return False


_HIDE_KEYBOARD: dict[str, Any] = {"name": "hideKeyboard"}


def run_with_keyboard_retry(
    session: DeviceSession, run: Callable[[ToolCall, bool], ToolResult], call: ToolCall
) -> ToolResult:
    """`run(call, False)`, and when its target was not found or not visible while the keyboard is
    up, hide the keyboard (`run(hideKeyboard, True)`: automatic) and run it once more: another
    layout may put the target under the keyboard (Trailblaze hides it once too). Replay and the
    tools inside a custom tool both go through here."""
    from trailblaze.tools.call import ToolCall

    result = run(call, False)
    if result.status in ("NOT_FOUND", "NOT_VISIBLE") and session.screen().keyboard_shown:
        run(ToolCall(**_HIDE_KEYBOARD), True)
        result = run(call, False)
    return result
