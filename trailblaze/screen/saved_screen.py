"""A screen a run directory saved (`step-NN-after.xml` / `.json`), read back into a `Hierarchy`.

Phones save their driver's raw dump (uiautomator XML, WebDriverAgent JSON); the web driver saves its
DOM walk (`{"web": 1, …}`, `trailblaze.screen.web_hierarchy`). The report's "screen at failure" and
`trailblaze check` read either kind through here.
"""

from __future__ import annotations

from trailblaze.screen.hierarchy import Hierarchy, parse_hierarchy
from trailblaze.screen.web_hierarchy import parse_web_dump

__all__ = ["parse_saved_screen"]


def parse_saved_screen(data: bytes) -> Hierarchy:
    """The saved dump as a hierarchy.

    Raises:
        DeviceError: not a view hierarchy (or an empty one).
        ValueError: a web dump that is not valid JSON / UTF-8.
    """
    if data.lstrip().startswith(b'{"web":'):
        return parse_web_dump(data.decode("utf-8"))
    return parse_hierarchy(data)
