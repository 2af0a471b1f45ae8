"""Run-directory artifacts off the critical path (issue 19 item 4, ADR 0024): `--screenshots
steps|failures|off`, the device's image bytes stored as they come, a failing step always photographed,
pytest's retain-on-failure capturing nothing for a passing test, and run.json written per trail."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import copy_example, trailblaze
from tests.support.paths import DATA
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.engine.replay import build_memory, replay_trail
from trailblaze.output.report import render_html
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, load_run
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import load_trail

pytest_plugins = ["pytester"]

_JPEG, _PNG = b"\xff\xd8\xff", b"\x89PNG"


@pytest.fixture(scope="module")
def sims() -> Iterator[dict[str, DeviceSession]]:
    """The demo app, and its v2 that renamed "Sign in" to "Log in" (the login trail fails at step 4)."""
    with (
        open_device("sim:android", latency="zero", resolve_timeout=1.0) as v1,
        open_device("sim:android:demo@v2", latency="zero", resolve_timeout=0.3) as v2,
    ):
        yield {"v1": v1, "v2": v2}


@pytest.fixture
def android(sims: dict[str, DeviceSession]) -> DeviceSession:
    return sims["v1"]


@pytest.fixture
def android_v2(sims: dict[str, DeviceSession]) -> DeviceSession:
    return sims["v2"]


def _replay(session: DeviceSession, tmp_path: Path, mode: str) -> tuple[RunDir, TrailRecord, int]:
    """Replays the login example into a run directory with screenshots `mode`; (run dir, record,
    screenshot round trips it made)."""
    trail = load_trail(copy_example("login.trail.yaml", tmp_path))
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android", screenshots=mode)  # type: ignore[arg-type]
    shots = session.stats.screenshots
    session.invalidate()
    record = replay_trail(
        trail,
        session,
        memory=build_memory(trail, secrets={"password": "hunter2"}),
        rundir=run,
        device="sim:android",
    )
    run.finish()
    return run, record, session.stats.screenshots - shots


def _images(root: Path) -> list[Path]:
    """The screenshots kept (a trail's storyboard is made from them, not taken)."""
    return sorted(
        p for p in root.rglob("*") if p.suffix in (".jpg", ".png", ".webp") and not p.name.startswith("storyboard.")
    )


@pytest.mark.slow
def test_steps_keeps_the_devices_jpeg_after_every_step(android: DeviceSession, tmp_path: Path) -> None:
    run, record, taken = _replay(android, tmp_path, "steps")
    assert record.status == "passed"
    afters = [s.screenshot_after for s in record.steps]
    assert all(a is not None and a.endswith(".jpg") for a in afters), afters
    for rel in afters:
        assert (run.root / str(rel)).read_bytes().startswith(_JPEG)  # uiautomator2's bytes, not re-encoded
    assert taken <= len(record.steps) + 1
    page = render_html(load_run(run.root), run.root)
    assert "after every step — " in page and page.count('<img src="data:') >= len(record.steps)


@pytest.mark.slow
def test_failures_photographs_only_the_failing_step(android_v2: DeviceSession, tmp_path: Path) -> None:
    run, record, taken = _replay(android_v2, tmp_path, "failures")
    failed = [s for s in record.steps if s.status == "failed"]
    assert record.status == "failed" and len(failed) == 1
    shot = failed[0].screenshot_after
    assert shot is not None and (run.root / shot).read_bytes().startswith(_JPEG)
    assert taken == 1 and _images(run.root) == [run.root / shot]
    assert all(
        s.screenshot_after is None and s.screenshot_before is None for s in record.steps if s is not failed[0]
    )
    # dumps are kept in every mode
    assert all(s.hierarchy_after for s in record.steps if s.status != "skipped")
    page = render_html(load_run(run.root), run.root)
    assert "failing steps only — 1 captured" in page and "not taken (screenshots: failures only)" in page


@pytest.mark.slow
def test_steps_also_photographs_the_failing_step(android_v2: DeviceSession, tmp_path: Path) -> None:
    run, record, _ = _replay(android_v2, tmp_path, "steps")
    failed = next(s for s in record.steps if s.status == "failed")
    assert failed.screenshot_after is not None and (run.root / failed.screenshot_after).is_file()


def test_off_takes_no_screenshot_and_the_report_says_so(android_v2: DeviceSession, tmp_path: Path) -> None:
    run, record, taken = _replay(android_v2, tmp_path, "off")
    assert record.status == "failed" and taken == 0 and _images(run.root) == []
    assert all(s.hierarchy_after for s in record.steps if s.status != "skipped")
    loaded = load_run(run.root)
    assert loaded.screenshots == "off"
    assert "off — none taken" in render_html(loaded, run.root)


class _SlowShots:
    """The simulator's driver with a screenshot that lasts until a tap arrives (at most 0.5 s): a
    capture racing the next action shows up as a tap before the screenshot ends."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.calls, self._tapped = inner, list[str](), threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def screenshot(self) -> bytes:
        self._tapped.wait(0.5)
        data: bytes = self.inner.screenshot()
        self.calls.append("screenshot")
        return data

    def tap(self, x: float, y: float) -> None:
        self._tapped.set()
        self.calls.append("tap")
        self.inner.tap(x, y)


def test_a_background_screenshot_lands_before_the_next_action(android: DeviceSession, tmp_path: Path) -> None:
    driver = _SlowShots(android.driver)
    session = DeviceSession(driver)  # type: ignore[arg-type]  # not closed: `android` owns the driver
    session.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")
    run.start_trail(TrailRecord(path="x.trail.yaml"))
    step = run.start_step(
        StepRecord(index=0, kind="step", text="Tap Email"), session
    )  # its picture: in flight
    email = next(n for n in session.screen().nodes if n.short_id == "email")
    session.act(lambda d: d.tap(*email.center))
    run.finish_step(session, 0.0)
    run.finish()
    android.invalidate()
    assert driver.calls[:2] == ["screenshot", "tap"]  # the tap waited for the picture of the screen before it
    assert step.screenshot_before is not None and (run.root / step.screenshot_before).is_file()


@pytest.mark.slow
def test_run_json_is_written_per_trail_not_per_step(android: DeviceSession, tmp_path: Path) -> None:
    writes: list[int] = []

    class Counting(RunDir):
        def write(self) -> None:
            writes.append(len(self.run.trails))
            super().write()

    trail = load_trail(copy_example("login.trail.yaml", tmp_path))
    run = Counting(tmp_path / "run", Memory(), command=["test"], device="sim:android")
    android.invalidate()
    replay_trail(trail, android, memory=build_memory(trail, secrets={"password": "hunter2"}), rundir=run)
    run.finish()
    # opening, the trail's start and end, then the finish: not one write per step (5 steps)
    assert writes == [0, 1, 1, 1]
    loaded = load_run(run.root)
    assert [t.status for t in loaded.trails] == ["passed"] and loaded.status == "finished"
    assert loaded.trails[0].steps[-1].screenshot_after == run.run.trails[0].steps[-1].screenshot_after


def test_a_finished_trails_text_is_written_once(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")
    first = run.start_trail(TrailRecord(path="a.trail.yaml"))
    run.finish_trail("passed", None, 0.0)
    run.start_trail(TrailRecord(path="b.trail.yaml"))
    assert run.run.trails == [run.trail]  # written when the next one started, and let go
    first.title = "changed after it ended"  # not serialized again: the run no longer holds it
    run.write()
    assert json.loads((run.root / "run.json").read_text())["trails"][0]["title"] is None
    run.finish()
    raw = RunRecord.model_validate_json((run.root / "run.json").read_text())
    assert raw.trails[0].title is None and raw.status == "finished"
    assert [t.path for t in raw.trails] == ["a.trail.yaml", "b.trail.yaml"]


# --- the command line and pytest -----------------------------------------------------------------------


@pytest.mark.slow
def test_cli_screenshots_off_and_a_bad_value(tmp_path: Path) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    done = trailblaze(
        "replay", str(trail), "--device", "sim:android", "--secret", "password=hunter2", "--screenshots", "off",
        "--run-dir", str(tmp_path / "run"), "--report", str(tmp_path / "report.html"),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["screenshots"] == "off" and "--screenshots" in run["command"]
    assert _images(tmp_path / "run") == [] and "off — none taken" in (tmp_path / "report.html").read_text()
    bad = trailblaze("replay", str(trail), "--device", "sim:android", "--screenshots", "some")
    assert bad.returncode == 2 and "'some' is not one of 'steps', 'failures', 'off'" in bad.stderr
    assert "Traceback" not in bad.stderr
    helped = trailblaze("record", "--help")
    assert "--screenshots [steps|failures|off]" in helped.stdout


@pytest.mark.parametrize(
    ("args", "ini", "expected"),
    [([], "", "failures"), (["--trailblaze-screenshots", "steps"], "", "steps"), ([], "off", "off")],
)
def test_pytest_screenshots_option_and_ini(
    pytester: pytest.Pytester, args: list[str], ini: str, expected: str
) -> None:
    from trailblaze.pytest.plugin import _CONFIG_KEY

    pytester.makefile(".ini", pytest="[pytest]\n" + (f"trailblaze_screenshots = {ini}\n" if ini else ""))
    config = pytester.parseconfigure(*args)
    assert config.stash[_CONFIG_KEY].screenshots == expected


def test_pytest_rejects_a_bad_screenshots_value(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest="[pytest]\ntrailblaze_screenshots = always\n")
    result = pytester.runpytest_inprocess("--collect-only", "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*trailblaze_screenshots = 'always': use one of failures, steps, off*"])


PASSING = """\
def test_passing_trail(trail_runner, trailblaze_device):
    before = trailblaze_device.stats.screenshots
    result = trail_runner.replay("trails/email.trail.yaml")
    assert result.passed, result.diagnostic
    assert trailblaze_device.stats.screenshots == before, "retain-on-failure took a picture it would delete"
    step = result.steps[-1]
    assert step.hierarchy_after and step.screenshot_after is None
    with open("run_dir.txt", "w") as fh:
        fh.write(str(result.run_dir))
"""


@pytest.mark.slow
def test_retain_on_failure_on_a_passing_test_captures_nothing(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest="[pytest]\naddopts = -p no:cacheprovider\n")
    shutil.copytree(DATA / "pytest" / "trails", pytester.path / "trails")
    pytester.makepyfile(test_pass=PASSING)
    result = pytester.runpytest_subprocess("test_pass.py", "--trailblaze-artifacts", "retain-on-failure")
    result.assert_outcomes(passed=1)
    assert not Path((pytester.path / "run_dir.txt").read_text()).exists()  # and the folder is gone
