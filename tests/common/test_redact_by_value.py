"""Secrets are redacted from the values of structured files before serialisation (issue 31, item
9): a secret equal to a word of the format (`status`, `node`, `testcase`) leaves run.json, the
hierarchy dumps, JUnit XML and the HTML report readable, and still never reaches them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from tests.support.cli import copy_example, trailblaze
from trailblaze.common.redact import Redactor
from trailblaze.common.redact_values import scrub_dump, scrub_model
from trailblaze.output.runlog import StepRecord, TrailRecord


@pytest.mark.slow
def test_a_secret_equal_to_a_format_word_leaves_every_file_readable(tmp_path: Path) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    run = tmp_path / "run"
    done = trailblaze(
        "replay", str(trail), "--device", "sim:android", "--run-dir", str(run),
        "--secret", "password=hunter2", "--secret", "word=status", "--secret", "tag=node",
        "--secret", "case=testcase", "--junit", str(tmp_path / "junit.xml"), "--report", str(tmp_path / "r.html"),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads((run / "run.json").read_text("utf-8"))
    assert record["trails"][0]["status"] == "passed"
    dumps = sorted(run.rglob("*.xml"))
    assert dumps
    for dump in dumps:
        root = etree.parse(str(dump)).getroot()
        assert root.xpath("//node"), dump  # uiautomator's <node> tags are still there
    junit = etree.parse(str(tmp_path / "junit.xml")).getroot()
    assert junit.xpath("//testcase")
    html = (tmp_path / "r.html").read_text("utf-8")
    assert 'class="trail' in html
    assert "hunter2" not in "".join(p.read_text("utf-8", "replace") for p in run.rglob("*") if p.is_file())
    again = trailblaze("report", str(run))
    assert again.returncode == 0, again.stdout + again.stderr


def test_values_are_redacted_and_the_format_words_kept() -> None:
    redactor = Redactor({"word": "status", "tag": "node"})
    step = StepRecord(index=0, kind="step", text="check the status of node 3", status="passed")
    trail = TrailRecord(path="t.trail.yaml", status="passed", steps=[step], error="node status")
    dumped = scrub_model(trail, redactor.scrub)
    assert dumped["status"] == "passed" and dumped["error"] == "{{tag}} {{word}}"
    assert dumped["steps"][0]["text"] == "check the {{word}} of {{tag}} 3"
    xml = '<?xml version="1.0" encoding="UTF-8"?>\n<hierarchy><node text="node status" /></hierarchy>'
    assert scrub_dump(xml, "u2", redactor.scrub) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n<hierarchy><node text="{{tag}} {{word}}"/></hierarchy>'
    )
    assert json.loads(scrub_dump('{"status": ["node"]}', "wda-json", redactor.scrub)) == {
        "status": ["{{tag}}"]
    }
