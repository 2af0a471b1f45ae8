"""Device specs (`--device`) and the driver plugins behind them.

Specs: `android[:SERIAL]`, `ios[:WDA_URL]`, `sim:android[:APP]`, `sim:ios[:APP]` where APP is a bundled
app name with an optional variant (`demo`, `demo@restyled`) or a path to an app spec YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Literal, cast

from trailblaze.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.driver import DriverPlugin

__all__ = ["DeviceSpec", "load_driver_plugin", "parse_device_spec"]

_GROUP = "trailblaze.drivers"
_DISTRIBUTIONS = {"android": "trailblaze-android (pip install -e ./drivers/android)",
                  "ios": "trailblaze-ios (pip install -e ./drivers/ios)"}


@dataclass(frozen=True)
class DeviceSpec:
    platform: Literal["android", "ios"]
    simulated: bool
    target: str | None
    """Serial or WDA URL for a real device; app name/path for a simulated one."""

    def __str__(self) -> str:
        head = f"sim:{self.platform}" if self.simulated else self.platform
        return f"{head}:{self.target}" if self.target else head


def parse_device_spec(spec: str) -> DeviceSpec:
    """Parses a `--device` value; raises `UsageError` with the accepted forms on anything else."""
    text = spec.strip()
    simulated = text.startswith("sim:")
    if simulated:
        text = text[4:]
    platform, _, target = text.partition(":")
    if platform not in ("android", "ios"):
        raise UsageError(
            f"unknown device {spec!r}: use android[:SERIAL], ios[:WDA_URL], sim:android[:APP] or sim:ios[:APP]"
        )
    return DeviceSpec(cast(Literal["android", "ios"], platform), simulated, target or None)


def load_driver_plugin(platform: str) -> DriverPlugin:
    """The plugin registered for `platform` under the `trailblaze.drivers` entry-point group."""
    for ep in entry_points(group=_GROUP):
        if ep.name == platform:
            plugin = ep.load()
            if plugin is None:
                break
            return cast("DriverPlugin", plugin)
    hint = _DISTRIBUTIONS.get(platform, f"a distribution that provides the {platform!r} driver")
    raise UsageError(f"no {platform} driver is installed: install {hint}")


def plugin_options(env: Mapping[str, str]) -> dict[str, str]:
    """Connection options a plugin understands, taken from the environment."""
    out: dict[str, str] = {}
    if env.get("ANDROID_ADB_SERVER_HOST"):
        out["adb_host"] = env["ANDROID_ADB_SERVER_HOST"]
    if env.get("ANDROID_ADB_SERVER_PORT"):
        out["adb_port"] = env["ANDROID_ADB_SERVER_PORT"]
    return out
