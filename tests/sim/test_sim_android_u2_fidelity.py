"""Real-device fidelity of the simulated uiautomator2 server (issue 13, items 1, 2 and 4), through
the unmodified uiautomator2 client: window structure as real dumps have it, the UiCollection /
UiObject-handle calls, two-finger gestures, the notification shade and Quick Settings, toasts,
timed gestures and rotation."""

from __future__ import annotations

import pytest
from lxml import etree
from uiautomator2.exceptions import UiObjectNotFoundError

from tests.support.sim_android import PKG, android_rig, rid, sign_in
from trailblaze_sim import load_app_spec
from trailblaze_sim.faults import Conditions, LatencyProfile


def _windows(xml: str) -> list[etree._Element]:
    return list(etree.fromstring(xml.encode()))


def test_app_window_has_decor_view_content_frame_and_bar_backgrounds() -> None:
    with android_rig() as rig:
        windows = _windows(rig.d.dump_hierarchy())
        app = windows[0]
        # DecorView (full screen) > LinearLayout > android:id/content > the app's own root view
        assert (app.get("class"), app.get("package"), app.get("bounds")) == (
            "android.widget.FrameLayout", PKG, "[0,0][1080,2400]",
        )  # fmt: skip
        linear = app[0]
        assert linear.get("class") == "android.widget.LinearLayout"
        content = linear[0]
        assert content.get("resource-id") == "android:id/content"
        assert content.get("bounds") == "[0,72][1080,2256]"  # between the status and navigation bars
        assert content[0].get("class") == "android.widget.FrameLayout"
        assert [c.get("resource-id") for c in app[1:]] == [
            "android:id/statusBarBackground", "android:id/navigationBarBackground",
        ]  # fmt: skip
        # the system bars are windows of their own
        assert [w.get("package") for w in windows[1:]] == ["com.android.systemui"] * 2
        # a selector through the content frame reaches the app's views, as upstream swipe tests do
        assert rig.d(resourceId="android:id/content").child(resourceId=rid("sign_in")).exists
        rig.d(resourceId="android:id/content").swipe("up", steps=10)
        assert rig.d(text="Welcome back").exists


def test_child_by_text_description_and_instance_return_live_handles() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        inbox = d(resourceId=rid("messages"))
        row = inbox.child_by_text("Message 3", resourceId=rid("message_row"))
        assert isinstance(row.selector, str)  # the jar names the object; the client passes the name back
        assert row.exists and row.info["bounds"]["top"] == 768
        third = inbox.child_by_instance(2, resourceId=rid("message_row"))
        assert third.info["bounds"] == row.info["bounds"]
        # allow_scroll_search scrolls the collection until the row shows
        far = inbox.child_by_text("Message 14", allow_scroll_search=True, resourceId=rid("message_row"))
        assert d(text="Message 14").exists and far.info["className"] == "android.widget.LinearLayout"
        compose = d(resourceId=rid("toolbar")).child_by_description(
            "Compose", className="android.widget.ImageButton"
        )
        assert compose.info["resourceName"] == rid("compose")
        compose.click()
        assert d(text="Send").wait(timeout=2)
        with pytest.raises(UiObjectNotFoundError):
            d(resourceId=rid("tabs")).child_by_text("no such tab", className="android.widget.TextView")


def test_get_parent_get_child_and_from_parent_on_handles() -> None:
    with android_rig() as rig:
        d = rig.d
        button = d(resourceId=rid("sign_in"))
        parent = d.jsonrpc.getParent(button.selector)
        info = d.jsonrpc.objInfo(parent)
        assert info["className"] == "android.widget.FrameLayout" and info["childCount"] >= 4
        email = d.jsonrpc.getChild(parent, {"mask": 0x200000, "resourceId": rid("email"),
                                            "childOrSibling": [], "childOrSiblingSelector": []})  # fmt: skip
        assert d.jsonrpc.getText(email) == "Email"
        forgot = d.jsonrpc.getFromParent(d.jsonrpc.getUiObject(button.selector), {
            "mask": 0x01, "text": "Forgot password?", "childOrSibling": [], "childOrSiblingSelector": []})  # fmt: skip
        assert d.jsonrpc.objInfo(forgot)["resourceName"] == rid("forgot")
        assert parent in d.jsonrpc.getUiObjects()
        d.jsonrpc.removeUiObject(parent)
        assert parent not in d.jsonrpc.getUiObjects()


def test_gesture_pinch_in_and_pinch_out_run_as_two_finger_gestures() -> None:
    with android_rig() as rig:
        d = rig.d
        u2 = rig.server.u2_service(rig.serial)
        target = d(resourceId="android:id/content")
        assert target.pinch_in(percent=60, steps=10) is True
        assert u2.last_gesture is not None and u2.last_gesture[0] == "pinch_in"
        assert target.pinch_out(percent=60, steps=10) is True
        assert u2.last_gesture is not None and u2.last_gesture[0] == "pinch_out"
        # both fingers moving the same way is a pan: it drags like one finger
        assert target.gesture((0.3, 0.6), (0.6, 0.6), (0.3, 0.4), (0.6, 0.4), steps=10) is True
        assert u2.last_gesture is not None and u2.last_gesture[0] == "pan"
        with pytest.raises(UiObjectNotFoundError):
            d.jsonrpc.pinchIn(d(resourceId=rid("nope")).selector, 50, 10)


def test_notification_shade_and_quick_settings_cover_the_app_until_back() -> None:
    with android_rig() as rig:
        d = rig.d
        d.open_notification()
        assert d(text="No notifications").exists
        assert d(resourceId="com.android.systemui:id/notification_panel").exists
        d(resourceId=rid("sign_in")).click()  # under the shade: the tap does not reach the app
        assert rig.device.screen_name == "login"
        d.press("back")
        assert not d(text="No notifications").exists
        d.open_quick_settings()
        assert d(description="Flashlight").exists and not d(text="No notifications").exists
        d.swipe(540, 1500, 540, 300, steps=10)  # a swipe up closes the shade
        assert not d(description="Flashlight").exists
        d.swipe(540, 10, 540, 1200, steps=10)  # a swipe down from the status bar opens it
        assert d(text="No notifications").exists
        d.press("home")
        assert not d(text="No notifications").exists and d.app_current()["package"] == PKG


def test_make_toast_shows_in_the_hierarchy_for_its_duration() -> None:
    with android_rig() as rig:
        d = rig.d
        d.toast.show("Saved draft", 2.0)
        assert d(text="Saved draft", resourceId="android:id/message").exists
        assert d.toast.get_message(wait_timeout=1) == "Saved draft"
        rig.clock.advance(1.5)
        assert d(text="Saved draft").exists
        rig.clock.advance(1.0)
        assert not d(text="Saved draft").exists
        assert d.last_toast == "Saved draft"  # the text stays readable after the toast is gone
        d.clear_toast()
        assert d.last_toast is None


def test_swipes_and_drags_take_their_duration_scaled_by_the_profile() -> None:
    slow = Conditions(latency=LatencyProfile("slow-gestures", gesture_time_scale=0.01))
    with android_rig(conditions=slow) as rig:
        d = rig.d
        u2 = rig.server.u2_service(rig.serial)
        d.swipe(540, 1800, 540, 600, duration=2.0)  # u2 sends 400 steps of 5 ms
        assert abs(u2.gesture_seconds - 0.02) < 1e-9
        d.drag(540, 1800, 540, 600, duration=1.0)  # 200 steps
        assert abs(u2.gesture_seconds - 0.03) < 1e-9
        d.long_click(540, 960, duration=1.0)
        assert abs(u2.gesture_seconds - 0.04) < 1e-9
        d.shell("input swipe 540 1800 540 600 500")
        assert abs(u2.gesture_seconds - 0.045) < 1e-9
    with android_rig() as rig:  # the zero profile never waits
        rig.d.swipe(540, 1800, 540, 600, duration=2.0)
        assert rig.server.u2_service(rig.serial).gesture_seconds == 0.0


def test_rotation_follows_the_app_spec() -> None:
    with android_rig() as rig:  # the demo is portrait-only: the display stays upright
        rig.d.set_orientation("left")
        assert rig.d.info["displayRotation"] == 0 and rig.d.window_size() == (1080, 2400)
    spec = load_app_spec("demo").model_copy(update={"orientations": ("portrait", "landscape")})
    with android_rig(app=spec) as rig:
        d = rig.d
        d.set_orientation("left")
        assert (d.info["displayRotation"], d.orientation) == (1, "left")
        assert d.window_size() == (2400, 1080)
        root = etree.fromstring(d.dump_hierarchy().encode())
        assert root.get("rotation") == "1" and root[0].get("bounds") == "[0,0][2400,1080]"
        assert d(resourceId=rid("sign_in")).info["bounds"]["right"] > 1080
        assert d.shell("wm size").output == "Physical size: 1080x2400\n"
        assert d.shell("dumpsys display | grep -c orientation=1").output.strip() != "0"
        d.set_orientation("natural")
        assert d.window_size() == (1080, 2400)
