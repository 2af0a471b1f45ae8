"""The MCP tool surface of `trailblaze mcp`: name, JSON schema, a description written for a model,
and the `McpSession` method behind each tool.

Four groups (docs/adr/0030-mcp-server.md): devices, observation, actions and trails. The actions are
not defined here: they are the agent's device tools (`trailblaze.tools.toolset.ToolSet().for_model()`, minus
`objectiveStatus`), so a tool added there — e.g. an app-state probe that delegates to a recorded
tool — is offered over MCP and recorded into trails with no change in this package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from trailblaze.mcp.session import McpSession, Reply, answer
from trailblaze.tools.llm_tools import argument_problems, params_schema
from trailblaze.tools.toolset import ToolSet

__all__ = ["McpTool", "mcp_tools"]

Group = Literal["devices", "observation", "actions", "trails"]

_REF_NOTE = (
    " `ref` is a ref of the newest `snapshot` (or of the screen the previous call returned); a recorded "
    "call keeps a selector, never the ref."
)
"""Said only by the tools that take a ref; what every action shares (settling, the status word, the
new screen, recording into the open step) is said once, in the server's instructions."""
_SKIPPED = {"objectiveStatus"}  # the agent's end-of-step report: the MCP client ends steps itself


@dataclass(frozen=True)
class McpTool:
    """One tool as the MCP client lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    group: Group
    call: Callable[[McpSession, Mapping[str, Any]], Reply]
    read_only: bool = False


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _NoArgs(_Args):
    pass


class _UseDevice(_Args):
    device: str = Field(
        description="What `list_devices` shows: sim:android, sim:ios, android[:SERIAL] or ios[:WDA_URL]."
    )


class _Screenshot(_Args):
    setOfMark: bool = Field(default=True, description="Draw each element's ref on the image.")


class _TrailStart(_Args):
    path: str = Field(
        description="Where to save it, ending in .trail.yaml (relative to the server's folder)."
    )
    title: str = Field(
        min_length=1, description="What the trail checks, e.g. 'Sign in with a valid account'."
    )
    overwrite: bool = Field(default=False, description="Replace the file if it exists.")


class _StepText(_Args):
    text: str = Field(
        min_length=1, description="The step in plain words, e.g. 'Sign in as user@example.com'."
    )


class _TrailPath(_Args):
    path: str | None = Field(
        default=None, description="A .trail.yaml file; omit for the one saved in this session."
    )


def _own(
    name: str,
    group: Group,
    description: str,
    params: type[_Args],
    run: Callable[[McpSession, Any], Reply],
    *,
    read_only: bool = False,
) -> McpTool:
    def call(mcp_session: McpSession, raw: Mapping[str, Any]) -> Reply:
        try:
            args = params.model_validate(dict(raw))
        except ValidationError as exc:
            return answer("ERROR", f"invalid arguments for `{name}`: {argument_problems(exc)}")
        return run(mcp_session, args)

    return McpTool(name, description, params_schema(params), group, call, read_only)


def _action(name: str, description: str, schema: dict[str, Any], verification: bool) -> McpTool:
    def call(mcp_session: McpSession, raw: Mapping[str, Any]) -> Reply:
        return mcp_session.act(name, raw)

    note = _REF_NOTE if "ref" in schema.get("properties", {}) else ""
    return McpTool(name, description + note, schema, "actions", call, read_only=verification)


_DEVICE_TOOLS = (
    _own("list_devices", "devices",
         "List the devices this server can drive: connected Android devices (adb), an iOS WebDriverAgent, and "
         "the in-process simulators sim:android / sim:ios. Says which one is in use.",
         _NoArgs, lambda b, a: b.list_devices(), read_only=True),
    _own("use_device", "devices",
         "Switch to a device (closes the current one). Returns its info and its screen.",
         _UseDevice, lambda b, a: b.use_device(a.device)),
    _own("device_info", "devices",
         "Platform, classifier, serial, model and screen size of the device in use.",
         _NoArgs, lambda b, a: b.device_info(), read_only=True),
)  # fmt: skip

_OBSERVATION_TOOLS = (
    _own("snapshot", "observation",
         "The current screen as the compact view the trailblaze agent reads: one line per meaningful element, "
         "`[ref] Class \"label\" [state]`. Act on elements by these refs. Call it first, and again whenever "
         "you are unsure what the screen shows.",
         _NoArgs, lambda b, a: b.snapshot(), read_only=True),
    _own("screenshot", "observation",
         "A downscaled JPEG of the screen, by default with each element's ref drawn on it (set-of-mark), plus "
         "the compact view. Use it when the layout or an icon matters; prefer `snapshot` otherwise.",
         _Screenshot, lambda b, a: b.screenshot(marks=a.setOfMark), read_only=True),
)  # fmt: skip

_TRAIL_TOOLS = (
    _own("trail_start", "trails",
         "Start recording a trail (a replayable test). Then open steps with `trail_step` / `trail_verify`; every "
         "successful action is recorded into the open step as a selector. Nothing is written until `trail_save`.",
         _TrailStart, lambda b, a: b.trail_start(a.path, a.title, overwrite=a.overwrite)),
    _own("trail_step", "trails",
         "Open the next action step of the trail being recorded, described in plain words; the actions you "
         "take next are recorded into it.",
         _StepText, lambda b, a: b.trail_step(a.text, verify=False)),
    _own("trail_show", "trails",
         "The trail being recorded as the YAML `trail_save` would write: its steps and their recorded tools.",
         _NoArgs, lambda b, a: b.trail_show(), read_only=True),
    _own("trail_save", "trails",
         "Write the trail being recorded to its .trail.yaml file (atomically). Secrets stay `{{name}}`.",
         _NoArgs, lambda b, a: b.trail_save()),
    _own("trail_replay", "trails",
         "Replay a trail file on the device in use with no LLM, as CI would: the summary, and for a failing step "
         "its error and the closest elements on screen. Ends with the screen.",
         _TrailPath, lambda b, a: b.trail_replay(a.path)),
    _own("trail_validate", "trails",
         "Check a trail file without the device (as `trailblaze validate` does): problems as file:line:col.",
         _TrailPath, lambda b, a: b.trail_validate(a.path), read_only=True),
)  # fmt: skip


def mcp_tools(tools: ToolSet) -> list[McpTool]:
    """Every tool the server lists, devices first; the actions are what `tools` offers the model."""
    assertions = [n for n in tools.model_names(verify=True) if n not in _SKIPPED]
    actions = [
        _action(spec.name, spec.description, dict(spec.input_schema), spec.name in assertions)
        for spec in tools.specs()
        if spec.name not in _SKIPPED
    ]
    verify = _own("trail_verify", "trails",
                  "Open the next verify step (a check) of the trail being recorded; only these assertions are "
                  f"allowed in it, and they are recorded into it: {', '.join(assertions)}. Every text the step "
                  "quotes and every state it names (on, off, selected, disabled) must be asserted before the next "
                  "step opens or the trail is saved.",
                  _StepText, lambda b, a: b.trail_step(a.text, verify=True))  # fmt: skip
    trails = [*_TRAIL_TOOLS[:2], verify, *_TRAIL_TOOLS[2:]]
    return [*_DEVICE_TOOLS, *_OBSERVATION_TOOLS, *actions, *trails]
