"""What a simulated phone is: its geometry and settings (`DeviceProfile`, from the bundled profiles in
`profiles.yaml`: `phone`, `small`, `large`, `tablet`, and the modifiers `landscape`, `large-font`,
`dark`) and the native class names its elements report (Android widget classes, XCUIElementType names)."""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from trailblaze.errors import UsageError

__all__ = [
    "ANDROID_CLASSES",
    "FONT_SCALE_LARGE",
    "IOS_TYPES",
    "LAUNCHER_ID",
    "MODIFIERS",
    "PROFILES",
    "DeviceProfile",
    "device_profile",
    "profile_names",
]

ANDROID_CLASSES: dict[str, str] = {
    "screen": "android.widget.FrameLayout",
    "container": "android.widget.LinearLayout",
    "heading": "android.widget.TextView",
    "text": "android.widget.TextView",
    "button": "android.widget.Button",
    "icon_button": "android.widget.ImageButton",
    "link": "android.widget.TextView",
    "text_field": "android.widget.EditText",
    "secure_field": "android.widget.EditText",
    "multiline_field": "android.widget.EditText",
    "switch": "android.widget.Switch",
    "list": "androidx.recyclerview.widget.RecyclerView",
    "row": "android.widget.LinearLayout",
    "tab_bar": "android.widget.LinearLayout",
    "tab": "android.widget.TextView",
    "progress": "android.widget.ProgressBar",
    "dialog": "android.widget.FrameLayout",
    "snackbar": "android.widget.TextView",
    "nav_bar": "android.view.ViewGroup",
    "image": "android.widget.ImageView",
    "keyboard": "android.inputmethodservice.KeyboardView",
}
IOS_TYPES: dict[str, str] = {
    "screen": "XCUIElementTypeOther",
    "container": "XCUIElementTypeOther",
    "heading": "XCUIElementTypeStaticText",
    "text": "XCUIElementTypeStaticText",
    "button": "XCUIElementTypeButton",
    "icon_button": "XCUIElementTypeButton",
    "link": "XCUIElementTypeButton",
    "text_field": "XCUIElementTypeTextField",
    "secure_field": "XCUIElementTypeSecureTextField",
    "multiline_field": "XCUIElementTypeTextView",
    "switch": "XCUIElementTypeSwitch",
    "list": "XCUIElementTypeTable",
    "row": "XCUIElementTypeCell",
    "tab_bar": "XCUIElementTypeTabBar",
    "tab": "XCUIElementTypeButton",
    "progress": "XCUIElementTypeActivityIndicator",
    "dialog": "XCUIElementTypeAlert",
    "snackbar": "XCUIElementTypeStaticText",
    "nav_bar": "XCUIElementTypeNavigationBar",
    "image": "XCUIElementTypeImage",
    "keyboard": "XCUIElementTypeKeyboard",
}


@dataclass(frozen=True)
class DeviceProfile:
    """A simulated device: its fixed geometry in points and the settings a profile's modifiers change."""

    model: str
    width: int
    height: int
    scale: float
    inset_top: float
    """Status bar (Android, system UI) / top safe area (iOS)."""
    inset_bottom: float
    """Navigation bar (Android, system UI) / home-indicator safe area (iOS)."""
    keyboard_height: float
    os_version: str
    sdk_int: int = 0
    name: str = "phone"
    """The profile as named (`small+dark`): what `trailblaze sim` and the device's spec say."""
    font_scale: float = 1.0
    """The system font size: 1.0, or 1.3 under `large-font`."""
    dark: bool = False
    """The system's dark theme (`dark`)."""
    landscape: bool = False
    """Starts turned to landscape (`landscape`), when the app allows it."""

    @property
    def tablet(self) -> bool:
        """A tablet by the platforms' own rule: smallest width 600 dp or more (Android), an iPad (iOS)."""
        return min(self.width, self.height) >= 600


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    model: str
    width: int
    height: int
    scale: float
    inset_top: float
    inset_bottom: float
    keyboard: float
    os_version: str
    sdk_int: int = 0


class _Profiles(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    android: dict[str, _Entry]
    ios: dict[str, _Entry]
    modifiers: dict[str, str]


FONT_SCALE_LARGE = 1.3
"""`large-font`: Android's largest font size in Settings; on iOS, a larger Dynamic Type size."""


@functools.cache
def _bundled() -> _Profiles:
    import yaml

    raw = yaml.safe_load((Path(__file__).parent / "profiles.yaml").read_text(encoding="utf-8"))
    return _Profiles.model_validate(raw)


def _base(platform: Literal["android", "ios"], name: str) -> DeviceProfile:
    e = getattr(_bundled(), platform)[name]
    return DeviceProfile(
        e.model, e.width, e.height, e.scale, e.inset_top, e.inset_bottom, e.keyboard, e.os_version, e.sdk_int, name
    )


MODIFIERS: tuple[str, ...] = ("landscape", "large-font", "dark")


def profile_names() -> tuple[list[str], list[str]]:
    """The bundled profiles (`phone` first) and modifiers, as `trailblaze sim --profile` lists them."""
    return list(_bundled().android), list(_bundled().modifiers)


def device_profile(platform: str, text: str | None = None) -> DeviceProfile:
    """The profile `text` names for `platform`: `NAME[+MODIFIER...]` or modifiers alone (on the phone),
    e.g. `small`, `tablet+dark`, `large-font`; None or empty is the phone.

    Raises:
        UsageError: an unknown name (with a did-you-mean and the names there are), or two sizes.
    """
    plat: Literal["android", "ios"] = "ios" if platform == "ios" else "android"
    sizes = list(getattr(_bundled(), plat))
    base, mods = "phone", []
    for word in [w.strip() for w in (text or "").split("+") if w.strip()]:
        if word in sizes:
            if base != "phone" and word != base:
                raise UsageError(f"device profile {text!r} names two sizes ({base}, {word}); keep one of them")
            base = word
        elif word in MODIFIERS:
            mods.append(word)
        else:
            known = sizes + list(MODIFIERS)
            close = difflib.get_close_matches(word, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise UsageError(
                f"unknown device profile {word!r} in {text!r}: {hint}use one of {', '.join(sizes)}, "
                f"optionally with +{', +'.join(MODIFIERS)}"
            )
    profile = _base(plat, base)
    name = "+".join([base, *sorted(set(mods), key=MODIFIERS.index)])
    return replace(
        profile,
        name=name,
        font_scale=FONT_SCALE_LARGE if "large-font" in mods else 1.0,
        dark="dark" in mods,
        landscape="landscape" in mods,
    )


PROFILES: dict[str, DeviceProfile] = {"android": _base("android", "phone"), "ios": _base("ios", "phone")}
"""Each platform's default device, the `phone` profile."""
LAUNCHER_ID = {"android": "com.google.android.apps.nexuslauncher", "ios": "com.apple.springboard"}
