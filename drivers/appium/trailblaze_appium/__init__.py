"""trailblaze appium driver plugin (registered under the `trailblaze.drivers` entry-point group).

Appium-Python-Client is imported only when a session is opened, and the driver only when a name below
is first read, so `trailblaze_appium.spec` (the device spec and the options `--help` lists) imports
nothing else of the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trailblaze_appium.driver import AppiumDriver, AppiumPlugin
    from trailblaze_appium.farms import FARMS, Farm

    driver_plugin: AppiumPlugin

__all__ = ["FARMS", "AppiumDriver", "AppiumPlugin", "Farm", "driver_plugin"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from trailblaze_appium import driver, farms

    globals().update(
        AppiumDriver=driver.AppiumDriver, AppiumPlugin=driver.AppiumPlugin, FARMS=farms.FARMS, Farm=farms.Farm,
        driver_plugin=driver.AppiumPlugin(),
    )  # fmt: skip
    return globals()[name]
