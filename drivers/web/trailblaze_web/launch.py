"""Which browser the web driver starts, and how: the plugin options (`--browser`, `--browser-path`,
`--headed`, `--viewport`, `--emulate`, or their `TRAILBLAZE_*` environment defaults) turned into a
Playwright launch and a page.

Chromium is the system one (Debian's `chromium`, through `executable_path`). Firefox cannot be the
system one: Playwright drives only its own patched Firefox build (Playwright's browser docs: it
"doesn't work with the branded version of Firefox since it relies on patches"), which
`python -m playwright install firefox` downloads; without it the run stops with a `DeviceError`
saying so.
"""

from __future__ import annotations

import difflib
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from trailblaze.errors import DeviceError, UsageError
from trailblaze_web.options import BROWSERS, parse_viewport

__all__ = ["BROWSER_ARGS", "Launch", "find_browser", "plan_launch"]

BROWSER_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    # Without these Chromium's background connections stall page loads on a closed network.
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)  # fmt: skip
_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
_DEFAULT_VIEWPORT = {"width": 1280, "height": 800}
_INSTALL_FIREFOX = "python -m playwright install firefox"


@dataclass
class Launch:
    """What to start: Playwright's browser type, its launch keywords and the page's context keywords."""

    browser: str
    """`chromium` or `firefox`."""
    launch: dict[str, Any] = field(default_factory=dict)
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def executable(self) -> str:
        return str(self.launch.get("executable_path", self.browser))


def find_browser(options: Mapping[str, str]) -> str:
    """The Chromium binary to drive: `browser_path` (`--browser-path`, `TRAILBLAZE_BROWSER_PATH`),
    else the first of chromium / google-chrome on PATH; a `DeviceError` saying how to install one."""
    given = options.get("browser_path")
    if given:
        found = _executable(given)
        if found:
            return found
        raise DeviceError(
            f"no browser at {given} (--browser-path / TRAILBLAZE_BROWSER_PATH): point it at a Chromium binary"
        )
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    raise DeviceError(
        "no Chromium found for the web driver: install Debian's `chromium` package "
        "(apt-get install chromium) or give --browser-path (TRAILBLAZE_BROWSER_PATH) a Chromium binary"
    )


def _executable(path: str) -> str | None:
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return shutil.which(path)


def _firefox(playwright: Any, options: Mapping[str, str]) -> str:
    """Playwright's own Firefox build: `browser_path` when given, else where Playwright installs it."""
    given = options.get("browser_path")
    path = given or str(playwright.firefox.executable_path)
    found = _executable(path)
    if found:
        return found
    where = f"no browser at {given} (--browser-path)" if given else f"not installed (looked for {path})"
    raise DeviceError(
        f"Playwright's Firefox is {where}: install it with `{_INSTALL_FIREFOX}`; stock Firefox "
        "(Debian's firefox-esr) cannot be driven by Playwright, which needs its own patched build"
    )


def _emulation(playwright: Any, name: str, browser: str) -> dict[str, Any]:
    """The context keywords of Playwright's device descriptor `name` (viewport, user agent, scale,
    mobile, touch); `UsageError` listing the close names when there is no such preset."""
    devices: Mapping[str, Mapping[str, Any]] = playwright.devices
    if name not in devices:
        by_lower = {d.lower(): d for d in devices}
        if name.lower() in by_lower:
            name = by_lower[name.lower()]
        else:
            close = difflib.get_close_matches(name.lower(), list(by_lower), n=5, cutoff=0.5)
            hint = (
                f"did you mean {', '.join(repr(by_lower[c]) for c in close)}?"
                if close
                else (
                    "see Playwright's device list, e.g. 'iPhone 15', 'Pixel 7', 'iPad Mini', 'Desktop Chrome'"
                )
            )
            raise UsageError(f"unknown device preset {name!r} (--emulate): {hint}")
    context = {k: v for k, v in devices[name].items() if k != "default_browser_type"}
    if browser == "firefox":
        context.pop("is_mobile", None)  # Playwright's Firefox has no mobile mode; the rest applies
    return context


def plan_launch(playwright: Any, options: Mapping[str, str]) -> Launch:
    """The launch the options ask for; `UsageError` for a bad value, `DeviceError` when the browser
    is not there."""
    browser = options.get("browser") or "chromium"
    if browser not in BROWSERS:
        raise UsageError(
            f"unknown browser {browser!r} (--browser / TRAILBLAZE_BROWSER): use chromium or firefox"
        )
    headed = options.get("headed", "").lower() in ("1", "true", "yes")
    context: dict[str, Any] = {"viewport": dict(_DEFAULT_VIEWPORT)}
    if options.get("emulate"):
        context = _emulation(playwright, options["emulate"], browser)
    if options.get("viewport"):  # an explicit viewport wins over a preset's
        width, height = parse_viewport(options["viewport"], "--viewport / TRAILBLAZE_WEB_VIEWPORT")
        context["viewport"] = {"width": width, "height": height}
    if browser == "firefox":
        return Launch(
            "firefox", {"executable_path": _firefox(playwright, options), "headless": not headed}, context
        )
    args = [a for a in BROWSER_ARGS if not (headed and a == "--headless")]
    return Launch(
        "chromium", {"executable_path": find_browser(options), "args": args, "headless": not headed}, context
    )
