"""trailblaze ios driver plugin (registered under the `trailblaze.drivers` entry-point group)."""

from __future__ import annotations

__all__ = ["driver_plugin"]

driver_plugin = None  # replaced by the driver factory in the drivers issue
