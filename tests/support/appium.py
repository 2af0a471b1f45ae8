"""Rig for the end-to-end tests that drive the simulated phone through the real Appium server.

- `ensure_appium()`: the pinned Appium 3 + UiAutomator2 driver of `tests/data/appium` (its
  package.json / package-lock.json), installed with `npm ci` when `node_modules` is missing (once per
  machine: a file lock keeps pytest-xdist's workers from installing at the same time). With no
  `node` / `npm` on PATH the calling test fails, saying what to install: the suite never skips them.
- `AppiumServer`: the real server (`node …/appium/index.js`) on a free loopback port, with
  `APPIUM_HOME` set to that folder and `ANDROID_HOME` to a temporary SDK holding only
  `platform-tools/adb` (a link to the system's real adb client), its log in a file; stopped with
  its whole process group.
- `sim_phones()`: simulated demo phones (manual clock) behind one in-process fake adb server, and
  the Appium capabilities that select one of them.

Usage::

    with sim_phones(2) as phones, AppiumServer(log_path) as appium:
        driver = webdriver.Remote(appium.url, options=UiAutomator2Options().load_capabilities(
            phones.capabilities("emulator-5556", appPackage="dev.trailblaze.demo")))
"""

from __future__ import annotations

import fcntl
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from tests.support.paths import DATA
from tests.support.system_tools import require, require_node
from trailblaze_sim import create_device
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.adb import AndroidSimServer

APPIUM_HOME = DATA / "appium"
"""The folder with the rig's package.json: Appium and its UiAutomator2 driver, pinned."""
_APPIUM_MAIN = APPIUM_HOME / "node_modules" / "appium" / "index.js"
_DRIVER = APPIUM_HOME / "node_modules" / "appium-uiautomator2-driver" / "package.json"
_MANIFEST = APPIUM_HOME / "node_modules" / ".cache" / "appium" / "extensions.yaml"
_LOCK = Path(tempfile.gettempdir()) / "trailblaze-appium-rig.lock"
_NPM_TIMEOUT_S = 600
_START_TIMEOUT_S = 60


def ensure_appium() -> Path:
    """The `APPIUM_HOME` folder, with Appium and the UiAutomator2 driver installed in it."""
    if _APPIUM_MAIN.is_file() and _DRIVER.is_file() and _MANIFEST.is_file():
        return APPIUM_HOME
    node, npm = require_node("the Appium end-to-end tests")
    with open(_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another xdist worker may be installing right now
        if not (_APPIUM_MAIN.is_file() and _DRIVER.is_file()):
            _run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], "npm ci")
        if not _MANIFEST.is_file():
            # Appium writes its extension manifest on first start; doing it here, under the lock,
            # keeps two servers from writing it at once.
            _run([node, str(_APPIUM_MAIN), "driver", "list", "--installed"], "appium driver list")
    return APPIUM_HOME


def _run(argv: list[str], what: str) -> None:
    env = {**os.environ, "APPIUM_HOME": str(APPIUM_HOME)}
    done = subprocess.run(
        argv, cwd=APPIUM_HOME, env=env, capture_output=True, text=True, timeout=_NPM_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        pytest.fail(f"{what} in {APPIUM_HOME} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class AppiumServer:
    """The real Appium server, as a context manager.

    Args:
        log_path: Where the server's log goes (`log_text()` reads it back, e.g. to print on failure).
        args: Extra command-line arguments, e.g. `("--allow-insecure=uiautomator2:adb_shell",)`.
        port: The port to listen on; a free one by default.
    """

    log_path: Path
    args: tuple[str, ...] = ()
    port: int = field(default_factory=free_port)
    _proc: subprocess.Popen[bytes] | None = None
    _sdk: tempfile.TemporaryDirectory[str] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> AppiumServer:
        home = ensure_appium()
        node = shutil.which("node")
        assert node is not None  # ensure_appium failed the test otherwise
        self._sdk = tempfile.TemporaryDirectory(prefix="trailblaze-sdk-")
        tools = Path(self._sdk.name) / "platform-tools"
        tools.mkdir()
        (tools / "adb").symlink_to(
            require("adb", why="Appium's UiAutomator2 driver runs the real adb client")
        )
        env = {
            **os.environ,
            "APPIUM_HOME": str(home),
            "ANDROID_HOME": self._sdk.name,
            "ANDROID_SDK_ROOT": self._sdk.name,
        }
        env.pop("ANDROID_ADB_SERVER_PORT", None)  # each session names its adb server (appium:adbPort)
        argv = [node, str(_APPIUM_MAIN), "--address", "127.0.0.1", "--port", str(self.port),
                "--log-no-colors", "--log-timestamp", *self.args]  # fmt: skip
        with open(self.log_path, "wb") as log:
            self._proc = subprocess.Popen(
                argv, cwd=self._sdk.name, env=env, stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not self._ready():
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"Appium did not start on {self.url}; its log:\n{self.log_text()[-4000:]}")
            time.sleep(0.05)
        return self

    def _ready(self) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
        try:
            conn.request("GET", "/status")
            resp = conn.getresponse()
            return resp.status == 200 and bool(json.loads(resp.read())["value"]["ready"])
        except (OSError, ValueError, KeyError):
            return False
        finally:
            conn.close()

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(proc.pid, sig)  # node's children too (adb clients, logcat)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        if self._sdk is not None:
            self._sdk.cleanup()
            self._sdk = None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> AppiumServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


@dataclass
class SimPhones:
    """Simulated demo phones behind one in-process fake adb server (all on one manual clock)."""

    server: AndroidSimServer
    devices: list[SimulatedDevice]
    clock: ManualClock

    def device(self, serial: str) -> SimulatedDevice:
        return next(d for d in self.devices if d.serial == serial)

    def capabilities(self, serial: str | None = None, **appium: Any) -> dict[str, Any]:
        """W3C capabilities for a UiAutomator2 session on one phone (the first by default);
        `appium` adds `appium:`-prefixed ones (`appPackage="…"`, `noReset=True`, …)."""
        return {
            "platformName": "Android",
            "appium:automationName": "UiAutomator2",
            "appium:udid": serial or self.devices[0].serial,
            "appium:adbPort": self.server.port,
            **{f"appium:{name}": value for name, value in appium.items()},
        }


@contextmanager
def sim_phones(count: int = 1, *, app: str = "demo") -> Iterator[SimPhones]:
    """`count` phones (`emulator-5554`, `emulator-5556`, …) running `app`, their adb server started."""
    clock = ManualClock()
    devices = [
        create_device("android", app=app, clock=clock, serial=f"emulator-{5554 + 2 * i}")
        for i in range(count)
    ]
    with AndroidSimServer(devices, u2_preinstalled=False) as server:
        yield SimPhones(server, devices, clock)
