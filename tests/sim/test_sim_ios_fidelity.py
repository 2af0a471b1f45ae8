"""Real-device fidelity of the simulated WebDriverAgent (issue 13, items 6-9), through the unmodified
facebook-wda client: sessions relaunch their app, the accessible source and settings look like WDA's,
the drag / pinch / HID / URL / orientation endpoints work, and app specs can express double taps,
transparent elements and clear-field actions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import wda
from lxml import etree
from wda.exceptions import WDARequestError

from tests.support.device import rig
from tests.support.paths import DATA
from tests.support.wda import raw_wda
from trailblaze.errors import UsageError
from trailblaze_sim import create_device, load_app_spec
from trailblaze_sim.app.spec import parse_app_spec
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.faults import LATENCY_PROFILES
from trailblaze_sim.ios.wda_settings import default_settings
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.wda import WdaSimServer

BUNDLE = "dev.trailblaze.demo"
GESTURES = DATA / "sim" / "gestures.yaml"


@pytest.fixture
def server() -> Iterator[WdaSimServer]:
    with WdaSimServer(create_device("ios", app="demo", clock=ManualClock())) as srv:
        yield srv


@pytest.fixture
def client(server: WdaSimServer) -> wda.Client:
    return wda.Client(server.url)


@pytest.fixture
def gestures() -> Iterator[tuple[WdaSimServer, wda.Client]]:
    device = create_device("ios", app=load_app_spec(GESTURES), clock=ManualClock())
    with WdaSimServer(device) as srv:
        yield srv, wda.Client(srv.url).session()


_raw = raw_wda


# --- item 6: sessions -----------------------------------------------------------------------------


def test_a_session_with_bundle_id_relaunches_the_app_and_forgets_the_last_one(
    client: wda.Client, server: WdaSimServer
) -> None:
    s = client.session(BUNDLE)
    pid = s.app_current()["pid"]
    s(id="email").set_text("ann@example.com")
    s(id="sign_in").click()
    assert s(label="Password required").exists or s(id="error").exists
    old_element = s(id="email").get()
    s.appium_settings({"snapshotMaxDepth": 12})

    # forceAppLaunch defaults to YES: a running app starts afresh, with the new process arguments.
    s2 = client.session(BUNDLE, arguments=["-debug"], environment={"LANG": "fr"})
    info = s2.app_current()
    assert info["pid"] != pid
    assert info["processArguments"] == {"env": {"LANG": "fr"}, "args": ["-debug"]}
    assert s2(id="email").value == "Email"  # the typed text is gone with the old process
    assert not s2(id="error").exists
    assert s2.appium_settings()["snapshotMaxDepth"] == 50  # settings are per session
    status, doc = _raw(server, "GET", f"/element/{old_element.id}/attribute/value")
    assert (status, doc["value"]["error"]) == (404, "stale element reference")  # ids die with their session
    assert s2.bundle_id == BUNDLE

    # forceAppLaunch: false leaves a running app as it is (the client has no flag for it).
    s2(id="email").set_text("kept")
    status, doc = _raw(
        server,
        "POST",
        "/session",
        {"capabilities": {"alwaysMatch": {"bundleId": BUNDLE, "forceAppLaunch": False}}},
    )
    assert status == 200 and doc["value"]["capabilities"]["CFBundleIdentifier"] == BUNDLE
    assert wda.Client(server.url)(id="email").value == "kept"


def test_a_session_for_a_missing_bundle_is_not_created(client: wda.Client, server: WdaSimServer) -> None:
    with pytest.raises(WDARequestError, match="Cannot launch com.example.missing application"):
        client.session("com.example.missing")
    assert client.status()["sessionId"] is None  # the old session was killed first, as WDA does
    status, doc = _raw(server, "POST", "/session", {"desiredCapabilities": {}})
    assert status == 500 and doc["value"]["error"] == "session not created"
    status, doc = _raw(
        server, "POST", "/session", {"capabilities": {"alwaysMatch": {"bundleId": BUNDLE, "arguments": "-x"}}}
    )
    assert status == 500 and "'arguments' must be a list of strings" in doc["value"]["message"]


def test_app_launch_passes_arguments_only_to_a_process_that_starts(client: wda.Client) -> None:
    s = client.session()
    s.app_terminate(BUNDLE)
    s.app_launch(BUNDLE, arguments=["-a"], environment={"K": "1"}, wait_for_quiescence=True)
    assert s.app_current()["processArguments"] == {"env": {"K": "1"}, "args": ["-a"]}
    s.app_launch(BUNDLE, arguments=["-b"])  # already running: WDA only activates it
    assert s.app_current()["processArguments"]["args"] == ["-a"]
    assert s.app_terminate("com.example.missing").value is False  # not running: false, no error
    assert s.app_state("com.example.missing").value == 1


# --- item 7: accessible source and settings -----------------------------------------------------


def _walk(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("children", []):
        yield from _walk(child)


def test_accessible_source_nodes_carry_type_name_and_raw_identifier(client: wda.Client) -> None:
    s = client.session(BUNDLE)
    tree = s.source(accessible=True)
    nodes = list(_walk(tree))
    assert all({"type", "name", "rawIdentifier"} <= set(n) for n in nodes)
    assert tree["type"] == "Application" and tree["name"] == "Demo"
    button = next(n for n in nodes if n["rawIdentifier"] == "sign_in")
    assert button == {
        "value": None,
        "label": "Sign in",
        "type": "Button",
        "rawIdentifier": "sign_in",
        "name": "sign_in",
    }
    email = next(n for n in nodes if n["rawIdentifier"] == "email")
    assert email["type"] == "TextField" and email["label"] == "" and email["value"] == "Email"
    forgot = next(n for n in nodes if n.get("label") == "Forgot password?")
    assert forgot["rawIdentifier"] == "forgot" and forgot["name"] == "forgot"
    # The same "" label in the other renderings of a text field.
    xml = etree.fromstring(s.source().encode())
    assert xml.xpath('//XCUIElementTypeTextField[@name="email"]')[0].get("label") == ""
    json_field = next(n for n in _walk(s.source(format="json")) if n.get("rawIdentifier") == "email")
    assert json_field["label"] == ""
    assert s(id="email").label == ""


def test_settings_are_wdas_full_set_and_post_updates_them(client: wda.Client, server: WdaSimServer) -> None:
    s = client.session()
    settings = s.appium_settings()
    assert settings == default_settings()
    assert len(settings) == 23  # WDA 7's set, what `/status` reports
    assert (settings["keyboardPrediction"], settings["customSnapshotTimeout"]) == (0, 15)
    assert settings["elementResponseAttributes"] == "type,label"
    assert settings["activeAppDetectionPoint"] == "64.00,64.00"
    updated = s.appium_settings(
        {
            "useFirstMatch": True,
            "activeAppDetectionPoint": "10,20",
            "defaultAlertAction": "ACCEPT",
            "keyboardPrediction": True,
            "waitForIdleTimeout": 2.5,
            "noSuchSetting": 1,
        }
    )
    assert updated["useFirstMatch"] is True and updated["activeAppDetectionPoint"] == "10.00,20.00"
    assert (updated["keyboardPrediction"], updated["waitForIdleTimeout"]) == (1, 2.5)
    assert updated["defaultAlertAction"] == "accept" and "noSuchSetting" not in updated
    with pytest.raises(WDARequestError, match="screenshot orientation 'sideways' is not known"):
        s.appium_settings({"screenshotOrientation": "sideways"})
    with pytest.raises(WDARequestError, match="'snapshotMaxDepth' must be a number"):
        s.appium_settings({"snapshotMaxDepth": "deep"})
    assert s.appium_settings()["snapshotMaxDepth"] == 50  # a refused update changes nothing
    _, doc = _raw(
        server, "POST", "/session", {"capabilities": {"alwaysMatch": {"defaultAlertAction": "dismiss"}}}
    )
    assert wda.Client(server.url).appium_settings()["defaultAlertAction"] == "dismiss"


# --- item 8: endpoints ---------------------------------------------------------------------------


def test_open_url_deep_links_and_refuses_what_no_app_handles(
    client: wda.Client, server: WdaSimServer
) -> None:
    s = client.session()
    s.home()
    s.open_url("dev.trailblaze.demo://inbox")
    assert s.app_current()["bundleId"] == BUNDLE
    with pytest.raises(WDARequestError, match="Failed to open url nothing://here"):
        s.open_url("nothing://here")
    with pytest.raises(WDARequestError, match="is not a valid URL"):
        s.open_url("no scheme")
    status, doc = _raw(server, "POST", "/url", {"url": "x://y", "bundleId": "com.example.missing"})
    assert status == 500 and "unknown to FrontBoard" in doc["value"]["message"]
    status, doc = _raw(server, "POST", "/url", {})
    assert (status, doc["value"]["message"]) == (400, "URL is required")


def _sign_in(s: wda.Client, clock: ManualClock) -> None:
    s(id="email").set_text("ann@example.com")
    s(id="password").set_text("hunter2")
    s(id="sign_in").click()
    clock.advance(1.0)


def test_drags_take_their_duration_scaled_by_the_latency_profile(server: WdaSimServer) -> None:
    assert (LATENCY_PROFILES["zero"].gesture_time_scale, LATENCY_PROFILES["realistic"].gesture_time_scale) == (0.0, 1.0)
    device = server.device
    assert isinstance(device, SimulatedDevice) and isinstance(device.clock, ManualClock)
    s = wda.Client(server.url).session()
    _sign_in(s, device.clock)
    assert not s(label="Message 12").exists
    s.swipe(195, 600, 195, 200, 2.0)  # press 2 s, then drag: POST /wda/dragfromtoforduration
    assert s(label="Message 12").exists
    assert server.stats.gesture_seconds == pytest.approx(2.1)
    s._fast_swipe(195, 200, 195, 600, velocity=400)  # POST /wda/drag: 400 pt at 400 pt/s
    assert s(label="Message 1").exists
    assert server.stats.gesture_seconds == pytest.approx(3.1)
    # A drag that starts beside the 390-pt screen lands on its edge, as on a phone.
    s.swipe(500, 600, 500, 200, 0)
    assert s(label="Message 12").exists
    s.swipe(500, 200, 500, 600, 0)
    assert server.stats.gesture_seconds == pytest.approx(3.3)
    s.tap_hold(20, 20, 0.7)
    assert server.stats.gesture_seconds == pytest.approx(4.0)
    table = s(id="messages").get()
    status, _ = _raw(
        server,
        "POST",
        f"/wda/element/{table.id}/dragfromtoforduration",
        {"fromX": 100, "fromY": 400, "toX": 100, "toY": 40, "duration": 0.5},
    )
    assert status == 200 and s(label="Message 12").exists
    status, doc = _raw(
        server, "POST", "/wda/drag", {"fromX": 1, "fromY": 1, "toX": 2, "toY": 2, "velocity": 0}
    )
    assert status == 400 and "'velocity' must be positive" in doc["value"]["message"]


def test_pinch_and_hid_events(client: wda.Client) -> None:
    s = client.session(BUNDLE)
    logo = s(id="sign_in").get()
    logo.pinch(0.5, -1)  # pinch in
    logo.pinch(2.0, 1)  # pinch out
    with pytest.raises(WDARequestError, match="velocity must be less than zero"):
        logo.pinch(0.5, 1)
    with pytest.raises(WDARequestError, match="'scale' must be greater than zero"):
        logo.pinch(0, -1)
    s.press_duration("volumeUp", 0.1)  # POST /wda/performIoHidEvent
    assert s.app_current()["bundleId"] == BUNDLE
    s.press_duration("power", 0.1)
    assert client.locked() is True
    s.press_duration("power", 0.1)
    assert client.locked() is False
    s.press_duration("home", 0.05)
    assert s.app_current()["bundleId"] == "com.apple.springboard"
    s.deactivate(0)  # background and back, for the app in front (springboard here: no-op)
    assert s.app_current()["bundleId"] == "com.apple.springboard"


def test_orientation_follows_what_the_app_spec_allows(
    client: wda.Client, gestures: tuple[WdaSimServer, wda.Client]
) -> None:
    demo = client.session()
    with pytest.raises(WDARequestError, match="Unable To Rotate Device"):
        demo.orientation = "LANDSCAPE"
    assert demo.orientation == "PORTRAIT" and tuple(demo.window_size()) == (390, 844)

    server, s = gestures
    portrait_width = s(id="query").bounds.width
    s.orientation = "LANDSCAPE"
    assert s.orientation == "LANDSCAPE"
    assert tuple(s.window_size()) == (844, 390)
    assert s(id="query").bounds.width > portrait_width  # laid out again in the wider screen
    assert s.screenshot().size == (844 * 3, 390 * 3)
    with pytest.raises(WDARequestError, match="Unable To Rotate Device"):
        s.orientation = "UIA_DEVICE_ORIENTATION_PORTRAIT_UPSIDEDOWN"  # iPhones do not turn upside down
    s.orientation = "PORTRAIT"
    assert tuple(s.window_size()) == (390, 844)
    assert _raw(server, "GET", "/rotation")[1]["value"] == {"x": 0, "y": 0, "z": 0}
    assert _raw(server, "POST", "/rotation", {"x": 0, "y": 0, "z": 90})[0] == 200
    assert s.orientation == "LANDSCAPE"
    status, doc = _raw(server, "POST", "/rotation", {"x": 0, "y": 0, "z": 45})
    assert status == 400 and "rotation is not supported" in doc["value"]["message"]


# --- item 9: app-spec features --------------------------------------------------------------------


def test_double_tap_handler_transparent_element_and_clear_action(
    gestures: tuple[WdaSimServer, wda.Client],
) -> None:
    server, s = gestures
    photo = s(id="photo")
    photo.tap()  # a single tap is not a double tap
    assert s(id="title").label == "Liked: false"
    s.double_tap(*photo.bounds.center)
    assert s(id="title").label == "Liked: true"
    _raw(server, "POST", f"/wda/element/{photo.get().id}/doubleTap")  # the client has no element call for it
    assert s(id="title").label == "Liked: false"

    ghost = s(id="ghost").get()  # in the tree, laid out, but transparent: not visible, not hittable
    assert ghost.visible is False and ghost.displayed is False and ghost.bounds.height > 0
    assert ghost.accessible is False
    assert s(id="ghost").info["label"] == "Ghost"
    s.tap(*ghost.bounds.center)  # the touch passes through it
    assert s(id="ghost_count").label == "Ghost taps: 0"

    s(id="query").set_text("cats")
    assert s(id="query").value == "cats"
    s(id="clear_query").click()
    assert s(id="query").value == "Search"  # back to the placeholder


def test_android_double_tap_through_uiautomator2_runs_the_handler() -> None:
    # u2's double_click is two separate taps 0.1 s apart: the device pairs them.
    with rig("android", app=str(GESTURES)) as r:
        r.driver.double_tap(*r.by_id("photo").center)
        assert r.by_id("title").text == "Liked: true"
        r.driver.tap(*r.by_id("photo").center)  # one tap after it is not another double tap
        assert r.device.state["liked"] is True


def test_android_ignores_alpha_for_visibility_and_touches() -> None:
    device = create_device("android", app=load_app_spec(GESTURES), clock=ManualClock())
    ghost = next(n for n in device.tree().walk() if n.id == "ghost")
    assert ghost.visible and ghost.opacity == 0
    device.tap(*ghost.frame.center)
    assert device.state["ghost_taps"] == "1"


def test_spec_checks_the_clear_steps_field() -> None:
    raw = {
        "app_id": "a.b",
        "name": "A",
        "launch": "s",
        "screens": {"s": {"elements": [{"role": "button", "on_tap": [{"clear": "nope"}]}]}},
    }
    with pytest.raises(UsageError, match=r"on_tap\[0\]: screen 's' has no text field 'nope'"):
        parse_app_spec(raw)
    raw["orientations"] = ["sideways"]
    with pytest.raises(UsageError, match="orientations"):
        parse_app_spec(raw)


def test_the_rest_of_the_upstream_clients_calls(client: wda.Client) -> None:
    assert client.wait_ready(timeout=1, noprint=True)
    s = client.session(BUNDLE)
    s.implicitly_wait(0.2)
    assert s.info["isSimulator"] is True
    assert s.xpath("//XCUIElementTypeButton[@name='sign_in']").exists
    assert s(id="sign_in").click_exists(timeout=0.2) is True
    assert s(id="nope").click_exists() is False
    s.swipe_left()
    s.swipe_right()
    s.swipe_up()
    assert s(id="sign_in").exists  # nothing scrolls on the login screen
    assert s(id="email").wait_gone(timeout=0.2, raise_error=False) is False
    s.app_stop(BUNDLE)
    assert s(id="email").wait_gone(timeout=0.2) is True
    assert s.app_state(BUNDLE).value == 1
    s.app_start(BUNDLE)
    assert s.alert.wait(timeout=0.2) is False
    assert s.alert.click_exists("OK") is None  # no alert: nothing to click


def test_active_app_info_has_webdriveragents_shape_in_front_and_at_home(client: wda.Client) -> None:
    # WebDriverAgent's handleActiveAppInfo: pid, bundleId, name and processArguments {args, env},
    # nothing else (facebook-wda's e2e suite checks this with a closed JSON schema)
    def check(info: dict[str, Any], bundle: str) -> None:
        assert set(info) == {"pid", "bundleId", "name", "processArguments"}
        assert info["bundleId"] == bundle and isinstance(info["name"], str)
        assert isinstance(info["pid"], int) and info["pid"] > 0
        assert info["processArguments"] == {"args": [], "env": {}}

    check(client.app_current(), BUNDLE)
    client.home()
    check(client.app_current(), "com.apple.springboard")
