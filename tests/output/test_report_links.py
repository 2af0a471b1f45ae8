"""`trailblaze report` on a hand-edited run.json: only relative paths inside the run directory become
links, and only they are read (screenshots, hierarchy dumps) into the page."""

from __future__ import annotations

import io
import json
from pathlib import Path
from urllib.parse import unquote

import pytest
from lxml import html as lxml_html
from PIL import Image

from trailblaze.cli.main import main
from trailblaze.output.report import artifact_path
from trailblaze.output.runlog import LLMCallRecord, RunRecord, StepRecord, TrailRecord, write_run

SECRET_TEXT = "TOP-SECRET-OUTSIDE-THE-RUN"


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 80), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def test_artifact_path_accepts_only_relative_paths_inside(tmp_path: Path) -> None:
    run = tmp_path / "run"
    (run / "01-t").mkdir(parents=True)
    (run / "01-t" / "link-out").symlink_to(tmp_path)
    assert artifact_path(run, "01-t/llm/a.json") == run / "01-t/llm/a.json"
    assert artifact_path(run, "01-t") == run / "01-t"
    for bad in (
        "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x", "https://example.com/x.png",
        "/etc/passwd", "../outside.png", "01-t/../../outside.png", "01-t/link-out/x.png", "a\\b", "",
    ):  # fmt: skip
        assert artifact_path(run, bad) is None, bad


def test_report_of_a_hand_edited_run_links_nothing_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = tmp_path / "run"
    (run_dir / "01-t").mkdir(parents=True)
    (run_dir / "01-t" / "a:b.json").write_text("{}", "utf-8")  # a colon in a real file name
    (tmp_path / "outside.xml").write_text(f"<hierarchy><node text='{SECRET_TEXT}'/></hierarchy>", "utf-8")
    (tmp_path / "outside.png").write_bytes(_png())
    step = StepRecord(
        index=0,
        kind="step",
        text="Tap",
        status="failed",
        error="boom",
        screenshot_before="../outside.png",
        screenshot_after=str(tmp_path / "outside.png"),
        hierarchy_before="javascript:alert(document.cookie)",
        hierarchy_after="../outside.xml",
        llm_calls=[
            LLMCallRecord(index=1, transcript="javascript:alert(1)", cost_usd=None),
            LLMCallRecord(index=2, transcript="a:b.json", cost_usd=None),
        ],
    )
    run = RunRecord(
        run_id="r",
        started_at="2025-01-01T00:00:00Z",
        trails=[TrailRecord(path="t.trail.yaml", status="failed", steps=[step], directory="01-t")],
    )
    write_run(run, run_dir)
    with pytest.raises(SystemExit) as exited:
        main(["report", str(run_dir)])
    assert exited.value.code == 0, capsys.readouterr()
    page = (run_dir / "report.html").read_text("utf-8")
    doc = lxml_html.fromstring(page)
    hrefs = doc.xpath("//a/@href")
    assert not [h for h in hrefs if ":" in h.split("/")[0] and not h.startswith("#")], hrefs
    for href in hrefs:
        if href.startswith("#"):
            continue
        target = (run_dir / unquote(href)).resolve()
        assert run_dir.resolve() in target.parents or target == run_dir.resolve(), href
    assert "01-t/a%3Ab.json" in hrefs  # linked, percent-encoded so it cannot read as a scheme
    assert SECRET_TEXT not in page  # the dump outside the run directory was not read
    assert not doc.xpath("//img")  # nor the screenshots
    assert page.count("not a file in the run directory") >= 2
    assert "javascript:alert" not in "".join(hrefs)
    assert json.loads((run_dir / "run.json").read_text("utf-8"))["trails"][0]["steps"][0]["text"] == "Tap"
