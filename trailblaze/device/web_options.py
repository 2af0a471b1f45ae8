"""How the web driver's browser is started: `--browser`, `--browser-path`, `--headed`, `--viewport`,
`--emulate` (and their pytest options / ini keys), over the `TRAILBLAZE_*` environment defaults.

The core only carries these settings to the `web` driver plugin as its string options; what they
mean in Playwright (the Firefox build, a device preset's user agent and scale) is `trailblaze_web`'s
business, so nothing here imports Playwright.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal, cast

from trailblaze.errors import UsageError

__all__ = ["BROWSERS", "ENV", "WebOptions", "parse_viewport"]

BROWSERS = ("chromium", "firefox")
ENV = {
    "TRAILBLAZE_BROWSER": "browser",
    "TRAILBLAZE_BROWSER_PATH": "browser_path",
    "TRAILBLAZE_WEB_HEADED": "headed",
    "TRAILBLAZE_WEB_VIEWPORT": "viewport",
    "TRAILBLAZE_WEB_EMULATE": "emulate",
}
"""Environment defaults of the options (a command-line option wins): field name per variable."""

_MAX = 10000


def _flag(field: str, where: str = "--") -> str:
    """The option that sets `field` (`browser_path` → `--browser-path`)."""
    return where + field.replace("_", "-")


def parse_viewport(text: str, where: str = "--viewport") -> tuple[int, int]:
    """`WIDTHxHEIGHT` (`1280x800`, `390X844`) as two positive ints; `UsageError` naming `where`."""
    width, sep, height = text.strip().lower().partition("x")
    if not (
        sep and width.isdigit() and height.isdigit() and 0 < int(width) <= _MAX and 0 < int(height) <= _MAX
    ):
        raise UsageError(f"bad viewport {text!r} ({where}): use WIDTHxHEIGHT in CSS pixels, e.g. 1280x800")
    return int(width), int(height)


@dataclass(frozen=True)
class WebOptions:
    """The browser settings of a run; None (False for `headed`) means not given."""

    browser: Literal["chromium", "firefox"] | None = None
    browser_path: str | None = None
    headed: bool = False
    viewport: str | None = None
    """Normalized `WIDTHxHEIGHT`."""
    emulate: str | None = None
    """A Playwright device descriptor name (`iPhone 15`), checked by the driver."""

    @classmethod
    def given(
        cls,
        *,
        browser: str | None = None,
        browser_path: str | None = None,
        headed: bool = False,
        viewport: str | None = None,
        emulate: str | None = None,
        where: str = "--",
    ) -> WebOptions:
        """Options as a user gave them; `UsageError` on a bad value. `where` prefixes the option
        names in messages (`--` on the command line, `--trailblaze-` for pytest)."""
        if browser is not None and browser not in BROWSERS:
            raise UsageError(f"{where}browser {browser!r}: use one of {', '.join(BROWSERS)}")
        if viewport is not None:
            viewport = "x".join(map(str, parse_viewport(viewport, f"{where}viewport")))
        if emulate is not None and not emulate.strip():
            raise UsageError(f"{where}emulate needs a device name, e.g. 'iPhone 15'")
        return cls(
            browser=cast("Literal['chromium', 'firefox'] | None", browser),
            browser_path=browser_path or None,
            headed=headed,
            viewport=viewport,
            emulate=emulate.strip() if emulate else None,
        )

    def names(self, where: str = "--") -> list[str]:
        """The options that are set, as flags (`--viewport`)."""
        return [_flag(f.name, where) for f in fields(self) if getattr(self, f.name) not in (None, False)]

    def require_web(self, device: str | None, where: str = "--") -> None:
        """`UsageError` when an option is set and `device` is not a web device."""
        given = self.names(where)
        spec = (device or "").strip()
        if given and spec != "web" and not spec.startswith("web:"):
            raise UsageError(f"{given[0]} applies to web devices only (--device web[:URL])")

    def plugin_options(self) -> dict[str, str]:
        """The web plugin's options for what is set (they override the environment's defaults)."""
        out = {f.name: str(v) for f in fields(self) if f.name != "headed" and (v := getattr(self, f.name))}
        if self.headed:
            out["headed"] = "1"
        return out

    def args(self) -> list[str]:
        """The command-line options that give these (for the command line a run directory records)."""
        out: list[str] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value is True:
                out.append(_flag(f.name))
            elif value:
                out += [_flag(f.name), str(value)]
        return out
