"""The Appium driver's device spec and options, as the core reads them (`DECLARED`, the
`trailblaze.driver_hooks` entry point): `appium:URL#CAPS` or `appium:PRESET#CAPS` (a farm:
`browserstack`, `saucelabs[:REGION]`, `lambdatest`) where CAPS is a capabilities file
(`trailblaze_appium.capabilities`), `FILE[N]` for one set of a list; `--capabilities FILE`,
`--appium-session`, `--appium-connect-timeout`.

This module imports neither Appium-Python-Client nor the driver: `--help` reads it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from trailblaze.device.driver_hooks import DriverHooks, DriverOption
from trailblaze.errors import OptionError, UsageError

if TYPE_CHECKING:
    from trailblaze.device.spec import DeviceSpec

__all__ = ["CONNECT_TIMEOUT_ENV", "DECLARED", "SESSION_MODES", "AppiumOptions", "parse_appium", "with_capabilities"]

SESSION_MODES = ("per-trail", "shared")
CONNECT_TIMEOUT_ENV = "TRAILBLAZE_APPIUM_CONNECT_TIMEOUT"
"""How long a new Appium session may take, in seconds (`--appium-connect-timeout` sets it for the
process and what it starts; the driver reads it)."""

_SERVER = re.compile(r"^(https?://\S+|[a-z][a-z0-9-]*(:[a-z0-9-]+)?)$")


def parse_appium(spec: str, rest: str) -> DeviceSpec:
    """`appium:SERVER#CAPS`: SERVER an Appium URL or a farm preset word, CAPS a capabilities file."""
    from trailblaze.device.spec import DeviceSpec
    from trailblaze_appium.capabilities import select_capabilities

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
    return DeviceSpec(chosen.platform, False, server, driver_spec=chosen)


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


@dataclass(frozen=True)
class AppiumOptions:
    """`--appium-session` as a run gave it (None: per trail on a device farm, shared on an Appium URL;
    `TRAILBLAZE_APPIUM_SESSION` overrides)."""

    session: str | None = None

    @property
    def driver(self) -> str:
        return "appium"

    def names(self, where: str = "--") -> list[str]:
        return [f"{where}appium-session"] if self.session else []

    def plugin_options(self) -> dict[str, str]:
        return {"session": self.session} if self.session else {}

    def args(self) -> list[str]:
        return ["--appium-session", self.session] if self.session else []

    def refuse(self, device: str, where: str = "--") -> None:
        raise UsageError(
            f"only an Appium device has sessions to share, not {device!r}; drop the Appium session option"
        )


def _given(
    values: Mapping[str, Any], devices: Sequence[str] | None, where: str
) -> tuple[tuple[str, ...] | None, AppiumOptions]:
    """The capabilities join the devices (one spec text each: `appium:SERVER#FILE`); the connect
    timeout goes to the environment, which carries it to the driver and to the processes a run starts
    per device."""
    import os

    timeout, capabilities = values.get("appium_connect_timeout"), values.get("capabilities")
    if timeout is not None:
        os.environ[CONNECT_TIMEOUT_ENV] = f"{timeout:g}"
    given = AppiumOptions(values.get("appium_session"))
    if devices is None:  # `mcp` without --device: use_device names its own
        if capabilities is not None:
            raise OptionError("--capabilities needs --device appium:...", f"{where}capabilities")
        return None, given
    return tuple(with_capabilities(d, capabilities) for d in devices), given


def _expand(spec: str) -> list[str]:
    """`appium:SERVER#FILE` whose file lists several capability sets → `…#FILE[1]`, `[2]`, …"""
    from trailblaze_appium.capabilities import load_capabilities

    server, hash_, caps = spec.partition("#")
    if not spec.startswith("appium:") or not hash_ or caps.endswith("]"):
        return [spec]
    count = len(load_capabilities(caps))
    return [spec] if count == 1 else [f"{server}#{caps}[{i}]" for i in range(1, count + 1)]


def _sim_hint(platform: str, specs: list[tuple[str, dict[str, str]]]) -> str:
    """For a local Appium server (docs/guides/appium.md): the capabilities that reach each simulated
    Android phone, whose adb server is not Appium's default one on port 5037."""
    if platform != "android":
        return ""
    lines = [  # a YAML flow mapping: pasted into a file, it is the capabilities file
        f"\n  Appium capabilities of {target}: "
        f"{{platformName: Android, 'appium:udid': {target}, 'appium:adbPort': {options['adb_port']}}}"
        for target, options in specs
    ]
    return "".join(lines)


DECLARED = DriverHooks(
    driver="appium",
    rank=20,
    options=(
        DriverOption(
            "capabilities", kind="files", metavar="FILE", pytest_metavar="FILE",
            help="Appium devices: the W3C capabilities (YAML or JSON; FILE[N] picks one set of a list).",
            pytest_help="Appium devices: the W3C capabilities (YAML or JSON); one for every --device appium:..., "
            "or one per such --device in order; a file holding a list is one device per entry; ini "
            "trailblaze_capabilities",
            ini_help="Appium capabilities files (relative to the ini file)",
        ),
        DriverOption(
            "appium_session", kind="choice", choices=SESSION_MODES,
            help="Appium devices: a new session per trail (default on a device farm: each trail its own video "
            "and status) or one shared by every trail (default on an Appium URL).",
            pytest_help="Appium devices: a new session per trail (default on a device farm) or one shared by the "
            "worker's trails (default on an Appium URL); ini trailblaze_appium_session",
            ini_help="per-trail | shared (Appium devices)",
        ),
        DriverOption(
            "appium_connect_timeout", kind="seconds", metavar="SECONDS", pytest_metavar="SECONDS",
            help="Appium devices: how long a new session may take before the run fails (exit 3); default 120.",
            pytest_help="Appium devices: how long a new session may take before the run fails (default 120); "
            "ini trailblaze_appium_connect_timeout",
            ini_help="seconds a new Appium session may take (default 120)",
        ),
    ),
    given=_given,
    parse_spec=parse_appium,
    expand=_expand,
    sim_hint=_sim_hint,
    when_unfit="ignore",
)
"""The `appium` entry of the `trailblaze.driver_hooks` group."""
