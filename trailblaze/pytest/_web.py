"""The pytest plugin's browser options for web devices: `--trailblaze-browser`, `-browser-path`,
`-headed`, `-viewport`, `-emulate` and their ini keys (`trailblaze_browser`, …); the command line wins
over the ini file, which wins over the `TRAILBLAZE_*` environment defaults."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from trailblaze.device.web_options import WebOptions

__all__ = ["add_web_options", "web_settings"]

_VALUES = (
    ("browser", "BROWSER", "web devices: chromium (default, the system one) or firefox (Playwright's build)"),
    ("browser_path", "PATH", "web devices: the browser binary (default: chromium on PATH)"),
    ("viewport", "WxH", "web devices: the page's size in CSS pixels, e.g. 390x844 (default 1280x800)"),
    ("emulate", "PRESET", "web devices: a Playwright device preset such as 'iPhone 15' (viewport, user agent, touch)"),
)  # fmt: skip


def add_web_options(group: Any, parser: pytest.Parser) -> None:
    for name, metavar, text in _VALUES:
        group.addoption(f"--trailblaze-{name.replace('_', '-')}", dest=f"trailblaze_{name}", metavar=metavar,
                        help=f"{text}; ini trailblaze_{name}")  # fmt: skip
        parser.addini(f"trailblaze_{name}", text, default="")
    group.addoption("--trailblaze-headed", dest="trailblaze_headed", action="store_true", default=None,
                    help="web devices: show the browser window; ini trailblaze_headed")  # fmt: skip
    parser.addini("trailblaze_headed", "web devices: show the browser window", type="bool", default=False)


def web_settings(config: pytest.Config, devices: Sequence[str]) -> WebOptions | None:
    """The options given (None when none is); a `pytest.UsageError` for a bad value, or when the
    pool has no web device for them."""
    from trailblaze.device.web_options import WebOptions
    from trailblaze.errors import UsageError

    values: dict[str, Any] = {}
    for name, _, _ in _VALUES:
        given = (
            config.getoption(f"trailblaze_{name}", default=None)
            or str(config.getini(f"trailblaze_{name}")).strip()
        )
        values[name] = given or None
    headed = config.getoption("trailblaze_headed", default=None)
    values["headed"] = bool(config.getini("trailblaze_headed") if headed is None else headed)
    try:
        web = WebOptions.given(**values, where="--trailblaze-")
        if not web.names():
            return None
        if not any(_is_web(d) for d in devices):
            web.require_web(None, where="--trailblaze-")
    except UsageError as exc:
        raise pytest.UsageError(exc.message) from None
    return web


def _is_web(spec: str) -> bool:
    spec = str(spec).strip()
    return spec == "web" or spec.startswith("web:")
