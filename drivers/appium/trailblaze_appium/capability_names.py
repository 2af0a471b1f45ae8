"""The `appium:` capabilities the UiAutomator2 and XCUITest drivers know, to catch a misspelled one.

A capabilities file's `appium:adbPrt` is sent as it is; the driver ignores it, and the session fails
much later for want of what it meant (a device not found after 20 s). The names the two drivers declare
are data (`known_capabilities.yaml`, with the versions they came from), and a key not among them gets a
warning with a did-you-mean before the session is asked for. Only `appium:` keys of those two drivers
are checked: W3C keys, vendor blocks (`bstack:options`, `sauce:options`, `lt:options`) and other
drivers (Espresso, Flutter) pass as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["unknown_capabilities"]

_DRIVERS = {"uiautomator2": "UiAutomator2", "xcuitest": "XCUITest"}


@functools.cache
def _known() -> dict[str, frozenset[str]]:
    import yaml

    data = yaml.safe_load((Path(__file__).with_name("known_capabilities.yaml")).read_text(encoding="utf-8"))
    shared = {*data["base"], *data["also"], "options"}  # `appium:options` groups the others
    return {driver: frozenset({*shared, *data[driver]}) for driver in _DRIVERS}


def unknown_capabilities(names: Mapping[str, str], automation: str | None, platform: str) -> Iterator[tuple[str, str]]:
    """(the key as written, why it is suspect) for each `appium:` key the set's driver does not know.

    `names` maps each key as written to the name it is sent as (`adbPort` → `appium:adbPort`);
    `automation` is the set's `appium:automationName` (None: the platform's default driver)."""
    import difflib  # for a did-you-mean only: not imported at start-up

    driver = automation.lower() if automation else ("uiautomator2" if platform == "android" else "xcuitest")
    if driver not in _DRIVERS:
        return
    known = _known()[driver]
    for written, name in names.items():
        bare = name.removeprefix("appium:")
        if bare == name or bare in known:
            continue
        why = f"{written!r} is not a capability the {_DRIVERS[driver]} driver knows, so the session would ignore it"
        near = difflib.get_close_matches(bare, sorted(known), n=1, cutoff=0.75)
        yield written, f"{why}; did you mean 'appium:{near[0]}'?" if near else f"{why}; check its spelling"
