"""The shell's `input` command (`input tap`, `swipe`, `keyevent`, `text`) and the key events it and
the input methods send: through the uiautomator2 service when one runs (it counts touch time and owns
the screen's power), else straight to the device."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trailblaze_sim.android.toybox import ShellResult, failed, ok
from trailblaze_sim.model import Key, SimDevice

if TYPE_CHECKING:
    from trailblaze_sim.android.u2 import U2Service

__all__ = ["InputCommand"]

_KEYEVENTS: dict[str, Key] = {
    "HOME": "home", "BACK": "back", "ENTER": "enter", "DEL": "delete", "TAB": "tab", "MENU": "menu",
    "APP_SWITCH": "recent", "VOLUME_UP": "volume_up", "VOLUME_DOWN": "volume_down", "POWER": "power",
    "3": "home", "4": "back", "66": "enter", "67": "delete", "61": "tab", "82": "menu", "187": "recent",
    "24": "volume_up", "25": "volume_down", "26": "power",
}  # fmt: skip
_KEYCODE_NUMBERS = (
    {f"{chr(c)}": 29 + c - ord("A") for c in range(ord("A"), ord("Z") + 1)}
    | {str(d): 7 + d for d in range(10)}
    | {"SPACE": 62, "COMMA": 55, "PERIOD": 56, "MINUS": 69, "EQUALS": 70, "AT": 77, "SLASH": 76, "PLUS": 81}
)


class InputCommand:
    """`input …` against one device; `u2` is the uiautomator2 service, when the phone runs one."""

    def __init__(self, device: SimDevice, u2: U2Service | None) -> None:
        self.device = device
        self.u2 = u2

    def _px_pt(self, value: str) -> float:
        return float(value) / self.device.scale

    def run(self, args: list[str], stdin: bytes) -> ShellResult:
        if args and args[0] in ("touchscreen", "keyboard", "mouse", "-d"):
            args = args[2:] if args[0] == "-d" else args[1:]
        sub = args[0] if args else ""
        rest = args[1:]
        if sub == "keyevent":
            longpress = "--longpress" in rest
            for k in (a for a in rest if not a.startswith("--")):
                name = k.upper().removeprefix("KEYCODE_")
                key = _KEYEVENTS.get(name)
                if key is not None:
                    if not longpress:
                        self.press(key)
                elif name in ("WAKEUP", "224") and self.u2 is not None:
                    self.u2.screen_on = True
                elif name in ("SLEEP", "223") and self.u2 is not None:
                    self.u2.screen_on = False
                elif name in ("ESCAPE", "111"):
                    self.device.hide_keyboard()  # the input method closes on Escape
                elif name in _KEYCODE_NUMBERS or name.isdigit():
                    from trailblaze_sim.android.u2 import keycode_char

                    ch = keycode_char(_KEYCODE_NUMBERS.get(name, int(name) if name.isdigit() else -1))
                    if ch is not None:
                        self.device.type_text(ch)
                elif not name.isalnum():
                    return failed(f"Error: Unknown keycode: {k}\n", 1)
            return ok()
        if sub == "tap" and len(rest) >= 2:
            if self.u2 is not None:
                self.u2.tap_px(float(rest[0]), float(rest[1]))
            else:
                self.device.tap(self._px_pt(rest[0]), self._px_pt(rest[1]))
            return ok()
        if sub in ("swipe", "draganddrop") and len(rest) >= 4:
            duration = float(rest[4]) / 1000 if len(rest) > 4 else 0.3
            if self.u2 is not None:
                self.u2.take_time(duration)  # `input` returns once the finger has lifted
            x1, y1, x2, y2 = (self._px_pt(v) for v in rest[:4])
            if abs(x2 - x1) < 1 and abs(y2 - y1) < 1 and duration >= 0.5:
                self.device.long_press(x1, y1, duration)
            else:
                self.device.swipe(x1, y1, x2, y2, duration)
            return ok()
        if sub == "text" and rest:
            self.device.type_text(" ".join(rest).replace("%s", " "))
            return ok()
        return failed(
            "Usage: input [<source>] <command> [<arg>...]\n\nThe commands and default sources are:\n"
            "      text <string> (Default: touchscreen)\n      keyevent [--longpress] <key code number or name> ...\n"
            "      tap <x> <y> (Default: touchscreen)\n      swipe <x1> <y1> <x2> <y2> [duration(ms)]\n",
            255 if sub else 1,
        )

    def keycode(self, code: int) -> None:
        """One KEYCODE_* event to the focused window: a key the device knows, or the character it types."""
        key = _KEYEVENTS.get(str(code))
        if key is not None:
            self.press(key)
            return
        from trailblaze_sim.android.u2 import keycode_char

        ch = keycode_char(code)
        if ch is not None:
            self.device.type_text(ch)

    def press(self, key: Key) -> None:
        if self.u2 is not None:
            self.u2.press(key)
        else:
            self.device.press_key(key)
