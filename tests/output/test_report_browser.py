"""The HTML report in a real browser: headless Chromium renders it to a PNG that must show content.

Needs a Chromium binary (Debian: `apt-get install -y chromium`; `.ci/run` installs it, so CI always
runs it). Without one the test is skipped with a reason naming the package.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageStat

from tests.support.report import build_run_dir
from tests.support.system_tools import require
from trailblaze.output.report import write_html_report

_FAILED_RED = (160, 17, 31)  # --bad-fg: failed badge text, failing trail border, error text
_DEMO_BUTTON = (103, 80, 165)  # the demo app's primary button, only present if screenshots decoded


def _browser() -> str:
    return require("chromium", why="rendering the HTML report in a headless browser")


def _screenshot(browser: str, page: Path, png: Path, javascript: bool) -> None:
    """The page as a reader's browser draws it, once the pictures in view have arrived: lazy pictures
    do not hold up the load event, so a shot taken at load races them on a busy machine."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=browser, args=["--no-sandbox", "--disable-gpu"])
        try:
            context = chromium.new_context(viewport={"width": 1280, "height": 2000}, java_script_enabled=javascript)
            tab = context.new_page()
            tab.goto(page.resolve().as_uri(), wait_until="load", timeout=120_000)
            tab.wait_for_load_state("networkidle", timeout=120_000)
            tab.screenshot(path=str(png))
        finally:
            chromium.close()
    assert png.is_file(), f"{browser} wrote no screenshot of {page}"


def _near(pixel: tuple[int, ...], colour: tuple[int, int, int], tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour, strict=False))


def _count_near(img: Image.Image, colour: tuple[int, int, int]) -> int:
    colours = img.getcolors(maxcolors=1 << 22) or []
    return sum(n for n, c in colours if _near(c, colour))


@pytest.mark.slow
@pytest.mark.parametrize("javascript", [True, False], ids=["js-on", "js-off"])
def test_report_renders_in_headless_chromium(tmp_path: Path, javascript: bool) -> None:
    browser = _browser()
    run_dir = tmp_path / "run"
    build_run_dir(run_dir)
    report = write_html_report(run_dir)
    if not javascript:
        # what a reader with scripts blocked sees (Chromium's own switch breaks --screenshot)
        page = report.read_text("utf-8")
        start, end = page.index("<script>"), page.index("</script>") + len("</script>")
        report = report.with_name("report-nojs.html")
        report.write_text(page[:start] + page[end:], "utf-8")
        assert "<script" not in report.read_text("utf-8")
    png = tmp_path / f"report-{'js' if javascript else 'nojs'}.png"
    _screenshot(browser, report, png, javascript)
    print(f"report rendered by {Path(browser).name}: {png} (page {report})")

    with Image.open(png) as shot:
        img = shot.convert("RGB")
    assert img.size == (1280, 2000)
    # not blank: a real page has contrast and many colours (text, badges, phone screenshots)
    assert min(ImageStat.Stat(img).stddev) > 15
    assert len(img.getcolors(maxcolors=1 << 22) or []) > 1000
    # the failure is visible in red, and the failing step's screenshots decoded in the browser
    assert _count_near(img, _FAILED_RED) > 500
    assert _count_near(img, _DEMO_BUTTON) > 2000
