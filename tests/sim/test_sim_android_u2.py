"""The public uiautomator2 3.7.1 API, end to end: unmodified u2 + adbutils → fake adb server → demo app."""

from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path

import pytest
import uiautomator2 as u2
from lxml import etree
from PIL import Image
from uiautomator2.exceptions import UiObjectNotFoundError

from tests.support.sim_android import PKG, android_rig, rid, sign_in
from trailblaze_sim.android.hierarchy import LAUNCHER_PACKAGE


def _u2_jar_md5() -> str:
    from importlib import resources

    return hashlib.md5(resources.files("uiautomator2").joinpath("assets/u2.jar").read_bytes()).hexdigest()


def test_connect_when_server_already_running_pushes_and_launches_nothing() -> None:
    with android_rig(preinstalled=True) as rig:
        log = list(rig.server.log)
        assert f"{rig.serial}|shell:toybox md5sum /data/local/tmp/u2.jar" in log
        assert not any(entry.endswith("|sync:") or "app_process" in entry for entry in log)
        assert rig.d.info["currentPackageName"] == PKG


def test_connect_on_fresh_device_pushes_jar_and_launches_server() -> None:
    with android_rig(preinstalled=False) as rig:
        log = [e.split("|", 1)[1] for e in rig.server.log if "|" in e]
        launch = next(i for i, e in enumerate(log) if "app_process" in e)
        assert "sync:" in log[:launch]
        assert "tcp:9008" in log[:launch]  # the /ping that found no server
        data = rig.server.filesystem(rig.serial).read("/data/local/tmp/u2.jar")
        assert data is not None and hashlib.md5(data).hexdigest() == _u2_jar_md5()
        assert rig.server.u2_running(rig.serial)
        assert rig.d.info["displayWidth"] == 1080
        rig.d.stop_uiautomator()  # closes the app_process stream: the server dies with it
        assert not rig.server.u2_running(rig.serial)


def test_info_window_size_device_info_serial_and_orientation() -> None:
    with android_rig() as rig:
        d = rig.d
        info = d.info
        assert (info["displayWidth"], info["displayHeight"], info["sdkInt"]) == (1080, 2400, 34)
        assert info["displaySizeDpX"] == 360 and info["screenOn"] is True
        assert d.window_size() == (1080, 2400)
        dev_info = d.device_info
        assert dev_info["model"] == "Pixel 7" and dev_info["sdk"] == 34 and dev_info["serial"] == rig.serial
        assert d.serial == rig.serial
        assert d.orientation == "natural"
        d.freeze_rotation(True)
        d.orientation = "natural"
        assert d.info["displayRotation"] == 0


def test_app_current_start_stop_clear() -> None:
    with android_rig() as rig:
        d = rig.d
        pid = rig.device.current_app().pid  # type: ignore[union-attr]
        assert pid > 0 and d.app_current() == {"package": PKG, "activity": ".MainActivity", "pid": pid}
        d.app_stop(PKG)
        assert d.app_current()["package"] == LAUNCHER_PACKAGE
        assert not d(text="Welcome back").exists
        d.app_start(PKG)
        assert d(text="Welcome back").exists
        sign_in(rig)
        d.app_start(PKG, ".MainActivity", stop=True)  # stop + `am start -n`: a cold start, still signed in
        assert d.app_current()["package"] == PKG
        d.app_clear(PKG)  # pm clear: data wiped, app stopped
        assert d.app_current()["package"] == LAUNCHER_PACKAGE
        d.app_start(PKG)
        assert d(text="Welcome back").wait(timeout=1)


def test_app_list_running_wait_and_info() -> None:
    with android_rig() as rig:
        d = rig.d
        assert PKG in d.app_list()
        assert d.app_list("trailblaze") == [PKG]
        assert PKG in d.app_list_running()
        pid = d.app_wait(PKG, timeout=1)
        assert pid == rig.device.current_app().pid  # type: ignore[union-attr]
        assert d.app_info(PKG) == {"versionName": "1.0", "versionCode": 1}


def test_dump_hierarchy_is_u2_dialect_with_system_windows() -> None:
    with android_rig() as rig:
        xml = rig.d.dump_hierarchy()
        assert xml.startswith(
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\">\r\n"
        )
        assert xml.endswith("</hierarchy>") and "\n" not in xml.replace("\r\n", "")
        lines = xml.split("\r\n")
        assert lines[2].startswith(
            '  <node index="0" text="" resource-id="" class="android.widget.FrameLayout"'
        )
        root = etree.fromstring(xml.encode())
        packages = [n.get("package") for n in root]
        assert packages == [PKG, "com.android.systemui", "com.android.systemui"]
        assert root[1].get("bounds") == "[0,0][1080,72]"  # 24 pt status bar
        assert root[2].get("bounds") == "[0,2256][1080,2400]"  # 48 pt navigation bar
        email = root.find(f".//node[@resource-id='{rid('email')}']")
        assert email is not None
        assert list(email.attrib)[:7] == [
            "index",
            "text",
            "resource-id",
            "class",
            "package",
            "content-desc",
            "checkable",
        ]
        assert list(email.attrib)[-5:] == ["visible-to-user", "bounds", "drawing-order", "hint", "display-id"]
        assert email.get("text") == "Email" and email.get("hint") == "Email"  # empty EditText shows its hint
        assert email.get("class") == "android.widget.EditText" and email.get("focusable") == "true"
        pw = root.find(f".//node[@resource-id='{rid('password')}']")
        assert pw is not None and pw.get("password") == "true"


def test_click_coordinates_and_selector_click() -> None:
    with android_rig() as rig:
        d = rig.d
        left, top, right, bottom = d(resourceId=rid("email")).bounds()
        d.click((left + right) // 2, (top + bottom) // 2)
        assert d(resourceId=rid("email")).info["focused"] is True
        d(text="Sign in").click()
        assert d(text="Email required").wait(timeout=1)
        d.click(0.5, 0.01)  # status bar: system UI takes the touch, the app sees nothing
        assert d(text="Email required").exists


def test_long_click_and_double_click() -> None:
    with android_rig() as rig:
        d = rig.d
        d(resourceId=rid("password")).long_click()
        assert d(focused=True).info["resourceName"] == rid("password")
        left, top, right, bottom = d(resourceId=rid("email")).bounds()
        d.long_click((left + right) / 2, (top + bottom) / 2, 0.6)
        assert d(focused=True).info["resourceName"] == rid("email")
        sign_in(rig)
        d(text="Settings").click()
        x, y = d(resourceId=rid("dark_mode")).center()
        d.double_click(x, y, duration=0.01)  # two taps: the switch flips twice
        assert d(resourceId=rid("dark_mode")).info["checked"] is False
        d.click(x, y)
        assert d(resourceId=rid("dark_mode")).info["checked"] is True


def test_swipe_swipe_ext_drag_and_swipe_points_scroll_the_list() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        assert d(text="Message 1").exists and not d(text="Message 12").exists
        d.swipe(540, 1800, 540, 900, duration=0.1)
        assert not d(text="Message 1").exists and d(text="Message 12").exists
        d.swipe_ext("down")  # finger moves down: back towards the top
        d.swipe_ext("down")
        assert d(text="Message 1").exists
        d.drag(540, 1800, 540, 1200, 0.05)
        assert not d(text="Message 1").exists
        d.swipe_points([(540, 1200), (540, 1500), (540, 2000)], 0.05)
        assert d(text="Message 1").exists


def test_press_back_home_enter_and_keycodes() -> None:
    with android_rig() as rig:
        d = rig.d
        d(resourceId=rid("email")).click()
        d.press("enter")  # the email field's "next" action moves focus to the password
        assert d(focused=True).info["resourceName"] == rid("password")
        sign_in(rig)
        d(text="Message 2").click()
        assert d(text="This is message 2.").wait(timeout=1)
        d.press("back")
        assert d(text="Message 2").wait(timeout=1) and not d(text="This is message 2.").exists
        d(text="Message 3").click()
        d.press(4)  # KEYCODE_BACK via pressKeyCode
        assert d(resourceId=rid("messages")).exists
        d.press("home")
        assert d.app_current()["package"] == LAUNCHER_PACKAGE


def test_send_keys_clear_text_and_clipboard() -> None:
    with android_rig() as rig:
        d = rig.d
        d(resourceId=rid("email")).click()
        d.send_keys("ada@example.com")
        assert d(resourceId=rid("email")).get_text() == "ada@example.com"
        assert any("ime list -s -a" in e for e in rig.server.log)  # u2 checked for its IME first
        d.send_keys("!")
        assert d(resourceId=rid("email")).get_text() == "ada@example.com!"
        d.clear_text()
        assert d(resourceId=rid("email")).get_text() == "Email"  # empty again: the hint shows
        d.set_clipboard("copied")
        assert d.clipboard == "copied"


def test_selector_queries() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        assert d(text="Message 1").exists
        assert not d(text="Message 99").exists
        assert d(description="Compose").exists and d(descriptionContains="ompo").exists
        assert (
            d(textMatches=r"Message \d+", resourceId=rid("row_title")).count == 9
        )  # the 9th row is partly visible
        assert d(textStartsWith="From: user1").count >= 1
        assert d(className="android.widget.TextView", text="Inbox").count == 2  # heading + tab
        assert d(resourceIdMatches=r".*:id/tab_.*").count == 3
        assert d(resourceId=rid("tab_inbox"), selected=True).exists
        assert d(scrollable=True).info["resourceName"] == rid("messages")
        row2 = d(resourceId=rid("message_row"))[1]
        assert row2.child(resourceId=rid("row_title")).get_text() == "Message 2"
        assert (
            d(text="Message 3").sibling(resourceId=rid("row_subtitle")).get_text()
            == "From: user3@example.com"
        )
        assert d(resourceId=rid("messages")).child(textContains="Message 4").exists
        info = d(text="Message 1").info
        assert info["className"] == "android.widget.TextView" and info["packageName"] == PKG
        assert set(info["bounds"]) == {"left", "top", "right", "bottom"}
        assert len(d(resourceId=rid("row_title"))) == 9
        assert [o.get_text() for o in d(resourceId=rid("tabs")).child(clickable=True)] == [
            "Inbox",
            "Search",
            "Settings",
        ]
        with pytest.raises(UiObjectNotFoundError):
            _ = d(text="Message 99").info
        with pytest.raises(UiObjectNotFoundError):
            d(text="Message 99").click(timeout=0.1)


def test_selector_wait_and_wait_gone() -> None:
    with android_rig() as rig:
        d = rig.d
        assert d(text="Welcome back").wait(timeout=0.2)
        assert not d(text="Inbox").wait(timeout=0.2)
        d(resourceId=rid("email")).set_text("ada@example.com")
        d(resourceId=rid("password")).set_text("hunter2")
        d(text="Sign in").click()
        assert d(text="Signing in…").exists
        assert not d(text="Signing in…").wait_gone(timeout=0.2)
        rig.clock.advance(1.0)
        assert d(text="Signing in…").wait_gone(timeout=1)
        assert d(text="Inbox").wait(exists=True, timeout=1)


def test_element_set_text_get_text_clear_text() -> None:
    with android_rig() as rig:
        d = rig.d
        email = d(resourceId=rid("email"))
        email.set_text("someone@example.com")
        assert email.get_text() == "someone@example.com"
        d(resourceId=rid("password")).set_text("secret")
        assert d(resourceId=rid("password")).get_text() == "••••••"
        email.clear_text()
        assert email.get_text() == "Email"
        with pytest.raises(UiObjectNotFoundError):
            d(resourceId=rid("nope")).set_text("x", timeout=0.1)


def test_xpath_click_exists_and_text() -> None:
    with android_rig() as rig:
        d = rig.d
        assert d.xpath(f'//*[@resource-id="{rid("email")}"]').exists
        assert d.xpath("Welcome back").get_text() == "Welcome back"
        d.xpath("Sign in").click()
        assert d.xpath("Email required").wait(timeout=1)
        d.xpath(f"@{rid('email')}").set_text("ada@example.com")
        assert d(resourceId=rid("email")).get_text() == "ada@example.com"
        assert d.xpath("//android.widget.Button").get().text == "Sign in"


def test_screenshot_is_full_resolution_image() -> None:
    with android_rig() as rig:
        img = rig.d.screenshot()
        assert isinstance(img, Image.Image) and img.size == (1080, 2400)
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        assert buf.getvalue().startswith(b"\x89PNG")


def test_shell_output_and_exit_codes() -> None:
    with android_rig() as rig:
        d = rig.d
        assert d.shell("echo hello").output == "hello\n"
        assert d.shell(["getprop", "ro.product.model"]).output.strip() == "Pixel 7"
        res = d.shell("nosuchcmd --flag")
        assert res.exit_code == 127 and "nosuchcmd: inaccessible or not found" in res.output
        assert d.shell("false || echo fallback").output == "fallback\n"
        assert d.shell("ls /data/local/tmp | grep u2").output == "u2.jar\n"
        assert re.search(r"Physical size: 1080x2400", d.shell("wm size").output)


def test_scroll_to_and_scroll_forward() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        assert d(scrollable=True).scroll.to(text="Message 30")
        d(text="Message 30").click()
        assert d(text="This is message 30.").wait(timeout=1)
        d.press("back")
        assert d(scrollable=True).scroll.toBeginning()
        assert d(text="Message 1").exists
        assert d(scrollable=True).scroll.forward() is True
        assert d(scrollable=True).scroll.toEnd()
        assert d(text="Message 40").exists
        assert d(scrollable=True).scroll.forward() is False  # at the end: nothing moves


def test_push_pull_and_file_listing(tmp_path: Path) -> None:
    with android_rig() as rig:
        d = rig.d
        d.push(io.BytesIO(b"hello device"), "/sdcard/hello.txt")
        assert d.shell("cat /sdcard/hello.txt").output == "hello device"
        out = tmp_path / "copy.txt"
        d.pull("/sdcard/hello.txt", str(out))
        assert out.read_bytes() == b"hello device"
        names = [f.path for f in rig.d.adb_device.sync.list("/sdcard")]
        assert "hello.txt" in names


def test_touch_events_keyevent_and_open_url() -> None:
    with android_rig() as rig:
        d = rig.d
        x, y = d(resourceId=rid("sign_in")).center()
        d.touch.down(x, y).up(x, y)
        assert d(text="Email required").wait(timeout=1)
        d(resourceId=rid("email")).click()
        d.keyevent("a")  # `input keyevent A` types a letter into the focused field
        assert d(resourceId=rid("email")).get_text() == "a"
        d.open_url("https://example.com")  # no app handles it: nothing changes
        assert d.app_current()["package"] == PKG


def test_device_object_built_directly() -> None:
    with android_rig() as rig:
        # The other way in: a plain Device built on an explicitly addressed AdbDevice.
        d2 = u2.Device(rig.client.device(rig.serial))
        try:
            assert d2(text="Welcome back").exists
        finally:
            d2.stop_uiautomator(wait=False)
