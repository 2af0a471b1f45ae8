"""trailblaze web driver plugin (registered under the `trailblaze.drivers` entry-point group).

Playwright is imported only when a browser is opened, so importing this package is cheap.
"""

from __future__ import annotations

from trailblaze_web.driver import WebDriver, WebPlugin

__all__ = ["WebDriver", "WebPlugin", "driver_plugin"]

driver_plugin = WebPlugin()
