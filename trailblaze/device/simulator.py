"""The simulator seam: `--device sim:android|ios` and `trailblaze sim android|ios` come from a plugin.

The simulator (the fake adb / uiautomator2 / WebDriverAgent servers and the demo app) is its own
distribution, `trailblaze-sim` (`drivers/sim`), so the library people install for real phones does not
carry it. It registers a `SimulatorPlugin` as `sim` under the `trailblaze.simulators` entry-point group;
the core finds it only when a simulated device is asked for and never imports `trailblaze_sim` itself.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Protocol, cast

from trailblaze.errors import UsageError

__all__ = ["INSTALL_HINT", "RunningSimulator", "SimulatorPlugin", "load_simulator"]

_GROUP = "trailblaze.simulators"
INSTALL_HINT = 'pip install "trailblaze[sim]" (from a checkout: pip install -e ./drivers/sim)'


class RunningSimulator(Protocol):
    """Simulated devices and their protocol server, running until `stop()`."""

    def device_specs(self) -> list[tuple[str, dict[str, str]]]:
        """`(target, plugin options)` for each device, as the driver plugin's `open()` wants them."""
        ...

    def how_to_connect(self) -> str:
        """One line telling a person how to point a client at the simulator."""
        ...

    def stop(self) -> None: ...


class SimulatorPlugin(Protocol):
    def start(
        self,
        platform: str,
        app: str,
        *,
        count: int = 1,
        port: int = 0,
        latency: str | None = None,
        timed_gestures: bool | None = None,
        faults: float = 0.0,
        seed: int = 0,
        profile: str | None = None,
        private: bool = False,
    ) -> RunningSimulator:
        """Starts `count` simulated `platform` devices running `app` (a bundled name or a spec path).

        `latency` names a latency profile (None: `zero`); `timed_gestures` True makes a swipe last as
        long as the client asks, False makes it instant, None keeps the profile's own setting;
        `faults` is each request's chance of a transient fault (a dropped connection, a protocol
        error, an empty dump, a stall), drawn from `seed`. `profile` names the device profile
        (`small`, `tablet+dark`, `large-font`; None: the platform's phone). `private` serves only
        clients in this process (an in-process replay), where the platform allows telling them apart.

        Raises:
            UsageError: An unknown platform, app or profile, a fault rate outside 0 to 1, or a port
                that is taken.
        """
        ...


def load_simulator(spec: str = "sim:android") -> SimulatorPlugin:
    """The installed simulator plugin; `UsageError` (exit 2) saying how to install it when absent."""
    for ep in entry_points(group=_GROUP, name="sim"):
        return cast("SimulatorPlugin", ep.load())
    raise UsageError(f"{spec} needs the simulator, which is not installed: {INSTALL_HINT}")
