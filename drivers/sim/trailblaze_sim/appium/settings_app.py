"""The Appium Settings helper app (`io.appium.settings`, installed by appium-uiautomator2-driver 8.7.0
from its `settings_apk-debug.apk`) on a simulated phone.

What the driver relies on, as the app does it on an API-34 phone:

- `am start-activity -n io.appium.settings/.Settings -a android.intent.action.MAIN -c
  android.intent.category.LAUNCHER` starts the app's process; its `Settings` activity starts the
  app's foreground service and finishes at once, so the app in front stays in front.
- `dumpsys activity services io.appium.settings` then lists that `ServiceRecord` with
  `isForeground=true` (the driver polls for exactly that string every 300 ms, so it must show up at
  once); `(nothing)` while the app is stopped. `am force-stop` and `pm clear` stop it.
- Its receivers answer explicit `am broadcast -n io.appium.settings/.receivers.X -a ACTION` calls
  with `result=-1`: the clipboard receiver returns the clipboard base64-encoded, but, as Android 10+
  only lets the focused app or the current input method read it, only while the app's own
  `io.appium.settings/.AppiumIME` is the selected input method (the driver selects it around the
  call); the locales reader returns base64 JSON `{"items": [...]}`.
"""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from trailblaze_sim.appium.apk_manifest import Manifest

__all__ = ["SETTINGS_PACKAGE", "SettingsApp"]

SETTINGS_PACKAGE = "io.appium.settings"
APPIUM_IME = f"{SETTINGS_PACKAGE}/.AppiumIME"
_FOREGROUND_SERVICE = f"{SETTINGS_PACKAGE}.ForegroundService"
_CLIPBOARD_ACTION = f"{SETTINGS_PACKAGE}.clipboard.get"
_LOCALES_ACTION = f"{SETTINGS_PACKAGE}.list_locales"
_LOCALES = ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "ja_JP", "zh_CN")
_RESULT_OK = -1
_RESULT_NONE = 0


@dataclass
class SettingsApp:
    """The app's process and foreground service. Thread-safe."""

    clipboard: Callable[[], str]
    """The device's clipboard text."""
    current_ime: Callable[[], str]
    """The selected input method's id."""
    pid: int = 0
    """The app's process id while it runs, else 0."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def running(self) -> bool:
        return self.pid != 0

    def start(self, pid: int) -> None:
        """The launcher activity ran: the process is up and the foreground service started."""
        with self._lock:
            if self.pid == 0:
                self.pid = pid

    def stop(self) -> None:
        with self._lock:
            self.pid = 0

    def services(self, manifest: Manifest, wanted: str) -> str:
        """`dumpsys activity services WANTED` (the package, or one of its services) for this app."""
        service = manifest.component("service", wanted) if "/" in wanted else None
        shown = self.running and (
            "/" not in wanted or (service is not None and service.name == _FOREGROUND_SERVICE)
        )
        if not shown:
            return "ACTIVITY MANAGER SERVICES (dumpsys activity services)\n  (nothing)\n"
        short = f"{SETTINGS_PACKAGE}/{_FOREGROUND_SERVICE[len(SETTINGS_PACKAGE) :]}"
        return (
            "ACTIVITY MANAGER SERVICES (dumpsys activity services)\n"
            "  User 0 active services:\n"
            f"  * ServiceRecord{{3c7a9e1 u0 {short} c:{SETTINGS_PACKAGE}}}\n"
            f"    intent={{cmp={short}}}\n"
            f"    packageName={SETTINGS_PACKAGE}\n"
            f"    processName={SETTINGS_PACKAGE}\n"
            "    permission=android.permission.FOREGROUND_SERVICE\n"
            f"    baseDir=/data/app/~~sim==/{SETTINGS_PACKAGE}-sim==/base.apk\n"
            f"    dataDir=/data/user/0/{SETTINGS_PACKAGE}\n"
            f"    app=ProcessRecord{{8d1f2a4 {self.pid}:{SETTINGS_PACKAGE}/u0a165}}\n"
            "    isForeground=true foregroundId=1 types=0x00000000 foregroundServiceType=NONE "
            "foregroundNoti=Notification(channel=main_channel shortcut=null contentView=null vibrate=null "
            "sound=null defaults=0x0 flags=0x62 color=0x00000000 vis=PRIVATE)\n"
            "    createTime=-2s15ms startingBgTimeout=--\n"
            "    lastActivity=-2s12ms restartTime=-2s12ms createdFromFg=true\n"
            "    startRequested=true delayedStop=false stopIfKilled=false callStart=true lastStartId=1\n\n"
        )

    def broadcast(self, component: str, action: str) -> tuple[int, str | None]:
        """(result code, result data) of an explicit broadcast to one of the app's receivers."""
        if action == _CLIPBOARD_ACTION:
            if self.current_ime() != APPIUM_IME:
                # Android 10+ hides the clipboard from an app that is neither focused nor the IME
                return _RESULT_OK, ""
            return _RESULT_OK, base64.b64encode(self.clipboard().encode("utf-8")).decode("ascii")
        if action == _LOCALES_ACTION:
            items = [{"language": loc.split("_")[0], "country": loc.split("_")[1]} for loc in _LOCALES]
            return _RESULT_OK, base64.b64encode(json.dumps({"items": items}).encode()).decode("ascii")
        if action.startswith(SETTINGS_PACKAGE + ".") or component.startswith(SETTINGS_PACKAGE + "/"):
            return _RESULT_OK, None
        return _RESULT_NONE, None
