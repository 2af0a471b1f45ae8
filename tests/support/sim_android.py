"""Shared rig for the Android simulator tests: a simulated demo phone behind a fake adb server,
driven through the unmodified adbutils + uiautomator2 clients over real sockets."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import adbutils
import uiautomator2 as u2

from trailblaze_sim import create_device
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.adb import AndroidSimServer

PKG = "dev.trailblaze.demo"


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


@dataclass
class AndroidRig:
    server: AndroidSimServer
    device: SimulatedDevice
    clock: ManualClock
    client: adbutils.AdbClient
    d: u2.Device

    @property
    def serial(self) -> str:
        return self.device.serial


@contextmanager
def android_rig(
    *,
    preinstalled: bool = True,
    conditions: Conditions | None = None,
    app: str = "demo",
    launch: bool = True,
) -> Iterator[AndroidRig]:
    """A started server with one demo device (manual clock) and a connected `uiautomator2.Device`."""
    clock = ManualClock()
    conditions = conditions or Conditions()
    device = create_device("android", app=app, clock=clock, conditions=conditions, launch=launch)
    with AndroidSimServer(device, conditions=conditions, u2_preinstalled=preinstalled) as server:
        client = adbutils.AdbClient("127.0.0.1", server.port)
        d = u2.connect(client.device(device.serial))
        d.settings["wait_timeout"] = 2.0
        try:
            yield AndroidRig(server, device, clock, client, d)
        finally:
            d.stop_uiautomator(wait=False)


def sign_in(rig: AndroidRig, email: str = "ada@example.com", password: str = "hunter2") -> None:
    """Log in through the UI and let the 1 s "Signing in…" delay pass on the device clock."""
    d = rig.d
    d(resourceId=rid("email")).set_text(email)
    d(resourceId=rid("password")).set_text(password)
    d(resourceId=rid("sign_in")).click()
    rig.clock.advance(1.0)
    assert d(text="Inbox", className="android.widget.TextView").wait(timeout=2)


def apk(package: str, *permissions: str) -> bytes:
    """A minimal APK for `adb install`: a manifest with the package and its permissions, and a stub dex."""
    uses = "".join(f'<uses-permission android:name="{p}"/>' for p in permissions)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            "AndroidManifest.xml",
            f'<?xml version="1.0"?>\n<manifest xmlns:android="http://schemas.android.com/apk/res/android" '
            f'package="{package}" android:versionCode="3">{uses}</manifest>',
        )
        z.writestr("classes.dex", b"dex\n035\x00")
    return buf.getvalue()
