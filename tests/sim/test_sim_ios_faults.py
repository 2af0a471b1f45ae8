"""Injected faults as the unmodified facebook-wda client experiences them.

What each fault raises in facebook-wda 1.5.4 (asserted below):

* drop_connection (the request is served, its answer lost) -> `wda.usbmux.exceptions.HTTPError`
  wrapping `http.client.RemoteDisconnected` (`Session.tap` swallows it and sends the tap again on the
  legacy `/wda/tap/0`, so a tap whose answer was lost lands twice: the iOS driver posts `/wda/tap`
  itself).
* rpc_error -> `wda.exceptions.WDAUnknownError` (`app_current()` retries it, so it is absorbed there).
* slow dump -> no exception; `source()` just takes longer.
* empty dump -> no exception; the XML is an application element without children.
* offline -> `wda.usbmux.exceptions.HTTPError` wrapping `ConnectionRefusedError`; `is_ready()` is False.
"""

from __future__ import annotations

import http.client
import time

import pytest
import wda
from wda.exceptions import WDAUnknownError
from wda.usbmux.exceptions import HTTPError

from trailblaze_sim import create_device
from trailblaze_sim.faults import Conditions, LatencyProfile
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.wda import WdaSimServer


def _server(conditions: Conditions, clock: ManualClock | None = None) -> WdaSimServer:
    device = create_device("ios", app="demo", clock=clock or ManualClock(), conditions=conditions)
    return WdaSimServer(device, conditions=conditions).start()


def test_dropped_connection_raises_http_error_then_recovers() -> None:
    cond = Conditions(drop_connection_on_request=2)
    with _server(cond) as srv:
        c = wda.Client(srv.url)
        assert c.locked() is False  # request 1
        with pytest.raises(HTTPError) as info:
            c.locked()  # request 2 is dropped
        assert isinstance(info.value.args[0], http.client.RemoteDisconnected)
        assert c.locked() is False
        assert srv.stats.faults == {"drop_connection": 1}


def test_a_tap_whose_answer_is_lost_is_sent_again_by_the_client_and_lands_twice() -> None:
    cond = Conditions()
    clock = ManualClock()
    with _server(cond, clock) as srv:
        s = wda.Client(srv.url).session()
        s(id="email").set_text("ann@example.com")
        s(id="password").set_text("hunter2")
        s(id="sign_in").click()
        clock.advance(1.0)
        s(id="tab_settings").click()
        x, y = s(id="dark_mode").bounds.center
        cond.drop_connection_on_request = cond.requests + 1
        s.tap(x, y)  # /wda/tap toggles, its answer is lost; facebook-wda taps again on /wda/tap/0
        assert s(id="dark_mode").value == "0"  # toggled twice


def test_protocol_error_is_wda_unknown_error() -> None:
    cond = Conditions(rpc_error_on_request=3)
    with _server(cond) as srv:
        c = wda.Client(srv.url)
        c.status()
        c.locked()
        with pytest.raises(WDAUnknownError) as info:
            c.locked()
        assert info.value.value["error"] == "unknown error"
        cond.rpc_error_on_request = cond.requests + 1
        assert c.app_current()["bundleId"] == "dev.trailblaze.demo"  # retried by the client


def test_slow_and_empty_source() -> None:
    cond = Conditions(slow_dump_s=0.3, empty_dump=True)
    with _server(cond) as srv:
        s = wda.Client(srv.url).session()
        t0 = time.perf_counter()
        xml = s.source()
        assert time.perf_counter() - t0 >= 0.3
        assert xml.count("<XCUIElementType") == 1 and xml.rstrip().endswith("/>")
        t0 = time.perf_counter()
        assert s(id="sign_in").exists  # finding is not a dump: fast and complete
        assert time.perf_counter() - t0 < 0.25


def test_latency_profile_per_request_kind() -> None:
    profile = LatencyProfile("test", dump=(0.2, 0.2), action=(0.1, 0.1), screenshot=(0.15, 0.15))
    cond = Conditions(latency=profile)
    with _server(cond) as srv:
        s = wda.Client(srv.url).session()

        def timed(fn: object) -> float:
            t0 = time.perf_counter()
            fn()  # type: ignore[operator]
            return time.perf_counter() - t0

        assert timed(s.source) >= 0.2
        assert timed(lambda: s.tap(1, 1)) >= 0.1
        assert timed(lambda: s.screenshot(format="raw")) >= 0.15
        assert timed(s.window_size) < 0.1


def test_device_offline_refuses_connections() -> None:
    cond = Conditions(offline_after_request=2)
    with _server(cond) as srv:
        c = wda.Client(srv.url)
        c.locked()
        c.locked()
        with pytest.raises(HTTPError):
            c.locked()  # the third request finds the device gone: dropped, listener closed
        with pytest.raises(HTTPError) as info:
            c.locked()
        assert isinstance(info.value.args[0], ConnectionRefusedError)
        assert c.is_ready() is False
        assert srv.offline
