"""Writing trail files: fresh block-style rendering, and recording edits spliced into the file's own text.

A splice changes only the bytes of the one `recording:` entry it sets (see `trailblaze.common.yaml_lines`), so
comments, quoting and key order elsewhere survive; `Trail` checks that the edited text loads back as
the trail it meant to write before keeping it.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import Any, Literal

from yaml.nodes import MappingNode, SequenceNode

from trailblaze.common import yaml_lines as _yaml
from trailblaze.common.yaml_lines import Path as YPath
from trailblaze.errors import UsageError
from trailblaze.trail._parts import ANY_CLASSIFIER, StepKind, TrailConfig, Trailhead, TrailStep

__all__ = ["render", "splice_recording"]

_LONE_LF = re.compile(r"(?<!\r)\n")


def splice_recording(text: str, step_path: YPath, kind: StepKind, key: str, value: Any) -> str:
    """`text` with the recording under `key` of the item at `step_path` set to `value`.

    Raises:
        YamlSyntaxError: `text` does not parse.
    """
    edited = _splice_recording(_yaml.parse_document(text), step_path, kind, key, value)
    if "\r\n" in text and not _LONE_LF.search(text):
        edited = _LONE_LF.sub("\r\n", edited)  # keep a Windows file's line endings
    return edited


def render(
    fmt: Literal["unified", "v1"],
    config: TrailConfig | None,
    trailhead: Trailhead | None,
    steps: Sequence[TrailStep],
) -> str:
    """The trail written fresh in clean block style (the file's comments are not kept).

    Raises:
        UsageError: the trail cannot be written in `fmt` (a v1 `- tools:` step in a unified trail,
            several classifiers in a v1 one).
    """
    if fmt == "v1":
        return _render_v1(config, trailhead, steps)
    for step in steps:
        if step.static or (step.recording and ANY_CLASSIFIER in step.recording):
            raise UsageError(
                "a v1 `- tools:` step has no place in a unified trail; give it a `step:` text first"
            )
    parts = []
    if config is not None:
        parts.append(_yaml.dump_block({"config": _config_data(config)}))
    if trailhead is not None:
        parts.append(_yaml.dump_block({"trailhead": _trailhead_data(trailhead, v1=False)}))
    items = [_yaml.dump_block([_step_data(step, v1=False)], 2) for step in steps]
    parts.append("trail:\n" + "\n".join(items))
    return "\n".join(parts)


def _render_v1(config: TrailConfig | None, trailhead: Trailhead | None, steps: Sequence[TrailStep]) -> str:
    items: list[dict[str, Any]] = []
    if config is not None:
        items.append({"config": _config_data(config)})
    if trailhead is not None:
        items.append({"trailhead": _trailhead_data(trailhead, v1=True)})
    prompts: list[dict[str, Any]] | None = None
    for step in steps:
        if step.static:
            items.append({"tools": [t.to_data() for t in _v1_tools(step.recording or {})]})
            prompts = None
            continue
        if prompts is None:
            prompts = []
            items.append({"prompts": prompts})
        prompts.append(_step_data(step, v1=True))
    return _yaml.dump_block(items)



# --- rendering ------------------------------------------------------------------------------------


def _step_data(step: TrailStep, v1: bool) -> dict[str, Any]:
    data: dict[str, Any] = {step.kind: step.text}
    if step.recording is not None:
        if v1:
            data["recording"] = {"tools": [t.to_data() for t in _v1_tools(step.recording)]}
        else:
            data["recording"] = {c: [t.to_data() for t in tools] for c, tools in step.recording.items()}
    if not step.recordable:
        data["recordable"] = False
    if step.max_retries is not None:
        data["maxRetries"] = step.max_retries
    return data


def _v1_tools(recording: dict[str, Any]) -> Any:
    if ANY_CLASSIFIER in recording:
        return recording[ANY_CLASSIFIER]
    if len(recording) == 1:
        return next(iter(recording.values()))
    raise UsageError(
        "a v1 trail holds one recording per step, this step has several classifiers; "
        "set `trail.format = 'unified'` before saving"
    )


def _trailhead_data(trailhead: Trailhead, v1: bool) -> dict[str, Any]:
    data: dict[str, Any] = {"step": trailhead.text}
    if trailhead.recording is not None:
        if v1:
            data["recording"] = {"tools": [_v1_tools(trailhead.recording).to_data()]}
        else:
            data["recording"] = {c: t.to_data() for c, t in trailhead.recording.items()}
    return data


def _config_data(config: TrailConfig) -> dict[str, Any]:
    return {k: v for k, v in config.model_dump().items() if v is not None}


def _splice_recording(
    doc: _yaml.YamlDocument, step_path: YPath, kind: StepKind, key: str, value: Any
) -> str:
    if kind == "v1-tools":
        return _set_entry(doc, step_path, "tools", value)
    if kind == "v1-prompt":
        key = "tools"
    recording_path = (*step_path, "recording")
    recording = doc.node(recording_path)
    if isinstance(recording, MappingNode):
        return _set_entry(doc, recording_path, key, value)
    return _set_entry(doc, step_path, "recording", {key: value})


def _set_entry(doc: _yaml.YamlDocument, map_path: YPath, key: str, value: Any) -> str:
    """Set `key` in the mapping at `map_path`, touching no other bytes when it is in block style."""
    text = doc.text
    mapping = doc.node(map_path)
    if isinstance(mapping, MappingNode) and not mapping.flow_style and mapping.value:
        key_node = doc.key_node((*map_path, key))
        value_node = doc.node((*map_path, key))
        if key_node is not None and value_node is not None:
            return _yaml.replace_entry(text, key_node, value_node, key, value)
        return _yaml.insert_entry(text, mapping, key, value)
    # A flow collection cannot hold block text: rewrite its outermost flow ancestor in block style.
    top = map_path
    while top and _is_flow(doc.node(top[:-1])):
        top = top[:-1]
    merged = copy.deepcopy(_data_at(doc.data, top))
    inner = _data_at(merged, map_path[len(top) :]) if map_path[len(top) :] else merged
    if not isinstance(inner, dict):  # `recording:` written as null
        inner = {}
        if top == map_path:
            merged = inner
        else:
            _data_at(merged, map_path[len(top) : -1])[map_path[-1]] = inner
    inner[key] = value
    node = doc.node(top)
    parent_key = doc.key_node(top)
    assert node is not None
    if parent_key is not None:
        return _yaml.replace_entry(text, parent_key, node, str(top[-1]), merged)
    return _yaml.replace_node(text, node, merged)


def _is_flow(node: Any) -> bool:
    return isinstance(node, MappingNode | SequenceNode) and bool(node.flow_style)


def _data_at(data: Any, path: YPath) -> Any:
    for part in path:
        data = data[part]
    return data
