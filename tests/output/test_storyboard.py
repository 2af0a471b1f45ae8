"""A storyboard per trail (issue 40, item 4): every replay writes an animated WebP per trail from the
stored step screenshots, captioned with each step's text and status, shown at the top of the trail in
the HTML report and linked from JUnit; under `--screenshots failures` a failing trail still gets one."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat

from tests.support.cli import copy_example, trailblaze
from trailblaze.output.runlog import StepRecord, TrailRecord, load_run
from trailblaze.output.storyboard import FRAME_WIDTH, frames_of, write_storyboard

pytestmark = pytest.mark.slow


def _frames(path: Path) -> list[Image.Image]:
    with Image.open(path) as movie:
        assert movie.format in ("WEBP", "GIF") and getattr(movie, "is_animated", False)
        frames = []
        for i in range(movie.n_frames):
            movie.seek(i)
            frames.append(movie.convert("RGB"))
    return frames


def _caption(frame: Image.Image) -> Image.Image:
    return frame.crop((0, frame.height - 60, frame.width, frame.height))


def _has(image: Image.Image, color: tuple[int, int, int], tolerance: int = 40) -> bool:
    colors = image.getcolors(maxcolors=image.width * image.height) or []
    return any(all(abs(a - b) <= tolerance for a, b in zip(rgb, color, strict=True)) for _, rgb in colors)


GREEN, RED = (26, 127, 55), (207, 34, 46)


def test_a_replay_writes_a_captioned_storyboard_the_report_shows_and_junit_links(tmp_path: Path) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    run = tmp_path / "run"
    done = trailblaze(
        "replay", str(trail), "--device", "sim:android", "--secret", "password=hunter2", "--run-dir", str(run),
        "--report", str(tmp_path / "report.html"), "--junit", str(tmp_path / "junit.xml"), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    record = load_run(run).trails[0]
    assert record.storyboard == f"{record.directory}/storyboard.webp"
    frames = _frames(run / record.storyboard)
    assert len(frames) == 5  # one per step
    assert all(f.width == FRAME_WIDTH and f.size == frames[0].size for f in frames)
    captions = [_caption(f) for f in frames]
    assert all(_has(c, GREEN) for c in captions)  # the title in the colour of `passed`
    assert all(ImageChops.difference(a, b).getbbox() for a, b in zip(captions, captions[1:], strict=False))
    # each frame's picture is the stored screenshot the run directory kept (masked where it is stored)
    stored = Image.open(run / str(record.steps[2].screenshot_after)).convert("RGB")
    expected = stored.resize((FRAME_WIDTH, round(stored.height * FRAME_WIDTH / stored.width)))
    shown = frames[2].crop((0, 0, *expected.size))
    assert _mean_difference(shown, expected) < 12

    html = (tmp_path / "report.html").read_text()
    body = html[html.index('id="trail-1"') :]
    shown = f'<figure class="storyboard"><img src="report_files/{record.storyboard}"'
    assert body.index(shown) < body.index('class="facts')  # the run's own file, put beside the report
    assert (tmp_path / "report_files" / record.storyboard).read_bytes() == (run / record.storyboard).read_bytes()
    case = ET.parse(tmp_path / "junit.xml").getroot().find(".//testcase")
    assert case is not None
    link = {p.get("name"): p.get("value") for p in case.iter("property")}["trailblaze.storyboard"]
    assert link == f"run/{record.storyboard}" and (tmp_path / link).is_file()
    assert f"[[ATTACHMENT|{link}]]" in (case.findtext("system-out") or "")


def _mean_difference(a: Image.Image, b: Image.Image) -> float:
    return float(ImageStat.Stat(ImageChops.difference(a, b).convert("L")).mean[0])


def test_under_screenshots_failures_a_failing_trail_still_gets_its_storyboard(tmp_path: Path) -> None:
    good = copy_example("login.trail.yaml", tmp_path)
    bad = tmp_path / "broken.trail.yaml"
    bad.write_text(good.read_text().replace("id/sign_in", "id/sign_out").replace("demo/login", "demo/broken"))
    run = tmp_path / "run"
    done = trailblaze(
        "replay", str(bad), str(good), "--device", "sim:android", "--secret", "password=hunter2",
        "--run-dir", str(run), "--screenshots", "failures", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    failing, passing = load_run(run).trails
    assert passing.storyboard is None  # nothing was stored to show
    assert failing.storyboard is not None
    frames = _frames(run / failing.storyboard)
    assert len(frames) == 4  # steps 1-4 ran; step 5 was skipped
    assert _has(_caption(frames[-1]), RED) and not _has(_caption(frames[0]), RED)
    # steps 1-3 kept no screenshot: caption cards, all alike above the caption; the failure is a picture
    assert not ImageChops.difference(frames[0].crop((0, 0, 320, 300)), frames[1].crop((0, 0, 320, 300))).getbbox()
    assert ImageChops.difference(frames[0].crop((0, 0, 320, 300)), frames[3].crop((0, 0, 320, 300))).getbbox()


def test_no_stored_screenshot_no_storyboard_and_captions_are_redacted(tmp_path: Path) -> None:
    steps = [StepRecord(index=0, kind="step", text="Type {{password}}", status="passed")]
    trail = TrailRecord(path="t.trail.yaml", steps=steps, directory="01-t")
    (tmp_path / "01-t").mkdir()
    assert frames_of(trail) == [] and write_storyboard(tmp_path, trail) is None
    # a path out of the run directory (a hand-edited run.json) is not read
    steps[0].screenshot_after = "../../etc/passwd"
    assert write_storyboard(tmp_path, trail) is None
    assert re.fullmatch(r"step 1 of 1 · passed", frames_of(trail)[0].title)
