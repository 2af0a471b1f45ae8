"""`launchApp` of an app the device does not have fails with NOT_INSTALLED on both platforms (issue 13,
item 10), through the real drivers and the simulators behaving like phones: Android's `monkey` prints
"No activities found to run" (which uiautomator2's `app_start` ignores), WebDriverAgent answers
XCTest's launch failure."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.device import PKG, Rig, rig
from trailblaze.cli.main import main
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import parse_tool
from trailblaze_sim.model import ManualClock

MISSING = "dev.trailblaze.dem"  # one letter short of the installed demo app


@pytest.fixture(params=["android", "ios"])
def r(request: pytest.FixtureRequest) -> Iterator[Rig]:
    with rig(request.param, clock=ManualClock()) as opened:
        yield opened


def test_launch_of_a_missing_app_is_not_installed_with_near_matches(r: Rig) -> None:
    result = run_recorded_tool(r.session, parse_tool(f"launchApp: {{appId: {MISSING}}}"), Memory())
    assert result.status == "NOT_INSTALLED" and not result.ok
    assert f"{MISSING} is not installed" in result.message
    assert f"ids: {PKG})" in result.message  # the near match
    for mode in ("RESUME", "CLEAR_STATE"):
        again = run_recorded_tool(
            r.session, parse_tool(f"launchApp: {{appId: com.example.other, launchMode: {mode}}}"), Memory()
        )
        assert again.status == "NOT_INSTALLED", again
    # The device is fine: the real app still launches.
    ok = run_recorded_tool(r.session, parse_tool(f"launchApp: {{appId: {PKG}}}"), Memory())
    assert ok.ok, ok
    assert r.driver.current_app() == PKG


def test_android_monkey_says_what_a_phone_says() -> None:
    with rig("android", clock=ManualClock()) as opened:
        shell = getattr(opened.driver, "shell")  # noqa: B009 - SupportsShell extra
        out = shell(f"monkey -p {MISSING} -c android.intent.category.LAUNCHER 1")
    assert "** No activities found to run, monkey aborted." in out
    assert f"  bash arg: {MISSING}" in out


@pytest.mark.parametrize("device", ["sim:android", "sim:ios"])
def test_trailblaze_tool_exits_1(device: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["tool", f"launchApp: {{appId: {MISSING}}}", "--device", device])
    out, err = capsys.readouterr()
    assert exc.value.code == 1, (out, err)
    assert out.startswith(f"NOT_INSTALLED {MISSING} is not installed on ")
    assert PKG in out and "Traceback" not in err


def test_replay_of_a_trail_launching_a_missing_app_fails_the_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trail = tmp_path / "missing.trail.yaml"
    trail.write_text(
        "trail:\n  - step: Launch the app\n    recording:\n"
        f"      ios:\n        - launchApp: {{appId: {MISSING}}}\n"
    )
    # --self-heal would hand a failed step to the agent; no agent can install an app, so it does not
    # (the closed LLM port would turn that attempt into exit 3).
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(trail), "--device", "sim:ios", "--run-dir", str(tmp_path / "run"), "--self-heal"])
    out, err = capsys.readouterr()
    assert exc.value.code == 1, (out, err)
    assert f"launchApp failed: NOT_INSTALLED {MISSING} is not installed" in out
    assert PKG in out and "closest on screen" not in out
