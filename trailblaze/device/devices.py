"""Device specs (`--device`) and the driver plugins behind them.

Specs: `android[:SERIAL]`, `ios[:WDA_URL]`, `web[:URL]`, `sim:android[:APP]`, `sim:ios[:APP]` where APP
is a bundled app name with an optional variant (`demo`, `demo@restyled`) or a path to an app spec YAML;
and remote devices: `android@HOST:PORT[:SERIAL]` (a device on the adb server at HOST:PORT, e.g. a
device farm's) and `ios@http://HOST:PORT` (a WebDriverAgent on another host); and Appium:
`appium:URL#CAPS` or `appium:PRESET#CAPS` (a farm: `browserstack`, `saucelabs[:REGION]`, `lambdatest`)
where CAPS is a capabilities file (`trailblaze.device.capabilities`), `FILE[N]` for one set of a list.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Literal, cast

from trailblaze.device.web_options import ENV as _WEB_ENV
from trailblaze.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.device.capabilities import CapabilitySet
    from trailblaze.device.driver import DeviceListing, DriverPlugin
    from trailblaze.device.session import DeviceSession
    from trailblaze.device.web_options import WebOptions

__all__ = [
    "DeviceSpec",
    "list_devices",
    "load_driver_plugin",
    "open_device",
    "parse_device_spec",
    "session_options",
    "with_capabilities",
]

_GROUP = "trailblaze.drivers"
# The extra that installs each driver (a checkout installs them from drivers/*).
_DISTRIBUTIONS = {
    p: f"""trailblaze-{p}: pip install "trailblaze[{p}]" (from a checkout: pip install -e ./drivers/{p})"""
    for p in ("android", "ios", "web", "appium")
}


@dataclass(frozen=True)
class DeviceSpec:
    platform: Literal["android", "ios", "web"]
    simulated: bool
    target: str | None
    """Serial or WDA URL for a real device; app name/path for a simulated one."""
    adb_server: tuple[str, int] | None = None
    """`android@HOST:PORT`: the adb server the device is on (else `ANDROID_ADB_SERVER_*`, 127.0.0.1:5037)."""
    appium: CapabilitySet | None = None
    """`appium:SERVER#CAPS`: the device is an Appium session with these capabilities on `target` (an
    Appium URL or a farm preset); `platform` is the capabilities' platformName."""
    profile: str | None = None
    """`sim:android+small`, `sim:ios:demo@v2+tablet+large-font`: a simulated device's profile (its size,
    font scale and theme; the simulator checks the names when it starts the device)."""

    @property
    def driver(self) -> str:
        """The `trailblaze.drivers` plugin that opens it (`appium` for an Appium device)."""
        return "appium" if self.appium is not None else self.platform

    def __str__(self) -> str:
        if self.appium is not None:
            return f"appium:{self.target}#{self.appium.source}"
        if self.adb_server is not None:
            host, port = self.adb_server
            head = f"android@{f'[{host}]' if ':' in host else host}:{port}"
            return f"{head}:{self.target}" if self.target else head
        head = f"sim:{self.platform}" if self.simulated else self.platform
        tail = f"+{self.profile}" if self.profile else ""
        return (f"{head}:{self.target}" if self.target else head) + tail


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
    if text.startswith("appium:"):
        return _appium(spec, text[len("appium:") :])
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


_SERVER = re.compile(r"^(https?://\S+|[a-z][a-z0-9-]*(:[a-z0-9-]+)?)$")


def _appium(spec: str, rest: str) -> DeviceSpec:
    """`appium:SERVER#CAPS`: SERVER an Appium URL or a farm preset word, CAPS a capabilities file."""
    from trailblaze.device.capabilities import select_capabilities

    server, hash_, caps = rest.partition("#")
    if not server or not _SERVER.match(server):
        raise UsageError(
            f"device {spec!r}: use appium:URL (e.g. appium:http://127.0.0.1:4723) or a farm preset "
            "(appium:browserstack, appium:saucelabs[:REGION], appium:lambdatest)"
        )
    if not hash_ or not caps:
        raise UsageError(
            f"device {spec!r} needs its capabilities: pass --capabilities FILE (YAML or JSON with at least "
            "`platformName: Android` or iOS; under pytest --trailblaze-capabilities FILE)"
        )
    chosen = select_capabilities(caps)
    return DeviceSpec(chosen.platform, False, server, appium=chosen)


def with_capabilities(device: str, capabilities: str | None) -> str:
    """The spec `--device` and `--capabilities` name together: `appium:SERVER#FILE`.

    Raises:
        UsageError: capabilities for a device that is not an Appium one.
    """
    text = device.strip()
    if capabilities is None:
        return text
    if not text.startswith("appium:"):
        raise UsageError(
            f"--capabilities is for Appium devices, not {device!r}: use --device appium:URL "
            "(or appium:browserstack, appium:saucelabs, appium:lambdatest), or drop --capabilities"
        )
    if "#" in text:
        raise UsageError(f"--device {device!r} already names its capabilities (#...): drop --capabilities")
    return f"{text}#{capabilities}"


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
    spec: str | DeviceSpec,
    *,
    app_override: str | None = None,
    latency: str | None = None,
    env: Mapping[str, str] | None = None,
    web: WebOptions | None = None,
    appium_session: str | None = None,
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
        web: The browser options of a `web` device (`--browser`, `--viewport`, …), over the
            environment's `TRAILBLAZE_*` defaults; `UsageError` when given for another device.
        appium_session: An Appium device's session mode (`per-trail`, `shared`; None: its default).
        **session_options: Passed to `DeviceSession` (`settle_timeout`, `resolve_timeout`, …).

    Raises:
        UsageError: A malformed spec or a missing driver plugin.
        DeviceError: The device cannot be reached.
    """
    import os

    from trailblaze.device.hiccups import Hiccups
    from trailblaze.device.session import DeviceSession

    parsed = spec if isinstance(spec, DeviceSpec) else parse_device_spec(spec)
    if web is not None:
        web.require_web(str(spec))
    plugin = load_driver_plugin(parsed.driver)
    if not parsed.simulated:
        options = plugin_options(os.environ if env is None else env)
        if parsed.appium is not None:
            options["capabilities"] = parsed.appium.text
            options["capabilities_source"] = parsed.appium.source
            if appium_session is not None:
                options["session"] = appium_session
        if web is not None:  # the command line wins over the environment
            options.update(web.plugin_options())
        if parsed.adb_server is not None:  # the spec's server wins over the environment's
            options["adb_host"], options["adb_port"] = parsed.adb_server[0], str(parsed.adb_server[1])
        target = web_start_url(parsed.target) if parsed.platform == "web" else parsed.target
        driver = Hiccups().connect(lambda: plugin.open(target, options))
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
    return DeviceSession(driver, on_close=sim.stop, **session_options)


def web_start_url(target: str | None) -> str | None:
    """`web:URL`'s page: a URL without a scheme is a file path (from the working directory), as
    `web_navigate` takes it, so `--device web:site/index.html` opens the file.

    Raises:
        UsageError: no such file.
    """
    import re
    from pathlib import Path

    if not target or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
        return target
    path = Path(target).expanduser().resolve()
    if not path.is_file():
        raise UsageError(
            f"--device web:{target}: no file {path}; pass a URL (https://…, file://…) or a path to an .html file"
        )
    return path.as_uri()


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
