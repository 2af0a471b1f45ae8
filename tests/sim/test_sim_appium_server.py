"""What the simulated phone gives Appium, checked without Appium (no Node.js): the instrumentation that
runs appium-uiautomator2-server 10.x behind device port 6790, and that server's HTTP protocol, driven
with adbutils and plain HTTP. The APKs are small stand-ins with the real packages' manifests."""

from __future__ import annotations

import http.client
import json
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import adbutils
import pytest

from tests.support.appium import SimPhones, sim_phones
from tests.support.wda import get_with_host

PKG = "dev.trailblaze.demo"
RUNNER = "io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner"
_NS = 'xmlns:android="http://schemas.android.com/apk/res/android"'
MANIFESTS = {
    "server.apk": f'<manifest {_NS} package="io.appium.uiautomator2.server" android:versionCode="278" android:versionName="10.6.6"/>',
    "test.apk": f'<manifest {_NS} package="io.appium.uiautomator2.server.test"><instrumentation '
    'android:name="androidx.test.runner.AndroidJUnitRunner" android:targetPackage="io.appium.uiautomator2.server"/></manifest>',
    "settings.apk": f'<manifest {_NS} package="io.appium.settings" android:versionCode="191" android:versionName="8.0.9">'
    '<application><activity android:name="io.appium.settings.Settings"><intent-filter>'
    '<action android:name="android.intent.action.MAIN"/><category android:name="android.intent.category.LAUNCHER"/>'
    '</intent-filter></activity><service android:name="io.appium.settings.ForegroundService"/></application></manifest>',
}  # fmt: skip


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[tuple[SimPhones, adbutils.AdbDevice]]:
    with sim_phones(1) as phones:
        device = adbutils.AdbClient("127.0.0.1", phones.server.port).device("emulator-5554")
        for name, manifest in MANIFESTS.items():
            apk = tmp_path / name
            with zipfile.ZipFile(apk, "w") as z:
                z.writestr("AndroidManifest.xml", manifest)
            device.sync.push(apk, f"/data/local/tmp/{name}")
            assert device.shell(f"pm install -r /data/local/tmp/{name}") == "Success"
        yield phones, device


def _http(port: int, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None)
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def _refused(port: int) -> bool:
    try:
        _http(port, "GET", "/status")
    except (ConnectionError, http.client.RemoteDisconnected):
        return True
    return False


@pytest.mark.slow
def test_the_instrumentation_serves_port_6790_until_it_is_killed_or_force_stopped(
    phone: tuple[SimPhones, adbutils.AdbDevice],
) -> None:
    phones, device = phone
    assert (
        device.shell("pm list instrumentation")
        == f"instrumentation:{RUNNER} (target=io.appium.uiautomator2.server)"
    )
    assert "versionCode=278" in device.shell("dumpsys package io.appium.uiautomator2.server")
    port = device.forward_port(6790)
    started = time.monotonic()
    assert _refused(port)  # nothing listens on the device yet: adbd closes the forwarded stream
    assert time.monotonic() - started < 1

    stream = device.shell(f"am instrument -w -e disableAnalytics true {RUNNER}", stream=True)
    assert isinstance(stream, adbutils.AdbConnection)
    status, body = _http(port, "GET", "/status")
    assert (status, body) == (
        200,
        {
            "value": {
                "ready": True,
                "message": "UiAutomator2 Server is ready to accept commands",
                "build": {"version": "10.6.6", "versionCode": 278},
            },
            "sessionId": "None",
        },
    )
    pid = device.shell("pidof io.appium.uiautomator2.server")
    assert pid.isdigit()
    # the server runs as its app's user: the shell user may not kill it, root (appium-adb's `su root`) may
    assert "Operation not permitted" in device.shell2(f"kill {pid}").output
    device.shell(f"su root 'kill {pid}'")
    assert "INSTRUMENTATION_RESULT: shortMsg=Process crashed." in stream.read_until_close()
    assert device.shell("pidof io.appium.uiautomator2.server") == "" and _refused(port)

    stream = device.shell(f"am instrument -w {RUNNER}", stream=True)
    assert isinstance(stream, adbutils.AdbConnection)
    assert _http(port, "GET", "/status")[0] == 200
    device.shell("am force-stop io.appium.uiautomator2.server")
    assert "INSTRUMENTATION_RESULT: shortMsg=Process crashed." in stream.read_until_close()
    assert "io.appium.uiautomator2.server" not in device.shell("ps -A")
    assert _refused(port)


def test_the_appium_settings_app_starts_its_foreground_service(
    phone: tuple[SimPhones, adbutils.AdbDevice],
) -> None:
    phones, device = phone
    assert "(nothing)" in device.shell("dumpsys activity services io.appium.settings")
    out = device.shell("am start-activity -n io.appium.settings/.Settings -a android.intent.action.MAIN")
    assert out.startswith("Starting: Intent {")
    assert "isForeground=true" in device.shell("dumpsys activity services io.appium.settings")
    assert (
        phones.device("emulator-5554").current_app() is not None
    )  # its activity finished: the app stays in front
    phones.device("emulator-5554").clipboard = "snippet"
    assert 'result=-1, data=""' in device.shell(
        "am broadcast -n io.appium.settings/.receivers.ClipboardReceiver -a io.appium.settings.clipboard.get"
    )  # only the selected Appium IME may read the clipboard
    device.shell("am force-stop io.appium.settings")
    assert "(nothing)" in device.shell("dumpsys activity services io.appium.settings")


def test_the_server_answers_only_loopback_host_names(phone: tuple[SimPhones, adbutils.AdbDevice]) -> None:
    _, device = phone
    port = device.forward_port(6790)
    stream = device.shell(f"am instrument -w {RUNNER}", stream=True)
    assert isinstance(stream, adbutils.AdbConnection)
    assert get_with_host(port, "/status", "evil.example")[0] == 403  # a DNS-rebound web page
    assert get_with_host(port, "/status", f"localhost:{port}")[0] == 200


def test_the_server_protocol(phone: tuple[SimPhones, adbutils.AdbDevice]) -> None:
    phones, device = phone
    port = device.forward_port(6790)
    stream = device.shell(f"am instrument -w {RUNNER}", stream=True)
    assert isinstance(stream, adbutils.AdbConnection)
    caps = {
        "capabilities": {
            "firstMatch": [{"appium:appPackage": PKG}],
            "alwaysMatch": {"platformName": "Android"},
        }
    }
    status, created = _http(port, "POST", "/session", caps)
    sid = created["sessionId"]
    assert status == 200 and created["value"] == {"sessionId": sid, "capabilities": caps["capabilities"]}
    assert _http(port, "GET", "/sessions")[1]["value"][0]["capabilities"] == {
        "appPackage": PKG,
        "platformName": "Android",
    }

    def call(method: str, path: str, body: Any = None) -> tuple[int, Any]:
        code, answer = _http(port, method, f"/session/{sid}{path}", body)
        assert answer["sessionId"] == sid
        return code, answer["value"]

    def find(strategy: str, selector: str) -> tuple[int, Any]:
        return call("POST", "/element", {"strategy": strategy, "selector": selector})

    code, err = _http(port, "GET", "/session/not-mine/source")
    assert (code, err["value"]["error"], err["value"]["message"]) == (
        404, "invalid session id", "The session identified by not-mine is not known",
    )  # fmt: skip
    assert _http(port, "GET", "/nowhere")[0] == 404
    assert find("css selector", "x")[0] == 400
    assert find("id", "nosuch") == (404, call("POST", "/element", {"strategy": "id", "selector": "x"})[1])
    assert find("-android uiautomator", 'new UiSelector().text("Sign in"')[1]["error"] == "invalid selector"

    code, email = find("id", "email")  # completed with the session's appPackage
    eid = email["element-6066-11e4-a52e-4f735466cecf"]
    assert code == 200 and email["ELEMENT"] == eid
    assert (
        find("-android uiautomator", 'new UiSelector().className("android.widget.EditText").instance(0)')[1]
        == email
    )
    assert call("POST", f"/element/{eid}/value", {"text": "ada@example.com"}) == (200, None)
    assert call("POST", f"/element/{eid}/value", {"text": "me@example.com", "replace": True}) == (200, None)
    assert call("GET", f"/element/{eid}/text") == (200, "me@example.com")
    code, password = find("-android uiautomator", 'resourceIdMatches(".*:id/pass.*")')
    assert call("POST", f"/element/{password['ELEMENT']}/value", {"text": "hunter2"})[0] == 200
    assert call("GET", f"/element/{password['ELEMENT']}/attribute/password") == (200, "true")
    assert call("GET", f"/element/{eid}/attribute/nosuch")[1]["error"] == "unknown command"

    assert call("POST", "/appium/settings", {"settings": {"waitForIdleTimeout": "soon"}})[0] == 400
    assert call("POST", "/appium/settings", {"settings": {"waitForIdleTimeout": 0, "made-up": 1}}) == (
        200,
        None,
    )
    assert call("GET", "/appium/settings")[1]["waitForIdleTimeout"] == 0

    assert call("POST", f"/element/{find('id', 'sign_in')[1]['ELEMENT']}/click")[0] == 200
    phones.clock.advance(1.0)
    # the login screen is gone: its elements are stale
    assert call("GET", f"/element/{eid}/text")[1]["error"] == "stale element reference"
    code, row = find(
        "-android uiautomator",
        f'new UiSelector().resourceId("{PKG}:id/messages").childSelector(new UiSelector().textContains("Message 2"))',
    )
    assert call("GET", f"/element/{row['ELEMENT']}/text") == (200, "Message 2")
    assert find("-android uiautomator", 'text("Message 30")')[0] == 404  # below the fold
    code, far = find(
        "-android uiautomator",
        'new UiScrollable(new UiSelector().scrollable(true)).scrollIntoView(new UiSelector().text("Message 30"))',
    )
    assert code == 200 and call("GET", f"/element/{far['ELEMENT']}/text") == (200, "Message 30")
    code, tap = call(
        "POST",
        "/actions",
        {"actions": [{"type": "pointer", "id": "f", "actions": [{"type": "pointerDown"}]}]},
    )
    assert (code, tap["error"]) == (400, "invalid argument")  # a finger must be placed before it goes down

    assert call("DELETE", "") == (200, None)
    assert "OK (1 test)" in stream.read_until_close()
    # a new instrumentation is a new server: no session, default settings
    stream = device.shell(f"am instrument -w {RUNNER}", stream=True)
    assert _http(port, "GET", "/sessions")[1]["value"] == []
    sid = _http(port, "POST", "/session", caps)[1]["sessionId"]
    assert call("GET", "/appium/settings")[1]["waitForIdleTimeout"] == 10_000
    stream.close()


def test_injected_faults_on_the_wire(phone: tuple[SimPhones, adbutils.AdbDevice]) -> None:
    """The same faults as the uiautomator2 and WebDriverAgent servers (`trailblaze_sim.faults`)."""
    phones, device = phone
    conditions = phones.device("emulator-5554").conditions
    port = device.forward_port(6790)
    stream = device.shell(f"am instrument -w {RUNNER}", stream=True)
    assert isinstance(stream, adbutils.AdbConnection)
    caps = {"capabilities": {"alwaysMatch": {"platformName": "Android", "appium:appPackage": PKG}}}
    sid = _http(port, "POST", "/session", caps)[1]["sessionId"]
    eid = _http(port, "POST", f"/session/{sid}/element", {"strategy": "id", "selector": "email"})[1]["value"][
        "element-6066-11e4-a52e-4f735466cecf"
    ]

    conditions.rpc_error_on_request = conditions.requests + 1  # refused, not served
    code, answer = _http(port, "POST", f"/session/{sid}/element/{eid}/value", {"text": "ada@example.com"})
    assert code == 500 and answer["value"]["error"] == "unknown error"
    assert _http(port, "GET", f"/session/{sid}/element/{eid}/text")[1]["value"] != "ada@example.com"

    conditions.drop_connection_on_request = conditions.requests + 1  # served, the answer lost
    with pytest.raises(http.client.RemoteDisconnected):
        _http(port, "POST", f"/session/{sid}/element/{eid}/value", {"text": "ada@example.com"})
    assert _http(port, "GET", f"/session/{sid}/element/{eid}/text")[1]["value"] == "ada@example.com"

    conditions.empty_dump = True
    source = _http(port, "GET", f"/session/{sid}/source")[1]["value"]
    assert "<hierarchy" in source and "EditText" not in source
    conditions.empty_dump = False
    assert "EditText" in _http(port, "GET", f"/session/{sid}/source")[1]["value"]
