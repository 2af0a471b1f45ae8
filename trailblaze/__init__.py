"""trailblaze: record-and-replay trails for mobile UI tests.

Importing this package has no side effects and imports no device or LLM SDK. The public names below
are loaded on first use (PEP 562), so `import trailblaze` and `trailblaze --help` stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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
    __version__: str
    from trailblaze.custom_tools import ToolContext, tool
    from trailblaze.selector import NodeSelector
    from trailblaze.toolset.registry import RECORDED_TOOL_PARAMS
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
    "RECORDED_TOOL_PARAMS": "trailblaze.toolset.registry",
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
    if name == "__version__":  # importlib.metadata alone costs about as much as the rest of the import
        globals()[name] = _installed_version()
        return globals()[name]
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


def _installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("trailblaze")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "0.0.0"
