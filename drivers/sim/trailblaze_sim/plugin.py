"""The simulator as a trailblaze plugin (`trailblaze.simulators` entry point `sim`)."""

from __future__ import annotations

from trailblaze_sim import runtime
from trailblaze_sim.faults import Conditions
from trailblaze_sim.runtime import Simulator, sim_conditions

__all__ = ["SimPlugin", "simulator_plugin"]


class SimPlugin:
    """Implements `trailblaze.device.simulator.SimulatorPlugin` over `runtime.start_simulator` (looked up at
    call time, so a test can stand in for it)."""

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
    ) -> Simulator:
        conditions: str | Conditions | None = latency
        if timed_gestures is not None or faults:
            conditions = sim_conditions(latency or "zero", timed_gestures=timed_gestures, faults=faults, seed=seed)
        return runtime.start_simulator(
            platform, app, count=count, port=port, latency=conditions, profile=profile, private=private
        )


simulator_plugin = SimPlugin()
