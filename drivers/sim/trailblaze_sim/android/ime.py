"""Input methods of a simulated Android phone: `ime list|enable|disable|set`, the secure settings
that name them, the input methods an installed APK declares, and the broadcasts u2's AdbKeyboard
answers.

As on a phone, the system keyboard (LatinIME) is always there. Installing an APK whose manifest has a
`<service>` with the `android.view.InputMethod` action makes that service available
(`ime list -s -a`); `ime enable` adds it to `enabled_input_methods`, and `ime set` (or
`settings put secure default_input_method`) selects it. Uninstalling the package, or disabling the
selected method, falls back to the system keyboard.

The selected input method's service is the one that runs, so only a selected AdbKeyboard
(`com.github.uiautomator/.AdbKeyboard`, from the `app-uiautomator.apk` that uiautomator2 installs)
receives the `ADB_KEYBOARD_*` broadcasts; otherwise `am broadcast` reaches no receiver (`result=0`).
What AdbKeyboard does with each action follows its source (openatx/android-uiautomator-server,
`AdbKeyboard.java`): with no focused editor (no input connection) it answers `result=-1` with the
action's name as data and types nothing; text arrives base64-encoded UTF-8 in the `text` extra; a
broken extra answers `result=0, data="error:…"`.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field

from trailblaze_sim.model import SimDevice

__all__ = ["ADB_KEYBOARD", "SYSTEM_IME", "BroadcastAnswer", "InputMethods", "short_component"]

SYSTEM_IME = "com.android.inputmethod.latin/.LatinIME"
ADB_KEYBOARD = "com.github.uiautomator/.AdbKeyboard"

_DEFAULT = ("secure", "default_input_method")
_ENABLED = ("secure", "enabled_input_methods")
_RESULT_OK = -1
_RESULT_CANCELED = 0
# EditorInfo.IME_ACTION_*: NEXT moves to the next field, the others submit it.
_IME_ACTION_NEXT = 5


@dataclass(frozen=True)
class BroadcastAnswer:
    """What `am broadcast` reports: the ordered broadcast's result code and data."""

    code: int
    data: str | None = None

    def render(self, action: str, has_extras: bool) -> str:
        extras = " (has extras)" if has_extras else ""
        tail = f', data="{self.data}"' if self.data is not None else ""
        return f"Broadcasting: Intent {{ act={action} flg=0x400000{extras} }}\nBroadcast completed: result={self.code}{tail}\n"


def short_component(package: str, cls: str) -> str:
    """`ComponentName.flattenToShortString`: `pkg/.Cls` when the class lives in the package."""
    if cls.startswith("."):
        return f"{package}/{cls}"
    if cls.startswith(package + "."):
        return f"{package}/{cls[len(package) :]}"
    return f"{package}/{cls}"


@dataclass
class InputMethods:
    """The phone's input methods; the current and enabled ones live in `settings` (shared with the
    `settings` command, as on a phone)."""

    device: SimDevice
    settings: MutableMapping[tuple[str, str], str]
    press_keycode: Callable[[int], None]
    """Sends one key event (KEYCODE_*) to the focused window."""
    available: dict[str, str] = field(default_factory=lambda: {SYSTEM_IME: "com.android.inputmethod.latin"})
    """Input method id -> the package that provides it."""

    def __post_init__(self) -> None:
        self.settings.setdefault(_DEFAULT, SYSTEM_IME)
        self.settings.setdefault(_ENABLED, SYSTEM_IME)

    # --- state ------------------------------------------------------------------------------
    @property
    def current(self) -> str:
        return self.settings.get(_DEFAULT, SYSTEM_IME)

    @property
    def current_package(self) -> str:
        """The package of the selected input method: its window is the keyboard's."""
        return self.available.get(self.current, self.available[SYSTEM_IME])

    @property
    def enabled(self) -> list[str]:
        ids = [part.split(";")[0] for part in self.settings.get(_ENABLED, "").split(":") if part]
        return [i for i in ids if i in self.available]

    def _set_enabled(self, ids: list[str]) -> None:
        self.settings[_ENABLED] = ":".join(dict.fromkeys(ids))

    def package_installed(self, package: str, services: list[str]) -> None:
        """An APK was installed: its input-method services become available (not enabled)."""
        self.package_removed(package)
        for cls in services:
            self.available[short_component(package, cls)] = package

    def package_removed(self, package: str) -> None:
        gone = [i for i, pkg in self.available.items() if pkg == package and i != SYSTEM_IME]
        for ime in gone:
            del self.available[ime]
        if gone:
            self._set_enabled([i for i in self.enabled if i not in gone] or [SYSTEM_IME])
            if self.current in gone:
                self.settings[_DEFAULT] = SYSTEM_IME

    # --- `ime` ------------------------------------------------------------------------------
    def command(self, args: list[str]) -> tuple[str, str, int]:
        """`ime list [-s] [-a]`, `ime enable|disable|set ID`: (stdout, stderr, exit code)."""
        sub = args[0] if args else ""
        rest = args[1:]
        if sub == "list":
            ids = list(self.available) if "-a" in rest else self.enabled
            if "-s" in rest:
                return "".join(f"{i}\n" for i in ids), "", 0
            return "".join(f"{i}:\n  mId={i} mSettingsActivityName=null\n" for i in ids), "", 0
        if sub in ("enable", "disable", "set") and rest:
            ime = rest[-1]
            if ime not in self.available:
                verb = "selected" if sub == "set" else sub + "d"
                return "", f"Unknown input method {ime} cannot be {verb} for user #0\n", 1
            return self._change(sub, ime), "", 0
        return "", "usage: ime [list|enable|disable|set] ...\n", 255

    def _change(self, sub: str, ime: str) -> str:
        enabled = self.enabled
        if sub == "set":
            if ime not in enabled:
                self._set_enabled([*enabled, ime])
            self.settings[_DEFAULT] = ime
            return f"Input method {ime} selected for user #0\n"
        if sub == "enable":
            if ime in enabled:
                return f"Input method {ime}: already enabled for user #0\n"
            self._set_enabled([*enabled, ime])
            return f"Input method {ime}: now enabled for user #0\n"
        if ime not in enabled:
            return f"Input method {ime}: already disabled for user #0\n"
        rest = [i for i in enabled if i != ime] or [SYSTEM_IME]
        self._set_enabled(rest)
        if self.current == ime:
            # the system picks another enabled method, as InputMethodManagerService does
            self.settings[_DEFAULT] = rest[0]
        return f"Input method {ime}: now disabled for user #0\n"

    # --- broadcasts -------------------------------------------------------------------------
    def broadcast(self, action: str, extras: dict[str, str]) -> BroadcastAnswer:
        """Deliver `am broadcast -a ACTION` to the running input method, if it listens for it."""
        if self.current != ADB_KEYBOARD or ADB_KEYBOARD not in self.available or action not in _ADB_ACTIONS:
            return BroadcastAnswer(_RESULT_CANCELED)
        editing = getattr(self.device, "editing", None)
        if not (callable(editing) and editing()):
            return BroadcastAnswer(_RESULT_OK, action)  # no input connection: nothing to type into
        try:
            return BroadcastAnswer(_RESULT_OK, self._adb_keyboard(action, extras))
        except ValueError as exc:
            return BroadcastAnswer(_RESULT_CANCELED, f"error:{exc}")

    def _adb_keyboard(self, action: str, extras: dict[str, str]) -> str | None:
        d = self.device
        if action == "ADB_KEYBOARD_INPUT_TEXT":
            if "text" not in extras:
                return action
            d.type_text(_b64_text(extras["text"]))
        elif action == "ADB_KEYBOARD_SET_TEXT":
            text = _b64_text(extras.get("text", ""))
            d.clear_text()
            d.type_text(text)
        elif action == "ADB_KEYBOARD_CLEAR_TEXT":
            d.clear_text()
        elif action == "ADB_KEYBOARD_INPUT_KEYCODE":
            code = int(extras.get("code", "-1"))
            if code != -1:
                self.press_keycode(code)
        elif action == "ADB_KEYBOARD_EDITOR_CODE":
            code = int(extras.get("code", "-1"))
            if code != -1:
                d.press_key("tab" if code == _IME_ACTION_NEXT else "enter")
        elif action == "ADB_KEYBOARD_SMART_ENTER":
            d.press_key("enter")
            return "Enter"
        elif action == "ADB_KEYBOARD_GET_CLIPBOARD":
            return base64.b64encode(d.clipboard.encode("utf-8")).decode("ascii")
        elif action == "ADB_KEYBOARD_HIDE":
            d.hide_keyboard()
        return None


_ADB_ACTIONS = frozenset({
    "ADB_KEYBOARD_SMART_ENTER", "ADB_KEYBOARD_INPUT_TEXT", "ADB_KEYBOARD_CLEAR_TEXT", "ADB_KEYBOARD_SET_TEXT",
    "ADB_KEYBOARD_INPUT_KEYCODE", "ADB_KEYBOARD_EDITOR_CODE", "ADB_KEYBOARD_GET_CLIPBOARD",
    "ADB_KEYBOARD_HIDE", "ADB_KEYBOARD_SHOW",
})  # fmt: skip


def _b64_text(value: str) -> str:
    """android.util.Base64.decode(DEFAULT) then UTF-8, as AdbKeyboard reads its `text` extra."""
    compact = "".join(value.split())  # the decoder skips whitespace, and padding is optional
    try:
        data = base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True)
    except binascii.Error as exc:
        raise ValueError("bad base-64") from exc  # IllegalArgumentException's message
    return data.decode("utf-8", "replace")
