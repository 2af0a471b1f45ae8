"""A trail recorded where its row was on screen replays where the row sits below the fold: the example
trail that archives "Message 3", made to archive "Message 30" (the inbox shows about 9), passes, and
the trail says how many elements it scrolled into view — in run.json, the HTML report and JUnit."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from trailblaze.engine.commands import run_replay_command
from trailblaze.engine.options import DeviceChoice, ReplayRun, RunInputs, RunOutput

pytestmark = pytest.mark.slow


def _archive_message_30(tmp_path: Path) -> Path:
    text = (ROOT / "trails" / "archive-message.trail.yaml").read_text("utf-8")
    text = re.sub(r"(?i)(message )3\b", r"\g<1>30", text)
    assert "Message 30" in text and "This is message 30." in text and not re.search(r"(?i)message 3\b", text)
    shutil.copytree(
        ROOT / "trails" / "tools", tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__")
    )
    path = tmp_path / "archive-message-30.trail.yaml"
    path.write_text(text, "utf-8")
    return path


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_row_below_the_fold_is_scrolled_into_view_and_counted(platform: str, tmp_path: Path) -> None:
    trail = _archive_message_30(tmp_path)
    run_dir, report, junit = tmp_path / "run", tmp_path / "out", tmp_path / "junit.xml"
    code = run_replay_command(
        ReplayRun(
            paths=(str(trail),),
            device=DeviceChoice.parse(f"sim:{platform}"),
            inputs=RunInputs(secrets={"password": "hunter2"}),
            output=RunOutput(str(run_dir), junit=str(junit), report=str(report)),
        )
    )
    (record,) = json.loads((run_dir / "run.json").read_text())["trails"]
    assert code == 0, record.get("error")
    assert record["status"] == "passed" and record["scrolls_into_view"] == 1
    scrolled = [t["message"] for s in record["steps"] for t in s["tools"] if "scroll" in t["message"]]
    assert (
        len(scrolled) == 1 and scrolled[0].startswith("tapped ") and "after scrolling messages" in scrolled[0]
    )
    html = (report / "report.html").read_text()
    assert "<dt>Scrolled</dt><dd>1 element scrolled into view</dd>" in html
    assert "after scrolling messages" in html
    props = {p.get("name"): p.get("value") for p in ET.parse(junit).iter("property")}
    assert props["trailblaze.scrolls_into_view"] == "1"
