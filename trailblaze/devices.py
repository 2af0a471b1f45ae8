"""Device specs (`--device`) and the driver plugins behind them.

Specs: `android[:SERIAL]`, `ios[:WDA_URL]`, `web[:URL]`, `sim:android[:APP]`, `sim:ios[:APP]` where APP
is a bundled app name with an optional variant (`demo`, `demo@restyled`) or a path to an app spec YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Literal, cast

from trailblaze.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.driver import DeviceListing, DriverPlugin
    from trailblaze.session import DeviceSession

__all__ = ["DeviceSpec", "list_devices", "load_driver_plugin", "open_device", "parse_device_spec", "session_options"]

_GROUP = "trailblaze.drivers"
_DISTRIBUTIONS = {"android": "trailblaze-android (pip install -e ./drivers/android)",
                  "ios": "trailblaze-ios (pip install -e ./drivers/ios)",
                 "web": "trailblaze-web (pip install -e ./drivers/web)"}


_WEB_ENV = {
    "TRAILBLAZE_BROWSER_PATH": "browser_path",
    "TRAILBLAZE_WEB_VIEWPORT": "viewport",
    "TRAILBLAZE_WEB_HEADED": "headed",
}
"""Environment variables the web driver reads (`trailblaze_web`): browser binary, `WIDTHxHEIGHT`, `1`."""


@dataclass(frozen=True)
class DeviceSpec:
    platform: Literal["android", "ios", "web"]
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
    if platform not in ("android", "ios", "web") or (simulated and platform == "web"):
        raise UsageError(
            f"unknown device {spec!r}: use android[:SERIAL], ios[:WDA_URL], web[:URL], "
            "sim:android[:APP] or sim:ios[:APP]"
        )
    return DeviceSpec(cast(Literal["android", "ios", "web"], platform), simulated, target or None)


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
    if env.get("TRAILBLAZE_WDA_URL"):
        out["wda_url"] = env["TRAILBLAZE_WDA_URL"]
    for name, key in _WEB_ENV.items():
        if env.get(name):
            out[key] = env[name]
    return out


def session_options(element_timeout: float | None) -> dict[str, Any]:
    """`DeviceSession` keyword arguments for a user-given element timeout (`--element-timeout`).

    None keeps the session's default bound on polling a selector (5 s).
    """
    return {} if element_timeout is None else {"resolve_timeout": element_timeout}


def open_device(
    spec: str,
    *,
    app_override: str | None = None,
    latency: str | None = None,
    env: Mapping[str, str] | None = None,
    **session_options: Any,
) -> DeviceSession:
    """Connects to the device a `--device` spec names and wraps it in a `DeviceSession`.

    `sim:android[:APP]` / `sim:ios[:APP]` start an in-process simulator running APP (default `demo`,
    or `app_override`) on a free port and open the matching driver plugin against it through the
    real client; closing the session stops the simulator. Other specs connect to real devices (or to
    an external `trailblaze sim`): `android[:SERIAL]` through the adb server in `ANDROID_ADB_SERVER_*`,
    `ios[:WDA_URL]`.

    Args:
        spec: The device spec.
        app_override: App to run on a simulated device instead of the spec's.
        latency: Latency profile of a simulated device (`zero`, `realistic`).
        env: Environment to read connection settings from (default `os.environ`).
        **session_options: Passed to `DeviceSession` (`settle_timeout`, `resolve_timeout`, …).

    Raises:
        UsageError: A malformed spec or a missing driver plugin.
        DeviceError: The device cannot be reached.
    """
    import os

    from trailblaze.session import DeviceSession

    parsed = parse_device_spec(spec)
    plugin = load_driver_plugin(parsed.platform)
    if not parsed.simulated:
        options = plugin_options(os.environ if env is None else env)
        driver = plugin.open(parsed.target, options)
        return DeviceSession(driver, **session_options)

    from trailblaze.sim.runtime import start_simulator

    sim = start_simulator(parsed.platform, app_override or parsed.target or "demo", latency=latency)
    try:
        target, options = sim.device_specs()[0]
        driver = plugin.open(target, options)
    except BaseException:
        sim.stop()
        raise
    return DeviceSession(driver, on_close=sim.stop, **session_options)


def list_devices(env: Mapping[str, str] | None = None) -> tuple[list[DeviceListing], list[str]]:
    """Devices every installed driver plugin can see, and one line per plugin that could not look."""
    import os

    from trailblaze.errors import TrailblazeError

    options = plugin_options(os.environ if env is None else env)
    found: list[DeviceListing] = []
    problems: list[str] = []
    for platform in ("android", "ios"):
        try:
            found.extend(load_driver_plugin(platform).list_devices(options))
        except TrailblazeError as exc:
            problems.append(f"{platform}: {exc.message}")
    return found, problems
