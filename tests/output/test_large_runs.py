"""A run of a thousand trails (issue 38 item 7): the report beside its pictures, memory that does not grow.

- The HTML report loads the run's own stored screenshots and storyboards from files, lazily, and stays
  a few kilobytes per trail; `--report-single-file` still gives one self-contained file.
- Only the files run.json names as pictures, inside the run directory and images, are shown or copied:
  those were masked when they were stored.
- The report, JUnit, the run directory and `replay` hold one trail's records at a time (counted
  with `gc`, never by time or RSS); `validate` parses each file at most twice, with libyaml.

`benchmarks/large_runs.py` prints the figures (bytes per trail, first paint, peak RSS at 100 and
1,000 trails, validate of 1,000 files).
"""

from __future__ import annotations

import gc
import os
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from lxml import html as lxml_html
from PIL import Image

from tests.support.cli import copy_example, trailblaze
from tests.support.paths import DATA, ROOT
from tests.support.report import build_many_trails, build_run_dir
from trailblaze.cli.main import main
from trailblaze.common import yaml_lines
from trailblaze.errors import UsageError
from trailblaze.output import junit, report
from trailblaze.output.junit import write_junit
from trailblaze.output.report import write_html_report
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import (
    RunRecord,
    StepRecord,
    TrailRecord,
    iter_trails,
    load_run,
    read_head,
    write_run,
)
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import Trail

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunRecord]:
    run_dir = tmp_path_factory.mktemp("runs") / "20250502-101500"
    return run_dir, build_run_dir(run_dir)


def _shots(run: RunRecord) -> list[str]:
    return [p for t in run.trails for s in t.steps for p in (s.screenshot_before, s.screenshot_after) if p]


def _alive(kind: type) -> int:
    gc.collect()
    return sum(isinstance(o, kind) for o in gc.get_objects())


# --- the page and its pictures -----------------------------------------------------------------------


def test_screenshots_are_the_run_directorys_own_files_loaded_lazily(built: tuple[Path, RunRecord]) -> None:
    run_dir, run = built
    page = write_html_report(run_dir)
    doc = lxml_html.fromstring(page.read_text("utf-8"))
    images = doc.xpath("//main//img")  # the steps' pictures (a matrix run's grid shows some again)
    assert len(images) == len(_shots(run)) == 22
    assert not (run_dir / "report_files").exists()  # in the run directory: linked where they are
    for img in images:
        src = unquote(img.get("src"))
        assert not src.startswith("data:") and img.get("loading") == "lazy"
        assert (run_dir / src).resolve().parent.parent == run_dir.resolve()  # <trail folder>/<file>
        assert src in _shots(run)
        with Image.open(run_dir / src) as stored:
            assert (int(img.get("width")), int(img.get("height"))) == stored.size  # no layout jump
    # the "full size" link opens the same file
    links = doc.xpath("//figure[@class='shot']//a[@class='file']/@href")
    assert links == [img.get("src") for img in images]


def test_a_report_elsewhere_keeps_its_pictures_beside_it(built: tuple[Path, RunRecord], tmp_path: Path) -> None:
    run_dir, run = built
    page = write_html_report(run_dir, tmp_path / "site" / "index.html")
    folder = tmp_path / "site" / "index_files"
    doc = lxml_html.fromstring(page.read_text("utf-8"))
    sources = [unquote(src) for src in doc.xpath("//main//img/@src")]
    assert len(sources) == 22 and all(src.startswith("index_files/") for src in sources)
    for src in sources:
        copy = page.parent / src
        stored = run_dir / src.removeprefix("index_files/")
        assert copy.read_bytes() == stored.read_bytes()  # the stored (masked) file itself, not re-encoded
    kept = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    files = [unquote(href) for href in doc.xpath("//main//a[@class='file']/@href") if href.startswith("index_files/")]
    assert files  # the hierarchy dumps and transcripts the page links are beside it too
    expected = {".trailblaze-report", *(s.removeprefix("index_files/") for s in [*sources, *files])}
    assert kept == sorted(expected)
    # written again: the folder is emptied first, nothing stale stays
    (folder / "stale.png").write_bytes(b"x")
    write_html_report(run_dir, page)
    assert not (folder / "stale.png").exists()


def test_a_folder_that_is_not_the_reports_own_is_never_emptied(built: tuple[Path, RunRecord], tmp_path: Path) -> None:
    mine = tmp_path / "report_files"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="not one trailblaze wrote"):
        write_html_report(built[0], tmp_path / "report.html")
    assert (mine / "notes.txt").read_text() == "mine"


@pytest.mark.slow
def test_the_single_file_form_embeds_everything_and_drops_an_old_folder(
    built: tuple[Path, RunRecord], tmp_path: Path
) -> None:
    page = write_html_report(built[0], tmp_path / "report.html")
    assert (tmp_path / "report_files").is_dir()
    write_html_report(built[0], page, single_file=True)
    doc = lxml_html.fromstring(page.read_text("utf-8"))
    sources = doc.xpath("//main//img/@src")
    assert len(sources) == 22 and all(src.startswith("data:image/") for src in sources)
    assert not (tmp_path / "report_files").exists()


@pytest.mark.slow
def test_the_page_is_at_most_20_kb_per_trail(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    build_many_trails(run_dir, 40)
    size = write_html_report(run_dir).stat().st_size
    print(f"report of 40 trails: {size / 40 / 1024:.1f} KB per trail")
    assert size <= 40 * 20 * 1024


_LOADED = (
    "() => { const grid = new Set(Array.from(document.querySelectorAll('.grid img')).map(i => i.src));"
    " return Array.from(document.querySelectorAll('main img'))"
    ".filter(i => !grid.has(i.src) && i.complete && i.naturalWidth > 0).length; }"
)
"""The steps' pictures that have loaded. The grid of a run on several devices opens the page with its
thumbnails (what the first screen shows); a step picture of the same file is complete from the cache."""


@pytest.mark.slow
def test_in_chromium_pictures_load_as_they_are_reached(tmp_path: Path) -> None:
    """Headless Chromium (through Playwright) loads no step's picture for the first screen of a 30-trail
    page (the devices grid above the trails shows thumbnails), the open failing trail's when it is scrolled to, and says what is missing when the page's
    `_files` folder did not travel with it."""
    from tests.support.system_tools import require

    browser = require("chromium", why="opening the HTML report in a headless browser")
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    run_dir = tmp_path / "run"
    build_many_trails(run_dir, 30)
    inside = write_html_report(run_dir)
    elsewhere = write_html_report(run_dir, tmp_path / "out" / "report.html")
    shutil.rmtree(tmp_path / "out" / "report_files")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=browser, args=["--no-sandbox"])
        try:
            page = chromium.new_page(viewport={"width": 1280, "height": 900})
            page.goto(inside.as_uri(), wait_until="load")
            page.wait_for_timeout(300)
            assert page.evaluate(_LOADED) == 0 < page.evaluate("() => document.querySelectorAll('main img').length")
            page.evaluate("() => document.getElementById('trail-4').scrollIntoView()")  # the first failing trail
            page.wait_for_function(f"() => ({_LOADED})() >= 2", timeout=10_000)
            page.goto(elsewhere.as_uri(), wait_until="load")
            page.evaluate("() => document.getElementById('trail-4').scrollIntoView()")
            page.wait_for_selector("#trail-4 .noimg", timeout=10_000)
            said = page.text_content("#trail-4 .noimg") or ""
            assert said.startswith("not found beside the report: report_files/0004-login-v2/") and "_files" in said
        finally:
            chromium.close()


def test_only_the_runs_stored_pictures_are_shown_or_copied(tmp_path: Path) -> None:
    """A hand-edited run.json cannot make the report show or copy anything but a stored picture."""
    run_dir, outside = tmp_path / "run", tmp_path / "outside"
    (run_dir / "01-t").mkdir(parents=True)
    outside.mkdir()
    Image.new("RGB", (8, 16), "red").save(outside / "secret.png")
    Image.new("RGB", (8, 16), "blue").save(run_dir / "01-t" / "step-00-after.png")
    (run_dir / "01-t" / "step-00-after.xml").write_text("<hierarchy password='x'/>")
    (run_dir / "01-t" / "link.png").symlink_to(outside / "secret.png")
    named = ["01-t/step-00-after.xml", "../outside/secret.png", str(outside / "secret.png"), "01-t/link.png"]
    steps = [
        StepRecord(index=i, kind="step", text="t", status="passed", screenshot_before=bad, screenshot_after=None)
        for i, bad in enumerate(named)
    ]
    steps.append(StepRecord(index=9, kind="step", text="ok", status="passed", screenshot_after="01-t/step-00-after.png"))
    trail = TrailRecord(path="t.trail.yaml", status="passed", directory="01-t", steps=steps, storyboard="01-t/link.png")
    write_run(RunRecord(run_id="r", started_at="", trails=[trail]), run_dir)
    for single_file in (False, True):
        page = write_html_report(run_dir, tmp_path / "site" / "report.html", single_file=single_file)
        doc = lxml_html.fromstring(page.read_text("utf-8"))
        assert len(doc.xpath("//img")) == 1  # the one stored picture
    page = write_html_report(run_dir, tmp_path / "site" / "report.html")
    copied = sorted(p.name for p in (tmp_path / "site" / "report_files").rglob("*") if p.is_file())
    assert copied == [".trailblaze-report", "step-00-after.png"]


# --- one trail at a time -----------------------------------------------------------------------------


def _spy(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, kind: type) -> list[int]:
    """Counts the live `kind` objects each time `owner.name` is called."""
    counts: list[int] = []
    original: Callable[..., Any] = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        counts.append(_alive(kind))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return counts


@pytest.mark.slow
def test_the_report_and_junit_read_the_run_one_trail_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_dir = tmp_path / "run"
    build_many_trails(run_dir, 30)
    before = _alive(TrailRecord)  # other tests' records in this process
    rendering = _spy(monkeypatch, report._Page, "_trail", TrailRecord)
    write_html_report(run_dir)
    assert len(rendering) == 30 and max(rendering) - before <= 2, (before, rendering)
    writing = _spy(monkeypatch, junit, "_testcase", TrailRecord)
    write_junit(read_head(run_dir), tmp_path / "junit.xml", run_dir=run_dir, trails=iter_trails(run_dir))
    assert len(writing) == 30 and max(writing) - before <= 2, (before, writing)
    assert len(ET.parse(tmp_path / "junit.xml").getroot().findall(".//testcase")) == 30


def test_the_run_directory_writes_a_finished_trail_once_and_lets_it_go(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")
    held = []
    for n in range(12):
        run.start_trail(TrailRecord(path=f"t{n}.trail.yaml", title=f"trail {n}"))
        held.append(len(run.run.trails))
        run.finish_trail("passed", None, 0.0)
    run.finish()
    assert held == [1] * 12  # the one running: each one before it was written and let go as it started
    assert len(run.run.trails) == 1  # the last one is kept: a retry or a proof may still change it
    written = load_run(run.root)
    assert [t.title for t in written.trails] == [f"trail {n}" for n in range(12)]
    assert [t.directory for t in written.trails] == [f"{n + 1:02d}-t{n}-trail" for n in range(12)]


def test_a_finished_trail_is_kept_until_its_storyboard_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from trailblaze.output import storyboard

    release = threading.Event()

    def slow_board(root: Path, trail: TrailRecord) -> str:
        release.wait(10)
        return f"{trail.directory}/storyboard.webp"

    monkeypatch.setattr(storyboard, "write_storyboard", slow_board)
    monkeypatch.setattr(storyboard, "frames_of", lambda trail: [object()])
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")
    first = run.start_trail(TrailRecord(path="a.trail.yaml"))
    run.finish_trail("passed", None, 0.0)
    run.start_trail(TrailRecord(path="b.trail.yaml"))
    assert run.run.trails[0] is first  # its storyboard is still being made: not written for good yet
    release.set()
    run.finish_trail("passed", None, 0.0)
    run.finish()
    assert [t.storyboard for t in load_run(run.root).trails] == ["01-a-trail/storyboard.webp", "02-b-trail/storyboard.webp"]


@pytest.mark.slow
def test_replay_holds_one_trail_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = copy_example("login.trail.yaml", tmp_path)
    folder = tmp_path / "trails"
    folder.mkdir()
    for n in range(6):
        text = source.read_text().replace("demo/login", f"demo/login-{n}")
        (folder / f"login-{n}.trail.yaml").write_text(text)
    source.unlink()
    before = _alive(Trail), _alive(TrailRecord)  # other tests' in this process
    trails = _spy(monkeypatch, RunDir, "start_trail", Trail)
    records = _spy(monkeypatch, RunDir, "start_trail", TrailRecord)
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as done:
        main(
            ["replay", str(folder), "--device", "sim:android", "--secret", "password=hunter2", "--run-dir",
             str(run), "--report", str(tmp_path / "report.html"), "--junit", str(tmp_path / "junit.xml")]
        )  # fmt: skip
    assert done.value.code == 0
    print(f"alive at each trail's start: Trail {trails}, TrailRecord {records} (before: {before})")
    assert len(trails) == 6 and max(trails) - before[0] <= 2, trails  # the one to run (the last, until collected)
    assert max(records) - before[1] <= 3, records
    assert [t.status for t in load_run(run).trails] == ["passed"] * 6


# --- the options on every front end ------------------------------------------------------------------


def test_report_single_file_option(built: tuple[Path, RunRecord], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "one.html"
    with pytest.raises(SystemExit) as done:
        main(["report", str(built[0]), "-o", str(out), "--report-single-file"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"report: {out} (")
    assert out.read_text("utf-8").split("<main>")[1].count('src="data:image/') == 22 and not (tmp_path / "one_files").exists()


def test_replay_report_single_file_needs_a_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    with pytest.raises(SystemExit) as done:
        main(["replay", str(trail), "--device", "sim:android", "--secret", "password=hunter2", "--report-single-file"])
    assert done.value.code == 2 and "add --report FILE.html" in capsys.readouterr().err


@pytest.mark.slow
def test_replay_report_single_file(tmp_path: Path) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    done = trailblaze(
        "replay", str(trail), "--device", "sim:android", "--secret", "password=hunter2", "--run-dir",
        str(tmp_path / "run"), "--report", str(tmp_path / "report.html"), "--report-single-file", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    page = (tmp_path / "report.html").read_text("utf-8")
    assert page.count('src="data:image/') >= 5 and not (tmp_path / "report_files").exists()


@pytest.mark.slow
def test_pytest_report_single_file(pytester: pytest.Pytester) -> None:
    from tests.support.pytester import FAST_SESSION

    pytester.makefile(".ini", pytest="[pytest]\naddopts = -p no:cacheprovider\n")
    shutil.copytree(DATA / "pytest" / "trails", pytester.path / "trails")
    pytester.makeconftest(FAST_SESSION)
    result = pytester.runpytest_subprocess(
        "trails/email.trail.yaml", "--trailblaze-report=report", "--trailblaze-report-single-file",
        "--trailblaze-screenshots=steps",
    )  # fmt: skip
    result.assert_outcomes(passed=1)
    page = (pytester.path / "report" / "report.html").read_text("utf-8")
    assert page.count('src="data:image/') >= 2


# --- validate ----------------------------------------------------------------------------------------


def _trail_copies(tmp_path: Path, n: int) -> Path:
    folder = tmp_path / "many"
    folder.mkdir()
    text = copy_example("search.trail.yaml", tmp_path).read_text()
    for i in range(n):
        (folder / f"s{i}.trail.yaml").write_text(text.replace("demo/search", f"demo/search-{i}"))
    return folder


def test_validate_parses_each_file_at_most_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _trail_copies(tmp_path, 6)
    parsed: list[str] = []
    original = yaml_lines.parse_document

    def counting(text: str) -> yaml_lines.YamlDocument:
        parsed.append(text)
        return original(text)

    monkeypatch.setattr(yaml_lines, "parse_document", counting)
    with pytest.raises(SystemExit) as done:
        main(["validate", str(folder)])
    assert done.value.code == 0
    assert len(parsed) <= 2 * 6, len(parsed)  # loading it, and the checks of every platform


@pytest.mark.skipif(not yaml_lines._FAST, reason="PyYAML without libyaml: the pure-Python parser is the only one")
def test_trail_files_are_scanned_by_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    import yaml.scanner

    def refuse(self: Any) -> None:
        raise AssertionError("the pure-Python scanner read a valid trail file")

    text = (ROOT / "trails" / "search.trail.yaml").read_text()
    expected = _document(text, fast=False)
    monkeypatch.setattr(yaml.scanner.Scanner, "fetch_more_tokens", refuse)
    assert _document(text, fast=True) == expected


def _walk(node: Any) -> Iterator[tuple[Any, ...]]:
    yield (type(node).__name__, node.tag, node.start_mark.index, node.start_mark.line, node.start_mark.column,
           node.end_mark.index, node.end_mark.line, node.end_mark.column, getattr(node, "style", None),
           bool(getattr(node, "flow_style", None)))  # fmt: skip
    for item in node.value if isinstance(node.value, list) else []:
        for child in item if isinstance(item, tuple) else (item,):
            yield from _walk(child)


def _document(text: str, *, fast: bool) -> tuple[Any, ...]:
    """What a parse gives (data, problems, every node with its marks), or its error, with libyaml or not."""
    saved = yaml_lines._FAST
    yaml_lines._FAST = fast
    try:
        doc = yaml_lines.parse_document(text)
    except yaml_lines.YamlSyntaxError as exc:
        return ("error", exc.problems)
    finally:
        yaml_lines._FAST = saved
    return ("ok", doc.data, doc.problems, list(_walk(doc.root)) if doc.root is not None else None)


_SAMPLES = [
    "a: 1\na: 2\n", "a: &x 1\nb: *x\n", "a: !!binary aGk=\n", "a: !foo 1", "\ufeffa: 1\n", "a:\n\tb: 1\n",
    "a: b: c\n", "---\na: 1\n---\nb: 2\n", "a: 'x\n", 'a: "\\ud800"\n', "a: \x85b\n", "a: 1\u2028b: 2\n",
    "k: [1, 2,\n", "{a: 1, b: [x, y], c: {d: e}}", "a: |\n  x\n  y\n\n", "a: >-\n  x\n  y\n", "? complex\n: v\n",
    "a: 8:00\nb: 1_000\nc: 0x1F\nd: 2001-12-14\ne: yes\n", "a: \x07\n", "a:\n  - b\n  -c\n", "- - - x",
    "a: 'é😀'\nb: \"\\x41\\u00e9\"\n", "[[[[[[1]]]]]]", "%YAML 1.1\n---\na: 1\n", "a: 1 # c\nb:   2   \n",
    "a:\n- b\n- c", "x:\n  y:\n    - z", "k: {m: Recipient? required}\n", "a: 1\tb\n", "a:\r\n  - b\r\n",
]  # fmt: skip


def test_libyaml_reads_every_trail_as_pyyaml_does() -> None:
    """Found by fuzzing the two against each other: the same data, problems, nodes and marks, or the
    same error (PyYAML names every problem); text libyaml reads more leniently goes to PyYAML."""
    root = ROOT
    files = [*root.glob("trails/**/*.yaml"), *root.glob("tests/data/**/*.yaml")]
    texts = [f.read_text("utf-8") for f in files] + _SAMPLES
    assert len(texts) > 100
    for text in texts:
        assert _document(text, fast=True) == _document(text, fast=False), text[:200]


def test_run_log_streams_as_it_loads(built: tuple[Path, RunRecord]) -> None:
    loaded = load_run(built[0])
    assert list(iter_trails(built[0])) == loaded.trails
    assert read_head(built[0]) == loaded.model_copy(update={"trails": []})


def test_a_picture_is_copied_where_it_cannot_be_linked(tmp_path: Path) -> None:
    """`os.link` refused (another file system): the picture is copied instead."""
    run_dir = tmp_path / "run"
    build_run_dir(run_dir)

    def no_links(*args: Any, **kwargs: Any) -> None:
        raise OSError("cross-device link")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "link", no_links)
        page = write_html_report(run_dir, tmp_path / "out" / "r.html")
    src = unquote(lxml_html.fromstring(page.read_text("utf-8")).xpath("//img/@src")[0])
    assert (page.parent / src).read_bytes() == (run_dir / src.removeprefix("r_files/")).read_bytes()
