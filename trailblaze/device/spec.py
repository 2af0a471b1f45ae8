"""What a `--device` spec names, parsed (`trailblaze.device.devices.parse_device_spec` reads the text)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["DeviceSpec", "DriverSpec"]


class DriverSpec(Protocol):
    """What a driver's own device spec parsed to, beside its target (`appium:URL#CAPS`: the
    capabilities)."""

    @property
    def driver(self) -> str: ...

    def spec_text(self, target: str | None) -> str:
        """The spec, written out (`appium:URL#FILE`)."""
        ...

    def plugin_options(self) -> dict[str, str]:
        """What the plugin's `open` receives for it."""
        ...


@dataclass(frozen=True)
class DeviceSpec:
    platform: Literal["android", "ios", "web"]
    simulated: bool
    target: str | None
    """Serial or WDA URL for a real device; app name/path for a simulated one."""
    adb_server: tuple[str, int] | None = None
    """`android@HOST:PORT`: the adb server the device is on (else `ANDROID_ADB_SERVER_*`, 127.0.0.1:5037)."""
    driver_spec: DriverSpec | None = None
    """A spec a driver parsed itself (`appium:SERVER#CAPS`: the capabilities; `target` the Appium URL
    or farm preset, `platform` the capabilities' platformName)."""
    profile: str | None = None
    """`sim:android+small`, `sim:ios:demo@v2+tablet+large-font`: a simulated device's profile (its size,
    font scale and theme; the simulator checks the names when it starts the device)."""

    @property
    def driver(self) -> str:
        """The `trailblaze.drivers` plugin that opens it (the parsing driver's for its own spec)."""
        return self.driver_spec.driver if self.driver_spec is not None else self.platform

    def __str__(self) -> str:
        if self.driver_spec is not None:
            return self.driver_spec.spec_text(self.target)
        if self.adb_server is not None:
            host, port = self.adb_server
            head = f"android@{f'[{host}]' if ':' in host else host}:{port}"
            return f"{head}:{self.target}" if self.target else head
        head = f"sim:{self.platform}" if self.simulated else self.platform
        tail = f"+{self.profile}" if self.profile else ""
        return (f"{head}:{self.target}" if self.target else head) + tail
