"""Simulated devices: declarative apps (`app`), the device model and its screenshots (`device`), what
each platform answers (`android`, `ios`), what Appium adds (`appium`) and the protocol servers that let
the real adb / uiautomator2 / facebook-wda / Appium clients drive them (`server`). Packages import only
the ones below them (ADR 0061); `model` and `faults` sit at the bottom, `runtime` at the top.

Typical use::

    from trailblaze_sim import create_device
    from trailblaze_sim.model import ManualClock

    device = create_device("android", app="demo", clock=ManualClock())
    device.launch("dev.trailblaze.demo")
    root = device.tree()
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze_sim.app.spec import AppSpec, bundled_apps, load_app_spec
from trailblaze_sim.model import ManualClock, RealClock, SimClock, SteppedClock

if TYPE_CHECKING:
    from trailblaze_sim.device.simulated import SimulatedDevice
    from trailblaze_sim.faults import Conditions

__all__ = [
    "AppSpec",
    "ManualClock",
    "RealClock",
    "SteppedClock",
    "bundled_apps",
    "create_device",
    "load_app_spec",
]


def create_device(
    platform: str,
    app: str | Path | AppSpec = "demo",
    *,
    clock: SimClock | None = None,
    conditions: Conditions | None = None,
    serial: str | None = None,
    launch: bool = True,
    profile: str | None = None,
) -> SimulatedDevice:
    """A simulated phone with `app` installed and, unless `launch=False`, in the foreground.

    Args:
        platform: `android` or `ios`.
        app: A bundled app (`demo`, `demo@restyled`, `demo@v2`), a path to a YAML spec, or a spec.
        clock: Device time; real time by default, a `ManualClock` in tests.
        conditions: Latency/fault settings shared with the protocol servers.
        serial: The adb serial / UDID (default `emulator-5554` / a fixed fake UDID).
        launch: Start the app on its launch screen; otherwise the launcher (home screen) shows.
        profile: The device profile (`small`, `tablet+dark`, `large-font`; docs/guides/simulator.md);
            None: the platform's phone.

    Raises:
        UsageError: unknown platform, unknown app or profile, or an invalid spec.
    """
    from trailblaze.errors import UsageError
    from trailblaze_sim.device.profile import device_profile
    from trailblaze_sim.device.simulated import SimulatedDevice

    if platform not in ("android", "ios"):
        raise UsageError(f"unknown simulated platform {platform!r}: use android or ios")
    spec = app if isinstance(app, AppSpec) else load_app_spec(app)
    device = SimulatedDevice(
        spec,
        "android" if platform == "android" else "ios",
        clock=clock,
        conditions=conditions,
        serial=serial,
        profile=device_profile(platform, profile),
    )
    if launch:
        device.launch(spec.app_id, boot=True)
    return device
