"""Every `Driver` method of both plugins, end to end through the unmodified uiautomator2 /
facebook-wda clients against the in-process simulators (zero latency, manual clock)."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from PIL import Image

from tests.support.device import PKG, Rig, install_adb_keyboard, rig
from trailblaze.device.driver import Driver, SupportsClipboard
from trailblaze_sim.model import ManualClock


@pytest.fixture(params=["android", "android-ime", "ios"])
def r(request: pytest.FixtureRequest) -> Iterator[Rig]:
    """`android-ime`: a phone prepared as u2 users do, with u2's AdbKeyboard installed and selected,
    so typing takes the input-method path instead of the clipboard."""
    with rig(request.param.removesuffix("-ime"), clock=ManualClock()) as opened:
        if request.param.endswith("-ime"):
            install_adb_keyboard(opened)
        yield opened


def _field_text(r: Rig, short_id: str) -> str:
    node = r.by_id(short_id)
    return "" if node.text == node.hint else str(node.text)


def _sign_in(r: Rig) -> None:
    d = r.driver
    d.tap(*r.by_id("email").center)
    d.input_text("ada@example.com")
    d.tap(*r.by_id("password").center)
    d.input_text("hunter2")
    d.tap(*r.by_id("sign_in").center)
    clock = r.device.clock
    assert isinstance(clock, ManualClock)
    clock.advance(1.0)
    assert r.device.screen_name == "inbox"


def test_plugin_opens_a_driver_with_device_info(r: Rig) -> None:
    d = r.driver
    assert isinstance(d, Driver)
    info = d.info
    if info.platform == "android":
        assert (info.classifier, info.width, info.height, info.scale) == ("android-phone", 1080, 2400, 1.0)
        assert info.serial == "emulator-5554"
        assert isinstance(d, SupportsClipboard)
    else:
        assert (info.classifier, info.width, info.height, info.scale) == ("ios-iphone", 390, 844, 3.0)
        assert info.serial.startswith("http://127.0.0.1:")
    assert info.classifier.split("-")[0] == info.platform  # recordings are stored under the platform


def test_hierarchy_and_screenshot(r: Rig) -> None:
    h = r.driver.hierarchy()
    assert h.platform == r.driver.info.platform
    ids = {n.short_id for n in h.visible_nodes()}
    assert {"email", "password", "sign_in", "forgot"} <= ids
    shot = r.driver.screenshot()
    # the device's own bytes, not re-encoded: uiautomator2 sends JPEG, WebDriverAgent PNG
    assert shot.startswith(b"\xff\xd8\xff" if r.driver.info.platform == "android" else b"\x89PNG")
    info = r.driver.info
    with Image.open(io.BytesIO(shot)) as image:
        assert image.size == (round(info.width * info.scale), round(info.height * info.scale))


@pytest.mark.slow
def test_text_input_appends_erases_and_hides_the_keyboard(r: Rig) -> None:
    d = r.driver
    d.tap(*r.by_id("email").center)
    assert r.device.keyboard_shown()
    d.input_text("ada@")
    d.input_text("example.com")
    assert _field_text(r, "email") == "ada@example.com"
    d.erase_text(4)
    assert _field_text(r, "email") == "ada@example"
    d.press_key("BACKSPACE")
    assert _field_text(r, "email") == "ada@exampl"
    d.erase_text()
    assert _field_text(r, "email") == ""
    d.press_key("ENTER")  # submits the email field: focus moves to the password field
    assert r.by_id("password").focused and not r.by_id("email").focused
    d.press_key("TAB")
    d.hide_keyboard()
    assert not r.device.keyboard_shown()
    d.hide_keyboard()  # already hidden: no error, no side effect
    assert r.device.screen_name == "login"


@pytest.mark.slow
def test_long_press_is_not_a_tap_and_double_tap_toggles_twice(r: Rig) -> None:
    d = r.driver
    d.long_press(*r.by_id("sign_in").center)
    assert r.device.screen_name == "login" and not r.by_id("sign_in").focused
    _sign_in(r)
    d.tap(*r.by_id("tab_settings").center)
    assert r.device.screen_name == "settings"
    before = r.device.state["dark_mode"]
    d.double_tap(*r.by_id("dark_mode").center)
    assert r.device.state["dark_mode"] == before
    d.tap(*r.by_id("dark_mode").center)
    assert r.device.state["dark_mode"] != before


@pytest.mark.slow
def test_swipe_scrolls_the_list(r: Rig) -> None:
    _sign_in(r)
    h = r.driver.hierarchy()
    lst = next(n for n in h.visible_nodes() if n.short_id == "messages")
    first = min((n for n in h.visible_nodes() if n.short_id == "row_title"), key=lambda n: n.bounds.top).text
    cx, cy = lst.visible_bounds.center
    r.driver.swipe(cx, cy + lst.visible_bounds.height / 4, cx, cy - lst.visible_bounds.height / 4)
    h = r.driver.hierarchy()
    now = min((n for n in h.visible_nodes() if n.short_id == "row_title"), key=lambda n: n.bounds.top).text
    assert first == "Message 1" and now != first


@pytest.mark.slow
def test_keys_back_and_home(r: Rig) -> None:
    _sign_in(r)
    d = r.driver
    d.tap(*next(n for n in d.hierarchy().visible_nodes() if n.text == "Message 2" or n.label == "Message 2").center)
    assert r.device.screen_name == "detail"
    d.press_key("BACK")
    assert r.device.screen_name == "inbox"
    assert d.current_app() == PKG
    d.press_key("HOME")
    assert d.current_app() is None


@pytest.mark.slow
def test_app_lifecycle_and_launch_modes(r: Rig) -> None:
    d = r.driver
    _sign_in(r)
    d.press_key("HOME")
    d.launch_app(PKG, "RESUME")
    assert d.current_app() == PKG and r.device.screen_name == "inbox"
    d.launch_app(PKG, "FORCE_RESTART")
    assert d.current_app() == PKG and r.device.app_state(PKG) == 4
    assert r.device.state["signed_in"] is True
    d.launch_app(PKG, "CLEAR_STATE")
    assert r.device.state["signed_in"] is False and r.device.screen_name == "login"
    d.stop_app(PKG)
    assert d.current_app() is None and r.device.app_state(PKG) == 1
    d.launch_app(PKG)
    _sign_in(r)
    d.clear_app(PKG)
    assert r.device.state["signed_in"] is False


def test_close_is_idempotent_and_context_manager_closes(r: Rig) -> None:
    with r.driver as d:
        assert d is r.driver
    r.session.close()
    r.session.close()


def test_list_devices_shows_the_simulator(r: Rig) -> None:
    from trailblaze.device.devices import load_driver_plugin

    platform = r.driver.info.platform
    target, options = r.sim.device_specs()[0]
    if platform == "ios":
        options = {"wda_url": target}
    listing = load_driver_plugin(platform).list_devices(options)
    assert len(listing) == 1
    assert listing[0].spec == (f"android:{target}" if platform == "android" else f"ios:{target}")
    assert listing[0].state in ("device", "ready")
