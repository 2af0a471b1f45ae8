"""trailblaze: record-and-replay trails for mobile UI tests.

Importing this package has no side effects and imports no device or LLM SDK. The public names below
are loaded on first use (PEP 562), so `import trailblaze` and `trailblaze --help` stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from trailblaze.__about__ import __version__
from trailblaze.errors import (
    DeviceError,
    InfrastructureError,
    LLMError,
    Problem,
    StepFailed,
    TrailblazeError,
    TrailFailed,
    TrailFileError,
    UsageError,
)

if TYPE_CHECKING:
    from trailblaze.device.devices import open_device
    from trailblaze.engine.options import RecordOptions
    from trailblaze.engine.record import record_trail
    from trailblaze.engine.replay import ReplayOptions, replay_trail
    from trailblaze.screen.selector import NodeSelector
    from trailblaze.tools.custom import tool
    from trailblaze.tools.lookup import ToolContext
    from trailblaze.tools.registry import RECORDED_TOOL_PARAMS
    from trailblaze.trail.model import (
        ANY_CLASSIFIER,
        ToolCall,
        Trail,
        TrailConfig,
        Trailhead,
        TrailStep,
        classifier_lineage,
        closest_classifier,
        find_trail_files,
        load_trail,
        loads_trail,
        parse_tool,
        save_trail,
    )

_LAZY = {
    "RECORDED_TOOL_PARAMS": "trailblaze.tools.builtin",
    "NodeSelector": "trailblaze.screen.selector",
    "ToolContext": "trailblaze.tools.lookup",
    "tool": "trailblaze.tools.custom",
    # the run API: open a device, replay or record a trail on it
    "open_device": "trailblaze.device.devices",
    "ReplayOptions": "trailblaze.engine.replay",
    "replay_trail": "trailblaze.engine.replay",
    "RecordOptions": "trailblaze.engine.options",
    "record_trail": "trailblaze.engine.record",
    **{
        name: "trailblaze.trail.model"
        for name in (
            "ANY_CLASSIFIER",
            "ToolCall",
            "Trail",
            "TrailConfig",
            "TrailStep",
            "Trailhead",
            "classifier_lineage",
            "closest_classifier",
            "find_trail_files",
            "load_trail",
            "loads_trail",
            "parse_tool",
            "save_trail",
        )
    },
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'trailblaze' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "ANY_CLASSIFIER",
    "DeviceError",
    "InfrastructureError",
    "LLMError",
    "NodeSelector",
    "Problem",
    "RECORDED_TOOL_PARAMS",
    "RecordOptions",
    "ReplayOptions",
    "StepFailed",
    "ToolCall",
    "ToolContext",
    "Trail",
    "TrailConfig",
    "TrailFailed",
    "TrailFileError",
    "TrailStep",
    "TrailblazeError",
    "Trailhead",
    "UsageError",
    "__version__",
    "classifier_lineage",
    "closest_classifier",
    "find_trail_files",
    "load_trail",
    "loads_trail",
    "open_device",
    "parse_tool",
    "record_trail",
    "replay_trail",
    "save_trail",
    "tool",
]
