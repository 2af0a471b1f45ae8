"""`--trailblaze-retries`, `--trailblaze-fail-on-flaky` and the `trailblaze_quarantine` marker
(issue 27 items 3-4, ADR 0044): pytest in a subprocess with the plugin, on the simulator.

`tests/data/sim/second_launch.yaml` shows "Ready" on the app's second cold start only, so the
`ci/ready` trail fails its first attempt and passes its second, every time.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.paths import DATA
from tests.support.pytester import FAST_SESSION

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow

INI = """\
[pytest]
addopts = -p no:cacheprovider
filterwarnings =
    error
    ignore::DeprecationWarning:adbutils.*
    ignore::DeprecationWarning:uiautomator2.*
    ignore::ResourceWarning
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".ini", pytest=INI)
    (pytester.path / "trails").mkdir()
    shutil.copy(DATA / "ci" / "ready.trail.yaml", pytester.path / "trails")
    pytester.makeconftest(FAST_SESSION)
    return pytester


def _device() -> str:
    return f"sim:android:{DATA / 'sim' / 'second_launch.yaml'}"


def _case(junit: Path) -> ET.Element:
    (case,) = ET.parse(junit).getroot().iter("testcase")
    return case


def _props(case: ET.Element) -> dict[str, str]:
    return {p.get("name", ""): p.get("value", "") for p in case.iter("property")}


def test_a_trail_that_passes_on_its_retry_is_flaky_in_the_console_and_junit(project: pytest.Pytester) -> None:
    junit = project.path / "junit.xml"
    failed = project.runpytest_subprocess("trails", "--device", _device(), f"--junitxml={junit}")
    assert failed.ret == 1
    failed.assert_outcomes(failed=1)
    assert _case(junit).find("flakyFailure") is None

    result = project.runpytest_subprocess(
        "trails", "--device", _device(), "--trailblaze-retries", "1", f"--junitxml={junit}", "-v"
    )
    assert result.ret == 0, "\n".join(result.outlines)
    out = "\n".join(result.outlines)
    assert "1 flaky" in out and "FLAKY" in out
    assert (
        "FLAKY trails/ready.trail.yaml::ci/ready: passed on a retry after 1 failed attempt(s); step 2" in out
    )
    case = _case(junit)
    assert case.find("failure") is None
    (flaky,) = case.findall("flakyFailure")
    assert "dev.trailblaze.secondlaunch:id/ready" in (flaky.get("message") or "")
    assert "step 2  failed" in (flaky.findtext("system-out") or "")
    assert _props(case) == {"trailblaze_flaky": "true", "trailblaze_attempts": "2"}

    strict = project.runpytest_subprocess(
        "trails", "--device", _device(), "-o", "trailblaze_retries=1", "--trailblaze-fail-on-flaky"
    )
    assert strict.ret == 1
    strict.assert_outcomes(failed=1)
    assert "flaky: passed on attempt 2 of 2 (--trailblaze-fail-on-flaky); attempt 1 failed:" in "\n".join(
        strict.outlines
    )


def test_a_quarantined_failure_is_reported_but_does_not_fail_the_session(project: pytest.Pytester) -> None:
    shutil.copy(DATA / "ci" / "broken.trail.yaml", project.path / "trails")
    project.makepyfile(
        test_flow="""
        import pytest

        @pytest.mark.trailblaze_quarantine("JIRA-9: the search box is being rebuilt")
        def test_quarantined_python_test():
            assert 1 + 1 == 3
        """
    )
    junit = project.path / "junit.xml"
    result = project.runpytest_subprocess(
        "trails/broken.trail.yaml",
        "test_flow.py",
        "--device",
        _device(),
        f"--junitxml={junit}",
        "--strict-markers",
    )
    out = "\n".join(result.outlines)
    assert result.ret == 0, out
    result.assert_outcomes(xfailed=2)
    assert (
        "QUARANTINED trails/broken.trail.yaml::ci/broken failed (JIRA-123: the Done banner is not built yet)"
        in out
    )
    assert (
        "QUARANTINED test_flow.py::test_quarantined_python_test failed (JIRA-9: the search box is being rebuilt)"
        in out
    )
    cases = {c.get("name"): c for c in ET.parse(junit).getroot().iter("testcase")}
    trail = cases["ci/broken"]
    skipped = trail.find("skipped")
    assert skipped is not None and skipped.get("type") == "pytest.xfail"
    assert _props(trail) == {
        "trailblaze_quarantine": "JIRA-123: the Done banner is not built yet",
        "trailblaze_result": "failed",
    }


def test_allure_and_ctrf_come_from_the_merged_report_with_every_attempt(project: pytest.Pytester) -> None:
    import json

    result = project.runpytest_subprocess(
        "trails", "--device", _device(), "--trailblaze-retries", "1", "--trailblaze-report", "report",
        "--trailblaze-allure-dir", "allure", "-o", "trailblaze_ctrf=ctrf.json",
    )  # fmt: skip
    assert result.ret == 0, "\n".join(result.outlines + result.errlines)
    results = [json.loads(p.read_text()) for p in (project.path / "allure").glob("*-result.json")]
    assert sorted(r["status"] for r in results) == ["failed", "passed"]
    assert len({r["historyId"] for r in results}) == 1
    (test,) = json.loads((project.path / "ctrf.json").read_text())["results"]["tests"]
    assert test["flaky"] and test["retries"] == 1 and test["retryAttempts"][0]["status"] == "failed"

    alone = project.runpytest_subprocess("trails", "--device", _device(), "--trailblaze-ctrf", "ctrf.json")
    assert alone.ret == 4  # a usage error, before any test runs
    assert "--trailblaze-ctrf is written from the merged run of --trailblaze-report DIR" in "\n".join(
        alone.errlines
    )
