"""Fault injection (`Conditions`) as the real uiautomator2 client experiences it.

What each fault raises in uiautomator2 3.7.1 / adbutils 2.12.0:
- drop_connection on an RPC → `http.client.RemoteDisconnected` (a `ConnectionError`); on the
  connect-time `/ping` → the client thinks the server is down and relaunches it, connect succeeds.
- rpc_error → `uiautomator2.exceptions.RPCUnknownError` (-32001 java.lang.RuntimeException).
- empty_dump → `d.dump_hierarchy()` retries 3× (HierarchyEmptyError inside) and returns the empty
  document; `d.xpath(...)` finds nothing.
- slow dump / latency profile → calls just take longer.
- offline → RPCs raise `adbutils.AdbError("device offline")`, `d.shell` raises
  `uiautomator2.exceptions.AdbShellError`; `host:devices` lists nothing.
"""

from __future__ import annotations

import http.client
import time

import adbutils
import pytest
import uiautomator2 as u2
from uiautomator2.exceptions import AdbShellError, RPCUnknownError

from tests.support.sim_android import android_rig
from trailblaze_sim.faults import Conditions, LatencyProfile


def test_one_request_counted_per_http_request() -> None:
    cond = Conditions()
    with android_rig(conditions=cond) as rig:
        d = rig.d
        before = cond.requests
        _ = d.info
        assert cond.requests == before + 1
        d(text="Sign in").click()  # waitForExists + objInfo + click
        assert cond.requests == before + 4
        d.shell("echo not http")  # adb shell traffic is not an HTTP request
        assert cond.requests == before + 4


def test_dropped_connection_raises_remote_disconnected_then_recovers() -> None:
    cond = Conditions()
    with android_rig(conditions=cond) as rig:
        cond.drop_connection_on_request = cond.requests + 2
        _ = rig.d.info
        with pytest.raises(http.client.RemoteDisconnected):
            _ = rig.d.info
        assert rig.d.info["sdkInt"] == 34


def test_dropped_ping_at_connect_makes_client_relaunch_server() -> None:
    cond = Conditions(drop_connection_on_request=1)
    with android_rig(conditions=cond) as rig:
        assert any("app_process" in e for e in rig.server.log)
        assert rig.d(text="Welcome back").exists


def test_rpc_error_raises_rpc_unknown_error() -> None:
    cond = Conditions()
    with android_rig(conditions=cond) as rig:
        cond.rpc_error_on_request = cond.requests + 1
        with pytest.raises(RPCUnknownError, match="java.lang.RuntimeException"):
            rig.d.click(540, 1200)
        assert rig.d(text="Welcome back").exists


@pytest.mark.slow
def test_empty_dump_is_retried_then_returned_empty() -> None:
    cond = Conditions(empty_dump=True)
    with android_rig(conditions=cond) as rig:
        before = cond.requests
        xml = rig.d.dump_hierarchy()
        assert xml.endswith('<hierarchy rotation="0" />')
        assert cond.requests == before + 3  # u2 retried twice
        assert rig.d(text="Welcome back").exists  # selectors do not go through the dump


def test_slow_dump_and_latency_profile_per_kind() -> None:
    profile = LatencyProfile("test", dump=(0.15, 0.15), action=(0.05, 0.05))
    cond = Conditions(latency=profile, slow_dump_s=0.1)
    with android_rig(conditions=cond) as rig:
        t = time.perf_counter()
        rig.d.dump_hierarchy()
        dump_s = time.perf_counter() - t
        t = time.perf_counter()
        rig.d.click(540, 100)
        click_s = time.perf_counter() - t
        t = time.perf_counter()
        _ = rig.d(text="Welcome back").exists  # `other`: no latency
        other_s = time.perf_counter() - t
        assert dump_s >= 0.25 and 0.05 <= click_s < 0.25 and other_s < 0.05


def test_device_offline_mid_run() -> None:
    cond = Conditions()
    with android_rig(conditions=cond) as rig:
        d = rig.d
        cond.offline_after_request = cond.requests + 1
        assert d.info["sdkInt"] == 34  # the last request before the device vanishes
        with pytest.raises(adbutils.AdbError, match="device offline"):
            _ = d.info
        with pytest.raises(AdbShellError):
            d.shell("echo hi")
        assert rig.client.device_list() == []
        with pytest.raises(adbutils.AdbError, match="device offline"):
            u2.connect(rig.client.device(rig.serial))
