"""The simulated WebDriverAgent as a client finds it: WDA's routes (`ios.wda`) with Appium's XCUITest
driver in front of them (`appium.xcuitest`, which adds its routes to WDA's table when imported).

Start the server from here rather than from `ios.wda`: there it would answer a facebook-wda client
alike, but an Appium session only once something had imported the driver's routes.
"""

from __future__ import annotations

from trailblaze_sim.appium import xcuitest as _xcuitest  # noqa: F401  (registers the driver's routes)
from trailblaze_sim.ios.wda import WdaSimServer

__all__ = ["WdaSimServer"]
