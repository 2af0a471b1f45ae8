"""Device specs (`--device`) and the driver plugins behind them.

Specs: `android[:SERIAL]`, `ios[:WDA_URL]`, `web[:URL]`, `sim:android[:APP]`, `sim:ios[:APP]` where APP
is a bundled app name with an optional variant (`demo`, `demo@restyled`) or a path to an app spec YAML;
and remote devices: `android@HOST:PORT[:SERIAL]` (a device on the adb server at HOST:PORT, e.g. a
device farm's) and `ios@http://HOST:PORT` (a WebDriverAgent on another host). `DRIVER:REST` is a spec
a driver parses itself (its `parse_spec` hook, `trailblaze.device.driver_hooks`): Appium's.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Literal, cast

from trailblaze.device.spec import DeviceSpec
from trailblaze.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.device.driver import DeviceListing, DriverPlugin
    from trailblaze.device.session import DeviceSession

__all__ = [
    "DeviceSpec",
    "list_devices",
    "load_driver_plugin",
    "open_device",
    "parse_device_spec",
    "session_options",
]

_GROUP = "trailblaze.drivers"
# The extra that installs each driver (a checkout installs them from drivers/*).
_DISTRIBUTIONS = {
    p: f"""trailblaze-{p}: pip install "trailblaze[{p}]" (from a checkout: pip install -e ./drivers/{p})"""
    for p in ("android", "ios", "web", "appium")
}


_FORMS = (
    "use android[:SERIAL], android@HOST:PORT[:SERIAL], ios[:WDA_URL], ios@http://HOST:PORT, web[:URL], "
    "appium:URL or appium:browserstack|saucelabs|lambdatest (with --capabilities FILE), "
    "sim:android[:APP][+PROFILE] or sim:ios[:APP][+PROFILE] (PROFILE: small, large, tablet, with +landscape, "
    "+large-font, +dark)"
)
_PROFILE = re.compile(r"^(?P<rest>.*?)(?P<profile>(?:\+[a-z][a-z-]*)+)$")
"""Trailing `+word`s: a profile (an app path's `+` is followed by a dot, a slash or an upper-case letter)."""


@functools.lru_cache(maxsize=256)  # a run (pytest's items, MCP's calls) asks per spec: parsed once
def parse_device_spec(spec: str) -> DeviceSpec:
    """Parses a `--device` value; raises `UsageError` with the accepted forms on anything else.

    The result is a frozen `DeviceSpec`, so one spec text is parsed once per process."""
    text = spec.strip()
    if text.startswith(("android@", "ios@")):
        return _remote(spec, text)
    head, colon, rest = text.partition(":")
    if colon and (parse := _spec_parser(head)) is not None:
        return parse(spec, rest)
    simulated = text.startswith("sim:")
    if simulated:
        text = text[4:]
    profile = None
    if (m := _PROFILE.match(text)) is not None and (simulated or text.startswith(("android+", "ios+"))):
        text, profile = m["rest"], m["profile"][1:]
    platform, _, target = text.partition(":")
    if platform not in ("android", "ios", "web") or (simulated and platform == "web"):
        raise UsageError(f"unknown device {spec!r}: {_did_you_mean(platform, simulated)}{_FORMS}")
    if profile is not None and not simulated:
        raise UsageError(
            f"device {spec!r}: a profile (+{profile}) is for a simulated device; use sim:{platform}+{profile}, "
            "or a real device of that size"
        )
    return DeviceSpec(cast(Literal["android", "ios", "web"], platform), simulated, target or None, profile=profile)


_ALIASES = {"iphone": "ios", "ipad": "ios", "phone": "android", "chrome": "web", "browser": "web"}


def _did_you_mean(platform: str, simulated: bool) -> str:
    """`did you mean `sim:android`? ` for a misspelt or everyday platform name (`andriod`, `iphone`)."""
    import difflib

    word = platform.lower()
    known = ("android", "ios") if simulated else ("android", "ios", "web")
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.65)
    guess = _ALIASES.get(word) or (close[0] if close else None)
    if guess is None or guess not in known:
        return ""
    return f"did you mean `{'sim:' if simulated else ''}{guess}`? "


def _remote(spec: str, text: str) -> DeviceSpec:
    """`android@HOST:PORT[:SERIAL]` (HOST may be `[IPv6]`; SERIAL may hold colons, `10.0.0.5:5555`)
    or `ios@[http://]HOST:PORT[/path]`."""
    platform, _, rest = text.partition("@")
    if platform == "ios":
        if not rest:
            raise UsageError(f"device {spec!r} names no WebDriverAgent: use ios@http://HOST:PORT")
        url = rest if "://" in rest else f"http://{rest}"
        return DeviceSpec("ios", False, url)
    if rest.startswith("["):
        host, bracket, tail = rest[1:].partition("]")
        tail = tail.removeprefix(":") if bracket else ""
    else:
        host, _, tail = rest.partition(":")
    port_text, _, serial = tail.partition(":")
    port = int(port_text) if port_text.isdigit() else 0
    if not host or not 1 <= port <= 65535:
        raise UsageError(
            f"device {spec!r}: use android@HOST:PORT[:SERIAL] with the adb server's host and port "
            "(e.g. android@10.0.0.7:5037 or android@10.0.0.7:5037:emulator-5554)"
        )
    return DeviceSpec("android", False, serial or None, (host, port))


def _spec_parser(name: str) -> Callable[[str, str], DeviceSpec] | None:
    """The `parse_spec` hook of the driver `name` (none for the core's platforms)."""
    if name in ("android", "ios", "web", "sim"):
        return None
    from trailblaze.device.driver_hooks import declared_for

    hooks = declared_for(name)
    if hooks is None and name in _DISTRIBUTIONS:
        load_driver_plugin(name)  # not installed: says which extra installs it
    return hooks.parse_spec if hooks is not None else None


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
    from trailblaze.device.driver_hooks import env_defaults

    return {**out, **env_defaults(env)}


def session_options(element_timeout: float | None) -> dict[str, Any]:
    """`DeviceSession` keyword arguments for a user-given element timeout (`--element-timeout`).

    None keeps the session's default bound on polling a selector (5 s).
    """
    return {} if element_timeout is None else {"resolve_timeout": element_timeout}


def open_device(
    spec: str | DeviceSpec,
    *,
    app_override: str | None = None,
    latency: str | None = None,
    env: Mapping[str, str] | None = None,
    driver_options: Mapping[str, str] | None = None,
    **session_options: Any,
) -> DeviceSession:
    """Connects to the device a `--device` spec names and wraps it in a `DeviceSession`.

    `sim:android[:APP]` / `sim:ios[:APP]` start an in-process simulator running APP (default `demo`,
    or `app_override`) on a free port and open the matching driver plugin against it through the
    real client; closing the session stops the simulator. Other specs connect to real devices (or to
    an external `trailblaze sim`): `android[:SERIAL]` through the adb server in `ANDROID_ADB_SERVER_*`,
    `android@HOST:PORT[:SERIAL]` through the adb server at HOST:PORT, `ios[:WDA_URL]` / `ios@URL`.

    Args:
        spec: The device spec (as written, or parsed once by `parse_device_spec`).
        app_override: App to run on a simulated device instead of the spec's.
        latency: Latency profile of a simulated device (`zero`, `realistic`).
        env: Environment to read connection settings from (default `os.environ`).
        driver_options: The options the run gave the device's driver (`GivenOptions.plugin_options`:
            the browser's, an Appium session mode), over the environment's defaults.
        **session_options: Passed to `DeviceSession` (`settle_timeout`, `resolve_timeout`, …).

    Raises:
        UsageError: A malformed spec or a missing driver plugin.
        DeviceError: The device cannot be reached.
    """
    import os

    from trailblaze.device.hiccups import Hiccups
    from trailblaze.device.session import DeviceSession

    parsed = spec if isinstance(spec, DeviceSpec) else parse_device_spec(spec)
    plugin = load_driver_plugin(parsed.driver)
    if not parsed.simulated:
        options = plugin_options(os.environ if env is None else env)
        if parsed.driver_spec is not None:
            options.update(parsed.driver_spec.plugin_options())
        options.update(driver_options or {})  # the command line wins over the environment
        if parsed.adb_server is not None:  # the spec's server wins over the environment's
            options["adb_host"], options["adb_port"] = parsed.adb_server[0], str(parsed.adb_server[1])
        driver = Hiccups().connect(lambda: plugin.open(parsed.target, options))
        return DeviceSession(driver, **session_options)

    from trailblaze.device.simulator import load_simulator

    # private: every client of an in-process device is in this process, so no other local process
    # may read its screen (a typed secret) or tap on it
    sim = load_simulator(f"sim:{parsed.platform}").start(
        parsed.platform, app_override or parsed.target or "demo", latency=latency, profile=parsed.profile,
        private=True,
    )
    try:
        target, options = sim.device_specs()[0]
        driver = Hiccups().connect(lambda: plugin.open(target, options))
    except BaseException:
        sim.stop()
        raise
    return DeviceSession(driver, simulator=sim, **session_options)


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
