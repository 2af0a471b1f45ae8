"""The simulator is a plugin (`trailblaze-sim`, drivers/sim): found through the `trailblaze.simulators`
entry point, and missed in one line that says how to install it."""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import EntryPoint

import pytest

import trailblaze.device.simulator as simulator_module
from tests.support.paths import ROOT
from trailblaze.cli.main import main
from trailblaze.device.devices import open_device
from trailblaze.device.simulator import load_simulator
from trailblaze.errors import EXIT_USAGE, UsageError

LOGIN = ROOT / "trails" / "login.trail.yaml"


@pytest.fixture
def no_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if `trailblaze-sim` were not installed: its entry point is missing."""

    def without_sim(**kwargs: str) -> list[EntryPoint]:
        assert kwargs == {"group": "trailblaze.simulators", "name": "sim"}
        return []

    monkeypatch.setattr(simulator_module, "entry_points", without_sim)


def test_the_installed_simulator_is_found_through_its_entry_point() -> None:
    from trailblaze_sim.plugin import simulator_plugin

    assert load_simulator() is simulator_plugin


def test_the_plugin_starts_a_simulator_a_driver_can_open() -> None:
    sim = load_simulator().start("android", "demo")
    try:
        ((serial, options),) = sim.device_specs()
        assert serial == "emulator-5554"
        assert options["adb_host"] == "127.0.0.1"
        assert f"adb -P {options['adb_port']} devices" in sim.how_to_connect()
    finally:
        sim.stop()


def test_a_simulated_device_without_the_simulator_says_how_to_install_it(no_simulator: None) -> None:
    with pytest.raises(
        UsageError, match=r"sim:ios needs the simulator, which is not installed: pip install \"trailblaze\[sim\]\""
    ):
        open_device("sim:ios")


@pytest.mark.parametrize(
    ("args", "what"),
    [
        (["replay", str(LOGIN), "--device", "sim:android", "--secret", "password=hunter2"], "sim:android"),
        (["snapshot", "--device", "sim:ios:demo@v2"], "sim:ios"),
        (["sim", "android"], "trailblaze sim android"),
    ],
)
def test_the_cli_without_the_simulator_exits_2_in_one_line(
    no_simulator: None, capsys: pytest.CaptureFixture[str], args: list[str], what: str
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(args)
    _out, err = capsys.readouterr()
    assert exc.value.code == EXIT_USAGE
    assert (
        err
        == f'error: {what} needs the simulator, which is not installed: pip install "trailblaze[sim]" (from a checkout: pip install -e ./drivers/sim)\n'
    )


def test_the_fake_model_endpoint_needs_no_simulator(
    no_simulator: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import trailblaze.cli.sim_command as sim_module

    served: list[str] = []

    def serve(how: str, stop: Callable[[], None]) -> None:
        served.append(how)
        stop()

    monkeypatch.setattr(sim_module, "_foreground", serve)
    with pytest.raises(SystemExit) as exc:
        main(["sim", "llm"])
    assert exc.value.code in (0, None)
    assert "ANTHROPIC_BASE_URL=http://127.0.0.1:" in served[0]
