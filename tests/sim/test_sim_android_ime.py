"""uiautomator2's input method on the simulated phone, through the unmodified client (issue 30, item 1):
installing its bundled AdbKeyboard (`app-uiautomator.apk`), `ime list/enable/set/disable`, the
secure settings, and the broadcasts AdbKeyboard answers, typing into the focused field. The facts
about AdbKeyboard (its actions, result codes, base64 `text` extra) come from its source in
openatx/android-uiautomator-server."""

from __future__ import annotations

import base64
import io
import zipfile
from collections.abc import Iterator

import pytest

from tests.support.sim_android import AndroidRig, android_rig, rid
from trailblaze.device.apk import input_method_services
from trailblaze.screen.hierarchy import parse_hierarchy

IME = "com.github.uiautomator/.AdbKeyboard"
LATIN = "com.android.inputmethod.latin/.LatinIME"
TEXT = "Grüße, 東京 🚀"


@pytest.fixture
def rig() -> Iterator[AndroidRig]:
    with android_rig() as r:
        yield r


def _email(rig: AndroidRig) -> str:
    return str(rig.d(resourceId=rid("email")).get_text())


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_set_input_ime_installs_enables_and_selects_adb_keyboard(rig: AndroidRig) -> None:
    d = rig.d
    assert d.shell("ime list -s -a").output.split() == [LATIN]
    assert not d.is_input_ime_installed()
    d.set_input_ime(True)  # pushes app-uiautomator.apk, `pm install`s it, enables and selects the IME
    assert d.is_input_ime_installed() and d.current_ime() == IME
    assert "package:com.github.uiautomator" in d.shell("pm list packages").output
    assert d.shell("ime list -s").output.split() == [LATIN, IME]
    assert d.shell("settings get secure enabled_input_methods").output.strip() == f"{LATIN}:{IME}"
    assert "mCurMethodId=" + IME in d.shell("dumpsys input_method").output
    d.set_input_ime(False)  # `ime disable`: the system falls back to its own keyboard
    assert d.current_ime() == LATIN
    assert d.shell("ime list -s").output.split() == [LATIN]
    assert d.is_input_ime_installed()  # still installed, only disabled
    d.shell("pm uninstall com.github.uiautomator")
    assert not d.is_input_ime_installed()


def test_send_keys_types_non_ascii_text_through_the_ime(rig: AndroidRig) -> None:
    d = rig.d
    d.set_input_ime(True)
    d(resourceId=rid("email")).click()
    d.send_keys(TEXT, clear=True)
    assert _email(rig) == TEXT
    d.send_keys("!", clear=False)
    assert _email(rig) == TEXT + "!"
    assert rig.device.clipboard == ""  # the IME path never touches the clipboard
    assert not rig.device.keyboard_shown()  # send_keys ends with ADB_KEYBOARD_HIDE
    d.clear_text()  # ADB_KEYBOARD_CLEAR_TEXT
    assert d(resourceId=rid("email")).get_text() in ("", "Email")  # an empty field shows its hint


def test_without_the_ime_send_keys_pastes_through_the_clipboard(rig: AndroidRig) -> None:
    d = rig.d
    d(resourceId=rid("email")).click()
    d.send_keys(TEXT)
    assert _email(rig) == TEXT
    assert rig.device.clipboard == TEXT
    assert not d.is_input_ime_installed()


def test_broadcasts_reach_adb_keyboard_only_while_it_is_selected(rig: AndroidRig) -> None:
    d = rig.d
    out = d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_INPUT_TEXT", "--es", "text", _b64("x")]).output
    assert out.splitlines()[-1] == "Broadcast completed: result=0"  # nobody listens yet
    d.set_input_ime(True)
    # nothing focused: AdbKeyboard has no input connection and answers with the action's name
    out = d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_INPUT_TEXT", "--es", "text", _b64("x")]).output
    assert out.splitlines()[-1] == 'Broadcast completed: result=-1, data="ADB_KEYBOARD_INPUT_TEXT"'
    d(resourceId=rid("email")).click()
    out = d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_INPUT_TEXT", "--es", "text", _b64("ab")]).output
    assert out.splitlines()[-1] == "Broadcast completed: result=-1" and _email(rig) == "ab"
    d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_INPUT_KEYCODE", "--ei", "code", "67"])  # KEYCODE_DEL
    d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_INPUT_KEYCODE", "--ei", "code", "31"])  # KEYCODE_C
    assert _email(rig) == "ac"
    d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_SET_TEXT", "--es", "text", _b64("ü")])
    assert _email(rig) == "ü"
    rig.device.clipboard = "clip ✓"
    out = d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_GET_CLIPBOARD"]).output
    assert out.splitlines()[-1] == f'Broadcast completed: result=-1, data="{_b64("clip ✓")}"'
    out = d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_INPUT_TEXT", "--es", "text", "@@@"]).output
    assert "result=0" in out and 'data="error:' in out and _email(rig) == "ü"
    # Enter through the IME submits the field as the key does: focus moves on to the password
    d.shell(["am", "broadcast", "-a", "ADB_KEYBOARD_EDITOR_CODE", "--ei", "code", "6"])
    assert d(resourceId=rid("password")).info["focused"]


def test_other_imes_from_a_manifest_are_listed_not_enabled(rig: AndroidRig, tmp_path: object) -> None:
    manifest = (
        '<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.example.kbd">'
        '<application><service android:name=".Kbd"><intent-filter>'
        '<action android:name="android.view.InputMethod"/></intent-filter></service>'
        '<service android:name=".Sync"/></application></manifest>'
    )
    assert input_method_services(manifest.encode()) == [".Kbd"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("AndroidManifest.xml", manifest)
    rig.server.filesystem(rig.serial).write("/data/local/tmp/kbd.apk", buf.getvalue())
    d = rig.d
    assert d.shell("pm install /data/local/tmp/kbd.apk").output.strip() == "Success"
    assert d.shell("ime list -s -a").output.split() == [LATIN, "com.example.kbd/.Kbd"]
    assert d.shell("ime list -s").output.split() == [LATIN]
    res = d.shell("ime set com.example.nope/.X")
    assert "Unknown input method com.example.nope/.X cannot be selected" in res.output
    d.shell("ime set com.example.kbd/.Kbd")
    assert d.current_ime() == "com.example.kbd/.Kbd"
    # its broadcasts are not AdbKeyboard's: nobody answers
    assert "result=0" in d.shell("am broadcast -a ADB_KEYBOARD_CLEAR_TEXT").output
    d.shell("pm uninstall com.example.kbd")  # removing the selected IME falls back to the system's
    assert d.current_ime() == LATIN


def test_the_keyboard_window_is_the_selected_input_methods(rig: AndroidRig) -> None:
    d = rig.d
    d(resourceId=rid("email")).click()
    assert [n.package for n in parse_hierarchy(d.dump_hierarchy(), "android").roots][-1] == (
        "com.android.inputmethod.latin"
    )
    d.set_input_ime(True)
    d(resourceId=rid("email")).click()  # AdbKeyboard's send_keys hid the keyboard; a tap shows it again
    h = parse_hierarchy(d.dump_hierarchy(), "android")
    keyboard = h.roots[-1]
    assert keyboard.package == "com.github.uiautomator" and h.window_kinds[-1] == "ime" and h.keyboard_shown
    assert keyboard.children[0].resource_id == "com.github.uiautomator:id/keyboard"
