"""What a driver plugin declares to the core: its options and its own device spec
(docs/adr/0081-drivers-own-their-options.md).

A driver names its options (`--browser`, `--capabilities`, …) as `DriverOption` records, and may parse
a device spec of its own (`appium:URL#CAPS`), in a light module registered under the
`trailblaze.driver_hooks` entry-point group, so `--help` lists the options without importing the
driver. The CLI's decorators, pytest's options and ini keys, and the environment defaults the core
hands a plugin are built from those records; what the values mean stays with the driver (its `given`
hook, which checks them and answers a `GivenOptions`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from trailblaze.device.spec import DeviceSpec

__all__ = ["DriverHooks", "DriverOption", "GivenOptions", "declared", "declared_for", "env_defaults"]

_GROUP = "trailblaze.driver_hooks"


@dataclass(frozen=True)
class DriverOption:
    """One option of a driver, as every front end spells it."""

    name: str
    """The keyword its value arrives under (`browser_path`): `--browser-path` on the command line,
    `--trailblaze-browser-path` and ini `trailblaze_browser_path` under pytest."""
    help: str
    """The command line's help."""
    pytest_help: str
    ini_help: str
    kind: Literal["text", "flag", "choice", "seconds", "files"] = "text"
    """`seconds`: a positive number (at most a day on the command line); `files`: one file on the
    command line, repeatable under pytest and a line list in the ini file."""
    choices: tuple[str, ...] = ()
    metavar: str | None = None
    pytest_metavar: str | None = None
    env: str | None = None
    """The environment variable that gives the plugin option `name` a default (a given option wins)."""

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


class GivenOptions(Protocol):
    """A driver's options as one run gave them, checked by the driver."""

    @property
    def driver(self) -> str: ...

    def names(self, where: str = "--") -> list[str]:
        """The options that are set, as flags (`--viewport`); empty: nothing given."""
        ...

    def plugin_options(self) -> dict[str, str]:
        """What the plugin's `open` receives for them (over the environment's defaults)."""
        ...

    def args(self) -> list[str]:
        """The command-line options that give them (for the command line run.json keeps)."""
        ...

    def refuse(self, device: str, where: str = "--") -> None:
        """`UsageError`: they were given for `device`, which is not one of this driver's."""
        ...


@dataclass(frozen=True)
class DriverHooks:
    """What a `trailblaze.driver_hooks` entry point resolves to."""

    driver: str
    rank: int
    """Where the options stand among the drivers' (in `--help`: the lower first)."""
    options: tuple[DriverOption, ...]
    given: Callable[[Mapping[str, Any], Sequence[str] | None, str], tuple[tuple[str, ...] | None, GivenOptions]]
    """`(values by name, the devices named (None: none yet), where)` → the devices (the driver may
    complete a spec: `appium:URL` + `--capabilities`) and the options given; `UsageError` (or
    `OptionError`, naming the option) on a bad value. `where` prefixes the option names in messages
    (`--` on the command line, `--trailblaze-` under pytest)."""
    parse_spec: Callable[[str, str], DeviceSpec] | None = None
    """`(the spec as written, what follows "DRIVER:")` → the device, for a driver with a spec of its
    own (`appium:…`); `UsageError` on a malformed one."""
    expand: Callable[[str], list[str]] | None = None
    """A spec that names several devices (a capabilities file that lists a farm matrix) → one spec
    each, for a pytest pool; `UsageError` when it cannot be read."""
    sim_hint: Callable[[str, list[tuple[str, dict[str, str]]]], str] | None = None
    """`(platform, the simulator's device specs)` → lines `trailblaze sim` adds to how to connect
    (Appium: the capabilities that reach each simulated phone)."""
    when_unfit: Literal["refuse", "ignore"] = "refuse"
    """A device picked later (MCP's use_device) that is not this driver's: an error, or the options
    left out."""


@functools.cache
def declared() -> tuple[DriverHooks, ...]:
    """Every installed driver's hooks, in their `rank` order."""
    import importlib

    found = []
    for value in _entry_points():
        module, _, attr = value.partition(":")
        found.append(getattr(importlib.import_module(module.strip()), attr.strip()))
    return tuple(sorted((d for d in found if isinstance(d, DriverHooks)), key=lambda d: (d.rank, d.driver)))


def _entry_points() -> list[str]:
    """The values of the group's entry points, read from the `entry_points.txt` of each distribution
    on `sys.path` (the first of a name wins), as `importlib.metadata` does: reading them here keeps
    it, and the `email` package it imports, off `--help`'s start-up (about 60 ms; ADR 0063)."""
    import os
    import re
    import sys

    seen: set[str] = set()
    values: list[str] = []
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            dist = re.sub(r"[-_.]+", "-", name.rsplit(".", 1)[0].split("-")[0]).lower()
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if dist in seen:
                continue
            seen.add(dist)
            section = None
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("["):
                    section = line.strip("[]").strip()
                elif section == _GROUP and "=" in line and not line.startswith(("#", ";")):
                    values.append(line.partition("=")[2].strip())
    return values


def declared_for(driver: str) -> DriverHooks | None:
    return next((d for d in declared() if d.driver == driver), None)


def env_defaults(env: Mapping[str, str]) -> dict[str, str]:
    """The plugin options the environment gives (`TRAILBLAZE_BROWSER` → `browser`)."""
    return {o.name: env[o.env] for d in declared() for o in d.options if o.env and env.get(o.env)}
