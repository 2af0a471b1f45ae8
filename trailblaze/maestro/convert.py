"""A Maestro flow as trail text: one step per command, each recording `mobile_maestro` for android and ios.

`trailblaze replay FLOW.yaml` loads this text in memory; `trailblaze import maestro` writes it. Both
run the same recordings, so a flow and its imported trail replay identically. The flow's `env`
becomes the trail's `config.memory` (so `--memory NAME=value` overrides it, as Maestro's `-e` does),
its `tags` the trail's tags, `onFlowStart` / `onFlowComplete` a first and a last step.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from trailblaze.common import yaml_lines as _yaml
from trailblaze.maestro.commands import normalize, summary
from trailblaze.maestro.flow import Flow
from trailblaze.maestro.select import describe

__all__ = ["CLASSIFIERS", "TOOL", "flow_trail", "flow_trail_source", "flow_trail_text"]

TOOL = "mobile_maestro"
CLASSIFIERS = ("android", "ios")
"""A Maestro flow names no platform: its commands are recorded for both phone platforms (a web flow,
`url:`, for the browser)."""


def flow_trail(flow: Flow) -> dict[str, Any]:
    """The trail (as YAML-ready data) that runs `flow`."""
    config: dict[str, Any] = {
        "id": flow.name or Path(flow.path).stem,
        "title": flow.name or Path(flow.path).stem,
    }
    if flow.app_id:
        config["target"] = flow.app_id
    if flow.tags:
        config["tags"] = list(flow.tags)
    if flow.env:
        config["memory"] = dict(flow.env)
    if flow.web:
        why = "a Maestro web flow (url:) runs in a browser: use --device web"
        config["skip"] = {"android": why, "ios": why}
    else:
        config["skip"] = {"web": "a Maestro flow runs on android and ios"}
    classifiers = ("web",) if flow.web else CLASSIFIERS
    steps: list[dict[str, Any]] = []
    if flow.on_start:
        steps.append(_step("onFlowStart", flow.on_start, classifiers))
    for i, command in enumerate(flow.commands):
        steps.append(
            _agent_step(command)
            if i in flow.unconverted
            else _step(_text(flow.written[i]), [command], classifiers)
        )
    if flow.on_complete:
        steps.append(_step("onFlowComplete", flow.on_complete, classifiers))
    return {"config": config, "trail": steps}


def _step(text: str, commands: list[Any], classifiers: tuple[str, ...]) -> dict[str, Any]:
    recorded = [{TOOL: {"commands": commands}}]
    return {"step": text, "recording": {c: copy.deepcopy(recorded) for c in classifiers}}


_SELECTING = frozenset(
    {"tapOn", "doubleTapOn", "longPressOn", "assertVisible", "assertNotVisible", "copyTextFrom"}
)


def _text(command: Any) -> str:
    """A step's text: the command's `label`, else the command in a few words, selectors in full."""
    name, fields = normalize(command)
    if name in _SELECTING and not fields.get("label") and "point" not in fields and set(fields) - {"text"}:
        return f"{name} {describe(fields)}"
    return summary(command)


def _agent_step(command: Any) -> dict[str, Any]:
    """A command that cannot run here, as a natural-language step the agent solves when recording."""
    name, value = (
        next(iter(command.items()))
        if isinstance(command, dict) and len(command) == 1
        else (str(command), None)
    )
    if isinstance(value, dict):
        value = value.get("assertion") or value.get("text") or value.get("file") or None
    if name in ("assertWithAI", "assertNoDefectsWithAI", "assertTrue") and value is not None:
        return {"verify": str(value)}
    if name == "assertNoDefectsWithAI":
        return {
            "verify": "The screen shows no visual defects (cut-off text, overlapping or misaligned elements)"
        }
    return {"step": f"Maestro `{name}`" + (f": {value}" if isinstance(value, (str, int, float)) else "")}


def flow_trail_text(flow: Flow) -> str:
    """`flow_trail` as block YAML, headed by a comment naming the flow it came from."""
    return flow_trail_source(flow)[0]


def flow_trail_source(flow: Flow) -> tuple[str, list[int]]:
    """`flow_trail_text` and the line each of its steps starts on, so a problem found in the text
    can be told at the flow's own line (the text is no file the user has)."""
    # the name is escaped: a file name holding a newline must not end the comment and write YAML
    shown = json.dumps(Path(flow.path).name, ensure_ascii=True)
    data = flow_trail(flow)
    text = f"# Converted from the Maestro flow {shown} by `trailblaze import maestro`.\n"
    text += _yaml.dump_block({"config": data["config"]}) + "trail:\n"
    starts: list[int] = []
    for step in data["trail"]:
        starts.append(text.count("\n") + 1)
        text += _yaml.dump_block([step], 2)
    return text, starts
