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
    from trailblaze.custom_tools import ToolContext, tool
    from trailblaze.recorded_tools import RECORDED_TOOL_PARAMS
    from trailblaze.selector import NodeSelector
    from trailblaze.trail import (
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
    "RECORDED_TOOL_PARAMS": "trailblaze.recorded_tools",
    "NodeSelector": "trailblaze.selector",
    "ToolContext": "trailblaze.custom_tools",
    "tool": "trailblaze.custom_tools",
    **{
        name: "trailblaze.trail"
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
    "parse_tool",
    "save_trail",
    "tool",
]
