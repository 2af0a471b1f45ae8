"""Devices on other hosts: `android@HOST:PORT[:SERIAL]` (a remote adb server) and `ios@http://HOST:PORT`
(a WebDriverAgent elsewhere). The "remote" hosts are simulators listening on loopback addresses other
than the default adb server's (127.0.0.1 at a free port, and 127.0.0.2), driven by the real clients."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.support.cli import copy_example, trailblaze
from tests.support.paths import ROOT
from trailblaze.device.devices import DeviceSpec, open_device, parse_device_spec
from trailblaze.errors import DeviceError, UsageError
from trailblaze_sim.runtime import Simulator, start_simulator

pytest_plugins = ["pytester"]


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("android@10.0.0.7:5037", DeviceSpec("android", False, None, ("10.0.0.7", 5037))),
        (
            "android@farm.local:5038:emulator-5556",
            DeviceSpec("android", False, "emulator-5556", ("farm.local", 5038)),
        ),
        (
            "android@10.0.0.7:5037:10.0.0.9:5555",
            DeviceSpec("android", False, "10.0.0.9:5555", ("10.0.0.7", 5037)),
        ),
        ("android@[::1]:5037:R58M", DeviceSpec("android", False, "R58M", ("::1", 5037))),
        ("ios@http://10.0.0.8:8100", DeviceSpec("ios", False, "http://10.0.0.8:8100", None)),
        ("ios@10.0.0.8:8100", DeviceSpec("ios", False, "http://10.0.0.8:8100", None)),
    ],
)
def test_remote_specs_parse_and_print_back(spec: str, parsed: DeviceSpec) -> None:
    assert parse_device_spec(spec) == parsed
    assert parse_device_spec(str(parsed)) == parsed


@pytest.mark.parametrize(
    "spec", ["android@10.0.0.7", "android@:5037", "android@host:99999", "android@host:x", "ios@"]
)
def test_a_bad_remote_spec_names_the_form(spec: str) -> None:
    with pytest.raises(UsageError, match=r"android@HOST:PORT\[:SERIAL\]|ios@http://HOST:PORT"):
        parse_device_spec(spec)


@pytest.fixture(scope="module")
def remote_android() -> Iterator[Simulator]:
    sim = start_simulator("android", "demo", host="127.0.0.1")
    try:
        yield sim
    finally:
        sim.stop()


@pytest.fixture(scope="module")
def remote_ios() -> Iterator[Simulator]:
    sim = start_simulator("ios", "demo", host="127.0.0.2")  # a second loopback address: another "host"
    try:
        yield sim
    finally:
        sim.stop()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_remote_android_and_ios_open_through_the_real_clients(
    remote_android: Simulator, remote_ios: Simulator
) -> None:
    nowhere = {
        "ANDROID_ADB_SERVER_PORT": str(_closed_port())
    }  # the spec's server wins over the environment's
    with open_device(f"android@127.0.0.1:{remote_android.port}:emulator-5554", env=nowhere) as session:
        assert repr(session.driver) == f"<AndroidDriver emulator-5554 via 127.0.0.1:{remote_android.port}>"
        assert session.driver.current_app() == "dev.trailblaze.demo"
    with open_device(f"ios@http://127.0.0.2:{remote_ios.ports[0]}") as session:
        assert repr(session.driver) == f"<IosDriver http://127.0.0.2:{remote_ios.ports[0]}>"
        assert session.screen().nodes
    with pytest.raises(
        DeviceError, match=rf"no android device 'emulator-9' on adb server 127.0.0.1:{remote_android.port}"
    ):
        open_device(f"android@127.0.0.1:{remote_android.port}:emulator-9")


def test_the_standard_adb_environment_names_a_remote_server(remote_android: Simulator) -> None:
    env = {"ANDROID_ADB_SERVER_HOST": "127.0.0.1", "ANDROID_ADB_SERVER_PORT": str(remote_android.port)}
    with open_device("android", env=env) as session:
        assert f"via 127.0.0.1:{remote_android.port}" in repr(session.driver)


def test_cli_snapshot_of_a_remote_device_and_a_bad_spec(remote_android: Simulator) -> None:
    ok = trailblaze("snapshot", "--device", f"android@127.0.0.1:{remote_android.port}")
    assert ok.returncode == 0, ok.stderr
    assert 'EditText "Email"' in ok.stdout
    bad = trailblaze("snapshot", "--device", "android@127.0.0.1")
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: device 'android@127.0.0.1': use android@HOST:PORT[:SERIAL]")


@pytest.mark.slow
def test_a_pytest_pool_mixes_remote_and_local_devices(
    pytester: pytest.Pytester, remote_android: Simulator
) -> None:
    """One matrix run drives a remote phone and an in-process simulated iPhone."""
    trails = pytester.path / "trails"
    trails.mkdir()
    copy_example("login.trail.yaml", trails)
    examples_conftest = ROOT / "trails" / "conftest.py"
    (trails / "conftest.py").write_text(examples_conftest.read_text())  # the demo's public password
    android = f"android@127.0.0.1:{remote_android.port}"
    result = pytester.runpytest_subprocess(
        "trails", "--device", android, "--device", "sim:ios", "--trailblaze-each-device", "-v", "-p", "no:cacheprovider",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    text = "\n".join(result.outlines)
    for spec in (android, "sim:ios"):
        assert f"demo/login[{spec}] PASSED" in text
