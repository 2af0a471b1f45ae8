"""A run that drove several devices opens on a trails × devices grid: each cell the trail's last screen on
that device, coloured by its result, linked to its storyboard (trailblaze/output/report_grid.py)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.report import build_run_dir
from trailblaze.output.report import write_html_report
from trailblaze.output.report_grid import last_screen, matrix
from trailblaze.output.runlog import load_run


def _two_devices(run_dir: Path) -> None:
    """The five-trail run, its trails spread over two devices as a matrix run leaves them."""
    run = build_run_dir(run_dir)
    for n, trail in enumerate(run.trails):
        trail.device = "sim:android" if n % 2 == 0 else "sim:android+small"
        trail.id = "demo/login" if n in (0, 1) else trail.id
    run.trails[0].storyboard = f"{run.trails[0].directory}/storyboard.webp"
    run.device = ""
    from trailblaze.output.runlog import write_run

    write_run(run, run_dir)


def test_a_matrix_run_opens_on_a_grid_of_trails_by_devices(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    _two_devices(run_dir)
    run = load_run(run_dir)
    grid = matrix(run.trails)
    assert grid.devices == ["sim:android", "sim:android+small"]
    assert grid.cells[("demo/login", "sim:android")][0] == 1 and grid.cells[("demo/login", "sim:android+small")][0] == 2
    page = write_html_report(run_dir).read_text("utf-8")
    section = page[page.index('<section class="grid"') : page.index("</section>")]
    assert "<th scope=\"col\">sim:android</th><th scope=\"col\">sim:android+small</th>" in section
    cells = re.findall(r'<td class="g-([a-z-]+)">(.*?)</td>', section)
    shown = [t for t in run.trails if last_screen(t)]
    assert len(cells) == len(run.trails) and {s for s, _ in cells} == {t.status for t in run.trails}
    thumbs = [body for _, body in cells if "<img" in body]
    assert len(thumbs) == len(shown) > 0
    # the picture opens the storyboard (else the trail's section); the badge the trail's section
    assert re.search(r'<a class="thumb" href="[^"#]*/storyboard.webp">', thumbs[0]), thumbs[0]
    assert all(re.search(r'<a class="thumb" href="#trail-\d+">', body) for body in thumbs[1:])
    assert all(re.search(r'<a href="#trail-\d+">', body) for body in thumbs)
    assert page.index('<section class="grid"') < page.index('<nav class="index"')


def test_a_run_on_one_device_has_no_grid(tmp_path: Path) -> None:
    from trailblaze.output.runlog import write_run

    run = build_run_dir(tmp_path / "run")
    for trail in run.trails:
        trail.device = "sim:android"
    write_run(run, tmp_path / "run")
    assert '<section class="grid"' not in write_html_report(tmp_path / "run").read_text("utf-8")
