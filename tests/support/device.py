"""Shared rig for the device-layer tests: an in-process simulator opened through the real driver
plugin (uiautomator2 + adbutils / facebook-wda over real sockets) and wrapped in a `DeviceSession`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from trailblaze.device.devices import load_driver_plugin
from trailblaze.device.driver import Driver
from trailblaze.device.session import DeviceSession
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.faults import Conditions, FaultKind, RequestKind
from trailblaze_sim.model import SimClock
from trailblaze_sim.runtime import Simulator, start_simulator

PKG = "dev.trailblaze.demo"


@dataclass
class Arming(Conditions):
    """Conditions that deal `armed` (a fault) to the next request of `armed_kind` once it is set."""

    armed: FaultKind | None = None
    armed_kind: RequestKind = "action"

    def before_request(self, kind: RequestKind) -> FaultKind | None:
        fault = super().before_request(kind)
        if fault is None and self.armed is not None and kind == self.armed_kind:
            fault, self.armed = self.armed, None
        return fault


@dataclass
class Rig:
    sim: Simulator
    session: DeviceSession

    @property
    def device(self) -> SimulatedDevice:
        dev = self.sim.devices[0]
        assert isinstance(dev, SimulatedDevice)
        return dev

    @property
    def driver(self) -> Driver:
        return self.session.driver

    def by_id(self, short_id: str) -> Any:
        nodes = [n for n in self.session.refresh().visible_nodes() if n.short_id == short_id]
        assert nodes, f"no visible node with id {short_id}"
        return nodes[0]


@contextmanager
def rig(
    platform: str,
    app: str = "demo",
    *,
    clock: SimClock | None = None,
    conditions: Conditions | None = None,
    **session_options: Any,
) -> Iterator[Rig]:
    """A started simulator and an open session on it; both closed on exit."""
    sim = start_simulator(platform, app, clock=clock, latency=conditions or Conditions())
    # A manual clock does not move while settling: a "Signing in…" overlay would hold the settle for
    # the whole loading bound, so keep that bound short unless a test asks otherwise.
    options: dict[str, Any] = {
        "settle_timeout": 1.0, "poll_interval": 0.01, "resolve_timeout": 0.3, "loading_timeout": 0.3,
    }
    options.update(session_options)
    try:
        target, plugin_opts = sim.device_specs()[0]
        driver = load_driver_plugin(platform).open(target, plugin_opts)
    except BaseException:
        sim.stop()
        raise
    session = DeviceSession(driver, simulator=sim, **options)
    try:
        yield Rig(sim, session)
    finally:
        session.close()


def install_adb_keyboard(r: Rig) -> None:
    """Install and select uiautomator2's AdbKeyboard on a simulated Android phone, as
    `uiautomator2.Device.set_input_ime()` does on a real one."""
    import adbutils
    import uiautomator2 as u2

    serial, opts = r.sim.device_specs()[0]
    client = adbutils.AdbClient(opts["adb_host"], int(opts["adb_port"]))
    u2.connect(client.device(serial)).set_input_ime(True)
