"""The pytest plugin's browser options for web devices (`--trailblaze-browser`, `-browser-path`,
`-headed`, `-viewport`, `-emulate` and their ini keys, declared by the web driver): the command line
wins over the ini file, which wins over the `TRAILBLAZE_*` environment defaults."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from trailblaze.device.driver_hooks import GivenOptions

__all__ = ["web_settings"]


def web_settings(config: pytest.Config, devices: Sequence[str]) -> GivenOptions | None:
    """The options given (None when none is, or no web driver is installed); a `pytest.UsageError`
    for a bad value, or when the pool has no web device for them."""
    from trailblaze.device.driver_hooks import declared_for
    from trailblaze.errors import UsageError
    from trailblaze.pytest._drivers import given_value

    hooks = declared_for("web")
    if hooks is None:
        return None
    values: dict[str, Any] = {}
    for o in hooks.options:
        if o.kind == "flag":
            given = config.getoption(f"trailblaze_{o.name}", default=None)
            values[o.name] = bool(config.getini(f"trailblaze_{o.name}") if given is None else given)
        else:
            values[o.name] = given_value(config, o.name)
    try:
        _, web = hooks.given(values, None, "--trailblaze-")
        if not web.names():
            return None
        if not any(_is_web(d) for d in devices):
            web.refuse("", "--trailblaze-")
    except UsageError as exc:
        raise pytest.UsageError(exc.message) from None
    return web


def _is_web(spec: str) -> bool:
    spec = str(spec).strip()
    return spec == "web" or spec.startswith("web:")
