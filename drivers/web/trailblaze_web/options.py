"""How the web driver's browser is started: `--browser`, `--browser-path`, `--headed`, `--viewport`,
`--emulate` (and their pytest options / ini keys), over the `TRAILBLAZE_*` environment defaults.

The driver declares them (`DECLARED`, the `trailblaze.driver_hooks` entry point); the core builds
the flags from that and carries the values to the plugin as its string options. What they mean in
Playwright (the Firefox build, a device preset's user agent and scale) is `launch`'s business, so
this module imports neither Playwright nor the driver: `--help` reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, cast

from trailblaze.device.driver_hooks import DriverHooks, DriverOption
from trailblaze.errors import UsageError

__all__ = ["BROWSERS", "DECLARED", "WebOptions", "parse_viewport"]

BROWSERS = ("chromium", "firefox")

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
            self.refuse(spec, where)

    @property
    def driver(self) -> str:
        return "web"

    def refuse(self, device: str, where: str = "--") -> None:
        """`UsageError` naming the first option set: `device` is not a web device."""
        raise UsageError(f"{self.names(where)[0]} applies to web devices only (--device web[:URL])")

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


def _given(
    values: Mapping[str, Any], devices: Sequence[str] | None, where: str
) -> tuple[tuple[str, ...] | None, WebOptions]:
    """The options as given; with a device that is not a browser, a usage error."""
    web = WebOptions.given(
        browser=values.get("browser"),
        browser_path=values.get("browser_path"),
        headed=bool(values.get("headed")),
        viewport=values.get("viewport"),
        emulate=values.get("emulate"),
        where=where,
    )
    for spec in devices or ():
        web.require_web(spec, where)
    return (tuple(devices) if devices is not None else None), web


_PYTEST = "web devices: "
DECLARED = DriverHooks(
    driver="web",
    rank=10,
    options=(
        DriverOption(
            "browser", kind="choice", choices=BROWSERS, pytest_metavar="BROWSER", env="TRAILBLAZE_BROWSER",
            help="Web: the browser (default chromium, the system one; firefox needs Playwright's Firefox "
            "build: python -m playwright install firefox). Default $TRAILBLAZE_BROWSER.",
            pytest_help=_PYTEST + "chromium (default, the system one) or firefox (Playwright's build)",
            ini_help=_PYTEST + "chromium (default, the system one) or firefox (Playwright's build)",
        ),
        DriverOption(
            "browser_path", metavar="PATH", pytest_metavar="PATH", env="TRAILBLAZE_BROWSER_PATH",
            help="Web: the browser binary (default: chromium on PATH; $TRAILBLAZE_BROWSER_PATH).",
            pytest_help=_PYTEST + "the browser binary (default: chromium on PATH)",
            ini_help=_PYTEST + "the browser binary (default: chromium on PATH)",
        ),
        DriverOption(
            "headed", kind="flag", env="TRAILBLAZE_WEB_HEADED",
            help="Web: show the browser window ($TRAILBLAZE_WEB_HEADED=1).",
            pytest_help=_PYTEST + "show the browser window", ini_help=_PYTEST + "show the browser window",
        ),
        DriverOption(
            "viewport", metavar="WxH", pytest_metavar="WxH", env="TRAILBLAZE_WEB_VIEWPORT",
            help="Web: the page's size in CSS pixels, e.g. 390x844 (default 1280x800; $TRAILBLAZE_WEB_VIEWPORT).",
            pytest_help=_PYTEST + "the page's size in CSS pixels, e.g. 390x844 (default 1280x800)",
            ini_help=_PYTEST + "the page's size in CSS pixels, e.g. 390x844 (default 1280x800)",
        ),
        DriverOption(
            "emulate", metavar="PRESET", pytest_metavar="PRESET", env="TRAILBLAZE_WEB_EMULATE",
            help="Web: a Playwright device preset such as 'iPhone 15' or 'Pixel 7' (viewport, user agent, "
            "pixel ratio, touch; --viewport wins). Default $TRAILBLAZE_WEB_EMULATE.",
            pytest_help=_PYTEST + "a Playwright device preset such as 'iPhone 15' (viewport, user agent, touch)",
            ini_help=_PYTEST + "a Playwright device preset such as 'iPhone 15' (viewport, user agent, touch)",
        ),
    ),
    given=_given,
    when_unfit="refuse",
)
"""The `web` entry of the `trailblaze.driver_hooks` group."""
