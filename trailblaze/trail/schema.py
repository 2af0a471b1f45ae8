"""JSON Schema of the trail file, assembled from the pydantic models (`trailblaze schema`).

YAML editors (e.g. the YAML language server: `# yaml-language-server: $schema=trail.schema.json`)
use it for completion and inline errors. The params of every known tool come from
`trailblaze.tools.recorded`, the config from `TrailConfig`, selectors from `NodeSelector`; custom
tools are allowed with any params. What a schema cannot express (duplicate keys, the exact
messages) is left to `trailblaze validate`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from itertools import combinations
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from trailblaze.screen.selector import (
    AndroidAccessibilitySelector,
    AndroidMaestroSelector,
    IosMaestroSelector,
)
from trailblaze.tools.params import takes_text_only
from trailblaze.tools.recorded.compat import LegacyElementSelector
from trailblaze.tools.registry import RECORDED_TOOL_PARAMS
from trailblaze.trail.model import TrailConfig

if TYPE_CHECKING:
    from trailblaze.tools.tooldef import ToolDef

__all__ = ["SCHEMA_ID", "trail_json_schema"]

SCHEMA_ID = "https://trailblaze.dev/schemas/trail.schema.json"
_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_CLASSIFIER = {"type": "string", "pattern": r"^[a-z0-9]+(?:-[a-z0-9]+)*$", "not": {"const": "tools"}}
_BRANCHES = ("androidAccessibility", "androidMaestro", "iosMaestro")


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _model_schema(model: type[BaseModel], defs: dict[str, Any]) -> dict[str, Any]:
    """The model's schema with its nested definitions hoisted into `defs`."""
    schema = copy.deepcopy(model.model_json_schema(ref_template="#/$defs/{model}", mode="validation"))
    defs.update(schema.pop("$defs", {}))
    return schema


def _tool_schemas(defs: dict[str, Any], custom: Iterable[ToolDef] = ()) -> list[dict[str, Any]]:
    variants: list[dict[str, Any]] = []
    needs_params: list[str] = []
    models: dict[str, type[BaseModel]] = dict(RECORDED_TOOL_PARAMS)
    docs = {name: model.__doc__ or name for name, model in models.items()}
    for tool in custom:  # the project's own tools: their declared params, `reason` tolerated
        models[tool.name] = tool.params
        docs[tool.name] = tool.description
    for name, model in sorted(models.items()):
        defs[model.__name__] = _model_schema(model, defs)
        _numbers_as_text(defs, model)
        if name not in RECORDED_TOOL_PARAMS:
            for note in ("reason", "reasoning"):
                defs[model.__name__].setdefault("properties", {})[note] = {"type": "string"}
        params: dict[str, Any] = _ref(model.__name__)
        if not defs[model.__name__].get("required"):
            params = {"anyOf": [params, {"type": "null"}]}
        else:
            needs_params.append(name)
        variants.append(
            {
                "type": "object",
                "properties": {name: params},
                "required": [name],
                "additionalProperties": False,
                "description": (docs[name].strip().splitlines() or [name])[0],
            }
        )
    variants.append(
        {
            "type": "object",
            "description": "A custom tool: `toolName: {params}`; its params are passed through unchanged.",
            "minProperties": 1,
            "maxProperties": 1,
            "propertyNames": {"not": {"enum": sorted(models)}},
            "additionalProperties": {"type": ["object", "null"]},
        }
    )
    variants.append(
        {
            "type": "string",
            "minLength": 1,
            "description": "A tool without params, e.g. `- pressBack`.",
            "not": {"enum": needs_params},
        }
    )
    return variants


def _numbers_as_text(defs: dict[str, Any], model: type[BaseModel]) -> None:
    """A number is accepted where the model reads text (`text: 480` is read as "480")."""
    props = defs.get(model.__name__, {}).get("properties", {})
    for field, info in model.model_fields.items():
        if field in props and takes_text_only(info.annotation):
            props[field] = {"anyOf": [props[field], {"type": "number"}]}


def _tighten_selector(defs: dict[str, Any]) -> None:
    """Add what the selector's validator checks: at most one driver branch, never empty."""
    selector = defs.get("NodeSelector")
    if selector is None:
        return
    selector["minProperties"] = 1
    selector["not"] = {"anyOf": [{"required": list(pair)} for pair in combinations(_BRANCHES, 2)]}


def trail_json_schema(custom: Iterable[ToolDef] = ()) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a `.trail.yaml` file, unified or v1.

    Args:
        custom: The project's own tools (docs/adr/0020-custom-tools.md): their params are checked
            too; any other unknown tool is still allowed with any params.
    """
    defs: dict[str, Any] = {}
    defs["Tool"] = {"anyOf": _tool_schemas(defs, custom)}
    launch = defs["LaunchApp"]["properties"]["launchMode"]
    launch["enum"] = [*launch["enum"], "REINSTALL"]  # read as CLEAR_STATE
    _tighten_selector(defs)
    for branch in (AndroidAccessibilitySelector, AndroidMaestroSelector, IosMaestroSelector, LegacyElementSelector):
        _numbers_as_text(defs, branch)
    config = _model_schema(TrailConfig, defs)
    defs["TrailConfig"] = config
    text = {"type": "string", "minLength": 1}
    defs["Recording"] = {
        "description": "Device classifier → recorded tools; `[]` is a deliberate no-op.",
        "type": ["object", "null"],
        "propertyNames": _CLASSIFIER,
        "additionalProperties": {"type": "array", "items": _ref("Tool")},
    }
    defs["Step"] = {
        "type": "object",
        "properties": {
            "step": {**text, "description": "What to do, in plain words."},
            "verify": {**text, "description": "What must be true, in plain words."},
            "recording": _ref("Recording"),
            "recordable": {"type": "boolean", "description": "false: always solved by the agent."},
            "maxRetries": {"type": "integer", "minimum": 0},
        },
        "oneOf": [{"required": ["step"]}, {"required": ["verify"]}],
        "additionalProperties": False,
    }
    defs["Trailhead"] = {
        "type": "object",
        "properties": {
            "step": text,
            "recording": {
                "type": ["object", "null"],
                "propertyNames": _CLASSIFIER,
                "additionalProperties": _ref("Tool"),
            },
        },
        "required": ["step"],
        "additionalProperties": False,
    }
    v1_tools: dict[str, Any] = {
        "type": "object",
        "properties": {"tools": {"type": "array", "items": _ref("Tool")}},
        "required": ["tools"],
        "additionalProperties": False,
    }
    v1_prompt = copy.deepcopy(defs["Step"])
    v1_prompt["properties"]["recording"] = {"anyOf": [v1_tools, {"type": "null"}]}
    v1_trailhead = copy.deepcopy(defs["Trailhead"])
    v1_trailhead["properties"]["recording"] = {"anyOf": [v1_tools, {"type": "null"}]}
    nullable_config = {"anyOf": [_ref("TrailConfig"), {"type": "null"}]}
    unified = {
        "type": "object",
        "properties": {
            "config": nullable_config,
            "trailhead": _ref("Trailhead"),
            "trail": {"type": "array", "minItems": 1, "items": _ref("Step")},
        },
        "required": ["trail"],
        "additionalProperties": False,
    }

    def single(key: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {key: schema},
            "required": [key],
            "additionalProperties": False,
        }

    v1 = {
        "type": "array",
        "minItems": 1,
        "items": {
            "anyOf": [
                single("config", nullable_config),
                single("trailhead", v1_trailhead),
                single("prompts", {"type": "array", "minItems": 1, "items": v1_prompt}),
                single("tools", {"type": "array", "items": _ref("Tool")}),
            ]
        },
    }
    return {
        "$schema": _DIALECT,
        "$id": SCHEMA_ID,
        "title": "trailblaze trail file",
        "description": "A natural-language UI test with per-device recordings (Trailblaze unified format, or v1).",
        "anyOf": [unified, v1],
        "$defs": defs,
    }
