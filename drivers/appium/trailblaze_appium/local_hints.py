"""What to do when a local Appium server refuses a session for want of an Android SDK or the device's
adb server (docs/guides/appium.md, "A local Appium server").

Appium's own words name the symptom, not the fix: "Neither ANDROID_HOME nor ANDROID_SDK_ROOT
environment variable was exported", or "Could not find a connected Android device in 20000ms" when the
phone is on another adb server than the default one on port 5037 (as `trailblaze sim android`'s is).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trailblaze.errors import TrailblazeError

__all__ = ["with_local_hint"]

_GUIDE = "docs/guides/appium.md#a-local-appium-server"


def with_local_hint(error: TrailblazeError, capabilities: Mapping[str, Any]) -> TrailblazeError:
    """`error` with the fix appended, when its message is one of the refusals above."""
    said = error.message.lower()
    if "android_home" in said or "android_sdk_root" in said:
        return type(error)(
            f"{error.message}; start the Appium server with ANDROID_HOME set to an Android SDK, or to any "
            f"folder whose platform-tools/adb is the adb client ({_GUIDE})"
        )
    if "could not find a connected android device" in said:
        if "appium:adbPort" not in capabilities:
            return type(error)(
                f"{error.message}; Appium asks the adb server on port 5037: for a phone on another one (the "
                f"port `trailblaze sim android` prints), add `appium:adbPort: PORT` to the capabilities ({_GUIDE})"
            )
        return type(error)(
            f"{error.message}; check that appium:udid is among `adb -P {capabilities['appium:adbPort']} devices`"
        )
    return error
