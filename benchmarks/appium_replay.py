"""Replay through Appium next to a hand-written Appium-Python-Client script: the login trail, through the
real Appium server (tests/data/appium: Appium 3 and its UiAutomator2 driver, pinned) on the simulated phone.

- `raw`: a careful hand-written script with the raw client on the same session type: `mobile: clearApp`
  and `activateApp`, then for each field find it by id (an explicit `WebDriverWait`, as Appium's docs
  advise), click, type with the element's `send_keys`; tap Sign in; wait for the Inbox heading.
- `library`: `trailblaze.engine.replay.replay_trail` on a `DeviceSession` opened on
  `appium:URL#caps.yaml` (the checked replay: every tool resolves its selector on a page source and
  settles after acting; no screenshots, as the raw script takes none).

Both talk to Appium through a local counting proxy (`trailblaze.testing.farm_hub.FarmHub` without a
farm), which counts every command by route and, for the farm profile, delays each by `--farm-ms`
(default 200 ms: a device farm's data centre is a round trip away, every command pays it).
"Commands per action" divides the page sources and the W3C actions/keys of one replay by the trail's
six actions (launch, tap, type, tap, type, tap).

Run: python benchmarks/appium_replay.py [--runs N] [--farm-ms MS]   (medians of N runs, default 5)
Needs node and npm (the rig installs tests/data/appium with `npm ci` on first use).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_ROOT))  # the Appium rig lives with the tests (tests/support/appium.py)

from tests.support.appium import AppiumServer  # noqa: E402
from trailblaze.device.devices import open_device  # noqa: E402
from trailblaze.engine.replay import build_memory, replay_trail  # noqa: E402
from trailblaze.testing.farm_hub import FarmHub  # noqa: E402
from trailblaze.trail.model import load_trail  # noqa: E402
from trailblaze_sim import create_device  # noqa: E402
from trailblaze_sim.server.adb import AndroidSimServer  # noqa: E402

_TRAIL = _ROOT / "trails" / "login.trail.yaml"
_APP = "dev.trailblaze.demo"
_ACTIONS = 6


def _raw(url: str, caps: dict[str, object]) -> Iterator[Callable[[], None]]:
    from appium import webdriver
    from appium.options.common import AppiumOptions
    from appium.webdriver.common.appiumby import AppiumBy
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    driver = webdriver.Remote(url, options=AppiumOptions().load_capabilities(caps))
    rid = f"{_APP}:id/"

    def element(by: str, value: str) -> object:
        return WebDriverWait(driver, 10, poll_frequency=0.1).until(ec.presence_of_element_located((by, value)))

    def script() -> None:
        driver.execute_script("mobile: clearApp", {"appId": _APP})
        driver.execute_script("mobile: activateApp", {"appId": _APP})
        email = element(AppiumBy.ID, rid + "email")
        email.click()  # type: ignore[attr-defined]
        email.send_keys("user@example.com")  # type: ignore[attr-defined]
        password = element(AppiumBy.ID, rid + "password")
        password.click()  # type: ignore[attr-defined]
        password.send_keys("hunter2")  # type: ignore[attr-defined]
        element(AppiumBy.ID, rid + "sign_in").click()  # type: ignore[attr-defined]
        element(AppiumBy.XPATH, '//*[@text="Inbox" and @clickable="false"]')

    try:
        yield script
    finally:
        driver.quit()


def _library(url: str, caps_path: Path, tmp: Path) -> Iterator[Callable[[], None]]:
    path = tmp / "login.trail.yaml"
    path.write_bytes(_TRAIL.read_bytes())
    with open_device(f"appium:{url}#{caps_path}") as session:

        def run() -> None:
            trail = load_trail(path)
            record = replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))
            assert record.status == "passed", record.error

        yield run


def _measure(run: Callable[[], None], hub: FarmHub, repeats: int) -> tuple[float, Counter[str]]:
    run()  # warm-up: the idle-wait setting, connections, caches
    times: list[float] = []
    counts: list[Counter[str]] = []
    for _ in range(repeats):
        before = Counter(hub.commands)
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
        counts.append(Counter(hub.commands) - before)
    return statistics.median(times), counts[len(counts) // 2]


def _line(name: str, seconds: float, counts: Counter[str]) -> str:
    total = sum(counts.values())
    sources = counts["GET /session/:id/source"]
    acting = sum(n for k, n in counts.items() if k.endswith(("/actions", "/keys", "/click", "/value")))
    acting += counts["POST /session/:id/execute/sync"]  # the launch: mobile: clearApp / activateApp
    return (
        f"{name:<8} {seconds:6.2f} s  {total:3d} commands ({sources:2d} page sources, {acting:2d} actions/keys/clicks, "
        f"{total - sources - acting:2d} other)  per action: {sources / _ACTIONS:.2f} source + {acting / _ACTIONS:.2f} action"
    )


@contextmanager
def _rig(tmp: Path) -> Iterator[tuple[AppiumServer, dict[str, object], Path]]:
    with (
        AndroidSimServer([create_device("android", app="demo")], u2_preinstalled=False) as phones,
        AppiumServer(tmp / "appium.log") as appium,
    ):
        caps: dict[str, object] = {
            "platformName": "Android",
            "appium:automationName": "UiAutomator2",
            "appium:udid": "emulator-5554",
            "appium:adbPort": phones.port,
        }
        path = tmp / "caps.yaml"
        path.write_text(f"platformName: Android\nudid: emulator-5554\nadbPort: {phones.port}\n", "utf-8")
        yield appium, caps, path


def _profile(appium: AppiumServer, caps: dict[str, object], caps_path: Path, tmp: Path, latency: float, repeats: int) -> None:
    label = "zero" if not latency else f"farm {latency * 1000:.0f} ms/command"
    with FarmHub(None, backend=appium.url, latency=latency) as hub:
        gen = _raw(hub.url, caps)
        raw = _measure(next(gen), hub, repeats)
        gen.close()
        lib_gen = _library(hub.url, caps_path, tmp)
        lib = _measure(next(lib_gen), hub, repeats)
        lib_gen.close()
    print(f"[{label}] library ÷ raw {lib[0] / raw[0]:.2f}")
    print("  " + _line("raw", *raw))
    print("  " + _line("library", *lib))
    for name, (_, counts) in (("raw", raw), ("library", lib)):
        print(f"    {name} by route: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Replay through the real Appium server vs a raw Appium script.")
    parser.add_argument("--runs", type=int, default=5, help="repetitions per mode (medians; default 5)")
    parser.add_argument("--farm-ms", type=float, default=200.0, help="per-command latency of the farm profile")
    args = parser.parse_args()
    from importlib.metadata import version

    print(
        f"Replay through Appium vs a hand-written Appium-Python-Client script — trails/login.trail.yaml, medians "
        f"of {args.runs} runs (goal: library ÷ raw ≤ 1.3; per action ≤ 1 page source + 1 action)"
    )
    home = _ROOT / "tests" / "appium" / "node_modules"
    import json

    appium_v = json.loads((home / "appium" / "package.json").read_text())["version"]
    driver_v = json.loads((home / "appium-uiautomator2-driver" / "package.json").read_text())["version"]
    print(
        f"Appium {appium_v}, appium-uiautomator2-driver {driver_v}, Appium-Python-Client "
        f"{version('Appium-Python-Client')}, selenium {version('selenium')}"
    )
    with tempfile.TemporaryDirectory() as name, _rig(Path(name)) as (appium, caps, caps_path):
        tmp = Path(name)
        _profile(appium, caps, caps_path, tmp, 0.0, args.runs)
        _profile(appium, caps, caps_path, tmp, args.farm_ms / 1000, max(1, args.runs // 2))


if __name__ == "__main__":
    main()
