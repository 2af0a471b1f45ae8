"""`--install` / `--reinstall` (an APK on the device before the run) and `launchApp`'s Maestro-style
`permissions`, on the simulated Android phone through the real uiautomator2 / adbutils clients;
iOS says what it would need. Also: a trail's `launchApp` without `launchMode` means CLEAR_STATE, as
in Trailblaze."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import trailblaze
from tests.support.device import Rig, rig
from tests.support.sim_android import apk as _apk
from trailblaze.device.install import install_apps
from trailblaze.errors import UsageError
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.tools.recorded.app import LaunchApp
from trailblaze.trail.model import ToolCall

PKG = "dev.trailblaze.demo"
CAMERA, NOTIFY = "android.permission.CAMERA", "android.permission.POST_NOTIFICATIONS"


@pytest.fixture(scope="module")
def android() -> Iterator[Rig]:
    with rig("android") as r:
        yield r


def _granted(r: Rig, package: str = PKG) -> dict[str, bool]:
    out = r.session.driver.shell(f"dumpsys package {package}")  # type: ignore[attr-defined]
    return {
        line.split(":")[0].strip(): "granted=true" in line for line in out.splitlines() if "granted=" in line
    }


def _launch(r: Rig, **params: Any) -> Any:
    return run_recorded_tool(r.session, ToolCall(name="launchApp", params={"appId": PKG, **params}), Memory())


def test_install_and_reinstall_an_apk(android: Rig, tmp_path: Path) -> None:
    other = tmp_path / "camera.apk"
    other.write_bytes(_apk("com.example.camera", CAMERA))
    assert install_apps(android.session, [str(other)]) == ["com.example.camera"]
    assert "com.example.camera" in android.driver.list_apps()  # type: ignore[attr-defined]
    assert _granted(android, "com.example.camera") == {CAMERA: False}

    demo = tmp_path / "demo.apk"
    demo.write_bytes(_apk(PKG, CAMERA, NOTIFY))
    android.session.driver.shell(f"pm grant {PKG} {CAMERA}")  # type: ignore[attr-defined]
    assert install_apps(android.session, [str(demo)]) == [PKG]  # an update keeps what the app had
    assert _granted(android) == {CAMERA: True, NOTIFY: False}
    assert install_apps(android.session, [str(demo)], reinstall=True) == [PKG]  # a fresh install does not
    assert _granted(android) == {CAMERA: False, NOTIFY: False}
    assert android.driver.list_apps().count(PKG) == 1  # type: ignore[attr-defined]

    bad = tmp_path / "notes.txt"
    bad.write_text("not an app", "utf-8")
    with pytest.raises(UsageError, match=r"--install .*notes\.txt: not an APK with an AndroidManifest\.xml"):
        install_apps(android.session, [str(bad)])
    with pytest.raises(UsageError, match="--reinstall reinstalls the apps of --install"):
        install_apps(android.session, [], reinstall=True)


def test_launch_app_sets_permissions_before_the_app_starts(android: Rig, tmp_path: Path) -> None:
    demo = tmp_path / "demo.apk"
    demo.write_bytes(_apk(PKG, CAMERA, NOTIFY))
    install_apps(android.session, [str(demo)])
    allowed = _launch(android, permissions={"all": "allow"})
    assert (allowed.status, allowed.message) == (
        "OK", f"launched {PKG} (CLEAR_STATE); permissions: CAMERA allow, POST_NOTIFICATIONS allow"
    )  # fmt: skip
    assert _granted(android) == {CAMERA: True, NOTIFY: True}
    assert android.driver.current_app() == PKG
    mixed = _launch(
        android, launchMode="FORCE_RESTART", permissions={"all": "deny", "notifications": "allow"}
    )
    assert mixed.ok and mixed.message.endswith("permissions: CAMERA deny, POST_NOTIFICATIONS allow")
    assert _granted(android) == {CAMERA: False, NOTIFY: True}
    named = _launch(android, launchMode="RESUME", permissions={"camera": "allow"})
    assert named.ok and _granted(android)[CAMERA] is True
    missing = run_recorded_tool(
        android.session,
        ToolCall(name="launchApp", params={"appId": "com.nope.app", "permissions": {"all": "allow"}}),
        Memory(),
    )
    assert missing.status == "NOT_INSTALLED"
    with pytest.raises(ValueError, match="unknown permission 'cam': use all, bluetooth, calendar, camera"):
        ToolCall(name="launchApp", params={"appId": PKG, "permissions": {"cam": "allow"}})


def test_a_trails_launch_app_without_a_mode_clears_the_state_as_trailblaze_does() -> None:
    assert LaunchApp(appId=PKG).launchMode == "CLEAR_STATE"
    assert LaunchApp(appId=PKG, launchMode="REINSTALL").launchMode == "CLEAR_STATE"  # type: ignore[arg-type]
    assert LaunchApp(appId=PKG, launchMode="FORCE_RESTART").to_params() == {
        "appId": PKG, "launchMode": "FORCE_RESTART"
    }  # fmt: skip


def test_ios_cannot_install_or_set_permissions(tmp_path: Path) -> None:
    with rig("ios") as ios:
        with pytest.raises(
            UsageError, match="this ios driver cannot install apps from the host; .*simctl install"
        ):
            install_apps(ios.session, [str(tmp_path / "x.apk")])
        result = run_recorded_tool(
            ios.session,
            ToolCall(name="launchApp", params={"appId": PKG, "permissions": {"all": "allow"}}),
            Memory(),
        )
        assert result.status == "UNSUPPORTED" and "xcrun simctl privacy" in result.message


@pytest.mark.slow
def test_replay_installs_first_and_keeps_every_steps_app_log(tmp_path: Path) -> None:
    demo = tmp_path / "demo.apk"
    demo.write_bytes(_apk(PKG, CAMERA))
    trail = tmp_path / "launch.trail.yaml"
    trail.write_text(
        "trail:\n  - step: Launch with the camera allowed\n    recording:\n      android:\n"
        f"        - launchApp: {{appId: {PKG}, permissions: {{camera: allow}}}}\n",
        "utf-8",
    )
    run = tmp_path / "run"
    done = trailblaze(
        "replay", str(trail), "--device", "sim:android", "--install", str(demo), "--reinstall",
        "--device-logs", "always", "--run-dir", str(run),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"reinstalled {PKG} from {demo}" in done.stdout
    step = json.loads((run / "run.json").read_text("utf-8"))["trails"][0]["steps"][0]
    assert step["tools"][0]["message"].endswith("permissions: CAMERA allow")
    assert "Demo started (screen login)" in (run / step["device_log"]).read_text("utf-8")
    missing = trailblaze(
        "replay", str(trail), "--device", "sim:android", "--install", str(tmp_path / "none.apk")
    )
    assert missing.returncode == 2 and "does not exist" in missing.stderr
