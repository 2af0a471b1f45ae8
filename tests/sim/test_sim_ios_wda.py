"""End to end: the unmodified facebook-wda client drives the simulated demo iPhone over real sockets."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import wda
from lxml import etree
from wda.exceptions import WDARequestError, WDAStaleElementReferenceError

from tests.support.wda import raw_wda
from trailblaze_sim import create_device
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.wda import WdaSimServer

BUNDLE = "dev.trailblaze.demo"


def _xp(doc: etree._Element, expr: str) -> list[etree._Element]:
    found = doc.xpath(expr)
    assert isinstance(found, list)
    return [e for e in found if isinstance(e, etree._Element)]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def device(clock: ManualClock) -> SimulatedDevice:
    return create_device("ios", app="demo", clock=clock)


@pytest.fixture
def server(device: SimulatedDevice) -> Iterator[WdaSimServer]:
    with WdaSimServer(device) as srv:
        yield srv


@pytest.fixture
def client(server: WdaSimServer) -> wda.Client:
    return wda.Client(server.url)


@pytest.fixture
def s(client: wda.Client) -> wda.Client:
    return client.session()


_raw = raw_wda


def _sign_in(s: wda.Client, clock: ManualClock) -> None:
    s(id="email").set_text("ann@example.com")
    s(id="password").set_text("hunter2")
    s(id="sign_in").click()
    clock.advance(1.0)
    assert s(label="Inbox", className="StaticText").exists


# --- protocol -----------------------------------------------------------------------------------


def test_envelope_errors_and_routes_with_and_without_session(server: WdaSimServer) -> None:
    status, doc = _raw(server, "GET", "/status")
    assert status == 200 and doc["sessionId"] is None and doc["value"]["ready"] is True
    status, doc = _raw(server, "POST", "/session", {"capabilities": {}, "desiredCapabilities": {}})
    sid = doc["value"]["sessionId"]
    assert doc["sessionId"] == sid
    # Every response carries the active session, with or without the prefix, trailing slash or not.
    for path in ("/window/size", f"/session/{sid}/window/size", f"/session/{sid}/window/size/"):
        status, doc = _raw(server, "GET", path)
        assert (status, doc) == (200, {"value": {"width": 390, "height": 844}, "sessionId": sid})
    status, doc = _raw(server, "GET", "/session/NOPE/window/size")
    assert status == 404 and doc["value"]["error"] == "invalid session id"
    assert doc["value"]["message"] == "Session does not exist"
    status, doc = _raw(server, "GET", "/wda/nothing/here")
    assert status == 404 and doc["value"]["error"] == "unknown command"
    status, doc = _raw(server, "GET", "/alert/text")
    assert status == 404 and doc["value"]["error"] == "no such alert"
    status, doc = _raw(server, "POST", "/element", {"using": "id", "value": "missing"})
    assert status == 404 and doc["value"]["error"] == "no such element"
    status, doc = _raw(server, "POST", "/elements", {"using": "class chain", "value": "**/Bogus"})
    assert status == 400 and doc["value"]["error"] == "invalid selector"
    status, doc = _raw(server, "GET", "/element/NOT-AN-ID/rect")
    assert status == 404 and doc["value"]["error"] == "stale element reference"
    # A new session replaces the old one; the old id is now invalid.
    _, doc = _raw(server, "POST", "/session", {"capabilities": {}})
    assert doc["sessionId"] != sid
    status, doc = _raw(server, "GET", f"/session/{sid}/window/size")
    assert doc["value"]["error"] == "invalid session id"
    status, doc = _raw(server, "DELETE", f"/session/{doc['sessionId']}/")
    assert (status, doc) == (200, {"value": None, "sessionId": None})


def test_status_session_and_device_queries(client: wda.Client, server: WdaSimServer) -> None:
    assert client.status()["sessionId"] is None
    assert client.is_ready()
    assert client.healthcheck().value is None
    s = client.session()
    assert client.status()["sessionId"] == s.session_id == server.session_id
    assert tuple(s.window_size()) == (390, 844)
    assert s.scale == 3
    assert s.orientation == "PORTRAIT"
    assert s.device_info()["isSimulator"] is True
    assert s.battery_info()["level"] == 1
    assert s.app_list() == [{"pid": s.app_current()["pid"], "bundleId": BUNDLE}]
    assert s.appium_settings({"snapshotMaxDepth": 62})["snapshotMaxDepth"] == 62
    assert s.appium_settings()["snapshotMaxDepth"] == 62
    assert client.locked() is False
    client.lock()
    assert client.locked() is True
    client.unlock()
    assert client.locked() is False
    s2 = client.session(BUNDLE)
    assert s2.session_id != s.session_id
    assert client.status()["sessionId"] == s2.session_id
    s2.close()
    assert client.status()["sessionId"] is None


def test_source_xml_json_and_accessible(s: wda.Client) -> None:
    xml = s.source()
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<XCUIElementTypeApplication ')
    doc = etree.fromstring(xml.encode())
    assert doc.get("bundleId") == BUNDLE and doc[0].tag == "XCUIElementTypeWindow"
    button = _xp(doc, '//XCUIElementTypeButton[@name="sign_in"]')[0]
    assert button.get("label") == "Sign in" and button.get("traits") == "Button"
    assert list(button.attrib) == ["type", "name", "label", "enabled", "visible", "accessible", "x", "y",
                                   "width", "height", "index", "traits"]
    tree = s.source(format="json")
    assert tree["type"] == "Application"
    flat = json.dumps(tree)
    assert '"rawIdentifier": "email"' in flat and '"placeholderValue": "Email"' in flat
    acc = s.source(accessible=True)
    assert "Sign in" in json.dumps(acc)


def test_screenshot_is_a_png_in_device_pixels(s: wda.Client) -> None:
    raw = s.screenshot(format="raw")
    assert raw.startswith(b"\x89PNG\r\n\x1a\n")
    img = s.screenshot()
    assert img.size == (1170, 2532)


# --- demo app behaviour -------------------------------------------------------------------------


def test_wrong_password_and_empty_email(s: wda.Client) -> None:
    s(id="sign_in").click()
    assert s(label="Email required").exists
    s(id="email").set_text("ann@example.com")
    s(id="password").set_text("nope")
    s(id="sign_in").click()
    assert s(id="error").text == "Invalid email or password"
    assert s(id="password").value == "\u2022" * 4


def test_login_waits_for_the_progress(s: wda.Client, clock: ManualClock) -> None:
    s(id="email").set_text("ann@example.com")
    s(predicate="name == 'password'").set_text("hunter2")
    s(label="Sign in").click()
    assert s(label="Signing in…").exists
    assert not s(label="Inbox", className="StaticText").exists
    clock.advance(1.0)
    assert s(id="clock").wait(timeout=1) is not None
    assert s(classChain="**/Table/Cell[1]/StaticText[1]").text == "Message 1"


def test_scroll_to_message_30_open_and_go_back(s: wda.Client, clock: ManualClock) -> None:
    _sign_in(s, clock)
    target = s(label="Message 30")
    swipes = 0
    while not (target.exists and target.get(timeout=0).visible):
        s.swipe(195, 600, 195, 250, 0.2)
        swipes += 1
        assert swipes < 20
    assert swipes >= 2
    target.click()
    assert s(xpath='//XCUIElementTypeStaticText[@label="This is message 30."]').exists
    s(xpath="//NavigationBar/Button[@name='back']").click()
    assert s(id="messages").exists


def test_archive_shows_a_snackbar_for_two_seconds(s: wda.Client, clock: ManualClock) -> None:
    _sign_in(s, clock)
    s(label="Message 2").click()
    s(id="archive").click()
    assert s(label="Message archived").exists
    assert not s(label="Message 2").exists
    assert s(label="Message 3").exists
    clock.advance(2.1)
    assert not s(label="Message archived").exists


def test_compose_validation_and_send(s: wda.Client, clock: ManualClock) -> None:
    _sign_in(s, clock)
    s(id="compose").click()
    s(id="send").click()
    assert s(label="Recipient required").exists
    s(id="to").set_text("bob@example.com")
    s(id="subject").set_text("Hi")
    s(id="send").click()
    assert s(label="Message sent").exists


def test_search_filters_live(s: wda.Client, clock: ManualClock) -> None:
    _sign_in(s, clock)
    s(id="tab_search").click()
    s(id="query").click()
    s.send_keys("Message 1")
    titles = [e.label for e in s(labelContains="Message 1").find_elements()]
    assert titles and all(t.startswith("Message 1") for t in titles)
    assert "Message 2" not in titles
    s(id="query").clear_text()
    s(id="query").set_text("zzz")
    assert s(label="No results").exists


def test_settings_switches_and_sign_out_alert(s: wda.Client, clock: ManualClock) -> None:
    _sign_in(s, clock)
    s(id="tab_settings").click()
    dark = s(id="dark_mode")
    assert (dark.value, s(id="notifications").value) == ("0", "1")
    dark.click()
    assert dark.value == "1"
    dark.get().tap()  # POST /element/:id/click
    assert dark.value == "0"
    assert not s.alert.exists
    s(id="sign_out").click()
    assert s.alert.exists
    assert s.alert.text.startswith("Sign out?")
    assert s.alert.buttons() == ["Cancel", "Sign out"]
    s.alert.dismiss()
    assert not s.alert.exists and s(id="sign_out").exists
    s(id="sign_out").click()
    s.alert.click("Sign out")
    assert s(id="sign_in").exists
    s(id="email").set_text("ann@example.com")
    s(id="password").set_text("hunter2")
    s(id="sign_in").click()
    clock.advance(1.0)
    s(id="tab_settings").click()
    s(id="sign_out").click()
    s.alert.accept()
    assert s(id="welcome").exists


# --- gestures, keys, apps ---------------------------------------------------------------------


def test_coordinate_gestures(s: wda.Client, clock: ManualClock) -> None:
    _sign_in(s, clock)
    s(id="tab_settings").click()
    x, y = s(id="dark_mode").bounds.center
    s.double_tap(x, y)  # on, then off again
    assert s(id="dark_mode").value == "0"
    s.tap(x, y)
    assert s(id="dark_mode").value == "1"
    s(id="tab_inbox").click()
    row = s(label="Message 1").bounds
    s.tap_hold(row.x + 5, row.y + 5, 0.5)  # a long press is not a tap: the row does not open
    assert s(id="messages").exists
    s.click(row.x + 5, row.y + 5)
    assert s(label="This is message 1.").exists


def test_send_keys_types_into_the_focused_field(s: wda.Client) -> None:
    email = s(id="email")
    email.click()
    s.send_keys("ann@")
    s.send_keys("example.com")
    assert email.value == "ann@example.com"
    email.clear_text()
    assert email.value == "Email"  # back to the placeholder
    email.set_text("a")
    email.set_text("b")  # WDA types at the end of the field
    assert email.text == "ab"


def test_home_and_app_lifecycle(s: wda.Client) -> None:
    assert s.app_current()["bundleId"] == BUNDLE
    assert s.app_state(BUNDLE).value == 4
    s.home()
    assert s.app_current()["bundleId"] == "com.apple.springboard"
    assert s.app_state(BUNDLE).value == 2
    assert 'bundleId="com.apple.springboard"' in s.source()
    s.app_activate(BUNDLE)
    assert s.app_current()["bundleId"] == BUNDLE
    s.press("home")
    s.app_launch(BUNDLE)
    assert s(id="sign_in").exists
    assert s.app_terminate(BUNDLE).value is True
    assert s.app_state(BUNDLE).value == 1
    s.app_start(BUNDLE)
    assert s.app_state(BUNDLE).value == 4
    with pytest.raises(WDARequestError, match="unknown to FrontBoard"):
        s.app_launch("com.example.missing")


# --- finding and elements -----------------------------------------------------------------------


def test_find_by_every_strategy(s: wda.Client) -> None:
    assert s(id="sign_in").label == "Sign in"
    assert s(name="sign_in").className == "XCUIElementTypeButton"
    assert s(text="sign_in").exists
    assert s(label="Forgot password?").exists
    assert s(labelContains="Forgot").exists
    assert s(nameMatches="sign_.*").exists
    assert s(predicate="label BEGINSWITH[c] 'forgot'").exists
    assert s(classChain="**/XCUIElementTypeButton[`label == 'Sign in'`]").exists
    assert s(xpath="//Button[@label='Sign in']").exists
    assert s(className="Button").count() == 2
    assert s(type="Button", index=2).label == "Forgot password?"  # wda's index is 1-based server-side
    assert s(className="Button")[2].label == "Forgot password?"
    assert s(className="Window").child(className="TextField").find_elements()[0].value == "Email"
    assert not s(id="nope").exists
    assert s(id="nope").wait(timeout=0) is None


def test_element_properties(s: wda.Client) -> None:
    el = s(id="sign_in").get()
    b = el.bounds
    assert (b.x, b.y, b.width, b.height) == (16, 319, 358, 48)
    assert el.name == "XCUIElementTypeButton"  # WDA answers the type for /name
    assert el.text == "Sign in"
    assert el.displayed is True and el.enabled is True and el.visible is True
    assert el.accessible is True and el.accessibility_container is False
    assert el.selected() is False
    assert el.info["label"] == "Sign in"


def test_stale_element_after_the_screen_changes(s: wda.Client) -> None:
    el = s(id="sign_in").get()
    assert el.label == "Sign in"
    s.home()
    with pytest.raises(WDAStaleElementReferenceError):
        _ = el.label
    s.app_activate(BUNDLE)
    assert el.label == "Sign in"  # the same element is back


def test_element_scroll_to_visible(s: wda.Client, clock: ManualClock) -> None:
    _sign_in(s, clock)
    row = s(label="Message 11").get()
    assert row.visible is False
    row.scroll()
    assert row.visible is True
    row.tap()
    assert s(label="This is message 11.").exists


def test_element_gestures_and_direction_scroll(s: wda.Client, clock: ManualClock) -> None:
    _sign_in(s, clock)
    s(label="Message 1").tap_hold(0.3)  # POST /wda/element/:id/touchAndHold: not a tap
    assert s(id="messages").exists
    assert s(label="Message 12").exists is False
    s(id="messages").scroll("down")  # reveals rows further down
    assert s(label="Message 12").get(timeout=0).visible
    s.swipe_down()
    s.swipe_down()
    assert s(label="Message 1").get(timeout=0).visible


def test_raw_routes_the_client_cannot_reach(server: WdaSimServer) -> None:
    _, doc = _raw(server, "POST", "/session", {"capabilities": {}})
    sid = doc["sessionId"]
    status, doc = _raw(server, "POST", f"/session/{sid}/wda/keys", {"value": ["x"]})
    assert status == 400 and doc["value"]["error"] == "invalid element state"
    assert "keyboard must be present to send keys" in doc["value"]["message"]
    _, doc = _raw(server, "POST", "/elements", {"using": "link text", "value": "label=Sign in"})
    [ref] = doc["value"]
    assert ref["ELEMENT"] == ref["element-6066-11e4-a52e-4f735466cecf"]
    status, doc = _raw(server, "POST", f"/element/{ref['ELEMENT']}/click")
    assert (status, doc["value"]) == (200, None)
    _, doc = _raw(server, "POST", "/elements", {"using": "partial link text", "value": "label=Forgot"})
    assert len(doc["value"]) == 1
    _, doc = _raw(server, "POST", "/elements", {"using": "class name", "value": "XCUIElementTypeTextField"})
    assert len(doc["value"]) == 1
    email = doc["value"][0]["ELEMENT"]
    _raw(server, "POST", f"/element/{email}/value", {"value": ["h", "i"]})
    assert _raw(server, "GET", "/element/active")[1]["value"]["ELEMENT"] == email
    status, doc = _raw(server, "POST", f"/session/{sid}/wda/keyboard/dismiss")
    assert (status, doc["value"]) == (200, None)
    status, doc = _raw(server, "POST", f"/session/{sid}/wda/keyboard/dismiss")
    assert status == 400
    assert _raw(server, "GET", f"/element/{email}/attribute/value")[1]["value"] == "hi"
    status, doc = _raw(server, "POST", "/wda/tap/0", {"x": "a", "y": 1})
    assert status == 400 and doc["value"]["error"] == "invalid argument"
