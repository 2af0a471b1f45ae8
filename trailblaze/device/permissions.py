"""`launchApp`'s `permissions` (Maestro's form) on Android: runtime permissions granted with
`pm grant` / taken with `pm revoke` before the app starts.

Keys are `all` (every runtime permission the app requests, as `dumpsys package` lists them), one of
Maestro's short names (`camera`, `location`, …) or a full permission name
(`android.permission.CAMERA`); values are `allow`, `deny` or `unset` (revoked: the app asks again).
`all` applies first, so `{all: deny, camera: allow}` leaves only the camera.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # the trail reader checks permission keys without the driver layer
    from trailblaze.device.driver import SupportsShellStatus

__all__ = ["SHORT_NAMES", "PermissionRefused", "SupportsPermissions", "check_permission_key", "set_permissions"]

_P = "android.permission."
SHORT_NAMES: dict[str, tuple[str, ...]] = {
    "bluetooth": (_P + "BLUETOOTH_CONNECT", _P + "BLUETOOTH_SCAN"),
    "calendar": (_P + "READ_CALENDAR", _P + "WRITE_CALENDAR"),
    "camera": (_P + "CAMERA",),
    "contacts": (_P + "READ_CONTACTS", _P + "WRITE_CONTACTS"),
    "location": (_P + "ACCESS_FINE_LOCATION", _P + "ACCESS_COARSE_LOCATION"),
    "medialibrary": (_P + "READ_MEDIA_IMAGES", _P + "READ_MEDIA_VIDEO", _P + "READ_MEDIA_AUDIO"),
    "microphone": (_P + "RECORD_AUDIO",),
    "notifications": (_P + "POST_NOTIFICATIONS",),
    "phone": (_P + "CALL_PHONE", _P + "READ_PHONE_STATE"),
    "sms": (_P + "SEND_SMS", _P + "RECEIVE_SMS", _P + "READ_SMS"),
    "storage": (_P + "READ_EXTERNAL_STORAGE", _P + "WRITE_EXTERNAL_STORAGE"),
}
"""Maestro's permission names → the Android permissions each stands for."""

_REQUESTED = re.compile(r"^\s*([A-Za-z][\w.]*\.[A-Z][A-Z0-9_]*): granted=(?:true|false)", re.M)


class PermissionRefused(Exception):
    """A permission could not be set; the message says which and what pm answered."""


@runtime_checkable
class SupportsPermissions(Protocol):
    """A driver that changes runtime permissions with its own commands rather than a device shell
    (Appium's `mobile: changePermissions`, which a server allows without the insecure shell)."""

    def requested_permissions(self, app_id: str) -> list[str]:
        """The runtime permissions `app_id` requests."""
        ...

    def change_permission(self, app_id: str, permission: str, grant: bool) -> str | None:
        """Grants or revokes one permission; the device's refusal in one line, None when done."""
        ...


def check_permission_key(key: str) -> str:
    """`key` if it names a permission (`all`, a short name, a dotted name), else ValueError."""
    if key == "all" or key in SHORT_NAMES or re.fullmatch(r"[A-Za-z][\w]*(\.[\w]+)+", key):
        return key
    names = ", ".join(["all", *SHORT_NAMES])
    raise ValueError(
        f"unknown permission {key!r}: use {names} or a full name such as android.permission.CAMERA"
    )


def set_permissions(
    shell: SupportsShellStatus | SupportsPermissions, app_id: str, wanted: Mapping[str, str]
) -> list[str]:
    """Grants / revokes what `wanted` asks for; returns one `PERMISSION allow|deny` per change.

    A driver with its own permission commands (`SupportsPermissions`) uses them; otherwise `pm grant`
    / `pm revoke` run in the device shell.

    Raises:
        PermissionRefused: a named permission pm refused (those `all` expands to are best effort:
            a permission that is not a changeable runtime one is skipped).
    """
    plan: dict[str, tuple[str, bool]] = {}
    if "all" in wanted:
        for name in _requested(shell, app_id):
            plan[name] = (wanted["all"], False)
    for key, value in wanted.items():
        if key != "all":
            for name in SHORT_NAMES.get(key, (key,)):
                plan[name] = (value, True)
    done: list[str] = []
    for name, (value, named) in plan.items():
        verb = "grant" if value == "allow" else "revoke"
        said = _change(shell, app_id, name, value == "allow")
        if said is not None:
            if "Unknown package" in said or named:
                raise PermissionRefused(f"pm {verb} {app_id} {name} failed: {said[-200:]}")
            continue
        done.append(f"{name.removeprefix(_P)} {'allow' if value == 'allow' else 'deny'}")
    return done


def _change(shell: SupportsShellStatus | SupportsPermissions, app_id: str, name: str, grant: bool) -> str | None:
    if isinstance(shell, SupportsPermissions):
        return shell.change_permission(app_id, name, grant)
    verb = "grant" if grant else "revoke"
    answer = shell.shell_status(f"pm {verb} {shlex.quote(app_id)} {shlex.quote(name)}")
    return None if answer.exit_code == 0 else " ".join(answer.output.split())


def _requested(shell: SupportsShellStatus | SupportsPermissions, app_id: str) -> list[str]:
    """The runtime permissions the package requests or holds, from `dumpsys package`."""
    if isinstance(shell, SupportsPermissions):
        return shell.requested_permissions(app_id)
    out = shell.shell_status(f"dumpsys package {shlex.quote(app_id)}").output
    return list(dict.fromkeys(_REQUESTED.findall(out)))
