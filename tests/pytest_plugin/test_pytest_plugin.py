"""The pytest plugin as a user meets it: pytest runs in a subprocess with the plugin loaded through its
`pytest11` entry point, against simulated devices driven by the real uiautomator2 client."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import trailblaze
from tests.support.paths import DATA as _DATA
from tests.support.paths import ROOT
from tests.support.pytester import FAST_SESSION
from trailblaze.pytest.plugin import pool_problem

pytest_plugins = ["pytester"]

DATA = _DATA / "pytest" / "trails"

INI = """\
[pytest]
addopts = --strict-markers -p no:cacheprovider
filterwarnings =
    error
    ignore::DeprecationWarning:adbutils.*
    ignore::DeprecationWarning:uiautomator2.*
    ignore::ResourceWarning
"""


DEMO_LLM = """

from trailblaze.testing.demo_policy import demo_llm

@pytest.fixture
def llm():
    return demo_llm()
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A project folder with the example trails under `trails/` and a fast-failing session."""
    pytester.makefile(".ini", pytest=INI)
    shutil.copytree(DATA, pytester.path / "trails")
    pytester.makeconftest(FAST_SESSION)
    return pytester


def _stdout(result: pytest.RunResult) -> str:
    return "\n".join(result.outlines)


# --- collection ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_header_says_which_device_and_app_each_worker_uses(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRAILBLAZE_DEVICE", raising=False)
    quiet = project.runpytest_subprocess("trails", "--collect-only", "-p", "no:xdist")
    assert (
        "trailblaze: device sim:android (the default: no --device, ini trailblaze_devices or TRAILBLAZE_DEVICE); "
        "app dev.trailblaze.demo (the default, ini trailblaze_app)"
    ) in quiet.outlines, _stdout(quiet)
    pool = project.runpytest_subprocess(
        "trails", "--collect-only", "-n", "3", "--device", "sim:android", "--device", "sim:ios"
    )
    assert any(
        line.startswith("trailblaze: device gw0: sim:android, gw1: sim:ios, gw2: sim:android (--device)")
        for line in pool.outlines
    ), _stdout(pool)


@pytest.mark.slow
def test_collects_trail_files_named_by_id_with_tags_as_markers(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess("trails", "--collect-only", "-q")
    result.assert_outcomes()
    assert result.ret == 0, _stdout(result)
    result.stdout.fnmatch_lines(
        [
            "trails/email.trail.yaml::demo/email",
            "trails/forgot.trail.yaml::forgot",  # no config.id: named after the file
            "trails/skipped.trail.yaml::demo/skipped",
        ]
    )
    # config.tags are registered markers: selectable with -m, accepted under --strict-markers.
    smoke = project.runpytest_subprocess("trails", "--collect-only", "-q", "-m", "smoke")
    assert "trails/email.trail.yaml::demo/email" in smoke.outlines
    assert not any("forgot" in line for line in smoke.outlines)
    login = project.runpytest_subprocess("trails", "--collect-only", "-q", "-m", "login and not smoke")
    assert "trails/forgot.trail.yaml::forgot" in login.outlines
    assert not any("demo/email" in line for line in login.outlines)


@pytest.mark.slow
def test_trail_files_outside_trail_folders_are_data_not_tests(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest=INI + "testpaths = tests\n")
    tests = pytester.mkdir("tests")
    (tests / "test_plain.py").write_text("def test_plain():\n    pass\n")
    (tests / "data").mkdir()
    (tests / "data" / "broken.trail.yaml").write_text("trail: [oops\n")
    shutil.copy(DATA / "email.trail.yaml", tests / "data" / "good.trail.yaml")

    for args in ((), ("tests",)):
        result = pytester.runpytest_subprocess(*args, "--collect-only", "-q")
        assert result.ret == 0, _stdout(result)
        assert "tests/test_plain.py::test_plain" in result.outlines
        assert not any(".trail.yaml" in line for line in result.outlines)

    # Named explicitly, a trail file is a test wherever it lives — and a broken one says where.
    result = pytester.runpytest_subprocess(
        "tests/data/good.trail.yaml", "tests/data/broken.trail.yaml", "--collect-only", "-q"
    )
    assert "tests/data/good.trail.yaml::demo/email" in result.outlines
    text = _stdout(result)
    assert "broken.trail.yaml:2:1: YAML syntax error" in text and "Traceback" not in text
    assert result.ret == pytest.ExitCode.INTERRUPTED  # a collection error stops the run

    # The ini option names other trail folders.
    shutil.copytree(DATA, pytester.path / "e2e")
    result = pytester.runpytest_subprocess("e2e", "--collect-only", "-q", "-o", "trailblaze_trail_paths=e2e")
    assert "e2e/email.trail.yaml::demo/email" in result.outlines


# --- trail items -----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_failing_trail_shows_the_replay_diagnostic_and_keeps_artifacts(project: pytest.Pytester) -> None:
    # The command-line bound (0.4 s) wins over the conftest's `resolve_timeout` (1.0 s).
    result = project.runpytest_subprocess(
        "trails/email.trail.yaml", "trails/skipped.trail.yaml", "--device", "sim:android:demo@v2", "-rs",
        "--trailblaze-element-timeout", "0.4",
    )  # fmt: skip
    result.assert_outcomes(failed=1, skipped=1)
    text = _stdout(result)
    # The diagnostic names the trail, the step, the tool, its selector and what is on screen instead.
    result.stdout.fnmatch_lines(
        [
            "trail demo/email failed on sim:android:demo@v2 (android-phone): *email.trail.yaml",
            '  step 3 (step): Tap the "Sign in" button',
            "    tool: tapOnElementBySelector *resourceIdRegex*dev.trailblaze.demo:id/sign_in*",
            "*NOT_FOUND*",
            "    closest candidates on screen:",
            '      - Button "Log in" (id log_in)*',
        ]
    )
    assert "Traceback" not in text and "replay.py" not in text
    assert "the Android build has no such screen yet" in text  # config.skip's reason

    run_dir = project.path / "test-results" / "trailblaze" / "trails-email.trail.yaml-demo-email"
    run = json.loads((run_dir / "run.json").read_text())
    trail = run["trails"][0]
    assert trail["status"] == "failed" and trail["device"] == "sim:android:demo@v2"
    step = trail["steps"][2]
    assert step["status"] == "failed"
    not_found = [t["message"] for t in step["tools"] if t["status"] == "NOT_FOUND"]
    waited = [float(m) for msg in not_found for m in re.findall(r"after (\d+\.\d) s", msg)]
    assert waited and all(0.4 <= w < 1.0 for w in waited), not_found
    # the default `--trailblaze-screenshots failures` photographs the failing step, in the device's JPEG
    assert step["screenshot_after"].endswith(".jpg") and (run_dir / step["screenshot_after"]).read_bytes().startswith(b"\xff\xd8\xff")
    assert run["screenshots"] == "failures" and all(s["screenshot_after"] is None for s in trail["steps"][:2])
    assert "log_in" in (run_dir / step["hierarchy_after"]).read_text()
    assert f"screenshot: {run_dir / step['screenshot_after']}" in text
    # the app's log of the failed step (--trailblaze-device-logs on-failure, the default), in the
    # run directory and the failure text
    assert "Demo started (screen login)" in (run_dir / step["device_log"]).read_text()
    assert "app log (" in text and "Demo    : Demo started (screen login)" in text


PYTHON_TESTS = """\
import pytest

def test_driver_and_trail_runner(driver, trail_runner, trailblaze_device):
    assert driver.current_app() == "dev.trailblaze.demo"
    result = trail_runner.replay("trails/email.trail.yaml")
    assert result.passed and result.status == "passed", result.diagnostic
    assert [s.status for s in result.steps] == ["passed"] * 4
    assert result.record.id == "demo/email" and result.error is None
    assert (result.run_dir / "run.json").is_file()
    shown = trail_runner.tool(
        "assertVisibleBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: 'dev.trailblaze.demo:id/error'}}}"
    )
    assert shown.ok, shown
    assert trail_runner.llm_calls == 0
    with open("runs.txt", "a") as fh:
        fh.write(str(result.run_dir) + "\\n")

def test_driver_resets_the_app(driver, trailblaze_device):
    # The test before left the login error on screen; CLEAR_STATE brings back an empty form.
    texts = [n.text for n in trailblaze_device.refresh().nodes]
    assert "Welcome back" in texts and "Invalid email or password" not in texts
    assert "user@example.com" not in texts

@pytest.mark.platform("ios")
def test_only_on_ios(driver):
    raise AssertionError("must be skipped on an android device")

@pytest.mark.platform("android")
def test_failure_keeps_the_screen(driver):
    assert driver.current_app() == "nothing.like.this"
"""


@pytest.mark.slow
def test_python_tests_use_driver_and_trail_runner(project: pytest.Pytester) -> None:
    project.makepyfile(test_flow=PYTHON_TESTS)
    result = project.runpytest_subprocess("test_flow.py", "-rs")
    result.assert_outcomes(passed=2, failed=1, skipped=1)
    text = _stdout(result)
    assert "needs a ios device; this run drives sim:android" in text
    # A passing test's run directory is gone (retain-on-failure); the failing one keeps its screen.
    passed_run = Path((project.path / "runs.txt").read_text().strip())
    assert not passed_run.exists()
    kept = project.path / "test-results" / "trailblaze" / "test_flow.py-test_failure_keeps_the_screen"
    assert (kept / "failure.jpg").read_bytes().startswith(b"\xff\xd8\xff")  # the device's JPEG as it came
    assert "Welcome back" in (kept / "failure.xml").read_text()
    assert f"screen at failure: {kept / 'failure.xml'}, {kept / 'failure.jpg'}" in text


LLM_TESTS = """\
def test_unrecorded_step_uses_the_llm_fixture(trail_runner):
    result = trail_runner.replay("data/forgot.trail.yaml")
    assert result.status == "passed-ai", result.diagnostic
    assert trail_runner.llm_calls == 1
    assert [s.status for s in result.steps] == ["passed", "passed-ai"]

def test_self_heal_repairs_the_renamed_button(trail_runner):
    result = trail_runner.replay("data/email.trail.yaml")
    assert result.status == "passed-with-self-heal", result.diagnostic
    assert [s.status for s in result.steps] == ["passed", "passed", "passed-with-self-heal", "passed"]
"""


@pytest.mark.slow
def test_llm_fixture_overridden_in_conftest_solves_and_heals_steps(project: pytest.Pytester) -> None:
    project.makeconftest(FAST_SESSION + DEMO_LLM)
    project.mkdir("data")
    for name in ("forgot.trail.yaml", "email.trail.yaml"):
        shutil.copy(DATA / name, project.path / "data" / name)
    project.makepyfile(test_llm=LLM_TESTS)
    result = project.runpytest_subprocess(
        "test_llm.py", "trails/email.trail.yaml", "-v", "--device", "sim:android:demo@v2", "--self-heal"
    )
    result.assert_outcomes(passed=3)
    assert "trails/email.trail.yaml::demo/email PASSED" in _stdout(result)
    # The healed recording was written back into the collected trail file.
    assert "dev.trailblaze.demo:id/log_in" in (project.path / "trails" / "email.trail.yaml").read_text()


# --- reports -------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_junitxml_and_trailblaze_report_include_trail_items(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "trails/email.trail.yaml",
        "trails/skipped.trail.yaml",
        "--junitxml=junit.xml",
        "--trailblaze-report=report",
        "--trailblaze-screenshots=steps",  # every step photographed (the default is failing steps only)
        "--trailblaze-results=results.db",
    )
    result.assert_outcomes(passed=1, skipped=1)
    # the kept run is in the results store (the skipped trail is no outcome: not stored)
    with sqlite3.connect(project.path / "results.db") as db:
        stored = db.execute("SELECT r.source, t.trail, t.status FROM trail_results t JOIN runs r USING (run_key)")
        assert stored.fetchall() == [("pytest", "demo/email", "passed")]
    cases = {c.get("name"): c for c in ET.parse(project.path / "junit.xml").getroot().iter("testcase")}
    assert set(cases) == {"demo/email", "demo/skipped"}
    assert cases["demo/email"].find("failure") is None
    assert cases["demo/skipped"].find("skipped") is not None

    report = project.path / "report"
    run = json.loads((report / "run.json").read_text())
    assert [t["id"] for t in run["trails"]] == ["demo/email", "demo/skipped"]
    email = run["trails"][0]
    assert email["status"] == "passed"
    # Artifact paths were rebased onto the merged run directory.
    assert (report / email["steps"][0]["screenshot_after"]).is_file()
    assert (report / email["steps"][0]["hierarchy_after"]).is_file()
    assert run["screenshots"] == "steps"
    assert "demo/email" in (report / "report.html").read_text()
    own_junit = ET.parse(report / "junit.xml").getroot()
    assert len(list(own_junit.iter("testcase"))) == 2
    assert f"trailblaze report: {report / 'report.html'}" in _stdout(result)


STORE_TESTS = """\
import pytest

@pytest.mark.parametrize("n", range(4))
def test_email(n, trail_runner):
    trail_runner.replay("trails/email.trail.yaml").assert_passed()
"""


@pytest.mark.slow
def test_every_pytest_run_adds_its_results_to_the_projects_store(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRAILBLAZE_RESULTS", raising=False)
    project.makepyfile(test_store=STORE_TESTS)
    # two xdist workers write at once, no --trailblaze-report: each test's run is stored, none lost
    project.runpytest_subprocess("test_store.py", "-n", "2").assert_outcomes(passed=4)
    # without run directories the trails are stored from memory
    project.runpytest_subprocess(
        "trails/email.trail.yaml", "-p", "no:xdist", "--trailblaze-artifacts", "off"
    ).assert_outcomes(passed=1)
    project.runpytest_subprocess(
        "trails/email.trail.yaml", "-p", "no:xdist", "--trailblaze-results", "off"
    ).assert_outcomes(passed=1)
    assert not (project.path / "test-results" / "trailblaze").exists() or not any(
        (project.path / "test-results" / "trailblaze").iterdir()
    )  # passing tests keep no run directory, yet their results were stored
    shown = trailblaze("results", "--json", cwd=project.path)
    assert shown.returncode == 0, shown.stderr
    (row,) = json.loads(shown.stdout)
    assert (row["trail"], row["device"], row["latest"], row["runs"]) == ("demo/email", "sim:android", "passed", 5)
    with sqlite3.connect(project.path / ".trailblaze" / "results.db") as db:
        assert db.execute("SELECT count(*), count(DISTINCT run_key) FROM runs WHERE source = 'pytest'").fetchone() == (5, 5)


# --- devices and xdist -------------------------------------------------------------------------------------


XDIST_TESTS = """\
import os
import pytest

@pytest.mark.parametrize("n", range(6))
def test_device(n, trailblaze_device, trailblaze_device_spec):
    with open(f"device-{n}.txt", "w") as fh:
        fh.write(f"{os.environ['PYTEST_XDIST_WORKER']} {trailblaze_device_spec} {trailblaze_device.driver!r}")
"""


@pytest.mark.slow
def test_xdist_workers_each_get_their_own_simulated_device(project: pytest.Pytester) -> None:
    project.makepyfile(test_pool=XDIST_TESTS)
    result = project.runpytest_subprocess("test_pool.py", "-n", "2", "--device", "sim:android")
    result.assert_outcomes(passed=6)
    lines = [p.read_text().split(" ", 2) for p in sorted(project.path.glob("device-*.txt"))]
    by_worker = {worker: driver for worker, _, driver in lines}
    assert set(by_worker) == {"gw0", "gw1"}
    assert {spec for _, spec, _ in lines} == {"sim:android"}
    # One simulator per worker: two different adb servers, each worker always on its own.
    assert len(set(by_worker.values())) == 2
    assert all(driver == by_worker[worker] for worker, _, driver in lines)


def test_more_workers_than_real_devices_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makepyfile(test_pool=XDIST_TESTS)
    result = project.runpytest_subprocess(
        "test_pool.py", "-n", "3", "--device", "android:A", "--device", "sim:android"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "android:A would be driven by two workers at once" in "\n".join(result.errlines)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--trailblaze-element-timeout", "0"], "--trailblaze-element-timeout = '0': use a positive number"),
        (["-o", "trailblaze_element_timeout=soon"], "trailblaze_element_timeout = 'soon': use a positive number"),
        (["--trailblaze-llm-timeout", "-1"], "--trailblaze-llm-timeout = '-1': use a positive number"),
        (["-o", "trailblaze_llm_retries=many"], "trailblaze_llm_retries = 'many': use a whole number"),
        (["-o", "trailblaze_device_logs=sometimes"], "trailblaze_device_logs = 'sometimes': use one of off,"),
        (["--trailblaze-install", "app.apk"], "--trailblaze-install = 'app.apk': no such file; give the path"),
        (["-o", "trailblaze_trail_timeout=forever"], "trailblaze_trail_timeout = 'forever': use a positive number"),
    ],
)
def test_a_bad_element_timeout_is_a_usage_error(project: pytest.Pytester, args: list[str], problem: str) -> None:
    result = project.runpytest_subprocess("trails", "--collect-only", "-q", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert problem in "\n".join(result.errlines)


@pytest.mark.slow
def test_a_trail_past_the_trail_timeout_fails_its_test_and_names_the_option(project: pytest.Pytester) -> None:
    # a loop of short busy scripts: the budget is wall-clock and checked between commands, so a loaded
    # machine (where a script's CPU-time limit runs slow) ends it all the same; the other trail has room
    (project.path / "trails" / "busy.js").write_text("var t = Date.now(); while (Date.now() - t < 100) {}\n")
    (project.path / "trails" / "busy.trail.yaml").write_text(
        "config:\n  id: busy\ntrail:\n  - step: Think\n    recording:\n      android:\n"
        "        - mobile_maestro:\n            commands:\n              - repeat:\n                  times: 1000\n"
        "                  commands:\n                    - runScript: busy.js\n"
    )
    result = project.runpytest_subprocess(
        "trails/busy.trail.yaml", "trails/email.trail.yaml", "--device", "sim:android", "-o", "trailblaze_trail_timeout=6"
    )
    result.assert_outcomes(failed=1, passed=1)
    text = _stdout(result)
    assert "timed out: the trail ran past its 6 s budget at the script busy.js in repeat round" in text
    assert "raise --trailblaze-trail-timeout SECONDS (ini trailblaze_trail_timeout)" in text


def test_pool_assignment_rules() -> None:
    assert pool_problem(("sim:android",), 8) is None
    assert pool_problem(("android:A", "android:B"), 2) is None
    assert pool_problem(("sim:android", "android:A"), 3) is None  # worker 2 wraps onto the simulator
    problem = pool_problem(("android:A", "sim:ios", "android:B"), 5)
    assert problem is not None and "android:A, sim:ios" not in problem and "android:A" in problem
    assert "android:B" in (pool_problem(("android:A", "android:B"), 4) or "")


@pytest.mark.slow
def test_unreachable_device_fails_tests_with_one_line(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    project.makepyfile(test_dev="def test_a(driver):\n    pass\n\ndef test_b(trail_runner):\n    pass\n")
    result = project.runpytest_subprocess("test_dev.py", "--device", "android:emulator-5554")
    result.assert_outcomes(errors=2)
    text = _stdout(result)
    assert f"DeviceError: cannot open android:emulator-5554: no adb server at 127.0.0.1:{port}" in text
    assert "Traceback" not in text


@pytest.mark.slow
def test_the_example_trails_pass_on_both_platforms_in_a_matrix_run(pytester: pytest.Pytester) -> None:
    """The issues' acceptance: `pytest trails/ --device sim:android --device sim:ios --trailblaze-each-device
    -n 2` on the shipped examples (secrets from trails/conftest.py) runs every trail on both platforms,
    two workers each starting the simulators their items need; the device is in every test id and in
    the JUnit file."""
    repo = ROOT
    shutil.copytree(repo / "trails", pytester.path / "trails")
    result = pytester.runpytest_subprocess(
        "trails", "--device", "sim:android", "--device", "sim:ios", "--trailblaze-each-device", "-n", "2",
        "-p", "no:cacheprovider", "-v", "--junitxml", "junit.xml", "--trailblaze-report", "report",
    )  # fmt: skip
    ids = {f"{trail.id}[{spec}]" for trail in _example_trails(repo) for spec in ("sim:android", "sim:ios")}
    # the web trails (trails/web/) skip themselves on a phone
    webs = len(list((repo / "trails" / "web").glob("*.trail.yaml")))
    result.assert_outcomes(passed=len(ids), skipped=2 * webs)
    passed = set(re.findall(r"PASSED \S+::(\S+\[sim:(?:android|ios)\])", _stdout(result)))
    assert passed == ids
    cases = ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    ran = [c for c in cases if c.find("skipped") is None]
    assert {(c.get("name"), _property(c, "trailblaze_device")) for c in ran} == {
        (i, i.rsplit("[", 1)[1].rstrip("]")) for i in ids
    }
    run = json.loads((pytester.path / "report" / "run.json").read_text())
    assert {f"{t['id']}[{t['device']}]" for t in run["trails"]} == ids
    html = (pytester.path / "report" / "report.html").read_text()
    assert "login.trail.yaml on sim:ios" in html and "login.trail.yaml on sim:android" in html
    # replay never rewrites a passing trail
    for source in (repo / "trails").glob("*.trail.yaml"):
        assert (pytester.path / "trails" / source.name).read_bytes() == source.read_bytes()


def _example_trails(repo: Path) -> list[Any]:
    from trailblaze.trail.model import load_trail

    return [load_trail(p).config for p in sorted((repo / "trails").glob("*.trail.yaml"))]


def _property(case: ET.Element, name: str) -> str | None:
    return next((p.get("value") for p in case.iter("property") if p.get("name") == name), None)


FOLDER_TRAIL = """\
trail:
  - step: Launch the demo app with a clean state
    recording:
      android:
        - launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}
"""


@pytest.mark.slow
def test_a_matrix_skips_each_trail_where_its_config_or_recordings_say_it_does_not_run(
    project: pytest.Pytester,
) -> None:
    """Android-only recordings skip iOS, `config.skip` skips its platform, a folder trail with no file
    for a platform skips it; every skip names why. (No iOS item runs, so no iOS simulator starts.)"""
    (project.path / "trails" / "clock").mkdir()
    (project.path / "trails" / "clock" / "android-phone.trail.yaml").write_text(FOLDER_TRAIL)
    result = project.runpytest_subprocess(
        "trails", "--device", "sim:android", "--device", "sim:ios", "--trailblaze-each-device", "-k", "not forgot",
        "-rs", "-v",
    )  # fmt: skip
    result.assert_outcomes(passed=2, skipped=4)
    text = _stdout(result)
    assert re.search(r"::demo/email\[sim:android\] PASSED", text)
    assert re.search(r"::clock\[sim:android\] PASSED", text)
    assert "the trail has recordings for android only, none for ios; not run on sim:ios" in text
    assert "the Android build has no such screen yet" in text
    assert "the folder trail clock/ has no file for ios (android-phone.trail.yaml); not run on sim:ios" in text


def test_a_matrix_on_phones_over_several_workers_needs_loadgroup(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "trails", "--collect-only", "--device", "android:A", "--device", "sim:ios", "--trailblaze-each-device",
        "-n", "2",
    )  # fmt: skip
    assert result.ret == 4
    assert "add --dist loadgroup so that every trail on one phone runs on one worker" in "\n".join(result.errlines)


@pytest.mark.slow
def test_llm_limits_reach_the_llm_fixture(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    project.makepyfile(
        test_limits="def test_limits(llm):\n    assert (llm.timeout, llm.max_retries) == (0.5, 1)\n"
    )
    result = project.runpytest_subprocess("test_limits.py", "--trailblaze-llm-timeout", "0.5", "-o", "trailblaze_llm_retries=1")
    result.assert_outcomes(passed=1)



@pytest.mark.slow
def test_script_hosts_come_from_the_ini_and_the_option(project: pytest.Pytester) -> None:
    project.makefile(".ini", pytest=INI + "trailblaze_script_hosts =\n    api.example.invalid\n")
    project.makepyfile(
        test_hosts="""
import pytest
from trailblaze.common.flags import PYTEST
from trailblaze.maestro.scripts import ScriptError, Scripts

@pytest.mark.parametrize("host", ["api.example.invalid", "cli.example.invalid", "other.example.invalid"])
def test_hosts(host):
    with pytest.raises(ScriptError) as raised:  # allowed: sent, and no such host; else refused
        Scripts(seed=1, flags=PYTEST).evaluate(f"http.get('http://{host}/x')", "f.js", {}.get)
    refused = "refused" in raised.value.message
    assert refused == (host == "other.example.invalid"), raised.value.message
    if refused:
        assert "pass --trailblaze-script-host other.example.invalid" in raised.value.message
"""
    )
    result = project.runpytest_subprocess("test_hosts.py", "--trailblaze-script-host", "cli.example.invalid")
    result.assert_outcomes(passed=3)
