"""Defaults that differ in CI (`CI=true`): a passing run there pays for nothing it does not need.

GitHub Actions, GitLab CI and most other CI services set `CI=true` in the job's environment (a
service that does not can set it, or pass `--screenshots failures`). In CI nobody looks at
the pictures of a passing step, and on iOS each one is a serial WebDriverAgent round trip, so
`trailblaze replay` keeps only a failing step's screenshot there; a retried trail keeps every step's
(`trailblaze.output.rundir`), which is what a flake is diagnosed from. Locally every step's is kept.
ADR 0048 (docs/adr/0048-ci-defaults-and-release.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trailblaze.output.artifacts import ScreenshotMode

__all__ = ["CI_SCREENSHOTS_NOTE", "default_screenshots", "in_ci"]

_TRUE = frozenset({"true", "1", "yes", "on"})

CI_SCREENSHOTS_NOTE = (
    "note: CI=true: screenshots of failing steps only (a retried trail keeps every step's); "
    "--screenshots steps keeps them all"
)
"""What `trailblaze replay` prints when it applies the CI default."""


def in_ci(environ: Mapping[str, str]) -> bool:
    """Whether `environ` is a CI job's: `CI` set to true (any case), 1, yes or on."""
    return environ.get("CI", "").strip().lower() in _TRUE


def default_screenshots(environ: Mapping[str, str]) -> ScreenshotMode:
    """The replay's `--screenshots` when none is given: `failures` in CI, `steps` elsewhere."""
    return "failures" if in_ci(environ) else "steps"
