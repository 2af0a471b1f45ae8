"""The drivers' options on the command line (`--browser`, `--capabilities`, …), built from what each
installed driver declares (`trailblaze.device.driver_hooks`; docs/adr/0081-drivers-own-their-options.md).

A command decorated with `driver_options` receives them as one `drivers` value: each driver's options
as given, checked by the driver's `given` hook (which may also complete the `--device` specs).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from trailblaze.device.driver_hooks import declared, declared_for

if TYPE_CHECKING:
    from trailblaze.device.driver_hooks import DriverOption, GivenOptions

__all__ = ["driver_options", "fitting", "for_picked"]


def _click_option(o: DriverOption) -> Any:
    if o.kind == "flag":
        return click.option(o.flag, is_flag=True, help=o.help)
    if o.kind == "choice":
        return click.option(o.flag, type=click.Choice(list(o.choices)), default=None, help=o.help)
    if o.kind == "seconds":
        seconds = click.FloatRange(min=0, min_open=True, max=86400)
        return click.option(o.flag, type=seconds, default=None, metavar=o.metavar, help=o.help)
    return click.option(o.flag, default=None, metavar=o.metavar, help=o.help)


def driver_options(f: Any) -> Any:
    """Adds every installed driver's options (in the drivers' order) and hands the command their
    values as `drivers`, a tuple of each driver's `GivenOptions`; `device` as the drivers completed it."""
    every = declared()

    @functools.wraps(f)
    def collect(*args: Any, device: str | tuple[str, ...] | None, **kwargs: Any) -> Any:
        from trailblaze.errors import OptionError

        devices = None if device is None else (device,) if isinstance(device, str) else tuple(device)
        given: list[GivenOptions] = []
        for hooks in every:
            values = {o.name: kwargs.pop(o.name) for o in hooks.options}
            try:
                devices, options = hooks.given(values, devices, "--")
            except OptionError as exc:
                raise click.BadParameter(exc.message, param_hint=f"'{exc.option}'") from None
            given.append(options)
        chosen = devices[0] if isinstance(device, str) and devices else devices
        return f(*args, device=chosen, drivers=tuple(given), **kwargs)

    for hooks in reversed(every):
        for option in reversed(hooks.options):
            collect = _click_option(option)(collect)
    return collect


def fitting(drivers: Sequence[GivenOptions], driver: str) -> dict[str, str]:
    """The plugin options of those given for `driver` (the others do not apply to its devices)."""
    return {k: v for d in drivers if d.driver == driver for k, v in d.plugin_options().items()}


def for_picked(drivers: Sequence[GivenOptions], driver: str) -> tuple[GivenOptions, ...]:
    """The options given that go with a device picked later (MCP's use_device): its driver's, and
    those of a driver that refuses another device (which `DeviceChoice.parse` then reports)."""

    def refuses(name: str) -> bool:
        hooks = declared_for(name)
        return hooks is not None and hooks.when_unfit == "refuse"

    return tuple(d for d in drivers if d.names() and (d.driver == driver or refuses(d.driver)))
