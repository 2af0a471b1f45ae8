"""The paths uiautomator2 / adbutils take on a real phone, on the simulator (issue 30, item 2): the
focused app and its pid from `dumpsys activity top` (Android 10+ has no mCurrentFocus in
`dumpsys window windows`), `wait_activity` / `app_wait`, the u2 server's `app_process` that a
shell can kill and the client restarts, timed swipes under `trailblaze sim`'s timed gestures, and
app specs whose screens are activities and whose apps show toasts."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support.sim_android import PKG, android_rig
from trailblaze_sim.runtime import sim_conditions


def _app_process_pid(d: object) -> int | None:
    for line in d.shell("ps -u shell").output.splitlines():  # type: ignore[attr-defined]
        fields = line.split()
        if fields[-1] == "app_process":
            return int(fields[1])
    return None


@pytest.mark.slow
def test_app_current_names_the_short_activity_and_the_pid_that_ps_shows() -> None:
    with android_rig() as rig:
        d = rig.d
        assert "mCurrentFocus" not in d.shell("dumpsys window windows").output
        assert (
            f"mCurrentFocus=Window{{5f2c1e8 u0 {PKG}/{PKG}.MainActivity}}" in d.shell("dumpsys window").output
        )
        pid = d.app_wait(PKG, timeout=1)
        assert pid > 0 and d.app_current() == {"package": PKG, "activity": ".MainActivity", "pid": pid}
        assert d.app_wait(PKG, front=True, timeout=1) == pid
        assert d.wait_activity(".MainActivity", timeout=1)
        assert not d.wait_activity(".NotExistActivity", timeout=0.1)
        d.app_start(PKG, stop=True)  # a cold start is a new process
        assert d.app_wait(PKG, timeout=1) not in (0, pid)
        d.app_stop(PKG)
        assert d.app_current()["package"] == "com.google.android.apps.nexuslauncher"
        assert d.app_current()["pid"] == int(d.shell("pidof com.google.android.apps.nexuslauncher").output)


def test_killing_the_u2_app_process_stops_the_server_until_the_client_starts_it() -> None:
    with android_rig() as rig:
        d = rig.d
        pid = _app_process_pid(d)
        assert pid is not None
        assert d.shell(f"kill {pid}").exit_code == 0
        assert _app_process_pid(d) is None and not rig.server.u2_running(rig.serial)
        d.shell("rm /data/local/tmp/u2.jar")
        d.start_uiautomator()  # pushes u2.jar again and launches it
        assert _app_process_pid(d) == pid and rig.server.u2_running(rig.serial)
        d.stop_uiautomator()
        assert _app_process_pid(d) is None
        assert d.info["currentPackageName"] == PKG  # the next call starts the server again
        app_pid = d.app_current()["pid"]
        res = d.shell(f"kill {app_pid}")  # another user's process
        assert res.exit_code == 1 and "Operation not permitted" in res.output
        assert d.app_current()["pid"] == app_pid


@pytest.mark.parametrize(("timed", "seconds"), [(True, 0.2), (False, 0.0)])
def test_sim_gestures_timed_take_the_swipe_duration(timed: bool, seconds: float) -> None:
    conditions = sim_conditions("zero", timed_gestures=timed)
    assert conditions.latency.dump == (0.0, 0.0)  # no latency added, only the gesture's own time
    with android_rig(conditions=conditions) as rig:
        w, h = rig.d.window_size()
        rig.d.swipe(w // 2, h // 2, w - 1, h // 2, 0.2)  # u2 sends 0.2 s as 40 steps of 5 ms
        assert rig.server.u2_service(rig.serial).gesture_seconds == pytest.approx(seconds)


_TWO_ACTIVITIES = """
app_id: com.example.twoacts
name: Two Acts
launch: main
screens:
  main:
    elements:
      - {role: button, text: Addition, on_tap: [{go: addition}]}
      - {role: button, text: Toast, on_tap: [{toast: Button Clicked!}]}
      - role: list
        id: android:id/list
        source: rows
        row: {role: row, children: [{role: text, text: "{item.t}"}]}
  addition:
    activity: .AdditionActivity
    elements:
      - {role: text_field, id: num1}
data:
  rows: {items: [{t: One}]}
"""


def test_screens_are_activities_am_start_opens_them_and_app_toasts_reach_last_toast(tmp_path: Path) -> None:
    spec = tmp_path / "twoacts.yaml"
    spec.write_text(_TWO_ACTIVITIES)
    with android_rig(app=str(spec)) as rig:
        d = rig.d
        pkg = "com.example.twoacts"
        assert d.app_current()["activity"] == ".MainActivity"
        assert d(resourceId="android:id/list").child(text="One").exists  # a framework id, kept as it is
        d(text="Toast").click()
        assert d.last_toast == "Button Clicked!"
        assert d(text="Button Clicked!", packageName="com.android.systemui").exists
        d(text="Addition").click()
        assert d.wait_activity(".AdditionActivity", timeout=1)
        d.press("back")
        assert d.app_current()["activity"] == ".MainActivity"
        d.app_start(pkg, activity=".AdditionActivity", stop=True)  # `am start -n` of a screen's activity
        assert d.wait_activity(".AdditionActivity", timeout=1)
        assert d(resourceId=f"{pkg}:id/num1").exists
        d.press("back")  # started alone, it was the task's only activity: back leaves the app
        assert d.app_current()["package"] != pkg
        res = d.shell(["am", "start", "-n", f"{pkg}/.NoSuchActivity"])
        assert (
            "Activity class {com.example.twoacts/com.example.twoacts.NoSuchActivity} does not exist"
            in res.output
        )


@pytest.mark.parametrize(("args", "scale"), [([], 1.0), (["--gestures", "instant"], 0.0)])
def test_trailblaze_sim_times_gestures_unless_told_not_to(
    monkeypatch: pytest.MonkeyPatch, args: list[str], scale: float
) -> None:
    from click.testing import CliRunner

    import trailblaze.cli.sim_command as sim_module
    from trailblaze.cli.main import cli
    from trailblaze_sim import runtime

    started: list[object] = []

    def fake_start(platform: str, app: str, **kwargs: object) -> object:
        started.append(kwargs["latency"])
        return SimpleNamespace(how_to_connect=lambda: "simulated", device_specs=lambda: [], stop=lambda: None)

    monkeypatch.setattr(runtime, "start_simulator", fake_start)
    monkeypatch.setattr(sim_module, "_foreground", lambda how, stop: None)
    result = CliRunner().invoke(cli, ["sim", "android", *args])
    assert result.exit_code == 0, result.output
    (conditions,) = started
    assert conditions.latency.gesture_time_scale == scale  # type: ignore[attr-defined]
    assert conditions.latency.dump == (0.0, 0.0)  # type: ignore[attr-defined]
