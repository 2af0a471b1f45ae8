"""trailblaze: record-and-replay trails for mobile UI tests.

Importing this package has no side effects and imports no device or LLM SDK.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

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

try:
    __version__ = _version("trailblaze")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

__all__ = [
    "DeviceError",
    "InfrastructureError",
    "LLMError",
    "Problem",
    "StepFailed",
    "TrailFailed",
    "TrailFileError",
    "TrailblazeError",
    "UsageError",
    "__version__",
]
