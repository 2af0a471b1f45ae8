"""`--install PATH` (`trailblaze_install`): put the app under test on the device before the run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from trailblaze.device.driver import SupportsInstall
from trailblaze.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession

__all__ = ["install_apps"]


def install_apps(session: DeviceSession, paths: Sequence[str], *, reinstall: bool = False) -> list[str]:
    """Installs every app file in `paths` on the session's device; returns their ids.

    Raises:
        UsageError: the device cannot install from the host (iOS), or a file is not an app.
        DeviceError: the device refused the app.
    """
    driver = session.driver
    if not paths:
        if reinstall:
            raise UsageError("--reinstall reinstalls the apps of --install: add --install PATH")
        return []
    if not isinstance(driver, SupportsInstall):
        platform = session.info.platform
        how = (
            "install it first with `xcrun simctl install booted App.app` (Simulator) or "
            "`ideviceinstaller -i App.ipa` (device)"
            if platform == "ios"
            else "install it on the device first"
        )
        raise UsageError(f"--install: this {platform} driver cannot install apps from the host; {how}")
    return [driver.install_app(path, reinstall=reinstall) for path in paths]
