"""The simulated app model: the demo app's behaviour on both platforms, variants, spec loading."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sim_phone import Phone
from trailblaze.errors import DeviceError, UsageError
from trailblaze_sim import bundled_apps, create_device, load_app_spec
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import Frame, ManualClock, SimNode

APP = "dev.trailblaze.demo"
PLATFORMS = ["android", "ios"]


@pytest.fixture(params=PLATFORMS)
def phone(request: pytest.FixtureRequest) -> Phone:
    return Phone(request.param)


def _row_titles(p: Phone, list_id: str = "messages") -> list[str]:
    lst = p.find(list_id)
    return [c.text for row in lst.children if row.visible for c in row.children if c.id == "row_title"]


# --- login -----------------------------------------------------------------------------------------


def test_login_screen_content(phone: Phone) -> None:
    assert phone.d.screen_name == "login"
    assert phone.find("welcome").text == "Welcome back"
    email, password = phone.find("email"), phone.find("password")
    assert (email.hint, email.text, email.role) == ("Email", "", "text_field")
    assert (password.hint, password.password, password.role) == ("Password", True, "secure_field")
    assert phone.find("sign_in").text == "Sign in"
    assert phone.find("forgot").text == "Forgot password?"
    assert not phone.has("error")


def test_platform_vocabulary(phone: Phone) -> None:
    email, button, password = phone.find("email"), phone.find("sign_in"), phone.find("password")
    if phone.d.platform == "android":
        assert (email.android_class, button.android_class) == (
            "android.widget.EditText",
            "android.widget.Button",
        )
        assert phone.d.tree().frame == Frame(0, 24, 360, 728)  # system bars are not the app's
    else:
        assert (email.ios_type, password.ios_type) == (
            "XCUIElementTypeTextField",
            "XCUIElementTypeSecureTextField",
        )
        assert button.ios_type == "XCUIElementTypeButton"
        assert phone.d.tree().ios_type == "XCUIElementTypeApplication"


def test_empty_email_is_required(phone: Phone) -> None:
    phone.type_into("password", "hunter2")
    phone.tap("sign_in")
    assert phone.find("error").text == "Email required"
    assert phone.d.screen_name == "login"


def test_wrong_password(phone: Phone) -> None:
    phone.type_into("email", "me@example.com")
    phone.type_into("password", "wrong")
    phone.tap("sign_in")
    assert phone.find("error").text == "Invalid email or password"
    phone.clock.advance(5)
    assert phone.d.screen_name == "login"


def test_password_is_masked_and_typed_text_kept(phone: Phone) -> None:
    phone.type_into("email", "me@example.com")
    phone.type_into("password", "hunter2")
    assert phone.find("email").text == "me@example.com"
    assert phone.find("password").text == "•" * 7
    assert phone.find("password").focused and not phone.find("email").focused


def test_sign_in_shows_progress_for_one_second(phone: Phone) -> None:
    phone.type_into("email", "me@example.com")
    phone.type_into("password", "hunter2")
    phone.tap("sign_in")
    assert phone.find(text="Signing in…").visible
    assert any(n.role == "progress" for n in phone.nodes())
    phone.tap("forgot")  # the progress overlay blocks touches
    assert not phone.has(text="Password reset email sent")
    phone.clock.advance(0.9)
    assert phone.d.screen_name == "login"
    phone.clock.advance(0.1)
    assert phone.d.screen_name == "inbox"
    assert not phone.has(text="Signing in…")
    assert phone.d.state["signed_in"] is True


def test_keyboard_follows_focus(phone: Phone) -> None:
    assert not phone.d.keyboard_shown()
    phone.tap("email")
    assert phone.d.keyboard_shown()
    kb = phone.d.keyboard_frame()
    assert kb is not None and kb.bottom <= phone.d.screen_height and kb.y > phone.find("sign_in").frame.bottom
    if phone.d.platform == "ios":
        assert any(n.ios_type == "XCUIElementTypeKeyboard" for n in phone.nodes())
    phone.d.hide_keyboard()
    assert not phone.d.keyboard_shown()
    phone.d.type_text("still focused")
    assert phone.find("email").text == "still focused"


def test_tap_on_keyboard_area_does_not_reach_the_app() -> None:
    p = Phone("android")
    p.sign_in()
    p.tap("tab_search")
    p.tap("query")
    kb = p.d.keyboard_frame()
    assert kb is not None
    hidden = [n for n in p.d.tree().walk() if n.id == "tab_settings"]
    assert hidden and not hidden[0].visible  # covered by the keyboard
    p.d.tap(*hidden[0].frame.center)
    assert p.d.screen_name == "search"


def test_editing_keys(phone: Phone) -> None:
    phone.type_into("email", "abc")
    phone.d.press_key("delete")
    assert phone.find("email").text == "ab"
    phone.d.clear_text()
    assert phone.find("email").text == ""
    phone.d.type_text("me@example.com")
    phone.d.press_key("enter")  # submits the email field: focus moves to the password
    assert phone.find("password").focused
    phone.d.type_text("hunter2")
    phone.d.press_key("enter")  # submitting the password signs in
    phone.clock.advance(1)
    assert phone.d.screen_name == "inbox"


def test_set_text_replaces_the_value(phone: Phone) -> None:
    phone.type_into("email", "old")
    phone.d.set_text(phone.find("email"), "new@example.com")
    assert phone.find("email").text == "new@example.com"
    with pytest.raises(DeviceError, match="not a text field"):
        phone.d.set_text(phone.find("sign_in"), "x")


# --- inbox, detail -----------------------------------------------------------------------------


def test_inbox_content_and_ticking_clock(phone: Phone) -> None:
    phone.sign_in()
    assert sorted(n.role for n in phone.all(text="Inbox")) == ["heading", "tab"]
    titles = _row_titles(phone)
    assert titles[0] == "Message 1" and 8 <= len(titles) <= 10
    assert phone.find(text="From: user1@example.com").id == "row_subtitle"
    compose = phone.find("compose")
    assert (compose.text, compose.label, compose.role) == ("", "Compose", "icon_button")
    assert phone.find("tab_inbox").selected and not phone.find("tab_search").selected
    before = phone.find("clock").text
    assert before == "09:41:01"
    phone.clock.advance(1)
    assert phone.find("clock").text == "09:41:02"
    phone.clock.advance(3600)
    assert phone.find("clock").text == "10:41:02"


def test_rows_outside_the_viewport_are_not_in_the_tree(phone: Phone) -> None:
    phone.sign_in()
    lst = phone.find("messages")
    rows = lst.children
    visible = [r for r in rows if r.visible]
    hidden = [r for r in rows if not r.visible]
    assert len(hidden) == 1 and hidden[0].frame.y >= lst.frame.bottom  # one prefetched row below
    assert all(r.frame.y < lst.frame.bottom and r.frame.bottom > lst.frame.y for r in visible)
    assert all(r.frame.height == 64 for r in rows)
    assert lst.scrollable


def test_scroll_until_message_30_and_open_it(phone: Phone) -> None:
    phone.sign_in()
    lst = phone.find("messages").frame
    x, y_low, y_high = lst.center[0], lst.bottom - 20, lst.y + 20
    for _ in range(20):
        if phone.has(text="Message 30"):
            break
        phone.d.swipe(x, y_low, x, y_high)
    row30 = phone.find(text="Message 30")
    rows = phone.find("messages").children
    assert not rows[0].visible and rows[0].frame.bottom <= lst.y  # one row kept above too
    assert "Message 1" not in _row_titles(phone)
    phone.d.tap(*row30.frame.center)
    assert phone.d.screen_name == "detail"
    assert phone.find("message_title").text == "Message 30"
    assert phone.find("message_body").text == "This is message 30."
    phone.back()
    assert phone.d.screen_name == "inbox"
    assert phone.has(text="Message 30")  # the scroll position survived


def test_scrolling_is_clamped(phone: Phone) -> None:
    phone.sign_in()
    lst = phone.find("messages").frame
    x = lst.center[0]
    phone.d.swipe(x, lst.y + 20, x, lst.bottom - 20)  # pulling down at the top does nothing
    assert _row_titles(phone)[0] == "Message 1"
    for _ in range(30):
        phone.d.swipe(x, lst.bottom - 20, x, lst.y + 20)
    assert _row_titles(phone)[-1] == "Message 40"
    last = [r for r in phone.find("messages").children if r.visible][-1]
    assert last.frame.bottom == pytest.approx(lst.bottom)


def test_archive_removes_row_and_shows_snackbar(phone: Phone) -> None:
    phone.sign_in()
    phone.tap(text="Message 2")
    phone.tap("archive")
    assert phone.d.screen_name == "inbox"
    assert _row_titles(phone)[:3] == ["Message 1", "Message 3", "Message 4"]
    snack = phone.find(text="Message archived")
    assert snack.role == "snackbar"
    assert snack.frame.bottom <= phone.find("tabs").frame.y
    phone.clock.advance(1.9)
    assert phone.has(text="Message archived")
    phone.clock.advance(0.1)
    assert not phone.has(text="Message archived")
    # Archived state survives a restart but not a data clear.
    phone.d.launch(APP, stop_first=True)
    phone.sign_in()
    assert "Message 2" not in _row_titles(phone)
    phone.d.clear_app_data(APP)
    phone.d.launch(APP)
    phone.sign_in()
    assert _row_titles(phone)[1] == "Message 2"


def test_back_from_detail(phone: Phone) -> None:
    phone.sign_in()
    phone.tap(text="Message 1")
    if phone.d.platform == "ios":
        assert phone.find("back").text == "Back"
        phone.d.press_key("back")  # iOS has no back key
        assert phone.d.screen_name == "detail"
        phone.tap("back")
    else:
        assert not phone.has("back")
        phone.tap(text="Navigate up")
        assert phone.d.screen_name == "inbox"
        phone.tap(text="Message 1")
        phone.d.press_key("back")
    assert phone.d.screen_name == "inbox"


# --- compose, search, settings -----------------------------------------------------------------


def test_compose_validation_and_send(phone: Phone) -> None:
    phone.sign_in()
    phone.tap("compose")
    assert phone.d.screen_name == "compose"
    assert [phone.find(i).hint for i in ("to", "subject", "body")] == ["To", "Subject", "Body"]
    assert phone.find("body").role == "multiline_field"
    phone.type_into("subject", "Hi")
    phone.tap("send")
    assert phone.find("error").text == "Recipient required"
    phone.type_into("to", "friend@example.com")
    phone.type_into("body", "line one")
    phone.d.press_key("enter")
    phone.d.type_text("line two")
    assert phone.find("body").text == "line one\nline two"
    phone.tap("send")
    assert phone.d.screen_name == "inbox"
    assert phone.find(text="Message sent").role == "snackbar"
    assert not phone.d.keyboard_shown()
    phone.clock.advance(2)
    assert not phone.has(text="Message sent")


def test_search_filters_live(phone: Phone) -> None:
    phone.sign_in()
    phone.tap("tab_search")
    assert phone.d.screen_name == "search"
    assert phone.find("query").hint == "Search messages"
    assert phone.find("tab_search").selected
    phone.type_into("query", "Message 3")
    phone.d.hide_keyboard()
    titles = _row_titles(phone, "results")
    assert len(titles) >= 8
    assert titles == (["Message 3"] + [f"Message {n}" for n in range(30, 40)])[: len(titles)]
    # Every match is there when scrolled: 3 and 30-39.
    lst = phone.find("results").frame
    phone.d.swipe(lst.center[0], lst.bottom - 10, lst.center[0], lst.y + 10)
    assert _row_titles(phone, "results")[-1] == "Message 39"
    phone.d.type_text("x")
    assert _row_titles(phone, "results") == []
    assert phone.find(text="No results").visible
    phone.tap("query")
    phone.d.clear_text()
    assert _row_titles(phone, "results")[0] == "Message 1"


def test_settings_switches_toggle(phone: Phone) -> None:
    phone.sign_in()
    phone.tap("tab_settings")
    dark, notif = phone.find("dark_mode"), phone.find("notifications")
    assert (dark.text, dark.checkable, dark.checked) == ("Dark mode", True, False)
    assert (notif.text, notif.checked) == ("Notifications", True)
    phone.tap("dark_mode")
    phone.tap("notifications")
    assert phone.find("dark_mode").checked and not phone.find("notifications").checked
    phone.tap("dark_mode")
    assert not phone.find("dark_mode").checked
    assert phone.d.state["notifications"] is False


def test_sign_out_dialog(phone: Phone) -> None:
    phone.sign_in()
    phone.tap("tab_settings")
    phone.tap("sign_out")
    alert = phone.d.alert()
    assert alert is not None and alert.text == "Sign out?" and alert.buttons == ("Cancel", "Sign out")
    dialog = phone.find(id="alertTitle")
    assert dialog.visible and dialog.text == "Sign out?"
    phone.tap("tab_inbox")  # modal: the screen behind does not take touches
    assert phone.d.screen_name == "settings"
    phone.tap("cancel")
    assert phone.d.alert() is None and phone.d.screen_name == "settings"
    phone.tap("sign_out")
    phone.tap("confirm_sign_out")
    assert phone.d.screen_name == "login"
    assert phone.find("email").text == ""
    assert phone.d.state["signed_in"] is False


def test_alert_press(phone: Phone) -> None:
    phone.sign_in()
    phone.tap("tab_settings")
    with pytest.raises(DeviceError, match="no dialog"):
        phone.d.alert_press("Cancel")
    phone.tap("sign_out")
    with pytest.raises(DeviceError, match="has no button 'OK'"):
        phone.d.alert_press("OK")
    phone.d.alert_press("Sign out")
    assert phone.d.screen_name == "login"


def test_back_key_on_android_closes_things_in_order() -> None:
    p = Phone("android")
    p.sign_in()
    p.tap("tab_settings")
    p.tap("sign_out")
    p.d.press_key("back")
    assert p.d.alert() is None and p.d.screen_name == "settings"
    p.d.press_key("back")  # a non-start tab goes back to the start tab
    assert p.d.screen_name == "inbox"
    p.tap("tab_search")
    p.tap("query")
    p.d.press_key("back")  # first back hides the keyboard
    assert not p.d.keyboard_shown() and p.d.screen_name == "search"
    p.d.press_key("back")
    p.d.press_key("back")  # back on the start screen leaves the app
    assert p.d.current_app() is None
    assert p.d.app_state(APP) == 2


# --- lifecycle ---------------------------------------------------------------------------------


def test_launcher_and_app_states(phone: Phone) -> None:
    d = phone.d
    assert d.current_app() is not None and d.app_state(APP) == 4
    phone.sign_in()
    phone.tap("tab_settings")
    d.go_home()
    assert d.current_app() is None and d.app_state(APP) == 2
    icon = phone.find(text="Demo")
    assert icon.clickable
    d.tap(*icon.frame.center)  # resumes where it was
    assert d.screen_name == "settings"
    d.go_home()
    d.launch(APP)  # a relaunch without stop resumes
    assert d.screen_name == "settings"
    pid = d.current_app().pid  # type: ignore[union-attr]
    d.launch(APP, stop_first=True)
    assert d.screen_name == "login"
    assert d.current_app().pid != pid  # type: ignore[union-attr]
    d.terminate(APP)
    assert d.app_state(APP) == 1 and d.current_app() is None
    assert d.app_state("com.example.other") == 1
    with pytest.raises(DeviceError, match="not installed"):
        d.launch("com.example.other")
    assert [a.app_id for a in d.installed_apps()] == [APP]


def test_create_device_without_launch_shows_launcher() -> None:
    d = create_device("ios", launch=False, clock=ManualClock())
    assert d.current_app() is None and d.app_state(APP) == 1
    assert any(n.ios_type == "XCUIElementTypeIcon" and n.text == "Demo" for n in d.tree().walk())
    with pytest.raises(UsageError, match="unknown simulated platform"):
        create_device("windows")


def test_clear_app_data_resets_state(phone: Phone) -> None:
    phone.sign_in()
    phone.tap("tab_settings")
    phone.tap("dark_mode")
    phone.d.clear_app_data(APP)
    assert phone.d.app_state(APP) == 1
    assert phone.d.state == {"signed_in": False, "user": "", "dark_mode": False, "notifications": True}


def test_animation_fault_keeps_ui_changing() -> None:
    p = Phone("android", conditions=Conditions(animate_after_action_ms=500))
    p.tap("email")
    first = p.find("sync_status").text
    second = p.find("sync_status").text
    assert first != second
    p.clock.advance(0.5)
    assert not p.has("sync_status")
    p.d.type_text("a")  # every action restarts it
    assert p.has("sync_status")


def test_no_animation_by_default(phone: Phone) -> None:
    phone.tap("email")
    assert not phone.has("sync_status")
    assert phone.d.tree() == phone.d.tree()


def test_frames_of_siblings_do_not_overlap(phone: Phone) -> None:
    def check(node: SimNode) -> None:
        kids = [c for c in node.children if c.visible and c.role not in ("snackbar",)]
        for i, a in enumerate(kids):
            for b in kids[i + 1 :]:
                overlap_w = min(a.frame.right, b.frame.right) - max(a.frame.x, b.frame.x)
                overlap_h = min(a.frame.bottom, b.frame.bottom) - max(a.frame.y, b.frame.y)
                assert overlap_w <= 0.01 or overlap_h <= 0.01, f"{a.id or a.text} overlaps {b.id or b.text}"
            assert node.frame.x - 0.01 <= a.frame.x and a.frame.right <= node.frame.right + 0.01
        for c in kids:
            check(c)

    check(phone.d.tree())
    phone.sign_in()
    for screen in ("tab_search", "tab_settings", "tab_inbox"):
        phone.tap(screen)
        check(phone.d.tree())
    phone.tap("compose")
    check(phone.d.tree())


# --- variants ----------------------------------------------------------------------------------


def _ids_and_labels(p: Phone) -> set[tuple[str, str, str]]:
    # Rows are excluded: taller rows in the restyled app show fewer of them at once.
    skip = ("message_row", "row_title", "row_subtitle")
    return {(n.role, n.id, n.text or n.label) for n in p.nodes() if n.role != "screen" and n.id not in skip}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_restyled_has_same_labels_and_ids_but_different_layout(platform: str) -> None:
    base, restyled = Phone(platform), Phone(platform, "demo@restyled")
    for p in (base, restyled):
        p.sign_in()
    screens: list[tuple[str, str]] = [
        ("", ""),
        ("tab_search", ""),
        ("tab_settings", ""),
        ("tab_inbox", "compose"),
    ]
    for tab, extra in screens:
        for p in (base, restyled):
            if tab:
                p.tap(tab)
            if extra:
                p.tap(extra)
        assert _ids_and_labels(base) == _ids_and_labels(restyled), base.d.screen_name
        frames = {(n.id, n.text): n.frame for n in base.nodes() if n.id}
        moved = [
            k for k, f in frames.items() if any(n.frame != f for n in restyled.nodes() if (n.id, n.text) == k)
        ]
        assert len(moved) >= 3, f"{base.d.screen_name}: only {moved} moved"
    # Tabs on top, in another order.
    for p in (base, restyled):
        p.back()
    base_tabs = [n.id for n in base.find("tabs").children]
    restyled_tabs = [n.id for n in restyled.find("tabs").children]
    assert sorted(base_tabs) == sorted(restyled_tabs) and base_tabs != restyled_tabs
    assert restyled.find("tabs").frame.y < restyled.find("messages").frame.y
    assert base.find("tabs").frame.y > base.find("messages").frame.y


@pytest.mark.parametrize("platform", PLATFORMS)
def test_restyled_login_flow(platform: str) -> None:
    p = Phone(platform, "demo@restyled")
    p.sign_in()
    assert p.d.screen_name == "inbox"
    p.tap(text="Message 3")
    p.tap("archive")
    assert p.has(text="Message archived")


@pytest.mark.parametrize("platform", PLATFORMS)
def test_v2_renames_login_button_and_moves_compose(platform: str) -> None:
    p = Phone(platform, "demo@v2")
    assert not p.has("sign_in") and not p.has(text="Sign in")
    button = p.find("log_in")
    assert button.text == "Log in"
    p.type_into("email", "me@example.com")
    p.type_into("password", "hunter2")
    p.tap("log_in")
    p.clock.advance(1)
    assert p.d.screen_name == "inbox"
    compose = p.find("compose")
    assert compose.label == "Compose"
    app_bar = p.find("app_bar")
    assert compose in app_bar.children
    assert compose.frame.bottom <= app_bar.frame.bottom
    p.tap("compose")
    assert p.d.screen_name == "compose"


# --- spec loading ------------------------------------------------------------------------------


def test_bundled_apps() -> None:
    assert {"demo", "demo@restyled", "demo@v2"} <= set(bundled_apps())
    spec = load_app_spec("demo")
    assert spec.app_id == APP and spec.launch == "login"
    assert set(spec.screens) == {"login", "inbox", "detail", "compose", "search", "settings"}
    assert load_app_spec("demo@v2").variant == "v2"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "app.yaml"
    path.write_text(text, encoding="utf-8")
    return path


MINIMAL = """
app_id: com.example.app
name: Example
launch: home
screens:
  home:
    elements:
      - {role: button, id: go, text: Go, on_tap: [{go: next}]}
  next:
    elements:
      - {role: text, text: "Hello {state.who}"}
state: {who: world}
"""


def test_custom_spec_from_path(tmp_path: Path) -> None:
    d = create_device("android", _write(tmp_path, MINIMAL), clock=ManualClock())
    assert d.current_app() is not None and d.current_app().app_id == "com.example.app"  # type: ignore[union-attr]
    go = next(n for n in d.tree().walk() if n.id == "go")
    d.tap(*go.frame.center)
    assert any(n.text == "Hello world" for n in d.tree().walk())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("app_id: [unclosed", r"app\.yaml:1:\d+: invalid YAML"),
        ("- just\n- a list\n", "top level must be a mapping"),
        (
            MINIMAL.replace("role: button", "role: buton"),
            r"screens\.home\.elements\[0\]\.role: Input should be 'screen'",
        ),
        (
            MINIMAL.replace("{go: next}", "{goto: next}"),
            r"screens\.home\.elements\[0\]\.on_tap\[0\]: a step is a mapping whose first key is one of: go",
        ),
        (
            MINIMAL.replace("{go: next}", "{go: nowhere}"),
            r"on_tap\[0\]: unknown screen 'nowhere'; screens are home, next",
        ),
        (MINIMAL.replace("launch: home", "launch: start"), "launch: unknown screen 'start'"),
        (
            MINIMAL.replace("id: go, ", "id: go, colour: red, "),
            r"elements\[0\]\.colour: Extra inputs are not permitted",
        ),
        (
            MINIMAL.replace("app_id: com.example.app", "app_id: nodots"),
            r"app_id: String should match pattern",
        ),
        (MINIMAL.replace("{role: text,", "{role: text_field,"), "a text_field needs an id"),
        (
            MINIMAL.replace("  next:", "  other:\n    elements:\n      - {role: list, id: l}\n  next:"),
            r"screens\.other\.elements\[0\]\.source: unknown data source ''",
        ),
        (
            MINIMAL.replace("{go: next}", "{require: nope, message: x}"),
            "screen 'home' has no text field 'nope'",
        ),
        ("extends: missing_app\n", "unknown app 'missing_app'"),
    ],
)
def test_spec_errors_are_clear(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as info:
        load_app_spec(_write(tmp_path, text))
    assert "app.yaml" in str(info.value) or "unknown app" in str(info.value)


def test_unknown_bundled_app_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(
        UsageError, match=r"unknown app 'nope': bundled apps are demo, demo@restyled, demo@v2"
    ):
        load_app_spec("nope")
    with pytest.raises(UsageError, match="no such file"):
        load_app_spec(tmp_path / "absent.yaml")


def test_extends_and_patches(tmp_path: Path) -> None:
    variant = tmp_path / "mine.yaml"
    variant.write_text(
        "extends: demo\nname: Mine\npatches:\n  - {screen: login, id: forgot, remove: true}\n"
        "  - {screen: login, id: welcome, set: {text: Hello}}\n",
        encoding="utf-8",
    )
    spec = load_app_spec(variant)
    assert spec.name == "Mine" and spec.app_id == APP
    d = create_device("android", spec, clock=ManualClock())
    texts = [n.text for n in d.tree().walk()]
    assert "Hello" in texts and "Forgot password?" not in texts
    variant.write_text(
        "extends: demo\npatches:\n  - {screen: login, id: nope, set: {text: x}}\n", encoding="utf-8"
    )
    with pytest.raises(UsageError, match=r"patches\[0\]: screen 'login' has no element with id 'nope'"):
        load_app_spec(variant)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_switch_with_on_tap_runs_it_instead_of_toggling(platform: str, tmp_path: Path) -> None:
    variant = tmp_path / "miswired.yaml"
    variant.write_text(
        "extends: demo\npatches:\n"
        "  - {screen: settings, id: dark_mode, set: {on_tap: [{toggle: state.notifications}]}}\n",
        encoding="utf-8",
    )
    p = Phone(platform, str(variant))
    p.sign_in()
    p.tap("tab_settings")
    p.tap("dark_mode")
    assert (p.find("dark_mode").checked, p.find("notifications").checked) == (False, False)
    assert p.d.state["dark_mode"] is False and p.d.state["notifications"] is False


def test_patches_edit_a_dialog_and_its_buttons(tmp_path: Path) -> None:
    variant = tmp_path / "stay.yaml"
    variant.write_text(
        "extends: demo\npatches:\n"
        "  - {screen: settings, dialog: sign_out, set: {title: 'Leave?'}}\n"
        "  - {screen: settings, dialog: sign_out, id: confirm_sign_out, set: {text: Leave, on_tap: [close_dialog]}}\n",
        encoding="utf-8",
    )
    spec = load_app_spec(variant)
    dialog = spec.screens["settings"].dialogs["sign_out"]
    assert dialog.title == "Leave?" and [b.text for b in dialog.buttons] == ["Cancel", "Leave"]
    # the base's own spec is untouched
    assert load_app_spec("demo").screens["settings"].dialogs["sign_out"].title == "Sign out?"
    p = Phone("android", str(variant))
    p.sign_in()
    p.tap("tab_settings")
    p.tap("sign_out")
    p.tap("confirm_sign_out")
    assert p.d.screen_name == "settings" and p.d.alert() is None


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (
            "{screen: settings, dialog: nope, set: {title: x}}",
            "screen 'settings' has no dialog 'nope'; its dialogs are sign_out",
        ),
        (
            "{screen: settings, dialog: sign_out, id: ok, set: {text: x}}",
            "dialog 'sign_out' has no button with id 'ok'; its buttons are cancel, confirm_sign_out",
        ),
        ("{screen: settings, dialog: sign_out, move_to: app_bar}", "unknown dialog patch keys move_to"),
        (
            "{screen: settings, set: {title: x}}",
            "a patch needs `screen` and `id` .* or `screen` and `dialog`",
        ),
    ],
)
def test_dialog_patch_errors(patch: str, message: str, tmp_path: Path) -> None:
    variant = tmp_path / "bad.yaml"
    variant.write_text(f"extends: demo\npatches:\n  - {patch}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"patches\[0\]: " + message.replace("?", r"\?")):
        load_app_spec(variant)
