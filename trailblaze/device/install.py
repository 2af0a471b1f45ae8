"""`--install PATH` (`trailblaze_install`): put the app under test on the device before the run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from trailblaze.common.flags import CLI, Flags
from trailblaze.device.driver import SupportsInstall
from trailblaze.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession

__all__ = ["install_apps"]


def install_apps(
    session: DeviceSession, paths: Sequence[str], *, reinstall: bool = False, flags: Flags = CLI
) -> list[str]:
    """Installs every app file in `paths` on the session's device; returns their ids.

    Raises:
        UsageError: the device cannot install from the host (iOS), or a file is not an app.
        DeviceError: the device refused the app.
    """
    driver = session.driver
    if not paths:
        if reinstall:
            given, install = flags.reinstall or CLI.reinstall, flags.install or CLI.install
            raise UsageError(f"{given} reinstalls the apps of {install}: add {install} PATH")
        return []
    if not isinstance(driver, SupportsInstall):
        platform = session.info.platform
        how = (
            "install it first with `xcrun simctl install booted App.app` (Simulator) or "
            "`ideviceinstaller -i App.ipa` (device)"
            if platform == "ios"
            else "install it on the device first"
        )
        raise UsageError(f"{flags.install or CLI.install}: this {platform} driver cannot install apps from the host; {how}")
    return [driver.install_app(path, reinstall=reinstall) for path in paths]
