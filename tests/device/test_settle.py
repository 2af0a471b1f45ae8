"""Settle: noise-tolerant fingerprints, the bounded loop, and end to end against the simulators."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.device import rig
from trailblaze.device.devices import load_driver_plugin
from trailblaze.device.session import DeviceSession
from trailblaze.device.settle import fingerprint, loading_indicator, normalise_text, same_screen, settle
from trailblaze.screen.hierarchy import Hierarchy, parse_hierarchy
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import parse_tool
from trailblaze_sim.faults import LATENCY_PROFILES, Conditions
from trailblaze_sim.model import SteppedClock


def _android(*nodes: str) -> Hierarchy:
    body = "".join(
        f'<node index="{i}" {n} package="com.example" visible-to-user="true" />' for i, n in enumerate(nodes)
    )
    return parse_hierarchy(
        '<?xml version="1.0"?><hierarchy rotation="0"><node index="0" class="android.widget.FrameLayout" '
        'package="com.example" visible-to-user="true" bounds="[0,0][1080,2400]">' + body + "</node></hierarchy>"
    )


def _text(text: str, bounds: str = "[0,100][500,200]", extra: str = "") -> str:
    return f'class="android.widget.TextView" text="{text}" bounds="{bounds}" {extra}'


def test_clock_like_text_is_noise() -> None:
    assert normalise_text("Updated 12:34") == normalise_text("Updated 9:05:59 PM")
    assert normalise_text("12:34:56") == "<time>"
    assert fingerprint(_android(_text("12:34:56"))) == fingerprint(_android(_text("12:34:57")))
    assert fingerprint(_android(_text("Message 1"))) != fingerprint(_android(_text("Message 2")))


def test_focus_and_jitter_are_noise_but_moves_are_not() -> None:
    base = _android(_text("a", extra='focused="false"'))
    assert same_screen(_android(_text("a", extra='focused="true"')), base)
    for jitter in ("[1,101][501,202]", "[3,97][497,203]", "[0,100][503,200]"):
        assert same_screen(_android(_text("a", jitter)), base)
    assert not same_screen(_android(_text("a", "[0,300][500,400]")), base)
    assert not same_screen(_android(_text("a", "[0,110][500,210]")), base)
    assert not same_screen(_android(_text("a", extra='checked="true"')), base)


def test_progress_values_are_noise_and_spinners_count_as_loading() -> None:
    bar = 'class="android.widget.ProgressBar" text="{}" bounds="[0,0][100,100]"'
    assert fingerprint(_android(bar.format("10.0"))) == fingerprint(_android(bar.format("55.0")))
    assert loading_indicator(_android(bar.format("1.0"))) is not None
    assert loading_indicator(_android(_text("Signing in…"))) is not None
    assert loading_indicator(_android(_text("Loading..."))) is not None
    assert loading_indicator(_android(_text("Inbox"))) is None


class _FakeTime:
    def __init__(self) -> None:
        self.t = 0.0

    def clock(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


def _dumps(texts: list[str], ft: _FakeTime) -> Iterator[Hierarchy]:
    for text in texts:
        ft.t += 0.05  # each dump takes time
        yield _android(_text(text))
    while True:
        ft.t += 0.05
        yield _android(_text(texts[-1]))


def test_settle_stops_at_the_first_agreeing_pair() -> None:
    ft = _FakeTime()
    it = _dumps(["a", "b", "c", "c"], ft)
    res = settle(lambda: next(it), timeout=3, interval=0.1, clock=ft.clock, sleep=ft.sleep)
    assert res.settled and not res.timed_out and res.dumps == 4


def test_settle_times_out_on_a_ui_that_never_stops() -> None:
    ft = _FakeTime()
    counter = iter(range(10**6))
    res = settle(lambda: _android(_text(f"frame {next(counter)}")), timeout=1.0, interval=0.1,
                 clock=ft.clock, sleep=ft.sleep)
    assert res.timed_out and not res.settled and 1.0 <= res.waited_s < 1.3


def test_loading_indicator_extends_the_wait_up_to_its_bound() -> None:
    ft = _FakeTime()
    texts = ["Loading…"] * 30 + ["Done", "Done"]
    it = _dumps(texts, ft)
    res = settle(lambda: next(it), timeout=0.5, interval=0.1, loading_timeout=10, clock=ft.clock, sleep=ft.sleep)
    assert res.settled and res.loading_seen and res.waited_s > 0.5
    ft = _FakeTime()
    forever = _dumps(["Loading…"], ft)
    res = settle(lambda: next(forever), timeout=0.5, interval=0.1, loading_timeout=2, clock=ft.clock, sleep=ft.sleep)
    assert res.timed_out and 2.0 <= res.waited_s < 2.5


# --- end to end ----------------------------------------------------------------------------------


def _sign_in(session: DeviceSession) -> None:
    branch = "androidAccessibility" if session.info.platform == "android" else "iosMaestro"
    for text in (
        f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '.*email'}}}}}}",
        "inputText: {text: ada@example.com}",
        f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '.*password'}}}}}}",
        "inputText: {text: hunter2}",
        "tapOnElementWithText: {text: Sign in}",
    ):
        result = run_recorded_tool(session, parse_tool(text), Memory())
        assert result.ok, result


@dataclass
class _JumpClock:
    """Real device time that a test can move forward by hand (the sign-in's wait stays real)."""

    offset: float = 0.0

    def now(self) -> float:
        return time.monotonic() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_realistic_inbox_with_a_ticking_clock_settles(platform: str) -> None:
    conditions = Conditions(latency=LATENCY_PROFILES["realistic"])
    clock = _JumpClock()
    with rig(platform, clock=clock, conditions=conditions, settle_timeout=3.0, resolve_timeout=5.0,
             poll_interval=0.1) as r:  # fmt: skip
        _sign_in(r.session)
        settle_result = r.session.last_settle
        assert settle_result is not None and settle_result.settled and settle_result.loading_seen
        assert r.device.screen_name == "inbox"
        before = r.device.time_of_day()
        clock.advance(1.0)  # the clock label changes
        assert r.device.time_of_day() != before
        r.session.invalidate()
        r.session.settle()
        res = r.session.last_settle
        # the device's idle signal plus one dump; the ticking clock is noise either way
        assert res is not None and res.settled and not res.timed_out and res.dumps == 1


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_animation_after_an_action_is_waited_out(platform: str) -> None:
    clock = SteppedClock()
    conditions = Conditions(animate_after_action_ms=700)
    with rig(platform, clock=clock, conditions=conditions, settle_timeout=3.0, poll_interval=0.05) as r:
        t0 = clock.now()
        r.session.act(lambda d: d.tap(*r.by_id("forgot").center))
        waited = clock.now() - t0  # device time: the device's idle waits move the clock
        res = r.session.last_settle
        assert res is not None and res.settled and not res.timed_out
        # waited out by the device's idle signal (u2 `waitForIdle`, WDA quiescence), not by dumps
        assert 0.7 <= waited < 0.8 and res.dumps == 1
        assert "Syncing" not in " ".join(n.text for n in r.session.screen().nodes)


def test_a_ui_that_never_stops_times_out_at_the_bound_and_says_so() -> None:
    """On Android the session and the device share one stepped clock: every bound is device time."""
    clock = SteppedClock()
    conditions = Conditions(animate_after_action_ms=60_000)
    # The animation shows "Syncing N%", which also reads as a loading indicator: both bounds apply.
    with rig("android", clock=clock, conditions=conditions, settle_timeout=0.5, loading_timeout=1.2,
             poll_interval=0.05) as r:  # fmt: skip
        session = DeviceSession(r.driver, settle_timeout=0.5, loading_timeout=1.2, poll_interval=0.05,
                                clock=clock.now, sleep=clock.advance)  # fmt: skip
        hierarchy = session.act(lambda d: d.tap(*r.by_id("forgot").center))
        res = session.last_settle
        assert hierarchy is not None and res is not None
        assert res.timed_out and not res.settled and session.stats.settle_timeouts == 1
        # idle wait 0.5 s, waiting for the indicator to go until the 1.2 s bound, one last idle wait
        assert 1.2 <= res.waited_s < 1.8 and res.loading_seen
        assert any(n.text.startswith("Syncing") for n in hierarchy.nodes)


@pytest.mark.slow
def test_on_ios_a_ui_that_never_stops_times_out_at_the_bound_and_says_so() -> None:
    """The iOS driver polls for an element to go on the client's clock (WDA has no server-side
    wait), so here the session's bound is a real one, checked from below only; WDA's quiescence
    waits run on the device's stepped clock."""
    conditions = Conditions(animate_after_action_ms=60_000)
    with rig("ios", clock=SteppedClock(), conditions=conditions, settle_timeout=0.5, loading_timeout=1.2,
             poll_interval=0.05) as r:  # fmt: skip
        hierarchy = r.session.act(lambda d: d.tap(*r.by_id("forgot").center))
        res = r.session.last_settle
        assert hierarchy is not None and res is not None
        assert res.timed_out and not res.settled and r.session.stats.settle_timeouts == 1
        assert res.waited_s >= 1.2 and res.loading_seen
        assert any(n.text.startswith("Syncing") for n in hierarchy.nodes)


# --- the device's idle signal ----------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_the_simulators_idle_signal_is_truthful(platform: str) -> None:
    """u2 `waitForIdle` returns only once the after-action animation has ended; a WDA action only
    answers once the app is quiescent (bounded by `waitForIdleTimeout`)."""
    clock = SteppedClock()
    with rig(
        platform, clock=clock, conditions=Conditions(animate_after_action_ms=400), settle_timeout=2.0
    ) as r:
        driver: Any = r.session.driver
        forgot = r.by_id("forgot").center
        t0 = clock.now()
        driver.tap(*forgot)
        if platform == "android":
            assert r.device.animating() and driver.wait_for_idle(0.05) is False
            assert 0.05 <= clock.now() - t0 < 0.07 and r.device.animating()
            assert driver.wait_for_idle(2.0) is True
        else:
            assert driver.wait_for_idle(2.0) is True  # WDA waited inside the tap
        assert 0.4 <= clock.now() - t0 < 0.5 and not r.device.animating()


def test_wda_waits_only_for_apps_launched_with_quiescence_on() -> None:
    """facebook-wda's `app_launch` sends `shouldWaitForQuiescence: false`, which turns WDA's wait off
    for that app; the iOS driver's launch turns it back on, so `wait_for_idle` can trust it."""
    clock = SteppedClock()
    with rig("ios", clock=clock, conditions=Conditions(animate_after_action_ms=400), settle_timeout=2.0) as r:
        import wda

        forgot = r.by_id("forgot").center
        app = r.device.current_app()
        assert app is not None
        raw = wda.Client(r.sim.device_specs()[0][0])  # the rig driver's session, no new one
        raw.app_launch(app.app_id)  # already running: only activated, and its flag is now false
        raw.tap(*forgot)
        assert r.device.animating()  # answered without waiting
        clock.advance(0.4)
        assert not r.device.animating()
        r.driver.launch_app(app.app_id, "RESUME")
        r.driver.tap(*forgot)
        assert not r.device.animating()  # WDA waited inside the tap


def test_with_quiescence_off_the_ios_session_compares_dumps() -> None:
    with rig("ios", conditions=Conditions(animate_after_action_ms=300), settle_timeout=2.0) as r:
        import wda

        driver = load_driver_plugin("ios").open(*r.sim.device_specs()[0])
        # WDA resets its settings for every new session: turn the wait off in the driver's session
        wda.Client(r.sim.device_specs()[0][0]).appium_settings({"waitForIdleTimeout": 0})
        session = DeviceSession(driver, settle_timeout=2.0)
        assert driver.wait_for_idle(1.0) is None  # no idle signal: fingerprints decide
        session.act(lambda d: d.tap(*r.by_id("forgot").center))
        res = session.last_settle
        assert res is not None and res.settled and res.dumps >= 2
        assert "Syncing" not in " ".join(n.text for n in session.screen().nodes)


def test_a_device_side_wait_on_a_stepped_clock_moves_the_clock() -> None:
    from trailblaze_sim import create_device
    from trailblaze_sim.model import wait_until_still

    clock = SteppedClock()
    device = create_device("android", clock=clock, conditions=Conditions(animate_after_action_ms=300))
    (forgot,) = [n for n in device.tree().walk() if n.id == "forgot" and n.visible]
    device.tap(*forgot.frame.center)
    assert device.animating()
    assert wait_until_still(device, 5.0) is True
    assert 0.3 <= clock.now() < 0.32 and not device.animating()
    device.tap(*forgot.frame.center)
    start = clock.now()
    assert wait_until_still(device, 0.1) is False  # bounded in device time
    assert 0.1 <= clock.now() - start < 0.12 and device.animating()
