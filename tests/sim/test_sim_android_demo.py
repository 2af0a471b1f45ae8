"""The bundled demo app driven through the real uiautomator2 client."""

from __future__ import annotations

from tests.support.sim_android import android_rig, rid, sign_in


def test_wrong_password_shows_error() -> None:
    with android_rig() as rig:
        d = rig.d
        d(resourceId=rid("email")).set_text("ada@example.com")
        d(resourceId=rid("password")).set_text("wrong")
        d(text="Sign in").click()
        assert d(resourceId=rid("error")).get_text() == "Invalid email or password"
        assert d(text="Welcome back").exists


def test_empty_email_is_required() -> None:
    with android_rig() as rig:
        d = rig.d
        d(resourceId=rid("password")).set_text("hunter2")
        d(resourceId=rid("sign_in")).click()
        assert d(text="Email required").exists
        assert not d(text="Signing in…").exists


def test_successful_login_only_after_the_one_second_delay() -> None:
    with android_rig() as rig:
        d = rig.d
        d(resourceId=rid("email")).click()
        d.send_keys("ada@example.com")
        d(resourceId=rid("password")).click()
        d.send_keys("hunter2")
        d(text="Sign in").click()
        assert d(text="Signing in…").exists
        rig.clock.advance(0.5)
        assert not d(text="Inbox").wait(timeout=0.2)
        rig.clock.advance(0.5)
        assert d(text="Inbox").wait(timeout=1)
        assert d(description="Compose").exists and d(resourceId=rid("clock")).get_text() == "09:41:01"


def test_scroll_to_message_30_and_open_it() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        for _ in range(10):
            if d(text="Message 30").exists:
                break
            d.swipe_ext("up", scale=0.6)
        d(text="Message 30").click()
        assert d(resourceId=rid("message_title")).get_text() == "Message 30"
        assert d(text="This is message 30.").exists


def test_archive_removes_row_and_shows_snackbar_for_two_seconds() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        d(text="Message 3").click()
        d(resourceId=rid("archive")).click()
        assert d(text="Message archived").exists
        assert d(text="Message 2").exists and not d(text="Message 3").exists
        rig.clock.advance(2.1)
        assert d(text="Message archived").wait_gone(timeout=1)


def test_compose_validation_and_send() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        d(description="Compose").click()
        assert d(text="New message").wait(timeout=1)
        d(resourceId=rid("send")).click()
        assert d(text="Recipient required").exists
        d(resourceId=rid("to")).set_text("bob@example.com")
        d(resourceId=rid("subject")).set_text("Hi")
        d(resourceId=rid("body")).set_text("Line one\nLine two")
        d(text="Send").click()
        assert d(text="Message sent").exists and d(resourceId=rid("messages")).exists


def test_search_filters_live() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        d(text="Search", resourceId=rid("tab_search")).click()
        d(resourceId=rid("query")).set_text("Message 3")
        titles = [o.get_text() for o in d(resourceId=rid("row_title"))]
        # the keyboard is up, so the list is shorter; every row left matches the query
        assert titles[:3] == ["Message 3", "Message 30", "Message 31"]
        assert all(t.startswith("Message 3") for t in titles)
        assert d(resourceId=rid("query")).info["focused"] is True
        d(resourceId=rid("query")).set_text("zzz")
        assert d(text="No results").exists and not d(resourceId=rid("row_title")).exists


def test_settings_switches_and_sign_out_dialog() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        d(resourceId=rid("tab_settings")).click()
        dark = d(resourceId=rid("dark_mode"))
        assert dark.info["checkable"] is True and dark.info["checked"] is False
        assert d(resourceId=rid("notifications")).info["checked"] is True
        dark.click()
        assert dark.info["checked"] is True
        assert d(className="android.widget.Switch", checked=True).count == 2
        d(resourceId=rid("sign_out")).click()
        assert d(text="Sign out?").exists and d(text="Cancel").exists
        d(text="Cancel").click()
        assert not d(text="Sign out?").exists and d(resourceId=rid("sign_out")).exists
        d(resourceId=rid("sign_out")).click()
        d(resourceId=rid("confirm_sign_out")).click()
        assert d(text="Welcome back").wait(timeout=1)


def test_back_navigation_with_key_and_up_button() -> None:
    with android_rig() as rig:
        d = rig.d
        sign_in(rig)
        d(text="Message 5").click()
        assert d(text="This is message 5.").exists
        d.press("back")
        assert d(resourceId=rid("messages")).exists
        d(text="Message 6").click()
        d(description="Navigate up").click()
        assert d(resourceId=rid("messages")).exists
        d(resourceId=rid("tab_settings")).click()
        d.press("back")  # settings goes back to the inbox
        assert d(resourceId=rid("messages")).exists
        # the navigation bar's Back button is a system UI node that presses the key
        d(resourceId=rid("tab_search")).click()
        d(description="Back", packageName="com.android.systemui").click()
        assert d(resourceId=rid("messages")).exists
