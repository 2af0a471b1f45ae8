"""Allure results, CTRF JSON and JUnit reruns from a run log (issue 47 item 4, ADR 0071).

In memory: a retried trail's attempts in each format, the CTRF document against CTRF's own schema
and the JUnit test cases against Surefire's XSD (both vendored in tests/data/schemas/). End to end:
two replays of a trail that fails on the app's first launch, their `--allure-dir` results turned
into reports by the real Allure 3 CLI, whose history must show both runs.
"""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path

import jsonschema
import pytest
from lxml import etree

from tests.support.allure_cli import ensure_allure
from tests.support.cli import trailblaze
from tests.support.paths import DATA
from tests.support.report import build_run_dir
from trailblaze.__about__ import __version__
from trailblaze.output.allure import AllureResult, write_allure
from trailblaze.output.ctrf import write_ctrf
from trailblaze.output.junit import junit_xml
from trailblaze.output.runlog import RunRecord, TrailRecord

SCHEMAS = DATA / "schemas"
READY = DATA / "ci" / "ready.trail.yaml"
FLAKY_APP = f"sim:android:{DATA / 'sim' / 'second_launch.yaml'}"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report tests' five-trail run, plus a flaky trail (failed, then passed) and one that failed
    then erred on the device."""
    root = tmp_path_factory.mktemp("formats") / "run"
    run = build_run_dir(root)
    failed = next(t for t in run.trails if t.status == "failed")
    passed = next(t for t in run.trails if t.status == "passed")
    flaky = passed.model_copy(
        deep=True, update={"id": "flaky", "attempts": [failed.model_copy(deep=True)], "tags": ["smoke"]}
    )
    broken = TrailRecord(
        path=failed.path, id="broken", device=failed.device, platform="android", status="error",
        error="device sim:android went away", started_at=failed.started_at, attempts=[copy.deepcopy(failed)],
    )  # fmt: skip
    run.trails += [flaky, broken]
    (root / "run.json").write_text(run.model_dump_json())
    return root


def _run(run_dir: Path) -> RunRecord:
    return RunRecord.model_validate_json((run_dir / "run.json").read_text())


def test_ctrf_is_valid_against_the_ctrf_schema_and_keeps_every_attempt(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TRAILBLAZE_RUN_ID", raising=False)
    monkeypatch.setenv("GITHUB_RUN_ID", "4242")
    monkeypatch.setenv("GITHUB_RUN_ATTEMPT", "1")
    run = _run(run_dir)
    run.shard = "2/3"
    doc = json.loads(write_ctrf(run, tmp_path / "ctrf.json", run_dir=run_dir).read_text())
    schema = json.loads((SCHEMAS / "ctrf.json").read_text())
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(doc)
    assert doc["runId"] == "4242-1" and doc["results"]["environment"]["shardId"] == "2/3"
    assert doc["results"]["tool"]["name"] == "trailblaze"
    summary, tests = doc["results"]["summary"], doc["results"]["tests"]
    assert (summary["tests"], summary["passed"], summary["failed"], summary["skipped"], summary["other"]) == (
        7, 4, 1, 1, 1,
    )  # fmt: skip
    assert summary["flaky"] == 1
    flaky = [t for t in tests if t["flaky"]]
    assert len(flaky) == 1 and flaky[0]["retries"] == 1 and flaky[0]["tags"] == ["smoke"]
    assert flaky[0]["retryAttempts"][0]["status"] == "failed" and flaky[0]["retryAttempts"][0]["message"]
    broken = next(t for t in tests if t["rawStatus"] == "error")
    assert broken["status"] == "other" and broken["retries"] == 1 and not broken["flaky"]
    # one trail on one device: one testId, the same when the run is written again
    again = json.loads(write_ctrf(run, tmp_path / "again.json", run_dir=run_dir).read_text())
    assert [t["testId"] for t in again["results"]["tests"]] == [t["testId"] for t in tests]
    assert len({t["testId"] for t in tests}) == 7 and again["reportId"] != doc["reportId"]
    assert flaky[0]["extra"]["platform"] and flaky[0]["extra"]["device"] == flaky[0]["device"]


def test_junit_reruns_are_in_surefires_order_and_schema(run_dir: Path) -> None:
    xsd = etree.XMLSchema(etree.parse(str(SCHEMAS / "surefire-test-report.xsd")))
    root = etree.fromstring(junit_xml(_run(run_dir), run_dir=run_dir).encode())
    cases = root.findall(".//testcase")
    flaky = next(c for c in cases if c.find("flakyFailure") is not None)
    assert flaky.find("failure") is None and flaky.find("flakyFailure/stackTrace").text
    broken = next(c for c in cases if c.get("classname") == "broken")
    # the last attempt erred, the first failed: Surefire puts reruns before <error>
    assert [c.tag for c in broken if c.tag != "properties"] == ["rerunFailure", "error", "system-out"]
    # Surefire's schema has no <properties> in a test case (JUnit 5 and pytest write them): checked without
    suite = etree.Element("testsuite", name="t", tests="7", errors="1", skipped="1", failures="1")
    for case in cases:
        for props in case.findall("properties"):
            case.remove(props)
        case.attrib.pop("file", None)
        suite.append(case)
    xsd.assertValid(suite)


def test_allure_writes_one_result_per_attempt_with_one_history_id(run_dir: Path, tmp_path: Path) -> None:
    out = write_allure(_run(run_dir), tmp_path / "allure", run_dir=run_dir)
    results = [AllureResult.model_validate_json(p.read_text()) for p in sorted(out.glob("*-result.json"))]
    assert len(results) == 7 + 2  # every trail, and the two earlier attempts
    by_history: dict[str, list[AllureResult]] = {}
    for result in results:
        by_history.setdefault(result.historyId, []).append(result)
    flaky = next(r for r in results if r.statusDetails.flaky)
    attempts = by_history[flaky.historyId]
    assert sorted(r.status for r in attempts) == ["failed", "passed"]
    broken = next(r for r in results if r.fullName == "broken" and r.status != "failed")
    assert broken.status == "broken" and len(by_history[broken.historyId]) == 2
    labels = {(label.name, label.value) for label in flaky.labels}
    assert {("framework", "trailblaze"), ("platform", "android"), ("tag", "smoke")} <= labels
    # steps with their screenshots, copied beside the results
    shots = [a for step in flaky.steps for a in step.attachments]
    assert shots and all((out / a.source).is_file() for a in shots)
    assert {r.status for r in results} >= {"passed", "failed", "skipped", "broken"}
    # written again (`trailblaze report`): the same files, not a second copy of each result
    write_allure(_run(run_dir), out, run_dir=run_dir)
    assert len(list(out.glob("*-result.json"))) == len(results)


GITHUB = {
    "GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/app",
    "GITHUB_RUN_ID": "4242", "GITHUB_RUN_NUMBER": "17", "GITHUB_WORKFLOW": "trails",
}  # fmt: skip


def _without_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_ACTIONS", "GITLAB_CI", "JENKINS_URL", "BUILDKITE", "CIRCLECI"):
        monkeypatch.delenv(name, raising=False)


def test_allure_environment_and_executor_say_what_ran_where(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_ci(monkeypatch)
    for name, value in GITHUB.items():
        monkeypatch.setenv(name, value)
    run = _run(run_dir)
    run.commit, run.branch = "4f1c2e9a7b0d", "main"
    out = write_allure(run, tmp_path / "allure", run_dir=run_dir)
    props = dict(line.split("=", 1) for line in (out / "environment.properties").read_text().splitlines())
    assert props == {
        "trailblaze": __version__, "platform": "android, ios", "device": "sim:android, sim:ios, sim:android:demo@v2",
        "branch": "main", "commit": "4f1c2e9a7b0d",
    }  # fmt: skip
    assert json.loads((out / "executor.json").read_text()) == {
        "name": "GitHub Actions", "type": "github", "buildName": "trails #17",
        "buildUrl": "https://github.com/acme/app/actions/runs/4242", "url": "https://github.com/acme/app",
        "buildOrder": 17, "reportName": "trailblaze",
    }  # fmt: skip
    # another shard into the same folder, outside CI, on a device with a URL: its values added, no password
    _without_ci(monkeypatch)
    shard = _run(run_dir)
    shard.trails = [shard.trails[0].model_copy(update={"device": "appium:https://me:pw-1234@hub.example/wd/hub"})]
    write_allure(shard, out, run_dir=run_dir)
    again = (out / "environment.properties").read_text()
    assert "device=sim:android, sim:ios, sim:android:demo@v2, appium:https://hub.example/wd/hub\n" in again
    assert "pw-1234" not in again and "me:" not in again and again.count("trailblaze=") == 1


@pytest.mark.slow
def test_allure_3_shows_both_runs_in_its_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    node, cli = ensure_allure()
    _without_ci(monkeypatch)
    for variable, value in GITHUB.items():
        monkeypatch.setenv(variable, value)
    for name, extra in (("first", ()), ("second", ("--retries", "1"))):
        done = trailblaze(
            "replay", str(READY), "--device", FLAKY_APP, "--element-timeout", "1", *extra,
            "--run-dir", str(tmp_path / name), "--allure-dir", str(tmp_path / name / "allure"),
            "--ctrf", str(tmp_path / name / "ctrf.json"),
        )  # fmt: skip
        assert "Traceback" not in done.stderr and "allure: " in done.stdout, done.stdout + done.stderr
    # Allure 3 keeps history in the file its config names; each `generate` appends the run to it
    (tmp_path / "allurerc.json").write_text(json.dumps({"historyPath": "history.jsonl"}))
    for name in ("first", "second"):
        generated = subprocess.run(
            [node, str(cli), "generate", f"{name}/allure", "-o", f"report-{name}"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert generated.returncode == 0, generated.stdout + generated.stderr
    tests = [
        json.loads(p.read_text())
        for p in (tmp_path / "report-second" / "data" / "test-results").glob("*.json")
    ]
    (latest,) = [t for t in tests if not t["isRetry"]]
    assert latest["fullName"] == "ci/ready" and latest["status"] == "passed" and latest["flaky"]
    assert latest["retriesCount"] == 1  # the second run's failed first attempt
    assert [h["status"] for h in latest["history"]] == ["failed"]  # the first run
    assert len((tmp_path / "history.jsonl").read_text().splitlines()) == 2
    # the Environment widget and the executor come from environment.properties and executor.json
    environment = json.loads((tmp_path / "report-second" / "widgets" / "allure_environment.json").read_text())
    assert {"name": "trailblaze", "values": [__version__]} in environment
    assert any(e["name"] == "device" and "sim:android:" in e["values"][0] for e in environment)
    assert "https://github.com/acme/app/actions/runs/4242" in (tmp_path / "report-second" / "index.html").read_text()

    # the shards of one CI run share the CTRF runId, and merged they give one Allure folder
    monkeypatch.setenv("TRAILBLAZE_RUN_ID", "77")
    merged = trailblaze(
        "report", "--merge", str(tmp_path / "first"), str(tmp_path / "second"), "--report",
        str(tmp_path / "merged.html"), "--allure-dir", str(tmp_path / "merged-allure"), "--ctrf",
        str(tmp_path / "merged.json"),
    )  # fmt: skip
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert len(list((tmp_path / "merged-allure").glob("*-result.json"))) == 3
    doc = json.loads((tmp_path / "merged.json").read_text())
    assert doc["runId"] == "77" and doc["results"]["summary"]["flaky"] == 1
