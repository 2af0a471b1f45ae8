"""End to end: the unmodified Appium-Python-Client drives the simulated WebDriverAgent as it would an
Appium server with the XCUITest driver (trailblaze_sim.appium.xcuitest), over real sockets.

One server per app serves the module; every test opens its own Appium session, whose fast reset (the
XCUITest default on a Simulator) starts the app from a fresh install, so tests do not see each other.
"""

from __future__ import annotations

import base64
import datetime
import plistlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from appium import webdriver
from appium.options.ios import XCUITestOptions
from appium.webdriver.common.appiumby import AppiumBy
from appium.webdriver.webdriver import WebDriver
from lxml import etree
from selenium.common.exceptions import InvalidArgumentException, UnknownMethodException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput

from tests.support.wda import raw_wda
from trailblaze_sim import create_device
from trailblaze_sim.app.spec import parse_app_spec
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.model import ManualClock, SteppedClock
from trailblaze_sim.server.wda import WdaSimServer

BUNDLE = "dev.trailblaze.demo"
_GESTURES_SPEC: dict[str, Any] = {
    "app_id": "dev.trailblaze.touch",
    "name": "Touch",
    "launch": "main",
    "state": {"held": "no", "liked": False},
    "screens": {
        "main": {
            "elements": [
                {"role": "text", "id": "status", "text": "held={state.held} liked={state.liked}"},
                {"role": "button", "id": "pad", "text": "Pad", "height": 120,
                 "on_tap": [{"set": {"state.held": "tapped"}}],
                 "on_long_press": [{"set": {"state.held": "long"}}]},
                {"role": "image", "id": "photo", "label": "Photo", "height": 120,
                 "on_double_tap": [{"toggle": "state.liked"}]},
            ]
        }
    },
}


# --- fixtures and helpers ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture(scope="module")
def device(clock: ManualClock) -> SimulatedDevice:
    return create_device("ios", app="demo", clock=clock)


@pytest.fixture(scope="module")
def server(device: SimulatedDevice) -> Iterator[WdaSimServer]:
    with WdaSimServer(device) as srv:
        yield srv


def _options(device: SimulatedDevice, **caps: Any) -> XCUITestOptions:
    options = XCUITestOptions()
    options.bundle_id = BUNDLE
    options.udid = device.serial
    options.new_command_timeout = 60
    for name, value in caps.items():
        options.set_capability(name, value)
    return options


@pytest.fixture
def drv(server: WdaSimServer, device: SimulatedDevice) -> Iterator[WebDriver]:
    driver = webdriver.Remote(server.url, options=_options(device))
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def touch_server() -> Iterator[tuple[WdaSimServer, SimulatedDevice]]:
    # A stepped clock: the pauses inside one W3C action pass on the device too.
    device = create_device("ios", app=parse_app_spec(_GESTURES_SPEC), clock=SteppedClock())
    with WdaSimServer(device) as srv:
        yield srv, device


@pytest.fixture
def touch(touch_server: tuple[WdaSimServer, SimulatedDevice]) -> Iterator[WebDriver]:
    srv, device = touch_server
    options = _options(device)
    options.bundle_id = "dev.trailblaze.touch"
    driver = webdriver.Remote(srv.url, options=options)
    yield driver
    driver.quit()


def _xml(driver: WebDriver) -> etree._Element:
    return etree.fromstring(driver.page_source.encode("utf-8"))


def _one(doc: etree._Element, expr: str) -> etree._Element:
    found = doc.xpath(expr)
    assert isinstance(found, list) and len(found) == 1, f"{expr}: {found!r}"
    node = found[0]
    assert isinstance(node, etree._Element)
    return node


def _center(driver: WebDriver, name: str) -> tuple[float, float]:
    r = driver.find_element(AppiumBy.ACCESSIBILITY_ID, name).rect
    return r["x"] + r["width"] / 2, r["y"] + r["height"] / 2


def _press(driver: WebDriver, x: float, y: float, hold_s: float) -> None:
    """A W3C touch: move, down, pause, up."""
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    builder = ActionBuilder(driver, mouse=finger)
    builder.pointer_action.move_to_location(int(x), int(y)).pointer_down().pause(hold_s).release()
    builder.perform()


def _visible_rows(driver: WebDriver) -> list[str]:
    rows = driver.find_elements(AppiumBy.IOS_PREDICATE, 'name == "row_title" AND visible == 1')
    return [r.text for r in rows]


def _sign_in(driver: WebDriver, clock: ManualClock) -> None:
    driver.find_element(AppiumBy.ACCESSIBILITY_ID, "email").send_keys("ann@example.com")
    driver.find_element(AppiumBy.ACCESSIBILITY_ID, "password").send_keys("hunter2")
    driver.find_element(AppiumBy.ACCESSIBILITY_ID, "sign_in").click()
    clock.advance(1.0)
    assert "Message 1" in _visible_rows(driver)


_raw = raw_wda


def _state(driver: WebDriver, bundle: str = BUNDLE) -> int:
    state = driver.execute_script("mobile: queryAppState", {"bundleId": bundle})
    assert isinstance(state, int)
    return state


# --- session -----------------------------------------------------------------------------------


def test_session_answers_appium_capabilities_and_relaunches_the_app_fresh(
    server: WdaSimServer, device: SimulatedDevice, clock: ManualClock
) -> None:
    first = webdriver.Remote(server.url, options=_options(device))
    _sign_in(first, clock)
    first.quit()
    assert device.app_state(BUNDLE) == 1  # shouldTerminateApp: ending the session stops its app
    driver = webdriver.Remote(server.url, options=_options(device))
    try:
        caps = driver.caps
        assert (caps["platformName"], caps["automationName"], caps["bundleId"]) == ("iOS", "XCUITest", BUNDLE)
        assert caps["udid"] == device.serial and caps["platformVersion"] == "17.4"
        assert caps["newCommandTimeout"] == 60 and "appium:bundleId" not in caps
        assert driver.execute("getCapabilities")["value"]["bundleId"] == BUNDLE  # GET /session/:id
        # Fast reset (noReset false): the data container was wiped, the sign-in is gone.
        assert _state(driver) == 4 and device.state["signed_in"] is False
        assert driver.get_window_rect() == {"x": 0, "y": 0, "width": 390, "height": 844}
        assert driver.get_screenshot_as_png().startswith(b"\x89PNG")
    finally:
        driver.quit()


def test_no_reset_keeps_the_running_app_and_its_data(
    server: WdaSimServer, device: SimulatedDevice, clock: ManualClock
) -> None:
    first = webdriver.Remote(server.url, options=_options(device, **{"appium:noReset": True}))
    _sign_in(first, clock)
    pid = first.execute_script("mobile: activeAppInfo")["pid"]
    first.quit()  # under noReset, shouldTerminateApp defaults to false
    again = webdriver.Remote(server.url, options=_options(device, **{"appium:noReset": True}))
    try:
        assert again.execute_script("mobile: activeAppInfo")["pid"] == pid  # not relaunched
        assert "Message 1" in _visible_rows(again)
    finally:
        again.quit()


def test_auto_launch_false_and_process_arguments(server: WdaSimServer, device: SimulatedDevice) -> None:
    off = webdriver.Remote(server.url, options=_options(device, **{"appium:autoLaunch": False}))
    try:
        assert _state(off) == 1  # reset stopped it and nothing launched it
    finally:
        off.quit()
    caps = {"appium:processArguments": {"args": ["-demo", "1"], "env": {"MODE": "test"}}}
    on = webdriver.Remote(server.url, options=_options(device, **caps))
    try:
        info = on.execute_script("mobile: activeAppInfo")
        assert info["bundleId"] == BUNDLE
        assert info["processArguments"] == {"args": ["-demo", "1"], "env": {"MODE": "test"}}
    finally:
        on.quit()


def test_session_creation_errors(server: WdaSimServer, device: SimulatedDevice) -> None:
    body = {"capabilities": {"alwaysMatch": {"platformName": "iOS", "appium:automationName": "XCUITest",
                                             "bundleId": BUNDLE}, "firstMatch": [{}]}}
    status, doc = _raw(server, "POST", "/session", body)
    assert status == 400 and doc["value"]["error"] == "invalid argument"
    assert "did not have one: bundleId" in doc["value"]["message"]
    with pytest.raises(WebDriverException, match="Could not find a driver for automationName 'UiAutomator2'"):
        webdriver.Remote(server.url, options=_options(device, **{"appium:automationName": "UiAutomator2"}))
    with pytest.raises(WebDriverException, match="Unknown device or simulator UDID: 'NOPE'"):
        webdriver.Remote(server.url, options=_options(device, **{"appium:udid": "NOPE"}))
    with pytest.raises(WebDriverException, match="App with bundle identifier 'com.example.absent' unknown"):
        webdriver.Remote(server.url, options=_options(device, **{"appium:bundleId": "com.example.absent"}))


def test_facebook_wda_sessions_are_untouched(server: WdaSimServer, device: SimulatedDevice) -> None:
    driver = webdriver.Remote(server.url, options=_options(device))
    # A bare WDA session replaces the Appium one, whose app WDA terminates with it.
    status, doc = _raw(server, "POST", "/session", {"capabilities": {}})
    assert status == 200 and set(doc["value"]["capabilities"]) == {"device", "sdkVersion", "browserName",
                                                                    "CFBundleIdentifier"}
    assert device.app_state(BUNDLE) == 1
    status, doc = _raw(server, "POST", "/session", {"capabilities": {"alwaysMatch": {"bundleId": BUNDLE}}})
    assert status == 200 and doc["value"]["capabilities"]["CFBundleIdentifier"] == BUNDLE
    status, doc = _raw(server, "GET", "/source")  # WDA's own document again, no AppiumAUT
    assert doc["value"].split("\n")[1].startswith("<XCUIElementTypeApplication")
    sid = doc["sessionId"]
    status, doc = _raw(server, "POST", f"/session/{sid}/execute/sync", {"script": "mobile: deviceInfo",
                                                                        "args": []})
    assert status == 404 and doc["value"]["error"] == "unknown command"  # WDA has no execute
    # WDA's own /actions: no driver in front to turn a mouse into a touch.
    tap = [{"type": "pointerMove", "x": 195, "y": 343}, {"type": "pointerDown"}, {"type": "pointerUp"}]
    status, doc = _raw(server, "POST", f"/session/{sid}/actions",
                       {"actions": [{"type": "pointer", "id": "m", "actions": tap}]})
    assert status == 500 and "Only pointer type 'touch' is supported" in doc["value"]["message"]
    touch = {"type": "pointer", "id": "t", "parameters": {"pointerType": "touch"}, "actions": tap}
    status, doc = _raw(server, "POST", f"/session/{sid}/actions", {"actions": [touch]})  # on "Sign in"
    assert status == 200 and "Email required" in _raw(server, "GET", "/source")[1]["value"]
    with pytest.raises(WebDriverException):
        driver.page_source  # noqa: B018 - the replaced session is invalid


# --- source, tap, typing -----------------------------------------------------------------------


def test_page_source_is_the_login_screen_under_appium_aut(drv: WebDriver) -> None:
    doc = _xml(drv)
    assert doc.tag == "AppiumAUT"
    app = _one(doc, "/AppiumAUT/XCUIElementTypeApplication")
    assert app.get("bundleId") == BUNDLE
    assert _one(doc, "//XCUIElementTypeStaticText[@name='welcome']").get("label") == "Welcome back"
    assert _one(doc, "//XCUIElementTypeTextField[@name='email']").get("placeholderValue") == "Email"
    _one(doc, "//XCUIElementTypeSecureTextField[@name='password']")
    _one(doc, "//XCUIElementTypeButton[@name='sign_in']")
    short = drv.execute_script("mobile: source", {"format": "xml", "excludedAttributes": "traits,index"})
    assert "<AppiumAUT>" in short and "traits=" not in short and 'name="email"' in short


def test_w3c_tap_on_the_email_field_then_typing(drv: WebDriver) -> None:
    x, y = _center(drv, "email")
    drv.tap([(int(x), int(y))])  # pointerMove, pointerDown, pause 100 ms, pointerUp
    assert drv.execute_script("mobile: isKeyboardShown") is True
    ActionChains(drv).send_keys("ann@example.com").perform()  # W3C key actions
    field = _one(_xml(drv), "//XCUIElementTypeTextField[@name='email']")
    assert field.get("value") == "ann@example.com"
    drv.switch_to.active_element.send_keys(".uk")  # GET /element/active, POST /element/:id/value
    assert _one(_xml(drv), "//XCUIElementTypeTextField[@name='email']").get("value") == "ann@example.com.uk"
    drv.execute_script("mobile: hideKeyboard")
    assert drv.is_keyboard_shown() is False
    drv.hide_keyboard()  # no keyboard: WDA returns at once


def test_w3c_mouse_click_on_an_element_origin_and_release(drv: WebDriver, clock: ManualClock) -> None:
    drv.find_element(AppiumBy.ACCESSIBILITY_ID, "email").send_keys("ann@example.com")
    drv.find_element(AppiumBy.ACCESSIBILITY_ID, "password").send_keys("hunter2")
    # Selenium's default pointer is a mouse: the driver makes it a touch; the origin is the element.
    ActionChains(drv).click(drv.find_element(AppiumBy.ACCESSIBILITY_ID, "sign_in")).perform()
    clock.advance(1.0)
    assert "Message 1" in _visible_rows(drv)
    ActionBuilder(drv).clear_actions()  # DELETE /actions: a no-op in the XCUITest driver


def test_swipe_scrolls_the_inbox(drv: WebDriver, clock: ManualClock) -> None:
    _sign_in(drv, clock)
    assert _visible_rows(drv)[0] == "Message 1"
    drv.swipe(195, 600, 195, 250, 300)  # move, down, move over 300 ms, up
    rows = _visible_rows(drv)
    assert "Message 1" not in rows and rows[0] in ("Message 6", "Message 7")
    drv.swipe(195, 250, 195, 600, 300)
    assert _visible_rows(drv)[0] == "Message 1"


def test_gesture_methods_map_onto_wda_routes(drv: WebDriver, clock: ManualClock) -> None:
    _sign_in(drv, clock)
    listing = drv.find_element(AppiumBy.ACCESSIBILITY_ID, "messages")
    drv.execute_script("mobile: scroll", {"elementId": listing.id, "direction": "down"})
    assert "Message 1" not in _visible_rows(drv)
    drv.execute_script("mobile: swipe", {"element": listing, "direction": "down"})  # `element` alias
    assert "Message 1" in _visible_rows(drv)
    x, y = _center(drv, "compose")
    drv.execute_script("mobile: tap", {"x": x, "y": y})
    assert _one(_xml(drv), "//XCUIElementTypeTextField[@name='to']") is not None
    with pytest.raises(InvalidArgumentException, match="'direction' must be one of"):
        drv.execute_script("mobile: swipe", {"direction": "sideways"})


def test_actions_errors_are_wdas(drv: WebDriver, server: WdaSimServer) -> None:
    body = {"actions": [{"type": "pointer", "id": "f", "parameters": {"pointerType": "touch"},
                         "actions": [{"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]}
    status, doc = _raw(server, "POST", f"/session/{drv.session_id}/actions", body)
    assert status == 500 and "must be preceded by pointerMove item" in doc["value"]["message"]
    bad_key = [{"type": "key", "id": "k", "actions": [{"type": "keyDown", "value": "a"}]}]
    with pytest.raises(WebDriverException, match="must have a closing Key Up successor"):
        drv.execute("actions", {"actions": bad_key})


# --- long press and double tap (an app spec with those handlers) ------------------------------


def test_long_press_and_tap_are_told_apart(touch: WebDriver) -> None:
    x, y = _center(touch, "pad")
    _press(touch, x, y, 0.1)
    assert _one(_xml(touch), "//*[@name='status']").get("label") == "held=tapped liked=false"
    _press(touch, x, y, 0.8)
    assert _one(_xml(touch), "//*[@name='status']").get("label") == "held=long liked=false"


def test_double_tap_is_two_quick_taps(touch: WebDriver) -> None:
    x, y = _center(touch, "photo")
    finger = PointerInput(interaction.POINTER_TOUCH, "finger")
    builder = ActionBuilder(touch, mouse=finger)
    builder.pointer_action.move_to_location(int(x), int(y)).pointer_down().pause(0.05).release()
    builder.pointer_action.pause(0.1).pointer_down().pause(0.05).release()
    builder.perform()
    assert _one(_xml(touch), "//*[@name='status']").get("label") == "held=no liked=true"
    # Two taps a second apart are no double tap.
    builder.pointer_action.move_to_location(int(x), int(y)).pointer_down().pause(0.05).release()
    builder.pointer_action.pause(1.0).pointer_down().pause(0.05).release()
    builder.perform()
    assert _one(_xml(touch), "//*[@name='status']").get("label") == "held=no liked=true"


# --- mobile: app management --------------------------------------------------------------------


def test_terminate_activate_launch_and_query_app_state(drv: WebDriver) -> None:
    assert _state(drv) == 4
    assert drv.terminate_app(BUNDLE) is True  # mobile: terminateApp
    assert _state(drv) == 1
    assert drv.terminate_app(BUNDLE) is False  # not running
    drv.activate_app(BUNDLE)  # mobile: activateApp
    assert _state(drv) == 4
    drv.execute_script("mobile: pressButton", {"name": "home"})
    assert _state(drv) == 2
    drv.execute_script("mobile: terminateApp", {"bundleId": BUNDLE})
    drv.execute_script("mobile: launchApp", {"bundleId": BUNDLE, "arguments": "-fresh",
                                             "environment": {"K": "V"}})
    assert _state(drv) == 4
    info = drv.execute_script("mobile: activeAppInfo")
    assert info["processArguments"] == {"args": ["-fresh"], "env": {"K": "V"}}
    assert drv.is_app_installed(BUNDLE) is True and drv.is_app_installed("com.example.none") is False
    with pytest.raises(WebDriverException, match="is unknown to FrontBoard"):
        drv.activate_app("com.example.none")


def test_background_and_lock(drv: WebDriver) -> None:
    drv.background_app(-1)  # mobile: backgroundApp, negative: stay on the home screen
    assert _state(drv) == 2
    drv.activate_app(BUNDLE)
    drv.background_app(0)  # WDA's deactivateApp: home screen, then back
    assert _state(drv) == 4
    drv.lock()  # mobile: lock {seconds: 0}
    assert drv.is_locked() is True
    drv.unlock()
    assert drv.is_locked() is False


def test_clear_app_starts_it_signed_out_with_its_data_back(drv: WebDriver, clock: ManualClock,
                                                          device: SimulatedDevice) -> None:
    _sign_in(drv, clock)
    drv.find_element(AppiumBy.IOS_PREDICATE, 'label == "Message 1"').click()
    drv.find_element(AppiumBy.ACCESSIBILITY_ID, "archive").click()
    assert "Message 1" not in _visible_rows(drv)
    assert device.state["signed_in"] is True
    assert drv.execute_script("mobile: clearApp", {"bundleId": BUNDLE}) is True
    assert _state(drv) == 1 and device.state["signed_in"] is False
    drv.activate_app(BUNDLE)
    assert _one(_xml(drv), "//*[@name='welcome']") is not None
    _sign_in(drv, clock)
    assert _visible_rows(drv)[0] == "Message 1"  # the archived message is back


def test_remove_and_install_app(device: SimulatedDevice, tmp_path: Path) -> None:
    # Its own server: removal outlives sessions.
    with WdaSimServer(create_device("ios", app="demo", clock=ManualClock())) as srv:
        driver = webdriver.Remote(srv.url, options=_options(device))
        try:
            assert driver.execute_script("mobile: removeApp", {"bundleId": BUNDLE}) is True
            assert driver.is_app_installed(BUNDLE) is False and _state(driver) == 1
            assert driver.execute_script("mobile: removeApp", {"bundleId": BUNDLE}) is False
            with pytest.raises(WebDriverException, match="unknown to FrontBoard"):
                driver.activate_app(BUNDLE)
            with pytest.raises(WebDriverException, match="does not exist or is not accessible"):
                driver.install_app(str(tmp_path / "missing.app"))
            app = tmp_path / "Demo.app"
            app.mkdir()
            (app / "Info.plist").write_bytes(plistlib.dumps({"CFBundleIdentifier": BUNDLE}))
            driver.install_app(str(app))  # mobile: installApp
            assert driver.is_app_installed(BUNDLE) is True
            driver.activate_app(BUNDLE)
            assert _state(driver) == 4
            other = tmp_path / "Other.app"
            other.mkdir()
            (other / "Info.plist").write_bytes(plistlib.dumps({"CFBundleIdentifier": "com.example.other"}))
            driver.execute_script("mobile: installApp", {"app": str(other)})
            assert driver.is_app_installed("com.example.other") is True
            with pytest.raises(WebDriverException, match="cannot run it"):
                driver.activate_app("com.example.other")
            assert driver.execute_script("mobile: removeApp", {"bundleId": "com.example.other"}) is True
            assert driver.is_app_installed("com.example.other") is False
        finally:
            driver.quit()


def test_deep_link_opens_the_app(drv: WebDriver) -> None:
    drv.terminate_app(BUNDLE)
    drv.execute_script("mobile: deepLink", {"url": f"{BUNDLE}://inbox", "bundleId": BUNDLE})
    assert _state(drv) == 4
    drv.terminate_app(BUNDLE)
    drv.execute_script("mobile: deepLink", {"url": f"{BUNDLE}://inbox"})  # the scheme's app
    assert _state(drv) == 4
    with pytest.raises(WebDriverException, match="cannot be opened"):
        drv.execute_script("mobile: deepLink", {"url": "nobody://x"})


# --- mobile: device ----------------------------------------------------------------------------


def test_buttons_and_keyboard(drv: WebDriver) -> None:
    drv.find_element(AppiumBy.ACCESSIBILITY_ID, "email").click()
    assert drv.execute_script("mobile: isKeyboardShown") is True
    drv.execute_script("mobile: hideKeyboard", {"keys": ["Done"]})
    assert drv.execute_script("mobile: isKeyboardShown") is False
    drv.execute_script("mobile: pressButton", {"name": "volumeUp"})
    assert _state(drv) == 4
    with pytest.raises(WebDriverException, match="home, volumeUp, volumeDown"):
        drv.execute_script("mobile: pressButton", {"name": "power"})
    with pytest.raises(InvalidArgumentException, match="Button name is mandatory"):
        drv.execute_script("mobile: pressButton", {"name": ""})


def test_pasteboard_and_clipboard(drv: WebDriver, device: SimulatedDevice) -> None:
    drv.execute_script("mobile: setPasteboard", {"content": "héllo"})
    assert device.clipboard == "héllo"
    assert drv.execute_script("mobile: getPasteboard") == "héllo"
    assert drv.execute_script("mobile: getPasteboard", {"encoding": "base64"}) == base64.b64encode(
        "héllo".encode()).decode()
    drv.set_clipboard_text("from the client")  # mobile: setClipboard, base64 content
    assert device.clipboard == "from the client"
    assert drv.get_clipboard_text() == "from the client"  # mobile: getClipboard


def test_device_info_and_time(drv: WebDriver, device: SimulatedDevice) -> None:
    info = drv.execute_script("mobile: deviceInfo")
    assert info["uuid"] == device.serial and info["isSimulator"] is True
    assert drv.execute_script("mobile: activeAppInfo")["bundleId"] == BUNDLE
    stamp = drv.get_device_time()  # mobile: getDeviceTime: the host's time on a Simulator
    parsed = datetime.datetime.fromisoformat(stamp)
    assert abs((parsed - datetime.datetime.now(datetime.UTC)).total_seconds()) < 120
    assert drv.get_device_time("YYYY [year] MM") == datetime.datetime.now().astimezone().strftime("%Y year %m")


def test_unknown_and_unmodelled_methods(drv: WebDriver) -> None:
    with pytest.raises(UnknownMethodException, match="Method is not implemented"):
        drv.execute_script("mobile: noSuchMethod")
    with pytest.raises(UnknownMethodException, match="Method is not implemented"):
        drv.execute_script("return document.title")  # native context: no JavaScript
    with pytest.raises(UnknownMethodException, match="does not model 'mobile: shake'"):
        drv.execute_script("mobile: shake")
    with pytest.raises(InvalidArgumentException, match=r'required parameter is missing: \["bundleId"\]'):
        drv.execute_script("mobile: queryAppState", {"appId": BUNDLE})
    with pytest.raises(WebDriverException, match="can only be performed on a real device"):
        drv.execute_script("mobile: killApp", {"bundleId": BUNDLE})
    assert drv.execute_script("mobile:queryAppState", {"bundleId": BUNDLE}) == 4  # no space after the colon


# --- logs and back -----------------------------------------------------------------------------


def test_syslog_since_the_last_read(drv: WebDriver, clock: ManualClock, device: SimulatedDevice,
                                    server: WdaSimServer) -> None:
    assert {"syslog", "crashlog", "performance", "server"} <= set(drv.log_types)
    status, doc = _raw(server, "GET", f"/session/{drv.session_id}/log/types")  # the driver's own route besides /se/log/types
    assert status == 200 and "syslog" in doc["value"]
    first = drv.get_log("syslog")
    pid = device.current_app().pid if device.current_app() else -1
    assert any(f"Demo[{pid}:" in e["message"] and "Demo started" in e["message"] for e in first)
    assert all(e["level"] == "ALL" and isinstance(e["timestamp"], int) for e in first)
    assert drv.get_log("syslog") == []  # drained
    _sign_in(drv, clock)
    lines = [e["message"] for e in drv.get_log("syslog")]
    assert any(line.endswith("Signed in as ann@example.com") for line in lines), lines
    assert drv.get_log("crashlog") == []
    with pytest.raises(WebDriverException, match="get_server_logs"):
        drv.get_log("server")
    with pytest.raises(WebDriverException, match="Unsupported log type 'bogus'"):
        drv.get_log("bogus")


def test_back_taps_the_navigation_bar_back_button(drv: WebDriver, clock: ManualClock,
                                                  device: SimulatedDevice) -> None:
    drv.back()  # login: no navigation bar, nothing happens and nothing fails
    assert device.screen_name == "login"
    _sign_in(drv, clock)
    drv.find_element(AppiumBy.IOS_PREDICATE, 'label == "Message 2"').click()
    assert _one(_xml(drv), "//*[@name='message_title']").get("label") == "Message 2"
    drv.back()
    assert device.screen_name == "inbox"
    drv.back()  # the inbox's bar has no button
    assert device.screen_name == "inbox"
