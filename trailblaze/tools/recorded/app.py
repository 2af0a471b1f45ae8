"""The `launchApp` tool: its params and its handler (see the package's docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import field_validator

from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

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


@defines(LaunchApp, "action", source="core")
def _launch_app(run: ToolContext, p: LaunchApp) -> ToolResult:
    from trailblaze.device.driver import SupportsShellStatus
    from trailblaze.device.permissions import PermissionRefused, set_permissions
    from trailblaze.errors import AppNotInstalledError

    mode, granted = p.launchMode, ""
    try:
        if p.permissions:
            driver = run.session.driver
            if run.platform == "ios" or not isinstance(driver, SupportsShellStatus):
                return ToolResult("UNSUPPORTED", (
                    f"launchApp permissions: this {run.platform} driver cannot change an app's permissions"
                    + (
                        " (WebDriverAgent has no access; a Simulator needs `xcrun simctl privacy`)"
                        if run.platform == "ios"
                        else ""
                    )
                ))
            # Android resets runtime permissions when it clears the data, and kills an app whose
            # permission is revoked: clear / stop first, set them, then start the app.
            if mode == "CLEAR_STATE":
                driver.clear_app(p.appId)
            elif mode == "FORCE_RESTART":
                driver.stop_app(p.appId)
            try:
                changes = set_permissions(driver, p.appId, p.permissions)
            except PermissionRefused as exc:
                if "Unknown package" not in str(exc):
                    return ToolResult("ERROR", str(exc))
                changes = []  # the launch below says NOT_INSTALLED, listing what is installed
            granted = f"; permissions: {', '.join(changes) or 'none changed'}"
            mode = "RESUME"
        # a launch is several requests (stop, launch): whether it happened is its app in the foreground
        run.session.act(
            lambda d: d.launch_app(p.appId, mode), took_effect=lambda: run.session.current_app() == p.appId
        )
    except AppNotInstalledError as exc:  # the trail (or the device set-up) is wrong, not the device link
        run.session.invalidate()
        return ToolResult("NOT_INSTALLED", exc.message)
    run.session.app_logs.app_id = p.appId
    return ToolResult("OK", f"launched {p.appId} ({p.launchMode}){granted}")
