"""`replay --retries`, `--fail-on-flaky`, `config.quarantine` and `--self-heal --max-heals` end to end
(issue 27 items 3-5, ADR 0044): a subprocess, the simulator through the real clients.

The flake is deterministic: `tests/data/sim/second_launch.yaml` shows "Ready" on the app's second cold
start only (`{device.launches}`), so `ci/ready` fails its first attempt and passes its second.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import copy_example, trailblaze
from tests.support.paths import DATA
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy

pytestmark = pytest.mark.slow
READY = DATA / "ci" / "ready.trail.yaml"
BROKEN = DATA / "ci" / "broken.trail.yaml"
FLAKY_APP = f"sim:android:{DATA / 'sim' / 'second_launch.yaml'}"
# the missing element never appears however long one waits: 1 s proves it as well as 5 s
FAST = ("--element-timeout", "1")


def _replay(tmp_path: Path, name: str, *args: str, base_url: str | None = None) -> tuple[int, str, Path]:
    run = tmp_path / name
    extra = {} if base_url is None else {"base_url": base_url}
    done = trailblaze(
        "replay", *args, *FAST, "--run-dir", str(run), "--junit", str(run / "junit.xml"),
        "--report", str(run / "report.html"), **extra,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout + done.stderr, run


def _case(run: Path) -> ET.Element:
    cases = ET.parse(run / "junit.xml").getroot().findall(".//testcase")
    assert len(cases) == 1
    return cases[0]


def _props(case: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def test_a_trail_that_fails_its_first_launch_only_is_flaky_with_one_retry(tmp_path: Path) -> None:
    code, out, run = _replay(tmp_path, "shards/once", str(READY), "--device", FLAKY_APP)
    assert code == 1, out
    assert "1 trail: 1 failed" in out and "flaky" not in out
    assert _case(run).find("failure") is not None and _case(run).find("rerunFailure") is None

    code, out, run = _replay(tmp_path, "shards/retried", str(READY), "--device", FLAKY_APP, "--retries", "1")
    assert code == 0, out
    assert "attempt 1 failed; retry 1 of 1 from the start on a clean launch" in out
    assert "flaky: passed on attempt 2 of 2" in out
    assert "1 trail: 1 flaky" in out and "flaky (2 attempts)" in out
    assert "flaky: ci/ready passed on attempt 2 of 2; attempt 1 failed: ready.trail.yaml:14 step 2" in out
    # run.json: the last attempt holds the first, each in a folder of its own with its screens
    (trail,) = json.loads((run / "run.json").read_text())["trails"]
    assert trail["status"] == "passed" and trail["directory"] == "01-ready-trail-attempt-2"
    (first,) = trail["attempts"]
    assert first["status"] == "failed" and first["directory"] == "01-ready-trail"
    shots = [s["screenshot_after"] for s in first["steps"]] + [s["screenshot_after"] for s in trail["steps"]]
    assert all(shot and (run / shot).is_file() for shot in shots), shots
    assert len(set(shots)) == 4
    # JUnit: a pass with the failed attempt as pytest-rerunfailures / Surefire write it
    case = _case(run)
    assert case.find("failure") is None and case.find("skipped") is None
    (flaky,) = case.findall("flakyFailure")
    assert flaky.get("type") == "StepFailed" and "dev.trailblaze.secondlaunch:id/ready" in (
        flaky.get("message") or ""
    )
    assert "01-ready-trail/step-01-after" in (flaky.findtext("stackTrace") or "")
    assert "step 2  failed" in (flaky.findtext("system-out") or "")
    assert _props(case)["trailblaze.attempts"] == "2" and _props(case)["trailblaze.flaky"] == "true"
    # the HTML report: flaky, and every attempt's screens reachable
    html = (run / "report.html").read_text()
    assert 'id="trail-1-attempt-1"' in html and "Attempt 1 of 2" in html
    assert '<div class="card c-flaky"><div class="num">1</div>' in html
    assert html.count("<img") >= 4

    # merged as CI shards are (the two runs above): the earlier attempt's screens still reachable
    merged = trailblaze(
        "report", "--merge", str(tmp_path / "shards"), "--report", str(tmp_path / "merged.html")
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "merged 2 runs: 2 trails (1 failed, 1 flaky)" in merged.stdout
    page = (tmp_path / "merged.html").read_text()
    attempt = re.search(r'<section class="attempt" id="trail-\d+-attempt-1">.*?</section>', page, re.DOTALL)
    assert attempt is not None and attempt.group(0).count("<img") == 4  # 2 steps, before and after

    code, out, run = _replay(
        tmp_path, "strict", str(READY), "--device", FLAKY_APP, "--retries", "1", "--fail-on-flaky"
    )
    assert code == 1, out
    assert "--fail-on-flaky: 1 flaky trail fail the run" in out


def test_a_trail_that_fails_every_attempt_fails(tmp_path: Path) -> None:
    broken = tmp_path / "broken.trail.yaml"
    broken.write_text(re.sub(r"\n  quarantine: .*", "", BROKEN.read_text()))
    code, out, run = _replay(tmp_path, "run", str(broken), "--device", FLAKY_APP, "--retries", "2")
    assert code == 1, out
    assert out.count("from the start on a clean launch") == 2 and "failed all 3 attempts" in out
    assert "1 trail: 1 failed" in out and "flaky" not in out
    case = _case(run)
    assert case.find("failure") is not None and len(case.findall("rerunFailure")) == 2
    assert not case.findall("flakyFailure") and _props(case)["trailblaze.flaky"] == "false"
    trail = json.loads((run / "run.json").read_text())["trails"][0]
    assert [a["directory"] for a in trail["attempts"]] == ["01-broken-trail", "01-broken-trail-attempt-2"]
    assert trail["directory"] == "01-broken-trail-attempt-3"


def test_a_quarantined_failure_is_reported_but_does_not_fail_the_run(tmp_path: Path) -> None:
    code, out, run = _replay(tmp_path, "run", str(BROKEN), "--device", FLAKY_APP)
    assert code == 0, out
    assert (
        "quarantined (JIRA-123: the Done banner is not built yet): this failure does not fail the run" in out
    )
    assert "1 trail: 1 failed (1 quarantined)" in out
    assert "quarantined: ci/broken failed (JIRA-123: the Done banner is not built yet)" in out
    root = ET.parse(run / "junit.xml").getroot()
    assert root.get("failures") == "0" and root.get("skipped") == "1"
    case = _case(run)
    skipped = case.find("skipped")
    assert skipped is not None and skipped.get("type") == "quarantined"
    assert (skipped.get("message") or "").startswith(
        "quarantined (JIRA-123: the Done banner is not built yet): step 2"
    )
    assert _props(case)["trailblaze.status"] == "failed"
    assert _props(case)["trailblaze.quarantine"] == "JIRA-123: the Done banner is not built yet"
    html = (run / "report.html").read_text()
    assert "JIRA-123: the Done banner is not built yet" in html and "badge s-quarantined" in html
    assert "PASSED · trailblaze run" in html

    # without the quarantine the same failure fails the run
    plain = tmp_path / "plain.trail.yaml"
    plain.write_text(re.sub(r"\n  quarantine: .*", "", BROKEN.read_text()))
    code, out, _ = _replay(tmp_path, "plain", str(plain), "--device", FLAKY_APP)
    assert code == 1 and "quarantined:" not in out and "(1 quarantined)" not in out, out


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(policy=demo_policy) as server:
        yield server


def test_the_heal_budget_fails_a_run_that_healed_more_steps_and_lists_every_heal(
    api: FakeMessagesAPI, tmp_path: Path
) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    pristine = trail.read_bytes()
    common = (str(trail), "--device", "sim:android:demo@v2", "--secret", "password=hunter2", "--self-heal")
    code, out, run = _replay(tmp_path, "over", *common, "--max-heals", "0", base_url=api.url)
    assert code == 1, out
    diff = run / "01-login-trail" / "trail.diff"
    assert diff.is_file()
    assert f'healed: demo/login step 4 (Tap the "Sign in" button) — diff {diff}' in out
    assert "heal budget exceeded: 1 step needed healing, --max-heals 0: the run fails" in out

    trail.write_bytes(pristine)  # the heal rewrote it; heal again within a budget of one
    code, out, run = _replay(tmp_path, "within", *common, "--max-heals", "1", base_url=api.url)
    assert code == 0, out
    assert "healed: demo/login step 4" in out and "heal budget" not in out


def test_max_heals_needs_self_heal(tmp_path: Path) -> None:
    done = trailblaze("replay", str(READY), "--device", FLAKY_APP, "--max-heals", "1")
    assert done.returncode == 2
    assert "--max-heals bounds self-heal: add --self-heal" in done.stderr and "Traceback" not in done.stderr
    shutil.rmtree(tmp_path, ignore_errors=True)
