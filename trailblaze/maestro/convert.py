"""A Maestro flow as trail text: one step per command, each recording `mobile_maestro` for android and ios.

`trailblaze replay FLOW.yaml` loads this text in memory; `trailblaze import maestro` writes it. Both
run the same recordings, so a flow and its imported trail replay identically. The flow's `env`
becomes the trail's `config.memory` (so `--memory NAME=value` overrides it, as Maestro's `-e` does),
its `tags` the trail's tags, `onFlowStart` / `onFlowComplete` a first and a last step.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from trailblaze import _yaml
from trailblaze.maestro.commands import summary
from trailblaze.maestro.flow import Flow

__all__ = ["CLASSIFIERS", "TOOL", "flow_trail", "flow_trail_text"]

TOOL = "mobile_maestro"
CLASSIFIERS = ("android", "ios")
"""A Maestro flow names no platform: its commands are recorded for both phone platforms."""


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
    config["skip"] = {"web": "a Maestro flow runs on android and ios"}
    steps: list[dict[str, Any]] = []
    if flow.on_start:
        steps.append(_step("onFlowStart", flow.on_start))
    steps += [_step(summary(c), [c]) for c in flow.commands]
    if flow.on_complete:
        steps.append(_step("onFlowComplete", flow.on_complete))
    return {"config": config, "trail": steps}


def _step(text: str, commands: list[Any]) -> dict[str, Any]:
    recorded = [{TOOL: {"commands": commands}}]
    return {"step": text, "recording": {c: copy.deepcopy(recorded) for c in CLASSIFIERS}}


def flow_trail_text(flow: Flow) -> str:
    """`flow_trail` as block YAML, headed by a comment naming the flow it came from."""
    head = f"# Converted from the Maestro flow {Path(flow.path).name} by `trailblaze import maestro`.\n"
    return head + _yaml.dump_block(flow_trail(flow))
