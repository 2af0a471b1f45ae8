"""trailblaze web driver plugin (registered under the `trailblaze.drivers` entry-point group).

Playwright is imported only when a browser is opened, and the driver only when a name below is first
read, so `trailblaze_web.options` (the options `--help` lists) imports nothing else of the package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trailblaze_web.driver import WebDriver, WebPlugin

    driver_plugin: WebPlugin

__all__ = ["WebDriver", "WebPlugin", "driver_plugin"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from trailblaze_web import driver

    globals().update(WebDriver=driver.WebDriver, WebPlugin=driver.WebPlugin, driver_plugin=driver.WebPlugin())
    return globals()[name]
