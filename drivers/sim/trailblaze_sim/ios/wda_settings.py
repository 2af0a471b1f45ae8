"""WebDriverAgent's session settings (`GET`/`POST /appium/settings`) with WDA's defaults.

WDA answers the whole set on every GET and after every POST; a POST changes only the keys it names
(unknown keys are ignored, as WDA ignores them) and rejects a malformed value with `invalid argument`.
A new session starts from the defaults again (`FBConfiguration resetSessionSettings`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SettingsError", "default_settings", "update_settings"]

_ORIENTATIONS = ("auto", "portrait", "portraitUpsideDown", "landscapeRight", "landscapeLeft")


class SettingsError(ValueError):
    """A setting value WDA would refuse (`invalid argument`)."""


def default_settings() -> dict[str, Any]:
    """The settings of a fresh session of WDA 7 (the version `/status` reports), exactly the keys it
    lists, with its JSON types: `keyboardAutocorrection` / `keyboardPrediction` come out as 0/1 and
    the timeouts as whole numbers (NSNumber doubles serialise without a fraction)."""
    return {
        "shouldUseCompactResponses": True,
        "elementResponseAttributes": "type,label",
        "mjpegServerScreenshotQuality": 25,
        "mjpegServerFramerate": 10,
        "mjpegScalingFactor": 100,
        "mjpegFixOrientation": False,
        "screenshotQuality": 3,
        "keyboardAutocorrection": 0,
        "keyboardPrediction": 0,
        "customSnapshotTimeout": 15,
        "snapshotMaxDepth": 50,
        "useFirstMatch": False,
        "waitForIdleTimeout": 10,
        "animationCoolOffTimeout": 2,
        "boundElementsByIndex": False,
        "reduceMotion": False,
        "defaultActiveApplication": "auto",
        "activeAppDetectionPoint": "64.00,64.00",
        "includeNonModalElements": False,
        "acceptAlertButtonSelector": "",
        "dismissAlertButtonSelector": "",
        "defaultAlertAction": "",
        "screenshotOrientation": "auto",
    }


_FLAGS_AS_NUMBERS = frozenset({"keyboardAutocorrection", "keyboardPrediction"})
_SECONDS = frozenset({"customSnapshotTimeout", "waitForIdleTimeout", "animationCoolOffTimeout"})


def _coerce(key: str, old: Any, value: Any) -> Any:
    if isinstance(old, bool):
        if isinstance(value, bool | int | float):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
        raise SettingsError(f"'{key}' must be a boolean, got {value!r}")
    if key in _FLAGS_AS_NUMBERS:
        if not isinstance(value, bool | int | float):
            raise SettingsError(f"'{key}' must be a boolean, got {value!r}")
        return int(bool(value))
    if isinstance(old, int | float):
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise SettingsError(f"'{key}' must be a number, got {value!r}")
        try:
            number = float(value)
        except ValueError:
            raise SettingsError(f"'{key}' must be a number, got {value!r}") from None
        if key in _SECONDS:
            return int(number) if number.is_integer() else number
        return int(number)
    if not isinstance(value, str):
        raise SettingsError(f"'{key}' must be a string, got {value!r}")
    return value


def _detection_point(value: str) -> str:
    parts = value.split(",")
    try:
        x, y = (float(p) for p in parts)
    except ValueError:
        raise SettingsError(
            f"The coordinates string '{value}' must be a comma-separated pair of numbers, e.g. '64,64'"
        ) from None
    return f"{x:.2f},{y:.2f}"


def update_settings(current: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """`current` with the known keys of `new` applied (validated first: all or nothing)."""
    out = dict(current)
    for key, value in new.items():
        if key == "snapshotTimeout":  # deprecated alias WDA still honours
            key = "customSnapshotTimeout"
        if key not in out:
            continue
        value = _coerce(key, out[key], value)
        if key == "activeAppDetectionPoint":
            value = _detection_point(value)
        elif key == "screenshotOrientation" and value not in _ORIENTATIONS:
            raise SettingsError(
                f"The screenshot orientation '{value}' is not known. Only the following orientation values are "
                f"supported: {', '.join(_ORIENTATIONS)}"
            )
        elif key == "defaultAlertAction":
            value = value.lower()
        out[key] = value
    return out
