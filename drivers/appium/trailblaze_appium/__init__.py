"""trailblaze appium driver plugin (registered under the `trailblaze.drivers` entry-point group).

Appium-Python-Client is imported only when a session is opened, so importing this package is cheap.
"""

from __future__ import annotations

from trailblaze_appium.driver import AppiumDriver, AppiumPlugin
from trailblaze_appium.farms import FARMS, Farm

__all__ = ["FARMS", "AppiumDriver", "AppiumPlugin", "Farm", "driver_plugin"]

driver_plugin = AppiumPlugin()
