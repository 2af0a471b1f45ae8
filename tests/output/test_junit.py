"""JUnit XML from a run log: structure, counts, times, outcomes and what CI systems read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from tests.support.report import CANDIDATES, FAILED_STEP_TEXT, XSS_TEXT, build_run_dir
from trailblaze.output.junit import junit_xml, write_junit
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> RunRecord:
    return build_run_dir(tmp_path_factory.mktemp("junit") / "run")


@pytest.fixture(scope="module")
def root(run: RunRecord, tmp_path_factory: pytest.TempPathFactory) -> etree._Element:
    path = write_junit(run, tmp_path_factory.mktemp("out") / "reports" / "junit.xml")
    return etree.parse(str(path)).getroot()


def _cases(root: etree._Element) -> list[etree._Element]:
    return list(root.iter("testcase"))


def _props(el: etree._Element) -> dict[str, str]:
    return {p.get("name"): p.get("value") for p in el.findall("properties/property")}


def test_one_suite_per_run_with_counts(root: etree._Element, run: RunRecord) -> None:
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    for el in (root, suite):
        assert el.get("tests") == "5"
        assert el.get("failures") == "1"
        assert el.get("errors") == "0"
        assert el.get("skipped") == "1"
        assert el.get("name") == "trailblaze"
    assert float(suite.get("time")) == pytest.approx(sum(t.duration_ms for t in run.trails) / 1000, abs=1e-3)
    assert suite.get("timestamp") == "2025-05-02T10:15:00"
    assert suite.get("hostname") and suite.get("id") == "0" and suite.get("package") == "trailblaze"
    assert _props(suite)["trailblaze.run_id"] == run.run_id
    assert _props(suite)["trailblaze.llm_calls"] == "3"
    # the schema's order inside a suite: properties, testcases, system-out, system-err
    assert [c.tag for c in suite] == ["properties"] + ["testcase"] * 5 + ["system-out", "system-err"]


def test_one_case_per_trail_with_names_and_times(root: etree._Element, run: RunRecord) -> None:
    cases = _cases(root)
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("login", "Sign in with a valid password"),
        ("compose", "Compose a message"),
        ("ios-search", "Search starts empty"),
        ("login-v2", "Sign in on the redesigned login screen"),
        ("settings", "Toggle dark mode"),
    ]
    for case, trail in zip(cases, run.trails, strict=True):
        assert re.fullmatch(r"\d+\.\d{3}", case.get("time"))
        assert float(case.get("time")) == pytest.approx(trail.duration_ms / 1000, abs=1e-3)
        assert case.get("file") == trail.path
        assert case[0].tag == "properties" and case[-1].tag == "system-out"


def test_failed_trail_names_step_text_and_error(root: etree._Element) -> None:
    case = _cases(root)[3]
    failures = case.findall("failure")
    assert len(failures) == 1
    failure = failures[0]
    message = failure.get("message")
    assert message.startswith(f"step 2: {FAILED_STEP_TEXT} — NOT_FOUND no element matches resourceId=sign_in")
    assert "\n" not in message
    assert failure.get("type") == "StepFailed"
    body = failure.text
    assert "trails/login.trail.yaml, step 2: Tap Sign in" in body
    for candidate in CANDIDATES:
        assert f"  {candidate}" in body
    assert "screenshot: 04-login-v2/step-01-after.png" in body
    assert [c.tag for c in case] == ["properties", "failure", "system-out"]


def test_skipped_trail(root: etree._Element) -> None:
    case = _cases(root)[4]
    skipped = case.findall("skipped")
    assert len(skipped) == 1
    assert skipped[0].get("message") == "skip: dark mode rendering is not ready on Android"
    assert not case.findall("failure")


def test_healed_and_ai_trails_pass_but_say_so(root: etree._Element) -> None:
    cases = _cases(root)
    for case, status in zip(cases[:3], ("passed", "passed-with-self-heal", "passed-ai"), strict=True):
        assert not case.findall("failure") and not case.findall("error") and not case.findall("skipped")
        assert _props(case)["trailblaze.status"] == status
        assert f": {status} in " in case.findtext("system-out")
    assert _props(cases[1])["trailblaze.healed_steps"] == "1"
    assert _props(cases[2])["trailblaze.ai_steps"] == "1"
    assert _props(cases[1])["trailblaze.cost_usd"] == "0.031200"
    assert "+              androidViewId: compose" in cases[1].findtext("system-out")


def test_system_out_lists_every_step_status(root: etree._Element, run: RunRecord) -> None:
    for case, trail in zip(_cases(root), run.trails, strict=True):
        out = case.findtext("system-out")
        for step in trail.steps:
            line = next(ln for ln in out.splitlines() if ln.endswith(step.text))
            assert step.status in line.split()
    failed_out = _cases(root)[3].findtext("system-out")
    assert "step 3  not-run" in failed_out
    assert XSS_TEXT in failed_out  # text stays text: the XML layer escapes it
    assert "error: NOT_FOUND" in failed_out


def test_infrastructure_error_and_invalid_xml_characters(tmp_path: Path) -> None:
    step = StepRecord(
        index=-1, kind="trailhead", text="Launch\x00 app\x1b[0m", status="failed", error="adb\x07 offline"
    )
    run = RunRecord(
        run_id="r",
        started_at="2025-05-02T12:15:00+02:00",
        trails=[
            TrailRecord(path="a.trail.yaml", status="error", steps=[step], duration_ms=1500.0),
            TrailRecord(path="b.trail.yaml", status="failed", error="trail file changed", duration_ms=2.0),
        ],
    )
    doc = junit_xml(run, suite_name="nightly")
    root = etree.fromstring(doc.encode("utf-8"))
    suite = root.find("testsuite")
    assert suite.get("name") == "nightly" and suite.get("errors") == "1" and suite.get("failures") == "1"
    assert suite.get("timestamp") == "2025-05-02T10:15:00"  # converted to UTC
    first, second = root.iter("testcase")
    assert first.get("classname") == "a.trail.yaml" and first.get("name") == "a.trail.yaml"
    error = first.find("error")
    assert error.get("type") == "InfrastructureError"
    assert error.get("message") == "trailhead: Launch\ufffd app\ufffd[0m — adb\ufffd offline"
    failure = second.find("failure")
    assert failure.get("message") == "trail file changed"
    assert first.get("time") == "1.500" and second.get("time") == "0.002"


def test_write_junit_replaces_atomically(run: RunRecord, tmp_path: Path) -> None:
    target = tmp_path / "junit.xml"
    target.write_text("old", "utf-8")
    assert write_junit(run, target) == target
    assert etree.parse(str(target)).getroot().tag == "testsuites"
    assert [p.name for p in tmp_path.iterdir()] == ["junit.xml"]
