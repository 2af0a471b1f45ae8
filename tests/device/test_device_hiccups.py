"""Transient device faults (ADR 0057): reads are sent again with backoff, a failed action is judged
and never blindly repeated, a device that is gone fails fast. The policy alone first, then through
the real clients against the simulators, whose faults (`Conditions`) land on the wire."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.device import Arming, Rig, rig
from trailblaze.device.hiccups import Backoff, Hiccups, judge, moved_on
from trailblaze.errors import AppNotInstalledError, DeviceError, SessionLost, WireFault, exit_code_for
from trailblaze.screen.hierarchy import Hierarchy

# --- the policy --------------------------------------------------------------------------------------


def _flaky(fails: int, error: DeviceError) -> tuple[Callable[[], str], list[int]]:
    calls = [0]

    def call() -> str:
        calls[0] += 1
        if calls[0] <= fails:
            raise error
        return "ok"

    return call, calls


def _counted(sleeps: list[float], noted: list[int] | None = None) -> Hiccups:
    """A policy of 4 retries that records its pauses in `sleeps` and each fault survived in `noted`."""
    out = noted if noted is not None else []
    return Hiccups(Backoff(first_s=0.25, max_s=1.0, retries=4), sleep=sleeps.append, noted=lambda: out.append(1))


def test_a_read_is_sent_again_after_a_doubling_pause_and_counted() -> None:
    sleeps: list[float] = []
    noted: list[int] = []
    call, calls = _flaky(3, DeviceError("dumping failed", wire="no_answer"))
    assert _counted(sleeps, noted).read(call) == "ok"
    assert calls == [4] and sleeps == [0.25, 0.5, 1.0] and len(noted) == 3


def test_a_read_that_keeps_failing_raises_and_the_next_reads_get_one_try() -> None:
    sleeps: list[float] = []
    hiccups = _counted(sleeps)
    gone = DeviceError("no WebDriverAgent at http://127.0.0.1:1", wire="refused")
    call, calls = _flaky(99, gone)
    with pytest.raises(DeviceError) as caught:
        hiccups.read(call)
    assert caught.value.message == "no WebDriverAgent at http://127.0.0.1:1 (tried 5 times over 0 s)"
    assert caught.value.wire == "refused" and calls == [5] and sleeps == [0.25, 0.5, 1.0, 1.0]
    sleeps.clear()
    with pytest.raises(DeviceError):
        hiccups.read(call)  # the device left: no backoff for every request that follows
    assert calls == [6] and sleeps == []
    back, _ = _flaky(0, gone)
    assert hiccups.read(back) == "ok"  # it answered again: faults are retried again
    call, calls = _flaky(1, gone)
    assert hiccups.read(call) == "ok" and calls == [2]


@pytest.mark.parametrize("error", [SessionLost("the Appium session ended"), AppNotInstalledError("x", [], where="it")])
def test_a_lost_session_or_a_missing_app_is_not_retried(error: DeviceError) -> None:
    sleeps: list[float] = []
    call, calls = _flaky(1, error)
    with pytest.raises(DeviceError):
        _counted(sleeps).read(call)
    assert calls == [1] and sleeps == []


@pytest.mark.parametrize(
    ("wire", "tries"), [("refused", 1), ("not_sent", 1), (None, 1), ("no_answer", 2), ("error_answer", 2)]
)
def test_opening_retries_only_a_device_that_was_there(wire: WireFault | None, tries: int) -> None:
    sleeps: list[float] = []
    call, calls = _flaky(1, DeviceError("connecting failed", wire=wire))
    if tries == 1:  # a closed port or an unknown serial: the user's mistake, said at once
        with pytest.raises(DeviceError):
            _counted(sleeps).connect(call)
    else:
        assert _counted(sleeps).connect(call) == "ok"
    assert calls == [tries]


@pytest.mark.parametrize(
    ("wire", "moved", "took_effect", "verdict"),
    [
        ("no_answer", True, None, "happened"),  # the answer was lost, the screen moved on
        ("no_answer", False, None, "unknown"),  # it may have happened: never sent again
        ("no_answer", None, None, "unknown"),
        (None, False, None, "unknown"),
        ("error_answer", False, None, "send_again"),  # the device said it did nothing
        ("error_answer", None, None, "send_again"),
        ("refused", False, None, "send_again"),
        ("not_sent", True, None, "send_again"),  # never sent: the screen moved for another reason
        ("error_answer", True, None, "partly"),  # it said so, yet something changed
        ("no_answer", True, False, "send_again"),  # the action's own check decides
        ("no_answer", False, True, "happened"),
        ("error_answer", True, True, "send_again"),  # the device refused it: its app was up from before
    ],
)
def test_what_is_done_about_a_failed_action(
    wire: WireFault | None, moved: bool | None, took_effect: bool | None, verdict: str
) -> None:
    assert judge(DeviceError("tapping failed", wire=wire), moved, took_effect) == verdict


# --- through the real clients --------------------------------------------------------------------


def _taps(r: Rig, monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, float]]:
    """Every tap the simulated phone received, counted on the device itself."""
    taps: list[tuple[float, float]] = []
    real = r.device.tap

    def tap(x: float, y: float) -> None:
        taps.append((x, y))
        real(x, y)

    monkeypatch.setattr(r.device, "tap", tap)
    return taps


def _texts(hierarchy: Hierarchy) -> list[str]:
    return [n.text or n.label for n in hierarchy.visible_nodes()]


PLATFORMS = ["android", "ios"]


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_tap_whose_answer_is_lost_is_not_sent_again(platform: str, monkeypatch: pytest.MonkeyPatch) -> None:
    conditions = Arming()
    with rig(platform, conditions=conditions) as r:
        taps = _taps(r, monkeypatch)
        sign_in = r.by_id("sign_in")
        conditions.armed = "drop_connection"  # served, the answer lost
        after = r.session.act(lambda d: d.tap(*sign_in.center))
        assert len(taps) == 1  # the device saw one tap: trailblaze did not send it again, nor did the client
        assert after is not None and "Email required" in _texts(after)
        assert r.session.stats.hiccups == 1


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_tap_the_device_refused_is_sent_again(platform: str, monkeypatch: pytest.MonkeyPatch) -> None:
    conditions = Arming()
    with rig(platform, conditions=conditions) as r:
        taps = _taps(r, monkeypatch)
        sign_in = r.by_id("sign_in")
        conditions.armed = "rpc_error"  # a JSON-RPC error / WDA 500: the device did not do it
        after = r.session.act(lambda d: d.tap(*sign_in.center))
        assert len(taps) == 1 and after is not None and "Email required" in _texts(after)
        assert r.session.stats.hiccups == 1


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_lost_tap_that_changed_nothing_fails_the_step_and_is_not_repeated(
    platform: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    conditions = Arming()
    with rig(platform, conditions=conditions) as r:
        taps = _taps(r, monkeypatch)
        heading = next(n for n in r.session.refresh().visible_nodes() if n.text == "Welcome back" or n.label == "Welcome back")
        conditions.armed = "drop_connection"
        with pytest.raises(DeviceError) as caught:
            r.session.act(lambda d: d.tap(*heading.center))
        assert len(taps) == 1
    message = caught.value.message
    assert exit_code_for(caught.value) == 3 and "\n" not in message
    assert message.startswith("tapping at (")
    assert message.endswith(
        "— not sent again: no answer came and the screen did not change, so it may or may not have happened; "
        "rerun the trail"
    )


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_screen_moved_on_by_what_the_app_shows_not_by_focus_or_keyboard(platform: str) -> None:
    with rig(platform) as r:
        before_tap = r.session.refresh()
        email = r.by_id("email")
        focused = r.session.act(lambda d: d.tap(*email.center))
        assert focused is not None and focused.keyboard_shown  # on iOS inside the app's own tree
        typed = r.session.act(lambda d: d.input_text("ann@example.com"))
        assert typed is not None
    assert moved_on(before_tap, None, focused) is True  # the screen before the tap itself: focus counts
    assert moved_on(None, before_tap, focused) is False  # only the dump before a field tap: content only
    assert moved_on(None, before_tap, typed) is True
    assert moved_on(None, None, typed) is None


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_typing_after_a_field_tap_is_typed_once_when_its_answer_is_lost(platform: str) -> None:
    conditions = Arming()
    with rig(platform, conditions=conditions) as r:
        email = r.by_id("email")
        r.session.act(lambda d: d.tap(*email.center), observe=False, focus_only=True)  # as a field tap does
        conditions.armed = "drop_connection"
        r.session.act(lambda d: d.input_text("ann@example.com"), observe=False)
        assert r.by_id("email").text == "ann@example.com"
        assert r.session.stats.hiccups == 1 and conditions.armed is None


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_lost_tap_into_the_field_that_has_the_focus_is_taken_as_landed(platform: str) -> None:
    from trailblaze.device.noop import act_and_compare

    conditions = Arming()
    with rig(platform, conditions=conditions) as r:
        email = r.by_id("email")
        r.session.act(lambda d: d.tap(*email.center))  # focused, the keyboard up
        r.session.refresh()
        conditions.armed = "drop_connection"  # a second tap changes nothing the screen shows
        act_and_compare(r.session, lambda d: d.tap(*email.center), point=email.center)
        assert r.session.stats.hiccups == 1 and conditions.armed is None


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_field_tap_sent_again_still_lets_the_typing_after_it_be_judged(platform: str) -> None:
    conditions = Arming()
    with rig(platform, conditions=conditions) as r:
        email = r.by_id("email")
        conditions.armed = "rpc_error"  # the field tap is refused, then sent again
        r.session.act(lambda d: d.tap(*email.center), observe=False, focus_only=True)
        conditions.armed = "drop_connection"
        r.session.act(lambda d: d.input_text("ann@example.com"), observe=False)
        assert r.by_id("email").text == "ann@example.com" and r.session.stats.hiccups == 2


@pytest.mark.slow
def test_typing_whose_clipboard_set_up_is_lost_is_typed_once() -> None:
    conditions = Arming(armed_kind="other")  # uiautomator2 pastes: setClipboard, getClipboard, pasteClipboard
    with rig("android", conditions=conditions) as r:
        email = r.by_id("email")
        r.session.act(lambda d: d.tap(*email.center), observe=False, focus_only=True)
        conditions.armed = "drop_connection"  # on setClipboard: the clipboard is set, the answer lost
        r.session.act(lambda d: d.input_text("ann@example.com"), observe=False)
        assert r.by_id("email").text == "ann@example.com" and conditions.armed is None
        assert r.session.stats.hiccups == 1  # sent again: the driver had not pasted yet


@pytest.mark.slow
def test_a_launch_cut_short_is_sent_again_once_its_app_is_not_up(monkeypatch: pytest.MonkeyPatch) -> None:
    conditions = Arming()
    with rig("ios", conditions=conditions) as r:
        launches: list[str] = []
        real = r.device.launch

        def launch(app_id: str, **kwargs: Any) -> None:
            launches.append(app_id)
            real(app_id, **kwargs)

        monkeypatch.setattr(r.device, "launch", launch)
        conditions.armed = "drop_connection"  # on the terminate: the app stops, the launch is never sent
        r.session.act(
            lambda d: d.launch_app("dev.trailblaze.demo", "FORCE_RESTART"),
            took_effect=lambda: r.session.current_app() == "dev.trailblaze.demo",
        )
        assert r.session.current_app() == "dev.trailblaze.demo"
        assert launches == ["dev.trailblaze.demo"]  # launched once: the first send never got that far
        assert r.session.stats.hiccups == 1


@pytest.mark.slow
def test_a_clean_launch_refused_half_way_is_sent_again_though_its_app_is_up() -> None:
    conditions = Arming()
    with rig("ios", conditions=conditions) as r:
        email = r.by_id("email")
        r.session.act(lambda d: d.tap(*email.center))
        r.session.act(lambda d: d.input_text("ann@example.com"))
        conditions.armed = "rpc_error"  # on the terminate: the app stays up, with its state
        r.session.act(
            lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"),
            took_effect=lambda: r.session.current_app() == "dev.trailblaze.demo",
        )
        assert r.by_id("email").text != "ann@example.com"  # relaunched with its data cleared
        assert r.session.stats.hiccups == 1


@pytest.mark.slow
@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_dump_that_fails_is_sent_again(platform: str) -> None:
    conditions = Arming(armed_kind="dump")
    with rig(platform, conditions=conditions) as r:
        for fault in ("drop_connection", "rpc_error", "empty_dump"):
            conditions.armed = fault  # type: ignore[assignment]
            started = time.monotonic()
            assert "Welcome back" in _texts(r.session.refresh())
            assert conditions.armed is None and time.monotonic() - started < 5
        # an empty dump on Android is retried by uiautomator2 itself (twice, 1 s apart) before us
        assert r.session.stats.hiccups >= 2
