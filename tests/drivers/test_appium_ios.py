"""iOS through Appium, protocol-tested: trailblaze's Appium driver against the simulated
WebDriverAgent, which also answers the W3C routes and the `mobile:` methods Appium's XCUITest driver
maps onto WebDriverAgent (trailblaze_sim.appium.xcuitest). XCUITest itself runs only on macOS, so this is
the protocol, not XCUITest: the page source parser (XCUITest's XML), the actions, keys, app lifecycle
and syslog, and the example trails recorded on the local iOS driver replaying unchanged.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from tests.support.cli import EXAMPLES_DIR, copy_example, trailblaze
from tests.support.paths import DATA
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.errors import AppNotInstalledError, DeviceUnsupported
from trailblaze_sim import create_device
from trailblaze_sim.server.wda import WdaSimServer

pytestmark = pytest.mark.slow

BUNDLE = "dev.trailblaze.demo"
MUTANT = DATA / "mutants" / "inbox-heading.yaml"


def _caps(folder: Path) -> Path:
    path = folder / "ios.yaml"
    path.write_text("platformName: iOS\ndeviceName: iPhone 15\nbundleId: dev.trailblaze.demo\n", "utf-8")
    return path


@pytest.fixture(scope="module")
def phone() -> Iterator[WdaSimServer]:
    with WdaSimServer(create_device("ios", app="demo")) as server:
        yield server


def test_the_example_trails_pass_and_a_mutant_fails_its_verify_step(phone: WdaSimServer, tmp_path: Path) -> None:
    for trail in sorted(EXAMPLES_DIR.glob("*.trail.yaml")):
        copy_example(trail.name, tmp_path)
    caps = _caps(tmp_path)
    result = trailblaze(
        "replay", ".", "--device", f"appium:{phone.url}", "--capabilities", str(caps),
        "--secret", "password=hunter2", "--run-dir", "run", cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    run = json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))
    assert len(run["trails"]) == len(sorted(EXAMPLES_DIR.glob("*.trail.yaml"))) and {t["status"] for t in run["trails"]} == {"passed"}
    assert {t["classifier"] for t in run["trails"]} == {"ios-iphone"}
    with WdaSimServer(create_device("ios", app=MUTANT)) as mutant:
        failed = trailblaze(
            "replay", "login.trail.yaml", "--device", f"appium:{mutant.url}", "--capabilities", str(caps),
            "--secret", "password=hunter2", "--element-timeout", "1", "--run-dir", "mutant", cwd=tmp_path,
        )  # fmt: skip
    assert failed.returncode == 1, failed.stdout + failed.stderr
    steps = json.loads((tmp_path / "mutant" / "run.json").read_text("utf-8"))["trails"][0]["steps"]
    assert [s["status"] for s in steps] == ["passed"] * 4 + ["failed"]


@pytest.fixture(scope="module")
def session(phone: WdaSimServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[DeviceSession]:
    caps = _caps(tmp_path_factory.mktemp("caps"))
    with open_device(f"appium:{phone.url}#{caps}") as opened:
        yield opened


def _node(session: DeviceSession, identifier: str):  # type: ignore[no-untyped-def]
    (node,) = [n for n in session.driver.hierarchy().nodes if n.resource_id == identifier]
    return node


def test_driver_methods_have_their_effect(session: DeviceSession) -> None:
    driver = session.driver
    driver.launch_app(BUNDLE, "CLEAR_STATE")
    info = driver.info
    assert (info.platform, info.classifier) == ("ios", "ios-iphone") and info.scale > 1
    shot = Image.open(io.BytesIO(driver.screenshot()))
    assert shot.width == round(info.width * info.scale)
    assert driver.current_app() == BUNDLE
    driver.tap(*_node(session, "email").center)
    driver.input_text("user@")
    driver.input_text("example.com")
    assert _node(session, "email").text == "user@example.com"
    driver.erase_text(4)
    assert _node(session, "email").text == "user@example"
    assert driver.keyboard_shown()
    driver.hide_keyboard()
    assert not driver.keyboard_shown()
    driver.launch_app(BUNDLE, "RESUME")
    assert _node(session, "email").text == "user@example"  # resumed: the typed text is still there
    driver.launch_app(BUNDLE, "CLEAR_STATE")
    assert _node(session, "email").text in ("", "Email")
    driver.press_key("HOME")
    assert driver.current_app() is None
    with pytest.raises(AppNotInstalledError, match="com.example.missing is not installed"):
        driver.launch_app("com.example.missing")
    with pytest.raises(DeviceUnsupported, match="an iOS device has no shell"):
        driver.shell_status("ls")


def test_the_syslog_is_the_apps_log(session: DeviceSession) -> None:
    driver = session.driver
    mark = driver.log_mark()
    driver.launch_app(BUNDLE, "FORCE_RESTART")
    lines: list[str] = []
    deadline = time.monotonic() + 5
    while not any("Demo started" in line for line in lines):
        assert time.monotonic() < deadline, lines
        log = driver.app_log(BUNDLE, mark)
        lines, mark = lines + log.lines, log.mark
    assert all(BUNDLE in line or "Demo" in line for line in lines)


def test_mcp_authors_a_trail_through_appium(phone: WdaSimServer, tmp_path: Path) -> None:
    """`trailblaze mcp --device appium:URL --capabilities FILE`: a coding agent drives the device by refs
    through Appium and the trail it saves replays through Appium."""
    import sys

    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    from tests.support.mcp import Client, _env, author_sign_in

    caps = _caps(tmp_path)
    trail = tmp_path / "login.trail.yaml"
    args = ["-m", "trailblaze", "mcp", "--device", f"appium:{phone.url}", "--capabilities", str(caps), "--secret", "password"]

    async def author() -> str:
        params = StdioServerParameters(command=sys.executable, args=args, env=_env(), cwd=str(tmp_path))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await author_sign_in(Client(session), trail, typed_password="{{password}}")

    saved = anyio.run(author)
    assert "login.trail.yaml" in saved and "iosMaestro" in trail.read_text("utf-8")
    replayed = trailblaze(
        "replay", str(trail), "--device", f"appium:{phone.url}", "--capabilities", str(caps),
        "--secret", "password=hunter2", cwd=tmp_path,
    )  # fmt: skip
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
