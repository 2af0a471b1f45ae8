"""The pytest plugin's Appium options: `--trailblaze-capabilities FILE` (repeatable; ini
`trailblaze_capabilities`), `--trailblaze-appium-session` (ini `trailblaze_appium_session`) and
`--trailblaze-appium-connect-timeout` (ini `trailblaze_appium_connect_timeout`).

Capabilities join the pool's `appium:` devices: one file serves every `appium:` device, or one file
per `appium:` device, paired in order. A file that holds several capability sets (a farm matrix)
becomes several devices of the pool, `appium:SERVER#FILE[1]`, `[2]`, …, which `-n N` spreads over
the workers or `--trailblaze-each-device` runs every trail on.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from trailblaze.device.driver_hooks import DriverHooks, GivenOptions

__all__ = ["appium_pool", "appium_session", "set_connect_timeout", "shareable"]


def _hooks() -> DriverHooks | None:
    from trailblaze.device.driver_hooks import declared_for

    return declared_for("appium")


def appium_session(config: pytest.Config) -> GivenOptions | None:
    """The session mode given (the driver's options; None: no Appium driver installed)."""
    from trailblaze.pytest._drivers import given_value

    hooks = _hooks()
    if hooks is None:
        return None
    value = given_value(config, "appium_session")
    modes = next(o.choices for o in hooks.options if o.name == "appium_session")
    if value is not None and value not in modes:
        raise pytest.UsageError(f"trailblaze_appium_session = {value!r}: use per-trail or shared")
    return hooks.given({"appium_session": value}, None, "--trailblaze-")[1]


def set_connect_timeout(config: pytest.Config) -> None:
    """The option or ini key, checked, into the environment the Appium driver reads it from (this
    process's, which the workers it starts inherit)."""
    import math

    hooks = _hooks()
    given = config.getoption("trailblaze_appium_connect_timeout", default=None)
    raw = str(given or config.getini("trailblaze_appium_connect_timeout")).strip()
    if not raw or hooks is None:
        return
    name = "--trailblaze-appium-connect-timeout" if given else "trailblaze_appium_connect_timeout"
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not seconds > 0 or math.isinf(seconds):
        raise pytest.UsageError(f"{name} = {raw!r}: use a number of seconds above 0, e.g. 120")
    hooks.given({"appium_connect_timeout": seconds}, None, "--trailblaze-")


def appium_pool(config: pytest.Config, devices: Sequence[str]) -> list[str]:
    """`devices` with each `appium:` device's capabilities joined, and list files expanded."""
    from trailblaze.errors import TrailblazeError

    hooks = _hooks()

    files = _files(config)
    bare = [d for d in devices if d.startswith("appium:") and "#" not in d]
    if files and not any(d.startswith("appium:") for d in devices):
        raise pytest.UsageError(
            "--trailblaze-capabilities is for Appium devices: add --device appium:URL (or appium:browserstack, "
            "appium:saucelabs, appium:lambdatest)"
        )
    if len(files) > 1 and len(files) != len(bare):
        raise pytest.UsageError(
            f"{len(files)} capabilities files for {len(bare)} --device appium:... without one: give one file "
            "for all of them, or one per such --device, in the same order"
        )
    pairs = iter(files)
    out: list[str] = []
    for spec in devices:
        if spec in bare and files:
            spec = f"{spec}#{files[0] if len(files) == 1 else next(pairs)}"
        if hooks is None or hooks.expand is None:
            out.append(spec)
            continue
        try:
            out += hooks.expand(spec)
        except TrailblazeError as exc:
            raise pytest.UsageError(f"--trailblaze-capabilities: {exc.message}") from None
    return out


def shareable(spec: str) -> bool:
    """An Appium device on a farm preset: the farm hands each worker's session its own device."""
    if not spec.startswith("appium:"):
        return False
    server = spec[len("appium:") :].partition("#")[0]
    return "://" not in server


def _files(config: pytest.Config) -> list[str]:
    given = config.getoption("trailblaze_capabilities", default=None)
    if given:
        return [str(g) for g in given]
    base = Path(str(config.inipath)).parent if config.inipath is not None else config.rootpath
    return [str((base / str(p)).resolve()) if not Path(str(p)).is_absolute() else str(p)
            for p in config.getini("trailblaze_capabilities")]  # fmt: skip
