"""What a simulated phone is: its geometry (`DeviceProfile`) and the native class names its elements
report (Android widget classes, XCUIElementType names)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ANDROID_CLASSES", "IOS_TYPES", "LAUNCHER_ID", "PROFILES", "DeviceProfile"]

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
    """The fixed geometry of a simulated phone, in points."""

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


PROFILES: dict[str, DeviceProfile] = {
    "android": DeviceProfile("Pixel 7", 360, 800, 3.0, 24, 48, 280, "14", sdk_int=34),
    "ios": DeviceProfile("iPhone 15", 390, 844, 3.0, 47, 34, 336, "17.5"),
}
LAUNCHER_ID = {"android": "com.google.android.apps.nexuslauncher", "ios": "com.apple.springboard"}
