"""The simulated WebDriverAgent as a client finds it: WDA's routes (`ios.wda`) with Appium's XCUITest
driver in front of them (`appium.xcuitest.XcuitestSimServer`, a WDA server whose route table starts
from a copy of WDA's and adds the driver's).

Start the server from here rather than from `ios.wda`: that one answers a facebook-wda client alike,
but not an Appium session.
"""

from __future__ import annotations

from trailblaze_sim.appium.xcuitest import XcuitestSimServer as WdaSimServer

__all__ = ["WdaSimServer"]
