"""The HTML report and `trailblaze report`, on a run directory with real simulator captures."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from lxml import html as lxml_html
from PIL import Image

from tests.support.report import CANDIDATES, FAILED_STEP_TEXT, XSS_TEXT, build_run_dir
from trailblaze.cli.main import main
from trailblaze.errors import UsageError
from trailblaze.output._html import format_cost, format_duration
from trailblaze.output.report import REPORT_FILE, THUMBNAIL_WIDTH, render_html, write_html_report
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, load_run, write_run


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunRecord]:
    run_dir = tmp_path_factory.mktemp("runs") / "20250502-101500"
    return run_dir, build_run_dir(run_dir)


@pytest.fixture(scope="module")
def report(built: tuple[Path, RunRecord]) -> tuple[Path, str]:
    path = write_html_report(built[0])
    return path, path.read_text("utf-8")


@pytest.fixture(scope="module")
def doc(report: tuple[Path, str]) -> lxml_html.HtmlElement:
    return lxml_html.fromstring(report[1])


@pytest.fixture(scope="module")
def single(built: tuple[Path, RunRecord]) -> tuple[Path, str]:
    """The report as one self-contained file (`--report-single-file`)."""
    path = write_html_report(built[0], built[0] / "single.html", single_file=True)
    return path, path.read_text("utf-8")


@pytest.fixture(scope="module")
def single_doc(single: tuple[Path, str]) -> lxml_html.HtmlElement:
    return lxml_html.fromstring(single[1])


def _text(el: lxml_html.HtmlElement) -> str:
    return " ".join(el.text_content().split())


def test_report_is_written_in_the_run_dir_and_reloads(
    built: tuple[Path, RunRecord], report: tuple[Path, str]
) -> None:
    path, page = report
    assert path == built[0] / REPORT_FILE
    assert page.startswith("<!DOCTYPE html>")
    assert path.stat().st_mode & 0o044 == 0o044  # readable by others: it is meant to be shared
    size_kb = path.stat().st_size / 1024
    print(f"report for a 5-trail run: {size_kb:.0f} KB")
    assert size_kb < 700


@pytest.mark.parametrize("form", ["beside", "single"])
def test_no_external_resources(form: str, report: tuple[Path, str], single: tuple[Path, str]) -> None:
    page = (report if form == "beside" else single)[1]
    doc = lxml_html.fromstring(page)
    assert not doc.xpath("//link | //script[@src] | //iframe | //object | //embed")
    style = "".join(doc.xpath("//style/text()"))
    assert "@import" not in style and "url(" not in style
    assert "http://" not in page.replace("http://www.w3.org", "")
    assert "https://" not in page


def test_the_single_file_form_is_self_contained(single: tuple[Path, str], single_doc: lxml_html.HtmlElement) -> None:
    sources = single_doc.xpath("//img/@src")
    assert sources and all(src.startswith("data:image/") for src in sources), sources[:3]
    assert not (single[0].parent / "single_files").exists()


def test_every_step_text_and_status_is_shown(
    built: tuple[Path, RunRecord], doc: lxml_html.HtmlElement
) -> None:
    run = built[1]
    summaries = [_text(s) for s in doc.xpath("//details[contains(@class,'step')]/summary")]
    expected = [s for t in run.trails for s in t.steps]
    assert len(summaries) == len(expected)
    for summary, step in zip(summaries, expected, strict=True):
        assert " ".join(step.text.split()) in summary
        assert step.status in summary
    badges = {_text(b) for b in doc.xpath("//span[contains(@class,'badge')]")}
    assert {"passed", "passed-with-self-heal", "passed-ai", "failed", "skipped", "not-run"} <= badges


def test_summary_header_counts_time_device_and_llm(doc: lxml_html.HtmlElement) -> None:
    header = doc.xpath("//header")[0]
    cards = {
        _text(c.xpath(".//div[@class='lbl']")[0]): _text(c.xpath(".//div[@class='num']")[0])
        for c in header.xpath(".//div[contains(@class,'card')]")
    }
    assert cards == {
        "trails": "5",
        "passed": "1",
        "passed-with-self-heal": "1",
        "passed-ai": "1",
        "failed": "1",
        "skipped": "1",
    }
    text = _text(header)
    assert "FAILED" in _text(header.xpath(".//span[contains(@class,'badge-big')]")[0]).upper()
    assert "21.0 s" in text  # finished_at - started_at
    assert "sim:android" in text
    assert "3 calls" in text and "13,041 in / 273 out" in text and "$0.04" in text
    assert "2 of 14 steps used the model" in text
    assert "trailblaze replay trails/ --device sim:android --self-heal" in text


def test_embedded_screenshots_decode_as_downscaled_images(
    built: tuple[Path, RunRecord], single_doc: lxml_html.HtmlElement
) -> None:
    doc = single_doc
    sources = doc.xpath("//main//img/@src")
    run = built[1]
    shots = [p for t in run.trails for s in t.steps for p in (s.screenshot_before, s.screenshot_after) if p]
    assert len(sources) == len(shots) == 22
    distinct = set(sources)
    assert len(distinct) >= 8  # real, different screens (login, inbox, compose, iOS search, …)
    for uri in distinct:
        header, _, payload = uri.partition(",")
        assert re.fullmatch(r"data:image/(webp|jpeg);base64", header)
        with Image.open(io.BytesIO(base64.b64decode(payload, validate=True))) as img:
            img.load()
            assert img.width == THUMBNAIL_WIDTH
            assert 700 <= img.height <= 800  # phone aspect kept (Android 360x800 pt, iOS 390x844 pt)
    for img_el in doc.xpath("//main//img"):
        assert img_el.get("alt")
        assert int(img_el.get("width")) == THUMBNAIL_WIDTH


def test_before_and_after_sit_side_by_side(doc: lxml_html.HtmlElement) -> None:
    failed = doc.xpath("//details[contains(@class,'st-failed')]")[0]
    captions = [_text(c) for c in failed.xpath(".//div[@class='shots']/figure/figcaption")]
    assert captions[0].startswith("Before") and captions[1].startswith("After (at failure)")


def test_step_text_with_markup_is_escaped(report: tuple[Path, str], doc: lxml_html.HtmlElement) -> None:
    page = report[1]
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt; &amp; &quot;quotes&quot;" in page
    assert len(doc.xpath("//script")) == 1  # only the report's own (optional) script
    assert any(XSS_TEXT in _text(s) for s in doc.xpath("//details[contains(@class,'step')]/summary"))


def test_failed_trails_and_steps_open_passed_closed(
    built: tuple[Path, RunRecord], doc: lxml_html.HtmlElement
) -> None:
    trails = doc.xpath("//details[contains(@class,'trail ')]")
    assert [t.get("open") is not None for t in trails] == [False, False, False, True, False]
    for step_el in doc.xpath("//details[contains(@class,'step')]"):
        failed = "st-failed" in step_el.get("class")
        assert (step_el.get("open") is not None) == failed, step_el.get("class")
    assert len(doc.xpath("//details[contains(@class,'st-failed')]")) == 1


def test_a_run_that_all_passed_opens_on_its_first_trail_and_its_steps(tmp_path: Path) -> None:
    steps = [StepRecord(index=i, kind="step", text=f"step {i}", status="passed") for i in range(2)]
    trails = [
        TrailRecord(path=f"t{n}.trail.yaml", directory=f"t{n}", status="passed", steps=list(steps))
        for n in range(3)
    ]
    doc = lxml_html.fromstring(render_html(RunRecord(run_id="ok", started_at="", trails=trails), tmp_path))
    opened = [t.get("open") is not None for t in doc.xpath("//details[contains(@class,'trail ')]")]
    assert opened == [True, False, False]  # not a page of closed boxes
    first = doc.xpath("//details[@id='trail-1']//details[contains(@class,'step')]")
    assert first and all(s.get("open") is not None for s in first)
    assert not any(s.get("open") is not None for s in doc.xpath("//details[@id='trail-2']//details"))


def test_failure_error_candidates_and_screen_are_prominent(doc: lxml_html.HtmlElement) -> None:
    failed = doc.xpath("//details[contains(@class,'st-failed')]")[0]
    assert FAILED_STEP_TEXT in _text(failed.xpath("./summary")[0])
    box = failed.xpath(".//div[@class='error-box']")[0]
    assert box.get("role") == "alert"
    assert "NOT_FOUND no element matches resourceId=sign_in" in _text(box)
    assert [_text(li) for li in box.xpath(".//div[@class='cands']//li")] == CANDIDATES
    # the compact view of the screen it failed on says what was there instead
    compact = _text(failed.xpath(".//pre[@class='compact']")[0])
    assert 'Button "Log in"' in compact
    trail_error = doc.xpath("//details[contains(@class,'t-failed')]//div[@class='error-box']")[0]
    assert "Trail error" in _text(trail_error)


def test_tools_params_results_and_timings(doc: lxml_html.HtmlElement) -> None:
    healed = doc.xpath("//details[contains(@class,'st-passed-with-self-heal')]")[0]
    rows = healed.xpath(".//table[@class='tools']/tbody/tr")
    assert len(rows) == 3
    assert "androidViewId: compose_fab" in _text(rows[0].xpath(".//pre[@class='params']")[0])
    assert _text(rows[0].xpath(".//span[contains(@class,'rs-bad')]")[0]) == "NOT_FOUND"
    assert _text(rows[1].xpath(".//span[contains(@class,'rs-ok')]")[0]) == "OK"
    assert "tap ref=k4f" in _text(rows[1]) and "recorded" in _text(rows[1])
    assert _text(rows[0].xpath("./td[@class='num']")[0]) == "5.0 s"
    assert _text(rows[1].xpath("./td[@class='num']")[0]) == "244 ms"


def test_llm_calls_summary_and_transcript_links(report: tuple[Path, str], doc: lxml_html.HtmlElement) -> None:
    healed = doc.xpath("//details[contains(@class,'st-passed-with-self-heal')]")[0]
    table = healed.xpath(".//table[@class='llm-calls']")[0]
    assert "LLM calls · 2" in _text(table.xpath("./caption")[0])
    rows = table.xpath("./tbody/tr")
    assert "tap ref=k4f" in _text(rows[0]) and "4,630 in / 118 out (3,400 cache write)" in _text(rows[0])
    assert "$0.02" in _text(rows[0]) and "2.2 s" in _text(rows[0]) and "claude-sonnet-4-5" in _text(rows[0])
    links = doc.xpath("//table[@class='llm-calls']//a/@href")
    assert len(links) == 3
    for href in links:
        assert (report[0].parent / unquote(href)).is_file(), href


def test_heal_diff_is_rendered_with_coloured_lines(doc: lxml_html.HtmlElement) -> None:
    diff = doc.xpath("//details[contains(@class,'t-passed-with-self-heal')]//pre[@class='diff']")[0]
    assert [_text(s) for s in diff.xpath("./span[@class='d-del']")] == ["- androidViewId: compose_fab"]
    assert [_text(s) for s in diff.xpath("./span[@class='d-add']")] == ["+ androidViewId: compose"]
    assert len(diff.xpath("./span[@class='d-hunk']")) == 1
    assert len(diff.xpath("./span[@class='d-file']")) == 2


def test_failed_only_filter_works_without_javascript(
    report: tuple[Path, str], doc: lxml_html.HtmlElement
) -> None:
    box = doc.xpath("//input[@id='only-failed']")[0]
    assert box.get("type") == "checkbox"
    assert doc.xpath("//label[@for='only-failed']")
    # the CSS rule hides passing trails when the box is checked; trails carry the matching classes
    assert ".filter-box:checked~main .trail.is-ok{display:none}" in report[1].replace("\n", "")
    classes = [t.get("class") for t in doc.xpath("//main/details")]
    assert ["is-failing" in c for c in classes] == [False, False, False, True, False]
    # the JS-only buttons are hidden until the script runs
    assert doc.xpath("//span[@class='js-only']")[0].get("hidden") is not None


def test_skipped_trail_shows_its_reason_not_an_error(doc: lxml_html.HtmlElement) -> None:
    skipped = doc.xpath("//details[contains(@class,'t-skipped')]")[0]
    assert "dark mode rendering is not ready" in _text(skipped.xpath(".//div[@class='note-box']")[0])
    assert not skipped.xpath(".//div[@class='error-box']")
    assert _text(skipped.xpath("./summary/span[@class='dur']")[0]) == "—"


def test_links_stay_valid_when_written_elsewhere(built: tuple[Path, RunRecord], tmp_path: Path) -> None:
    out = write_html_report(built[0], tmp_path / "site" / "index.html")
    doc = lxml_html.fromstring(out.read_text("utf-8"))
    hrefs = [h for h in doc.xpath("//a[@class='file']/@href")]
    assert len(hrefs) > 20
    for href in hrefs:
        assert (out.parent / unquote(href)).exists(), href


def test_trail_relative_transcripts_and_missing_files_degrade_gracefully(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    (run_dir / "01-t" / "llm").mkdir(parents=True)
    (run_dir / "01-t" / "llm" / "step-00-call-01.json").write_text("{}", "utf-8")
    (run_dir / "01-t" / "broken.png").write_bytes(b"not a png")
    from trailblaze.output.runlog import LLMCallRecord

    step = StepRecord(
        index=0,
        kind="step",
        text="Tap",
        status="failed",
        error="boom",
        screenshot_before="01-t/missing.png",
        screenshot_after="01-t/broken.png",
        hierarchy_after="01-t/missing.xml",
        llm_calls=[LLMCallRecord(index=1, transcript="llm/step-00-call-01.json", cost_usd=None)],
    )
    run = RunRecord(
        run_id="r",
        started_at="2025-01-01T00:00:00Z",
        trails=[TrailRecord(path="t.trail.yaml", status="failed", steps=[step], directory="01-t")],
    )
    write_run(run, run_dir)
    doc = lxml_html.fromstring(write_html_report(run_dir).read_text("utf-8"))
    assert doc.xpath("//table[@class='llm-calls']//a/@href") == ["01-t/llm/step-00-call-01.json"]
    assert len(doc.xpath("//div[@class='noimg']")) == 2
    assert not doc.xpath("//img")
    assert "(missing)" in _text(doc.xpath("//p[@class='links']")[0])
    assert "—" in _text(doc.xpath("//table[@class='llm-calls']//td[@class='num']")[0])  # unknown cost


def test_empty_run_renders(tmp_path: Path) -> None:
    run = RunRecord(run_id="empty", started_at="")
    page = render_html(run, tmp_path)
    doc = lxml_html.fromstring(page)
    assert "No trails ran." in _text(doc)
    assert "no calls" in _text(doc.xpath("//header")[0])


def test_missing_run_dir_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no run.json here"):
        write_html_report(tmp_path / "nope")


@pytest.mark.parametrize(
    ("ms", "text"),
    [(0, "0 ms"), (812.4, "812 ms"), (3449, "3.4 s"), (125_000, "2 min 05 s"), (3_720_000, "1 h 02 min")],
)
def test_format_duration(ms: float, text: str) -> None:
    assert format_duration(ms) == text


def test_format_cost() -> None:
    assert [format_cost(v) for v in (None, 0.0, 0.00421, 1.234)] == ["—", "$0", "$0.0042", "$1.23"]


# --- the CLI command ---------------------------------------------------------------------------


def _run_cli(args: list[str]) -> int:
    with pytest.raises(SystemExit) as exc:
        main(args)
    return int(exc.value.code or 0)


def test_cli_report_writes_html_and_junit(
    built: tuple[Path, RunRecord], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, junit = tmp_path / "r.html", tmp_path / "ci" / "junit.xml"
    assert _run_cli(["report", str(built[0]), "--output", str(out), "--junit", str(junit)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"report: {out} (") and lines[0].endswith(f" KB), screenshots in {tmp_path / 'r_files'}/")
    assert lines[1] == f"junit:  {junit}"
    assert "Sign in with a valid password" in out.read_text("utf-8")
    assert b"<testsuites" in junit.read_bytes()


def test_cli_report_accepts_the_run_json_path(
    built: tuple[Path, RunRecord], capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run_cli(["report", str(built[0] / "run.json")]) == 0
    assert capsys.readouterr().out.startswith(f"report: {built[0] / REPORT_FILE}")


def test_cli_report_missing_dir_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run_cli(["report", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "no run.json here" in err


def test_cli_report_invalid_run_json_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "run.json").write_text(json.dumps({"run_id": 3}), "utf-8")
    assert _run_cli(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a trailblaze run log" in err
    assert not (tmp_path / REPORT_FILE).exists()


def test_cli_report_rerenders_from_run_json(built: tuple[Path, RunRecord], tmp_path: Path) -> None:
    run = load_run(built[0])
    run.trails[0].title = "Renamed <b>title</b>"
    write_run(run, tmp_path)
    assert _run_cli(["report", str(tmp_path)]) == 0
    page = (tmp_path / REPORT_FILE).read_text("utf-8")
    assert "Renamed &lt;b&gt;title&lt;/b&gt;" in page
    assert "screenshot unreadable or missing" in page  # artifacts are not in this copy


def test_a_report_outside_the_run_directory_links_only_its_own_files(
    built: tuple[Path, RunRecord], tmp_path: Path
) -> None:
    """Issue 48 item 7: the page and its `_files` folder are the whole report: copied elsewhere, with the
    run directory gone, every picture and file link (hierarchy dumps, transcripts) still opens."""
    import shutil

    out = tmp_path / "site" / "r.html"
    assert _run_cli(["report", str(built[0]), "--output", str(out)]) == 0
    copy = tmp_path / "copied"
    shutil.copytree(out.parent, copy)
    page = lxml_html.fromstring((copy / "r.html").read_bytes())
    # the trail's "Artifacts" link is its folder in the run directory, not a file: only files are the report's
    files = [a for a in page.xpath("//a[@class='file']") if not a.xpath("ancestor::dd")]
    links = [a.get("href") for a in files]
    assert {"hierarchy before", "hierarchy after", "transcript"} <= {a.text_content() for a in files}
    sources = [img.get("src") or img.get("data-src") for img in page.xpath("//img")]
    targets = [unquote(link) for link in [*links, *sources] if link and not link.startswith("data:")]
    assert targets and all(not t.startswith("..") for t in targets), targets
    assert all((copy / t).is_file() for t in targets), [t for t in targets if not (copy / t).is_file()]
