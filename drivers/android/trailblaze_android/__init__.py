"""trailblaze android driver plugin (registered under the `trailblaze.drivers` entry-point group).

uiautomator2 is imported only when a device is opened, so importing this package is cheap.
"""

from __future__ import annotations

from trailblaze_android.driver import AndroidDriver, AndroidPlugin

__all__ = ["AndroidDriver", "AndroidPlugin", "driver_plugin"]

driver_plugin = AndroidPlugin()
