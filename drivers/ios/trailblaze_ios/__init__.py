"""trailblaze ios driver plugin (registered under the `trailblaze.drivers` entry-point group).

facebook-wda is imported only when a device is opened, so importing this package is cheap.
"""

from __future__ import annotations

from trailblaze_ios.driver import IosDriver, IosPlugin

__all__ = ["IosDriver", "IosPlugin", "driver_plugin"]

driver_plugin = IosPlugin()
