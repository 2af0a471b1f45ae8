"""DeviceSession: the settled dump is cached until the next action; SessionStats counts round trips."""

from __future__ import annotations

import pytest

from tests.support.device import rig
from trailblaze.screen.selector import NodeSelector
from trailblaze_sim.model import ManualClock


def test_settled_dump_is_reused_until_the_next_action() -> None:
    with rig("android", clock=ManualClock()) as r:
        s = r.session
        first = s.screen()
        assert s.stats.dumps == 1
        assert s.screen() is first and s.stats.dumps == 1
        settled = s.settle()  # agrees with the dump already taken: one more dump
        assert s.stats.dumps == 2 and s.settle() is settled and s.stats.dumps == 2
        sel = NodeSelector.model_validate({"androidAccessibility": {"resourceIdRegex": ".*email"}})
        res = s.resolve(sel)
        assert len(res.nodes) == 1 and res.hierarchy is settled and s.stats.dumps == 2
        after = s.act(lambda d: d.tap(*res.nodes[0].center))
        # settling after an action is the device's idle signal plus one dump
        assert after is not None and s.stats.actions == 1 and s.stats.dumps == 3
        assert s.screen() is after and s.stats.round_trips == 4
        assert s.act(lambda d: d.hide_keyboard(), settle=False) is None
        assert s.screen() is not after and s.stats.dumps > 3
        # uiautomator2's JPEG as the device sent it, not decoded and re-encoded as PNG (issue 19)
        assert s.screenshot().startswith(b"\xff\xd8\xff") and s.stats.screenshots == 1
        shown = s.settle()
        shot = s.screenshot()
        taken = s.stats.screenshots
        assert s.screenshot() is shot and s.stats.screenshots == taken  # same settled screen: no round trip
        s.act(lambda d: d.tap(*shown.nodes[0].center))
        assert s.screenshot() is not shot and s.stats.screenshots == taken + 1  # an action: a new picture


def test_resolve_polls_until_its_timeout_and_returns_the_last_matches() -> None:
    with rig("ios", clock=ManualClock(), resolve_timeout=0.2, poll_interval=0.05) as r:
        sel = NodeSelector.model_validate({"iosMaestro": {"resourceIdRegex": "nothing"}})
        res = r.session.resolve(sel)
        # a literal id waits on the device (WDA `/elements`), then one dump confirms: no dump polling
        assert res.nodes == [] and 0.2 <= res.waited_s < 0.5
        assert r.session.stats.element_waits == 1 and r.session.stats.dumps == 2


def test_closing_the_session_stops_the_simulator_it_owns_after_the_driver_once() -> None:
    from trailblaze.device.driver import DeviceInfo
    from trailblaze.device.session import DeviceSession
    from trailblaze.errors import DeviceError

    done: list[str] = []

    class Driver:  # the little of a driver a session needs to open and close
        info = DeviceInfo("android", "android-phone", "emulator-5554", "Pixel", 1080, 2400, 1.0)

        def close(self) -> None:
            done.append("driver closed")
            raise DeviceError("the device went away while closing")

    class Simulator:
        def device_specs(self) -> list[tuple[str, dict[str, str]]]:
            return []

        def how_to_connect(self) -> str:
            return ""

        def stop(self) -> None:
            done.append("simulator stopped")

    session = DeviceSession(Driver(), simulator=Simulator())  # type: ignore[arg-type]
    with pytest.raises(DeviceError):
        session.close()
    session.close()  # closing twice does nothing
    assert done == ["driver closed", "simulator stopped"]
