"""Faults are per device: in a pool of simulated devices, arming one device's `Conditions` leaves the
others untouched — Android (two devices behind one adb server, uiautomator2 clients by serial) and iOS
(one WebDriverAgent server per device, facebook-wda clients)."""

from __future__ import annotations

import adbutils
import pytest
import uiautomator2 as u2
import wda
from uiautomator2.exceptions import AdbShellError, RPCUnknownError
from wda.exceptions import WDAUnknownError
from wda.usbmux.exceptions import HTTPError

from trailblaze.errors import UsageError
from trailblaze_sim.faults import Conditions
from trailblaze_sim.runtime import simulator


def test_every_device_gets_its_own_conditions() -> None:
    template = Conditions(slow_dump_s=0.01, seed=7)
    with simulator("android", count=3, latency=template) as sim:
        own = [sim.conditions_for(i) for i in range(3)]
        assert own[0] is template is sim.conditions  # the single-device API is unchanged
        assert len({id(c) for c in own}) == 3
        assert [c.slow_dump_s for c in own] == [0.01] * 3 and [c.seed for c in own] == [7, 8, 9]
        assert sim.conditions_for("emulator-5558") is own[2]
        assert [getattr(d, "conditions", None) for d in sim.devices] == own
        with pytest.raises(UsageError, match="emulator-5554, emulator-5556, emulator-5558"):
            sim.conditions_for("emulator-9999")
        with pytest.raises(UsageError):
            sim.conditions_for(3)


@pytest.mark.slow
def test_a_fault_on_android_device_2_leaves_device_1_alone() -> None:
    with simulator("android", count=2, latency="zero") as sim:
        client = adbutils.AdbClient(sim.host, sim.port)
        assert [d.serial for d in client.device_list()] == ["emulator-5554", "emulator-5556"]
        d1 = u2.connect(client.device("emulator-5554"))
        d2 = u2.connect(client.device("emulator-5556"))
        first, second = sim.conditions_for("emulator-5554"), sim.conditions_for("emulator-5556")
        try:
            assert d1.info["sdkInt"] == d2.info["sdkInt"] == 34

            # A protocol error on device 2's next request: device 1 neither fails nor counts it.
            second.rpc_error_on_request = second.requests + 1
            before = first.requests
            assert d1.info["sdkInt"] == 34
            assert first.requests == before + 1
            with pytest.raises(RPCUnknownError):
                _ = d2.info
            assert d2.info["sdkInt"] == 34

            # Empty dumps on device 2 only.
            second.empty_dump = True
            assert "Welcome back" in d1.dump_hierarchy()
            assert "Welcome back" not in d2.dump_hierarchy()
            second.empty_dump = False

            # Device 2 goes offline: it leaves `host:devices`, device 1 keeps working.
            second.offline_after_request = second.requests
            assert [d.serial for d in client.device_list()] == ["emulator-5554"]
            with pytest.raises(adbutils.AdbError, match="device offline"):
                _ = d2.info
            with pytest.raises(AdbShellError):
                d2.shell("echo hi")
            d1(text="Sign in").click()
            assert d1(text="Email required").wait(timeout=2)
            assert d1.shell("echo still here").output.strip() == "still here"
            assert not first.offline
        finally:
            d1.stop_uiautomator(wait=False)


def test_a_fault_on_ios_device_2_leaves_device_1_alone() -> None:
    with simulator("ios", count=2, latency="zero") as sim:
        assert len(set(sim.ports)) == 2  # one WebDriverAgent server per device
        c1, c2 = (wda.Client(f"http://{sim.host}:{port}") for port in sim.ports)
        first, second = sim.conditions_for(0), sim.conditions_for(1)
        assert c1.locked() is False and c2.locked() is False

        second.rpc_error_on_request = second.requests + 1
        before = first.requests
        assert c1.locked() is False
        assert first.requests == before + 1
        with pytest.raises(WDAUnknownError):
            c2.locked()

        second.empty_dump = True
        assert "Welcome back" in c1.source()
        assert "Welcome back" not in c2.source()
        second.empty_dump = False

        second.offline_after_request = second.requests
        with pytest.raises(HTTPError):
            c2.locked()
        assert c2.is_ready() is False
        assert c1.is_ready() is True
        assert c1.session()(id="sign_in").exists
        assert not first.offline
