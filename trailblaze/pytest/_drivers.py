"""The pytest plugin's driver options, built from what each installed driver declares
(`trailblaze.device.driver_hooks`): `--trailblaze-NAME` and ini `trailblaze_NAME` for each option
`NAME` (`--trailblaze-browser`, `--trailblaze-capabilities`, …); the command line wins over the ini
file. What the values mean stays with the driver (`pytest/_web.py`, `pytest/_appium.py` hold how a
pool uses them)."""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["add_driver_options", "given_value"]


def add_driver_options(group: Any, parser: pytest.Parser) -> None:
    """Each driver's options (its values, then its flags) and their ini keys, in the drivers' order.

    A choice with a `pytest_metavar` is shown as that word and left to the driver to check (its ini
    key needs the same check)."""
    from trailblaze.device.driver_hooks import declared

    for hooks in declared():
        for o in sorted(hooks.options, key=lambda o: o.kind == "flag"):
            flag, dest = f"--trailblaze-{o.name.replace('_', '-')}", f"trailblaze_{o.name}"
            if o.kind == "flag":
                group.addoption(flag, dest=dest, action="store_true", default=None, help=o.pytest_help)
                parser.addini(dest, o.ini_help, type="bool", default=False)
            elif o.kind == "files":
                group.addoption(flag, action="append", dest=dest, metavar=o.pytest_metavar, help=o.pytest_help)
                parser.addini(dest, o.ini_help, type="linelist")
            elif o.kind == "choice" and o.pytest_metavar is None:
                group.addoption(flag, dest=dest, choices=o.choices, help=o.pytest_help)
                parser.addini(dest, o.ini_help, default="")
            else:
                group.addoption(flag, dest=dest, metavar=o.pytest_metavar, help=o.pytest_help)
                parser.addini(dest, o.ini_help, default="")


def given_value(config: pytest.Config, name: str) -> str | None:
    """A text option's value: the command line's, else the ini file's (None: neither)."""
    given = config.getoption(f"trailblaze_{name}", default=None)
    return given or str(config.getini(f"trailblaze_{name}")).strip() or None
