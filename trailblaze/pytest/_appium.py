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
from typing import Any

import pytest

__all__ = ["add_appium_options", "appium_pool", "appium_session", "set_connect_timeout", "shareable"]

_MODES = ("per-trail", "shared")


def add_appium_options(group: Any, parser: pytest.Parser) -> None:
    group.addoption(
        "--trailblaze-capabilities",
        action="append",
        dest="trailblaze_capabilities",
        metavar="FILE",
        help="Appium devices: the W3C capabilities (YAML or JSON); one for every --device appium:..., or one "
        "per such --device in order; a file holding a list is one device per entry; ini trailblaze_capabilities",
    )
    group.addoption(
        "--trailblaze-appium-session",
        dest="trailblaze_appium_session",
        choices=_MODES,
        help="Appium devices: a new session per trail (default on a device farm) or one shared by the "
        "worker's trails (default on an Appium URL); ini trailblaze_appium_session",
    )
    group.addoption(
        "--trailblaze-appium-connect-timeout",
        dest="trailblaze_appium_connect_timeout",
        metavar="SECONDS",
        help="Appium devices: how long a new session may take before the run fails (default 120); "
        "ini trailblaze_appium_connect_timeout",
    )
    parser.addini("trailblaze_capabilities", "Appium capabilities files (relative to the ini file)", type="linelist")
    parser.addini("trailblaze_appium_session", "per-trail | shared (Appium devices)", default="")
    parser.addini(
        "trailblaze_appium_connect_timeout", "seconds a new Appium session may take (default 120)", default=""
    )


def appium_session(config: pytest.Config) -> str | None:
    given = config.getoption("trailblaze_appium_session", default=None)
    value = given or str(config.getini("trailblaze_appium_session")).strip() or None
    if value is not None and value not in _MODES:
        raise pytest.UsageError(f"trailblaze_appium_session = {value!r}: use per-trail or shared")
    return value


def set_connect_timeout(config: pytest.Config) -> None:
    """The option or ini key, checked, into the environment the Appium driver reads it from (this
    process's, which the workers it starts inherit)."""
    import math
    import os

    from trailblaze.device.capabilities import CONNECT_TIMEOUT_ENV

    given = config.getoption("trailblaze_appium_connect_timeout", default=None)
    raw = str(given or config.getini("trailblaze_appium_connect_timeout")).strip()
    if not raw:
        return
    name = "--trailblaze-appium-connect-timeout" if given else "trailblaze_appium_connect_timeout"
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not seconds > 0 or math.isinf(seconds):
        raise pytest.UsageError(f"{name} = {raw!r}: use a number of seconds above 0, e.g. 120")
    os.environ[CONNECT_TIMEOUT_ENV] = f"{seconds:g}"


def appium_pool(config: pytest.Config, devices: Sequence[str]) -> list[str]:
    """`devices` with each `appium:` device's capabilities joined, and list files expanded."""
    from trailblaze.device.capabilities import load_capabilities
    from trailblaze.errors import TrailblazeError

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
        server, hash_, caps = spec.partition("#")
        if not spec.startswith("appium:") or not hash_ or caps.endswith("]"):
            out.append(spec)
            continue
        try:
            count = len(load_capabilities(caps))
        except TrailblazeError as exc:
            raise pytest.UsageError(f"--trailblaze-capabilities: {exc.message}") from None
        out += [spec] if count == 1 else [f"{server}#{caps}[{i}]" for i in range(1, count + 1)]
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
