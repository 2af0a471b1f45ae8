"""The real Appium server (3.x) with its real UiAutomator2 driver drives the simulated phone, from the
real Appium Python client: session start (the Appium Settings app, the server APKs, `am instrument`,
the port forward), the UiAutomator2 server's page source and locators, element commands, W3C actions,
keys, screenshots, `mobile:` commands, logcat, the clipboard, two phones at once.

One Appium server per module (`plain`; `insecure` allows `uiautomator2:adb_shell`), started only by
the tests that use it; each test holds as few sessions as it can.
"""

from __future__ import annotations

import io
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import adbutils
import pytest
from appium import webdriver
from appium.options.common import AppiumOptions
from appium.webdriver.common.appiumby import AppiumBy
from lxml import etree
from PIL import Image
from selenium.common.exceptions import NoSuchElementException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput

from tests.support.appium import AppiumServer, SimPhones, sim_phones

pytestmark = pytest.mark.slow

PKG = "dev.trailblaze.demo"
APP = {"appPackage": PKG, "appActivity": ".MainActivity", "noReset": True}
# The attributes appium-uiautomator2-server 10.x writes for an empty EditText with a hint, in its order.
EDIT_TEXT_ATTRIBUTES = [
    "index", "package", "class", "text", "resource-id", "checkable", "checked", "clickable", "enabled",
    "focusable", "focused", "long-clickable", "password", "scrollable", "selected", "bounds", "displayed",
    "hint", "a11y-important", "screen-reader-focusable", "input-type", "drawing-order", "showing-hint",
    "text-entry-key", "dismissable", "a11y-focused", "heading", "live-region", "context-clickable",
    "content-invalid", "window-id",
]  # fmt: skip


@pytest.fixture(scope="module")
def phones() -> Iterator[SimPhones]:
    with sim_phones(2) as rig:
        yield rig


@pytest.fixture(autouse=True)
def _fresh_apps(phones: SimPhones) -> None:
    """Each test starts on the demo's login screen with fresh app data, whatever ran before it."""
    for device in phones.devices:
        device.clear_app_data(PKG)
        device.launch(PKG)


def _server(tmp_path_factory: pytest.TempPathFactory, name: str, *args: str) -> Iterator[AppiumServer]:
    with AppiumServer(tmp_path_factory.mktemp(name) / "appium.log", args=args) as server:
        yield server


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppiumServer]:
    yield from _server(tmp_path_factory, "appium")


@pytest.fixture(scope="module")
def insecure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppiumServer]:
    yield from _server(tmp_path_factory, "appium-insecure", "--allow-insecure=uiautomator2:adb_shell")


Connect = Callable[..., webdriver.Remote]


@pytest.fixture
def connect(phones: SimPhones) -> Iterator[Connect]:
    """`connect(server, serial=None, **appium_caps)`: a session, quit at the end of the test; a failing
    test prints the Appium log it wrote."""
    drivers: list[webdriver.Remote] = []
    logs: list[tuple[AppiumServer, int]] = []

    def open_session(server: AppiumServer, serial: str | None = None, **caps: Any) -> webdriver.Remote:
        if all(s is not server for s, _ in logs):
            logs.append((server, len(server.log_text())))
        options = AppiumOptions()
        options.load_capabilities(phones.capabilities(serial, **caps))
        driver = webdriver.Remote(server.url, options=options)
        drivers.append(driver)
        return driver

    yield open_session
    for driver in drivers:
        try:
            driver.quit()
        except WebDriverException:
            pass
    for server, start in logs:
        print(f"--- Appium log ({server.url}) ---\n{server.log_text()[start:][-20000:]}")  # shown on failure


def _source(driver: webdriver.Remote) -> etree._Element:
    return etree.fromstring(driver.page_source.encode("utf-8"))


def _by_id(root: etree._Element, short: str) -> etree._Element:
    found = root.xpath(f"//*[@resource-id='{PKG}:id/{short}']")
    assert found, f"no {short} in the page source"
    return found[0]  # type: ignore[no-any-return]


def _adb(phones: SimPhones, serial: str) -> adbutils.AdbDevice:
    return adbutils.AdbClient("127.0.0.1", phones.server.port).device(serial)


def _forwards(phones: SimPhones) -> list[tuple[str, str, str]]:
    """(serial, local, remote) of every `adb forward`."""
    return [
        (f.serial, f.local, f.remote)
        for f in adbutils.AdbClient("127.0.0.1", phones.server.port).forward_list()
    ]


def _sign_in(driver: webdriver.Remote, phones: SimPhones) -> None:
    driver.find_element(AppiumBy.ID, "email").send_keys("ada@example.com")
    driver.find_element(AppiumBy.ID, "password").send_keys("hunter2")
    driver.find_element(AppiumBy.ID, "sign_in").click()
    phones.clock.advance(1.0)  # the demo's 1 s "Signing in…" on the device clock
    driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Compose")  # the inbox


def _tap(driver: webdriver.Remote, x: int, y: int, hold_s: float = 0.0) -> None:
    actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    actions.pointer_action.move_to_location(x, y).pointer_down()
    if hold_s:
        actions.pointer_action.pause(hold_s)
    actions.pointer_action.release()
    actions.perform()


def test_session_without_an_app_page_source_locators_and_a_second_session(
    plain: AppiumServer, phones: SimPhones, connect: Connect
) -> None:
    started = time.monotonic()
    driver = connect(plain)
    first = time.monotonic() - started
    root = _source(driver)
    assert (root.tag, dict(root.attrib)) == (
        "hierarchy",
        {"index": "0", "class": "hierarchy", "rotation": "0", "width": "1080", "height": "2256"},
    )
    email = _by_id(root, "email")
    assert email.tag == "android.widget.EditText" and list(email.attrib) == EDIT_TEXT_ATTRIBUTES
    assert (email.get("text"), email.get("hint"), email.get("showing-hint"), email.get("input-type")) == (
        "Email", "Email", "true", "1",
    )  # fmt: skip
    assert _by_id(root, "password").get("input-type") == "129"

    element = driver.find_element(AppiumBy.ID, f"{PKG}:id/email")
    assert (
        element.get_attribute("resource-id") == f"{PKG}:id/email" and element.get_attribute("hint") == "Email"
    )
    # with no appPackage a bare id is completed with the server's own package, as on a phone
    with pytest.raises(NoSuchElementException):
        driver.find_element(AppiumBy.ID, "email")
    button = driver.find_element(AppiumBy.XPATH, "//android.widget.Button[@text='Sign in']")
    assert button.rect == {"x": 48, "y": 888, "width": 984, "height": 144}
    assert button.id == driver.find_element(AppiumBy.ANDROID_UIAUTOMATOR, 'text("Sign in")').id
    assert [e.text for e in driver.find_elements(AppiumBy.CLASS_NAME, "android.widget.EditText")] == [
        "Email",
        "Password",
    ]
    assert driver.get_window_rect() == {"x": 0, "y": 0, "width": 1080, "height": 2256}
    with Image.open(io.BytesIO(driver.get_screenshot_as_png())) as shot:
        assert shot.size == (1080, 2400)
    assert "io.appium.uiautomator2.server" in _adb(phones, "emulator-5554").shell("ps -A")
    driver.quit()
    # the server's instrumentation ends with the session; the forward goes too
    ps = _adb(phones, "emulator-5554").shell("ps -A")
    assert "io.appium.uiautomator2.server" not in ps and "io.appium.settings" in ps
    assert not [f for f in _forwards(phones) if f[2] == "tcp:6790"]

    started = time.monotonic()
    again = connect(plain)
    second = time.monotonic() - started
    assert _by_id(_source(again), "sign_in").get("text") == "Sign in"
    print(f"session start: first {first:.2f}s, second {second:.2f}s")
    assert second < 5, "session start waits on something the simulator should answer at once"


def test_typing_keys_and_signing_in(plain: AppiumServer, phones: SimPhones, connect: Connect) -> None:
    driver = connect(plain, **APP)
    email = driver.find_element(AppiumBy.ID, "email")  # completed with appPackage
    email.send_keys("ada@example.com")
    assert _by_id(_source(driver), "email").get("text") == "ada@example.com"
    email.send_keys("x")  # appends, as the server's set text does without `replace`
    assert email.text == "ada@example.comx"
    email.clear()
    assert (email.text, _by_id(_source(driver), "email").get("showing-hint")) == ("Email", "true")
    email.send_keys("ada@example.com")
    driver.press_keycode(66)  # Enter submits the field: the password field takes the focus
    assert _by_id(_source(driver), "password").get("focused") == "true"
    ActionChains(driver).send_keys("hunter2").perform()  # W3C key actions type into it
    assert _by_id(_source(driver), "password").get("text") == "•" * 7

    driver.find_element(AppiumBy.ID, "sign_in").click()
    phones.clock.advance(1.0)  # the demo's 1 s "Signing in…" on the device clock
    assert (
        driver.find_element(AppiumBy.ACCESSIBILITY_ID, "Compose").get_attribute("class")
        == "android.widget.ImageButton"
    )
    assert phones.device("emulator-5554").screen_name == "inbox"
    assert "logcat" in driver.log_types
    # logcat lines reach Appium through its `adb logcat` stream, a moment after the app writes them
    logcat: list[str] = []
    deadline = time.monotonic() + 5
    while not any("Signed in as ada@example.com" in line for line in logcat) and time.monotonic() < deadline:
        logcat += [entry["message"] for entry in driver.get_log("logcat")]
        time.sleep(0.05)
    assert any("Signed in as ada@example.com" in line for line in logcat), logcat


def test_touch_actions_back_and_the_clipboard(
    plain: AppiumServer, phones: SimPhones, connect: Connect
) -> None:
    device = phones.device("emulator-5554")
    driver = connect(plain, **APP)
    _sign_in(driver, phones)
    rows = lambda: [e.get("text") for e in _source(driver).xpath(f"//*[@resource-id='{PKG}:id/row_title']")]  # noqa: E731
    before = rows()
    assert before[0] == "Message 1"

    swipe = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    swipe.pointer_action.move_to_location(540, 1800).pointer_down().pause(0.05)
    swipe.pointer_action.move_to_location(540, 600).release()
    swipe.perform()
    after = rows()
    assert after[0] != "Message 1" and int(after[0].split()[1]) > 1, after

    row = driver.find_element(
        AppiumBy.XPATH, f"//*[@resource-id='{PKG}:id/row_title' and @text='{after[0]}']"
    )
    x, y = row.rect["x"] + 20, row.rect["y"] + 10
    _tap(driver, x, y, hold_s=0.6)  # a long press: the rows only answer taps
    assert device.screen_name == "inbox"
    _tap(driver, x, y)
    assert device.screen_name == "detail"
    assert driver.find_element(AppiumBy.ID, "message_title").text == after[0]
    driver.back()
    assert device.screen_name == "inbox"

    driver.set_clipboard_text("copied text")
    assert device.clipboard == "copied text"
    device.clipboard = "from the phone"
    assert driver.get_clipboard_text() == "from the phone"  # through the Appium Settings app's receiver


def test_mobile_app_management(
    plain: AppiumServer, phones: SimPhones, connect: Connect, tmp_path: Path
) -> None:
    driver = connect(plain, **APP)
    device = phones.device("emulator-5554")
    state = lambda: driver.execute_script("mobile: queryAppState", {"appId": PKG})  # noqa: E731
    assert state() == 4
    assert driver.execute_script("mobile: terminateApp", {"appId": PKG}) is True
    assert state() == 1 and device.app_state(PKG) == 1
    driver.execute_script("mobile: activateApp", {"appId": PKG})
    assert state() == 4 and device.current_app() is not None
    _sign_in(driver, phones)
    assert device.state["signed_in"] is True
    driver.execute_script("mobile: clearApp", {"appId": PKG})
    assert device.state["signed_in"] is False and state() == 1

    apk = tmp_path / "hello.apk"
    with zipfile.ZipFile(apk, "w") as z:
        z.writestr("AndroidManifest.xml", '<manifest package="dev.trailblaze.hello" android:versionCode="3" '
                   'xmlns:android="http://schemas.android.com/apk/res/android"/>')  # fmt: skip
    installed = lambda: driver.execute_script("mobile: isAppInstalled", {"appId": "dev.trailblaze.hello"})  # noqa: E731
    assert installed() is False
    driver.execute_script("mobile: installApp", {"appPath": str(apk)})
    assert installed() is True
    assert "package:dev.trailblaze.hello versionCode:3" in _adb(phones, "emulator-5554").shell(
        "cmd package list packages --show-versioncode"
    )
    assert driver.execute_script("mobile: removeApp", {"appId": "dev.trailblaze.hello"}) is True
    assert installed() is False


def test_mobile_shell_is_refused_without_the_insecure_feature(plain: AppiumServer, connect: Connect) -> None:
    driver = connect(plain)
    with pytest.raises(
        WebDriverException, match="Potentially insecure feature 'adb_shell' has not been enabled"
    ):
        driver.execute_script("mobile: shell", {"command": "echo", "args": ["hi"]})


def test_two_phones_at_once_and_the_adb_shell_feature(
    insecure: AppiumServer, phones: SimPhones, connect: Connect
) -> None:
    serials = ["emulator-5554", "emulator-5556"]
    drivers: dict[str, webdriver.Remote] = {}

    def start(serial: str) -> None:
        # without noReset the driver clears the app's data first (`pm clear`): the login screen
        drivers[serial] = connect(insecure, serial, appPackage=PKG, appActivity=".MainActivity")

    threads = [threading.Thread(target=start, args=(s,)) for s in serials]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(drivers) == serials
    for serial, driver in drivers.items():
        driver.find_element(AppiumBy.ID, f"{PKG}:id/email").send_keys(f"{serial}@example.com")
        shell = driver.execute_script("mobile: shell", {"command": "getprop", "args": ["ro.serialno"]})
        assert shell.strip() == serial
    for serial, driver in drivers.items():
        assert _by_id(_source(driver), "email").get("text") == f"{serial}@example.com"
    forwards = [f for f in _forwards(phones) if f[2] == "tcp:6790"]
    assert (
        sorted(f[0] for f in forwards) == serials and len({f[1] for f in forwards}) == 2
    )  # own systemPort each
