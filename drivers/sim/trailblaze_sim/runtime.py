"""Running simulated devices: in-process (tests, `--device sim:…`, pytest) or in the foreground
(`trailblaze sim android|ios`).

A `Simulator` owns the app model(s) and the protocol server: for Android one fake adb server that
carries every device of the pool, for iOS one WebDriverAgent server per device. Clients reach it the
way they reach hardware: `ANDROID_ADB_SERVER_PORT` / `adb -P PORT` for Android, a WDA URL for iOS.
Each device has its own `Conditions` (latency and faults), so a fault armed on one device of a pool
leaves the others alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from trailblaze.errors import UsageError
from trailblaze_sim.faults import LATENCY_PROFILES, Conditions, check_fault_rate

if TYPE_CHECKING:
    from trailblaze_sim.model import SimClock, SimDevice

__all__ = ["Simulator", "simulator"]


@dataclass
class Simulator:
    """Running simulated devices and their protocol server(s).

    Attributes:
        platform: `android` or `ios`.
        devices: The app models, in serial order (`emulator-5554`, `emulator-5556`, …).
        host: The address the servers listen on.
        ports: The adb server's port (Android) or one WDA port per device (iOS).
    """

    platform: Literal["android", "ios"]
    devices: list[SimDevice]
    device_conditions: list[Conditions]
    """Each device's own latency and faults, in the order of `devices`."""
    host: str
    _servers: list[object] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.ports[0]

    @property
    def conditions(self) -> Conditions:
        """The first device's latency and faults (the whole story for a single device); use
        `conditions_for()` for the others."""
        return self.device_conditions[0]

    def conditions_for(self, device: int | str) -> Conditions:
        """One device's latency and faults, by position in `devices` or by serial.

        Raises:
            UsageError: No such device.
        """
        if isinstance(device, int):
            if 0 <= device < len(self.devices):
                return self.device_conditions[device]
        else:
            for dev, cond in zip(self.devices, self.device_conditions, strict=True):
                if dev.serial == device:
                    return cond
        serials = ", ".join(d.serial for d in self.devices)
        raise UsageError(f"no simulated device {device!r}: this simulator has {serials}")

    def device_specs(self) -> list[tuple[str, dict[str, str]]]:
        """`(target, plugin options)` for each device, as the driver plugin's `open()` wants them."""
        if self.platform == "android":
            opts = {"adb_host": self.host, "adb_port": str(self.port)}
            return [(d.serial, dict(opts)) for d in self.devices]
        return [(f"http://{self.host}:{p}", {}) for p in self.ports]

    def how_to_connect(self) -> str:
        if self.platform == "android":
            serials = ", ".join(d.serial for d in self.devices)
            return (
                f"simulated android ({serials}{self._profile_note()}) on adb server {self.host}:{self.port} — "
                f"export ANDROID_ADB_SERVER_PORT={self.port}; adb -P {self.port} devices; "
                f"trailblaze snapshot --device android"
            ) + self._faults_note()
        urls = " ".join(f"http://{self.host}:{p}" for p in self.ports)
        return (
            f"simulated ios{self._profile_note()} WebDriverAgent at {urls} — "
            f"wda.Client('{urls.split()[0]}'); trailblaze snapshot --device ios:{urls.split()[0]}"
        ) + self._faults_note()

    def _profile_note(self) -> str:
        """`; small+dark: Small Phone 360x640` for a device that is not the default phone."""
        device = self.devices[0]
        profile = getattr(device, "profile", None)
        if profile is None or profile.name == "phone":
            return ""
        return f"; {profile.name}: {device.model} {device.screen_width}x{device.screen_height}"

    def _faults_note(self) -> str:
        rate, seed = self.conditions.fault_rate, self.conditions.seed
        if rate <= 0:
            return ""
        return f" — faults: {rate:g} of requests (about 1 in {round(1 / rate)}), seed {seed}"

    def stop(self) -> None:
        for server in self._servers:
            server.stop()  # type: ignore[attr-defined]
        self._servers.clear()


def _conditions(latency: str | Conditions | None) -> Conditions:
    if isinstance(latency, Conditions):
        return latency
    name = latency or "zero"
    if name not in LATENCY_PROFILES:
        raise UsageError(f"unknown latency profile {name!r}: use one of {', '.join(LATENCY_PROFILES)}")
    return Conditions(latency=LATENCY_PROFILES[name])


def sim_conditions(
    latency: str, *, timed_gestures: bool | None = None, faults: float = 0.0, seed: int = 0
) -> Conditions:
    """A latency profile's conditions with gestures timed as on a phone (a 2 s swipe takes 2 s) or
    instant, whatever the profile's own `gesture_time_scale` (None keeps it): the foreground
    `trailblaze sim` serves clients that measure a swipe's duration, the in-process rigs want speed.
    `faults` is each request's chance of a transient fault, drawn from `seed` (`Conditions.fault_rate`).

    Raises:
        UsageError: An unknown profile, or a rate that is no chance (outside 0 to 1).
    """
    base = _conditions(latency)
    profile = base.latency
    if timed_gestures is not None:
        profile = replace(profile, gesture_time_scale=1.0 if timed_gestures else 0.0)
    try:
        check_fault_rate(faults)
    except ValueError as exc:
        raise UsageError(f"{exc}: use e.g. --faults 0.033 for 1 request in 30") from None
    return Conditions(latency=profile, fault_rate=faults, seed=seed)


def start_simulator(
    platform: str,
    app: str | None = None,
    *,
    count: int = 1,
    port: int = 0,
    host: str = "127.0.0.1",
    latency: str | Conditions | None = None,
    clock: SimClock | None = None,
    profile: str | None = None,
    private: bool = False,
) -> Simulator:
    """Starts `count` simulated devices running `app` (default `demo`) and their protocol server.

    `latency` is a profile name or a `Conditions`: the first device uses it as is (so a caller can arm
    faults on it while the device runs), every other device gets its own copy of its settings
    (`Conditions.clone`) — a fault armed on one device never reaches another. `profile` names the
    devices' profile (`small`, `tablet+dark`; None: the phone). `private` serves only clients in this
    process (an in-process replay; `trailblaze_sim.access`).
    """
    from trailblaze_sim import create_device

    if platform not in ("android", "ios"):
        raise UsageError(f"unknown simulator platform {platform!r}: use android or ios")
    conditions = _conditions(latency)
    per_device = [conditions] + [conditions.clone(seed=conditions.seed + i) for i in range(1, count)]
    devices: list[SimDevice] = []
    for i, cond in enumerate(per_device):
        serial = f"emulator-{5554 + 2 * i}" if platform == "android" else f"SIM-IPHONE-{i + 1:04d}"
        devices.append(
            create_device(platform, app=app or "demo", clock=clock, conditions=cond, serial=serial, profile=profile)
        )
    sim = Simulator("android" if platform == "android" else "ios", devices, per_device, host)
    try:
        if platform == "android":
            from trailblaze_sim.server.adb import AndroidSimServer

            # no `conditions=`: the server applies each device's own
            server = AndroidSimServer(devices, host=host, port=port, private=private)
            server.start()
            sim._servers.append(server)
            sim.ports.append(server.port)
        else:
            from trailblaze_sim.server.wda import WdaSimServer

            for i, (dev, cond) in enumerate(zip(devices, per_device, strict=True)):
                wserver = WdaSimServer(
                    dev, conditions=cond, host=host, port=port + i if port else 0, private=private
                )
                wserver.start()
                sim._servers.append(wserver)
                sim.ports.append(wserver.port)
    except OSError as exc:
        sim.stop()
        raise UsageError(
            f"cannot start the {platform} simulator on {host}:{port}: {exc.strerror or exc}; "
            "pick another --port (0 picks a free one)"
        ) from exc
    return sim


@contextmanager
def simulator(platform: str, app: str | None = None, **kwargs: object) -> Iterator[Simulator]:
    """`with simulator("android") as sim:` — started on a free port, stopped on exit."""
    sim = start_simulator(platform, app, **kwargs)  # type: ignore[arg-type]
    try:
        yield sim
    finally:
        sim.stop()
