"""trailblaze's Appium driver through the real Appium server (npm `appium`, pinned in tests/data/appium) and
its real UiAutomator2 driver, on simulated phones behind the simulated adb server: the example trails
pass unchanged, a mutant that contradicts a verify step fails it, two phones run at once under
`pytest -n 2`, and every driver method has its effect on the phone. Nothing is monkeypatched: the
trailblaze process talks W3C WebDriver to Appium, which runs the real `adb` client against the
simulator.

The phones run on the real clock (the demo's "Signing in…" lasts a second, as on a phone); one
Appium server per module, one more with `--allow-insecure=uiautomator2:adb_shell` for the shell.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from tests.support.appium import AppiumServer
from tests.support.cli import EXAMPLES_DIR, copy_example, trailblaze
from tests.support.paths import DATA
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze_sim import create_device
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.server.adb import AndroidSimServer

pytestmark = pytest.mark.slow

PKG = "dev.trailblaze.demo"
MUTANT = DATA / "mutants" / "inbox-heading.yaml"
SERIALS = ("emulator-5554", "emulator-5556", "emulator-5558")  # demo, demo, the inbox-heading mutant


@pytest.fixture(scope="module")
def phones() -> Iterator[AndroidSimServer]:
    devices = [
        create_device("android", app="demo", serial=SERIALS[0]),
        create_device("android", app="demo", serial=SERIALS[1]),
        create_device("android", app=MUTANT, serial=SERIALS[2]),
    ]
    with AndroidSimServer(devices, u2_preinstalled=False) as server:
        yield server


@pytest.fixture(scope="module")
def appium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppiumServer]:
    with AppiumServer(tmp_path_factory.mktemp("appium") / "appium.log") as server:
        yield server


def _caps(folder: Path, phones: AndroidSimServer, serial: str, name: str = "caps.yaml") -> Path:
    path = folder / name
    path.write_text(f"platformName: Android\nudid: {serial}\nadbPort: {phones.port}\n", "utf-8")
    return path


def _device(appium: AppiumServer, caps: Path) -> str:
    return f"appium:{appium.url}#{caps}"


def _examples(tmp_path: Path) -> None:
    for trail in sorted(EXAMPLES_DIR.glob("*.trail.yaml")):
        copy_example(trail.name, tmp_path)


def test_the_example_trails_pass_through_the_real_appium_server(
    phones: AndroidSimServer, appium: AppiumServer, tmp_path: Path
) -> None:
    _examples(tmp_path)
    caps = _caps(tmp_path, phones, SERIALS[0])
    result = trailblaze(
        "replay", ".", "--device", f"appium:{appium.url}", "--capabilities", str(caps),
        "--secret", "password=hunter2", "--junit", "junit.xml", "--run-dir", "run", cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr + appium.log_text()[-3000:]
    run = json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))
    assert len(run["trails"]) == len(sorted(EXAMPLES_DIR.glob("*.trail.yaml"))) and all(t["status"] == "passed" for t in run["trails"])
    assert {t["platform"] for t in run["trails"]} == {"android"}
    # one shared session on an Appium URL: Appium created exactly one for the run
    assert appium.log_text().count("New AndroidUiautomator2Driver session created successfully") >= 1


def test_a_mutant_that_contradicts_a_verify_step_fails_it(
    phones: AndroidSimServer, appium: AppiumServer, tmp_path: Path
) -> None:
    """The inbox reads "Mailbox": the login trail's verify step (5) must fail, and nothing before it."""
    copy_example("login.trail.yaml", tmp_path)
    caps = _caps(tmp_path, phones, SERIALS[2])
    result = trailblaze(
        "replay", "login.trail.yaml", "--device", f"appium:{appium.url}", "--capabilities", str(caps),
        "--secret", "password=hunter2", "--element-timeout", "1", "--run-dir", "run", cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    run = json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))
    steps = run["trails"][0]["steps"]
    assert [s["status"] for s in steps] == ["passed"] * 4 + ["failed"]
    assert "login.trail.yaml:81 step 5" in result.stdout and "Mailbox" in result.stdout


def test_two_phones_at_once_through_one_appium_server_under_pytest_n_2(
    phones: AndroidSimServer, appium: AppiumServer, tmp_path: Path
) -> None:
    for name in ("login", "search", "open-message", "settings-dark-mode"):
        copy_example(f"{name}.trail.yaml", tmp_path)
    (tmp_path / "pytest.ini").write_text("[pytest]\ntrailblaze_trail_paths = .\n", "utf-8")
    first, second = _caps(tmp_path, phones, SERIALS[0], "a.yaml"), _caps(tmp_path, phones, SERIALS[1], "b.yaml")
    mark = len(appium.log_text())
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "-v", ".",
         "--device", f"appium:{appium.url}", "--trailblaze-capabilities", str(first),
         "--device", f"appium:{appium.url}", "--trailblaze-capabilities", str(second),
         "--trailblaze-secret", "password=hunter2"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "4 passed" in result.stdout
    assert f"gw0: appium:{appium.url}#{first}" in result.stdout and f"gw1: appium:{appium.url}#{second}" in result.stdout
    log = appium.log_text()[mark:]
    # both phones had a session, and the second opened before the first ended: two at once
    assert log.count("New AndroidUiautomator2Driver session created successfully") == 2
    created = [m.start() for m in re.finditer("session created successfully", log)]
    ended = [m.start() for m in re.finditer(r"Removing session .* from our master session list", log)]
    assert len(ended) == 2 and created[1] < ended[0], "the sessions ran one after the other"


@pytest.fixture(scope="module")
def session(phones: AndroidSimServer, appium: AppiumServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DeviceSession]:
    caps = _caps(tmp_path_factory.mktemp("caps"), phones, SERIALS[1])
    with open_device(_device(appium, caps)) as opened:
        yield opened


@pytest.fixture
def phone(phones: AndroidSimServer, session: DeviceSession) -> SimulatedDevice:
    device = phones.device(SERIALS[1])
    assert isinstance(device, SimulatedDevice)
    session.driver.launch_app(PKG, "CLEAR_STATE")
    return device


def _field_text(session: DeviceSession, rid: str) -> str:
    (node,) = [n for n in session.driver.hierarchy().nodes if n.resource_id == f"{PKG}:id/{rid}"]
    return node.text


def _tap(session: DeviceSession, rid: str) -> None:
    (node,) = [n for n in session.driver.hierarchy().nodes if n.resource_id == f"{PKG}:id/{rid}"]
    session.driver.tap(*node.center)


def _message_numbers(session: DeviceSession) -> set[int]:
    return {int(n.text.split()[1]) for n in session.driver.hierarchy().nodes if re.fullmatch(r"Message \d+", n.text)}


def test_typing_appends_and_erasing_takes_characters_off(session: DeviceSession, phone: SimulatedDevice) -> None:
    driver = session.driver
    _tap(session, "email")
    driver.input_text("user@")
    driver.input_text("example.com")
    assert _field_text(session, "email") == "user@example.com"
    driver.erase_text(4)
    assert _field_text(session, "email") == "user@example"
    driver.erase_text()
    assert _field_text(session, "email") in ("", "Email")  # empty shows its hint
    assert driver.keyboard_shown()
    driver.hide_keyboard()
    assert not driver.keyboard_shown()
    driver.hide_keyboard()  # already hidden: nothing to do, no error


def test_gestures_keys_and_the_app_lifecycle(session: DeviceSession, phone: SimulatedDevice) -> None:
    driver = session.driver
    assert driver.current_app() == PKG and PKG in driver.list_apps()
    info = driver.info
    assert (info.platform, info.classifier, info.scale) == ("android", "android-phone", 1.0) and info.width == 1080
    image = Image.open(io.BytesIO(driver.screenshot()))
    assert image.format == "PNG" and image.width == 1080
    # sign in, then the inbox scrolls under a swipe and a message opens and closes with BACK
    _tap(session, "email")
    driver.input_text("user@example.com")
    _tap(session, "password")
    driver.input_text("hunter2")
    driver.press_key("ENTER")
    _tap(session, "sign_in")
    deadline = time.monotonic() + 5  # "Signing in…" lasts a second of the phone's real time
    while not any(n.text == "Inbox" for n in driver.hierarchy().nodes):
        assert time.monotonic() < deadline, "the inbox did not show after signing in"
        time.sleep(0.1)
    before = _message_numbers(session)
    driver.swipe(540, 1800, 540, 600, 0.2)
    after = _message_numbers(session)
    assert 1 in before and 1 not in after and max(after) > max(before), (before, after)
    # RESUME keeps the signed-in state; FORCE_RESTART does too (data stays); CLEAR_STATE signs out
    driver.launch_app(PKG, "RESUME")
    assert any(n.text.startswith("Message ") for n in driver.hierarchy().nodes)
    driver.stop_app(PKG)
    assert driver.current_app() != PKG
    driver.launch_app(PKG, "CLEAR_STATE")
    assert any(n.resource_id == f"{PKG}:id/sign_in" for n in driver.hierarchy().nodes)


def test_clipboard_and_the_apps_log(session: DeviceSession, phone: SimulatedDevice) -> None:
    driver = session.driver
    driver.set_clipboard("copied text")
    assert driver.get_clipboard() == "copied text"
    mark = driver.log_mark()
    driver.launch_app(PKG, "FORCE_RESTART")
    # Appium collects logcat in the background: a line reaches its buffer a moment after the phone wrote it
    lines: list[str] = []
    deadline = time.monotonic() + 5
    while not any("Demo started" in line for line in lines):
        assert time.monotonic() < deadline, lines
        log = driver.app_log(PKG, mark)
        lines, mark = lines + log.lines, log.mark
        time.sleep(0.05)
    assert any("Force stopping dev.trailblaze.demo" in line for line in lines)
    assert any("Start proc" in line and PKG in line for line in lines)
    assert not any("io.appium.settings" in line for line in lines)  # another app's lines are not the app's
    again = driver.app_log(PKG, mark)
    assert again.lines == [] and again.mark == mark


def test_a_server_that_refuses_shell_makes_the_probes_unsupported(
    phones: AndroidSimServer, appium: AppiumServer, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    caps = _caps(tmp_path, phones, SERIALS[0])
    refused = trailblaze("tool", "{readPrefs: {appId: dev.trailblaze.demo}}", "--device", _device(appium, caps))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "UNSUPPORTED" in refused.stdout and "--allow-insecure=uiautomator2:adb_shell" in refused.stdout
    with AppiumServer(
        tmp_path_factory.mktemp("insecure") / "appium.log", args=("--allow-insecure=uiautomator2:adb_shell",)
    ) as insecure:
        allowed = trailblaze("tool", "{readPrefs: {appId: dev.trailblaze.demo}}", "--device", _device(insecure, caps))
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert allowed.stdout.startswith("OK")


def test_install_and_launch_permissions_need_no_shell_through_appium(
    phones: AndroidSimServer, session: DeviceSession, tmp_path: Path
) -> None:
    """`--install` is `mobile: installApp`, `launchApp`'s permissions are `mobile: changePermissions`:
    both work on a server that refuses the insecure shell (as every farm does)."""
    import zipfile

    import adbutils

    from trailblaze.tools.execute import run_recorded_tool
    from trailblaze.tools.memory import Memory
    from trailblaze.trail.model import ToolCall

    camera, notify = "android.permission.CAMERA", "android.permission.POST_NOTIFICATIONS"
    apk = tmp_path / "demo.apk"
    with zipfile.ZipFile(apk, "w") as z:  # the demo's build: its launcher activity and two permissions
        z.writestr(
            "AndroidManifest.xml",
            '<?xml version="1.0"?>\n<manifest xmlns:android="http://schemas.android.com/apk/res/android" '
            f'package="{PKG}" android:versionCode="3"><uses-permission android:name="{camera}"/>'
            f'<uses-permission android:name="{notify}"/><application><activity android:name=".MainActivity">'
            '<intent-filter><action android:name="android.intent.action.MAIN"/>'
            '<category android:name="android.intent.category.LAUNCHER"/></intent-filter></activity>'
            "</application></manifest>",
        )
        z.writestr("classes.dex", b"dex\n035\x00")
    assert session.driver.install_app(str(apk)) == PKG  # type: ignore[attr-defined]
    adb = adbutils.AdbClient(host="127.0.0.1", port=phones.port).device(SERIALS[1])

    def granted() -> dict[str, bool]:
        out = str(adb.shell(f"dumpsys package {PKG}"))
        return {line.split(":")[0].strip(): "granted=true" in line for line in out.splitlines() if "granted=" in line}

    launch = {"appId": PKG, "launchMode": "CLEAR_STATE", "permissions": {"all": "deny", "camera": "allow"}}
    result = run_recorded_tool(session, ToolCall(name="launchApp", params=launch), Memory())
    assert result.status == "OK", result.message
    assert granted() == {camera: True, notify: False}
    launch["permissions"] = {"all": "allow"}
    assert run_recorded_tool(session, ToolCall(name="launchApp", params=launch), Memory()).status == "OK"
    assert granted() == {camera: True, notify: True}


def test_add_media_reaches_the_gallery_through_push_file(
    phones: AndroidSimServer, session: DeviceSession, tmp_path: Path
) -> None:
    """Maestro's `addMedia` through Appium is `pushFile` (no shell: farms allow it); UiAutomator2 has
    the media scanned itself, through its Settings app on API 29+."""
    import adbutils

    picture = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(picture, "PNG")
    path = tmp_path / "blue.png"
    path.write_bytes(picture.getvalue())
    assert session.driver.add_media(str(path), "blue.png") == "/sdcard/Pictures/blue.png"  # type: ignore[attr-defined]
    device = adbutils.AdbClient("127.0.0.1", phones.port).device(SERIALS[1])
    assert device.sync.read_bytes("/sdcard/Pictures/blue.png") == picture.getvalue()
    listed = device.shell("content query --uri content://media/external/images/media")
    assert "_data=/storage/emulated/0/Pictures/blue.png" in listed
