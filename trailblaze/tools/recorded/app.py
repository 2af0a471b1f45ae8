"""Params of `launchApp` (see the package's docstring)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from trailblaze.tools.params import RecordedToolParams

__all__ = ["LaunchApp", "LaunchMode"]

LaunchMode = Literal["FORCE_RESTART", "RESUME", "CLEAR_STATE"]
PermissionValue = Literal["allow", "deny", "unset"]


class LaunchApp(RecordedToolParams):
    """Launch the app; Trailblaze's `REINSTALL` is read as `CLEAR_STATE`, which is also the default
    when a trail omits `launchMode`, as in Trailblaze (docs/adr/0033-device-logs-install-permissions.md).
    `permissions` (Maestro's form) grants / revokes runtime permissions before the app starts."""

    tool_name = "launchApp"
    appId: str
    launchMode: LaunchMode = "CLEAR_STATE"
    permissions: dict[str, PermissionValue] | None = None

    @field_validator("permissions")
    @classmethod
    def _known_permissions(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        # the device layer is not imported unless a trail gives permissions
        from trailblaze.device.permissions import check_permission_key

        for key in value or {}:
            check_permission_key(key)
        return value

    @field_validator("launchMode", mode="before")
    @classmethod
    def _reinstall_is_clear_state(cls, value: Any) -> Any:
        return "CLEAR_STATE" if value == "REINSTALL" else value
