"""Foreign exceptions become one-line `DeviceError`s that say what failed and how to fix it: closed
ports, unknown devices, and every fault kind the simulators inject."""

from __future__ import annotations

import socket

import pytest

from tests.support.device import rig
from trailblaze.device.devices import load_driver_plugin
from trailblaze.errors import DeviceError, UsageError
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import ManualClock


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_android_closed_port_says_how_to_start_a_server() -> None:
    port = _closed_port()
    with pytest.raises(DeviceError) as err:
        load_driver_plugin("android").open(None, {"adb_host": "127.0.0.1", "adb_port": str(port)})
    msg = err.value.message
    assert f"no adb server at 127.0.0.1:{port}" in msg and "--device sim:android" in msg
    assert "\n" not in msg
    with pytest.raises(DeviceError, match="no adb server"):
        load_driver_plugin("android").list_devices({"adb_port": str(port)})


def test_ios_closed_port_says_how_to_start_wda() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(DeviceError) as err:
        load_driver_plugin("ios").open(url, {})
    assert f"no WebDriverAgent at {url}" in err.value.message and "trailblaze sim ios" in err.value.message


def test_android_unknown_serial_and_bad_port() -> None:
    with rig("android") as r:
        _, options = r.sim.device_specs()[0]
        with pytest.raises(DeviceError, match=r"no android device 'emulator-9999'.*connected: emulator-5554"):
            load_driver_plugin("android").open("emulator-9999", options)
    with pytest.raises(UsageError, match="not a number"):
        load_driver_plugin("android").open(None, {"adb_port": "abc"})


@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.parametrize("fault", ["rpc_error", "drop_connection", "empty_dump", "offline"])
@pytest.mark.slow
def test_fault_kinds_become_device_errors(platform: str, fault: str) -> None:
    conditions = Conditions()
    with rig(platform, clock=ManualClock(), conditions=conditions) as r:
        driver = r.driver
        driver.hierarchy()  # healthy first
        nxt = conditions.requests + 1
        if fault == "rpc_error":
            conditions.rpc_error_on_request = nxt
        elif fault == "drop_connection":
            conditions.drop_connection_on_request = nxt
        elif fault == "empty_dump":
            conditions.empty_dump = True
        else:
            conditions.offline_after_request = conditions.requests
        with pytest.raises(DeviceError) as err:
            driver.hierarchy()
            if fault == "drop_connection":
                driver.hierarchy()  # a client may retry a dropped connection once
        msg = err.value.message
        print(f"{platform} {fault}: {msg}")
        assert "\n" not in msg
        assert "hierarchy" in msg or "empty" in msg
