"""A secret typed into a plain field is blacked out of every stored picture (issue 38, item 2).

The step types `{{password}}` into the demo app's Email field, a plain (not a password) field that
shows what it holds. Its stored `after` picture, the report's images (`--report` and
`trailblaze report --merge`), a failing pytest test's `failure.jpg` and the agent's pictures (kept
beside its LLM transcripts) are checked with Pillow, no OCR: the field's pixels are one uniform black
where the same run without secrets (the value passed with `--memory`) shows a light field with text,
and the rest of the picture is the same.
"""

from __future__ import annotations

import base64
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest
from PIL import Image, ImageChops, ImageStat

from tests.support.cli import trailblaze
from trailblaze.screen.hierarchy import Rect
from trailblaze.screen.saved_screen import parse_saved_screen

pytestmark = pytest.mark.slow
pytest_plugins = ["pytester"]

PASSWORD = "hunter2-mask"
PLATFORMS = ("android", "ios")
_EMAIL = {"android": "dev.trailblaze.demo:id/email", "ios": "email"}
_TYPE = {
    "android": "        - tapOnElementBySelector: {nodeSelector: {androidAccessibility: "
    "{resourceIdRegex: 'dev.trailblaze.demo:id/email'}}}\n",
    "ios": "        - tapOnElementBySelector: {nodeSelector: {iosMaestro: {resourceIdRegex: email}}}\n",
}
TRAIL = (
    "config:\n  id: mask/probe\ntrail:\n  - step: Launch the demo app with a clean state\n    recording:\n"
    + "".join(
        f"      {p}:\n        - launchApp: {{appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}}\n"
        for p in PLATFORMS
    )
    + "  - step: Type the password into the Email field\n    recording:\n"
    + "".join(f"      {p}:\n{_TYPE[p]}        - inputText: {{text: '{{{{password}}}}'}}\n" for p in PLATFORMS)
)


@dataclass
class Run:
    """A replay's run directory and report."""

    root: Path
    report: Path

    def shot(self, step: int, when: str) -> Image.Image:
        """The picture run.json names for a step (a step's `before` may be the previous `after` file)."""
        (trail,) = json.loads((self.root / "run.json").read_text("utf-8"))["trails"]
        return Image.open(self.root / trail["steps"][step][f"screenshot_{when}"]).convert("RGB")

    def email(self) -> tuple[Rect, float, float]:
        """The Email field's bounds in the typing step's dump, and the picture's pixels per unit."""
        dump = next(p for p in (self.root / "01-probe-trail").glob("step-01-after.*") if p.suffix in (".xml", ".json"))
        hierarchy = parse_saved_screen(dump.read_bytes())
        (node,) = [n for n in hierarchy.walk() if n.resource_id == _EMAIL[hierarchy.platform]]
        image = self.shot(1, "after")
        return node.visible_bounds, image.width / hierarchy.width, image.height / hierarchy.height


def _replay(tmp_path: Path, platform: str, name: str, *values: str) -> Run:
    trail = tmp_path / "probe.trail.yaml"
    trail.write_text(TRAIL)
    run, report = tmp_path / name, tmp_path / f"{name}.html"
    done = trailblaze(
        "replay", str(trail), "--device", f"sim:{platform}", *values, "--run-dir", str(run), "--report", str(report)
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return Run(run, report)


def _crop(image: Image.Image, box: Rect, kx: float, ky: float, inset: int = 4) -> Image.Image:
    return image.crop(
        (
            round(box.left * kx) + inset,
            round(box.top * ky) + inset,
            round(box.right * kx) - inset,
            round(box.bottom * ky) - inset,
        )
    )


def _uniform_black(region: Image.Image) -> bool:
    stat = ImageStat.Stat(region.convert("L"))
    return stat.mean[0] < 8 and stat.stddev[0] < 4


def _report_images(report: Path) -> list[Image.Image]:
    """The pictures the report shows: files beside it (the default), or embedded (`--report-single-file`)."""
    found = re.findall(r'<img src="([^"]+)"', report.read_text("utf-8"))
    assert found, "the report shows no picture"
    return [
        Image.open(
            io.BytesIO(base64.b64decode(src.partition(",")[2]))
            if src.startswith("data:")
            else report.parent / unquote(src)
        ).convert("RGB")
        for src in found
    ]


def _dark_fields(images: list[Image.Image], box: Rect, kx: float, ky: float, width: int) -> int:
    """How many of the report's thumbnails show the Email field uniformly black."""
    count = 0
    for image in images:
        k = image.width / width  # a thumbnail of the stored picture
        count += _uniform_black(_crop(image, box, kx * k, ky * k, inset=2))
    return count


@pytest.mark.parametrize("platform", PLATFORMS)
def test_a_secret_typed_into_a_plain_field_is_black_in_every_stored_picture(platform: str, tmp_path: Path) -> None:
    masked = _replay(tmp_path, platform, "secret", "--secret", f"password={PASSWORD}")
    plain = _replay(tmp_path, platform, "plain", "--memory", f"password={PASSWORD}")
    box, kx, ky = masked.email()

    # the step's `after` picture: the field is one uniform black where the run without secrets shows it
    after, baseline = masked.shot(1, "after"), plain.shot(1, "after")
    assert _uniform_black(_crop(after, box, kx, ky))
    shown = _crop(baseline, box, kx, ky)
    assert ImageStat.Stat(shown.convert("L")).mean[0] > 150 and ImageStat.Stat(shown.convert("L")).stddev[0] > 10
    # ... and the rest of the picture is the device's: the title above the fields is untouched
    title = Rect(box.left, max(0, box.top - 2 * box.height), box.right, box.top - box.height // 2)
    diff = ImageChops.difference(_crop(after, title, kx, ky), _crop(baseline, title, kx, ky))
    assert ImageStat.Stat(diff.convert("L")).mean[0] < 3
    # the picture before the typing shows no secret: nothing is painted there
    assert not _uniform_black(_crop(masked.shot(1, "before"), box, kx, ky))

    # the report's thumbnails, and a report merged from the run directory, are made of the masked files
    width = after.width
    assert _dark_fields(_report_images(masked.report), box, kx, ky, width) == 1
    assert _dark_fields(_report_images(plain.report), box, kx, ky, width) == 0
    for form in ([], ["--report-single-file"]):  # the stored files beside it, or thumbnails made from them
        merged = tmp_path / f"merged{len(form)}.html"
        done = trailblaze("report", "--merge", str(masked.root), "-o", str(merged), *form)
        assert done.returncode == 0, done.stdout + done.stderr
        assert _dark_fields(_report_images(merged), box, kx, ky, width) == 1


_FAILING_TEST = """
def test_types_the_password_then_fails(driver, trail_runner):
    for tool in (
        "tapOnElementBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: 'dev.trailblaze.demo:id/email'}}}",
        "inputText: {text: '{{password}}'}",
    ):
        assert trail_runner.tool(tool).ok
    assert driver.current_app() == "nothing.like.this"
"""


def test_a_failing_pytest_test_keeps_a_masked_screen(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_flow=_FAILING_TEST)
    pytester.makeini("[pytest]\naddopts = -p no:cacheprovider\n")
    result = pytester.runpytest_subprocess(
        "test_flow.py", "--device", "sim:android", "--trailblaze-secret", f"password={PASSWORD}"
    )
    result.assert_outcomes(failed=1)
    kept = pytester.path / "test-results" / "trailblaze" / "test_flow.py-test_types_the_password_then_fails"
    hierarchy = parse_saved_screen((kept / "failure.xml").read_bytes())
    (email,) = [n for n in hierarchy.walk() if n.resource_id == _EMAIL["android"]]
    assert "{{password}}" in email.text  # the dump says which field held the secret
    (shot,) = [p for p in kept.iterdir() if p.stem == "failure" and p.suffix in (".jpg", ".png")]
    image = Image.open(shot).convert("RGB")
    k = image.width / hierarchy.width
    assert _uniform_black(_crop(image, email.visible_bounds, k, k))


def test_the_agent_s_pictures_are_masked(tmp_path: Path) -> None:
    """A step the agent solves: the picture sent with each request, kept beside its transcript."""
    from trailblaze.testing import FakeMessagesAPI
    from trailblaze.testing.demo_policy import demo_policy

    trail = tmp_path / "agent.trail.yaml"
    trail.write_text(
        TRAIL.split("  - step: Type")[0]
        + "  - step: Type the password from the secret `password` into the Email field\n"
        + "  - verify: The Email field is filled in\n"
    )
    run = tmp_path / "run"
    with FakeMessagesAPI(policy=demo_policy) as api:
        done = trailblaze(
            "replay", str(trail), "--device", "sim:android", "--secret", f"password={PASSWORD}",
            "--run-dir", str(run), base_url=api.url,
        )  # fmt: skip
    assert "agent" in done.stdout, done.stdout + done.stderr
    pictures = sorted((run / "01-agent-trail" / "llm").glob("*.jpg"))
    transcripts = [json.loads(p.with_suffix(".json").read_text()) for p in pictures]
    assert pictures and len(pictures) == len(transcripts)
    typed = 0
    for picture in pictures:
        stem = picture.name.split("-call-")[0]
        dumps = [p for p in picture.parent.parent.glob(f"{stem}-after.xml")]
        if not dumps:
            continue
        hierarchy = parse_saved_screen(dumps[0].read_bytes())
        (email,) = [n for n in hierarchy.walk() if n.resource_id == _EMAIL["android"]]
        if "{{password}}" not in email.text:
            continue
        image = Image.open(picture).convert("RGB")
        k = image.width / hierarchy.width
        region = _crop(image, email.visible_bounds, k, k, inset=6)  # the ref's outline is drawn on its edge
        dark = sum(region.convert("L").histogram()[:40]) / (region.width * region.height)
        typed += dark > 0.97
    assert typed >= 1  # the verify step's picture shows the filled-in field, blacked out


_FLOW = """\
appId: dev.trailblaze.demo
name: typed
---
- launchApp:
    clearState: true
- tapOn:
    id: email
- inputText: ${password}
- takeScreenshot: typed
"""


def test_maestro_take_screenshot_is_masked(tmp_path: Path) -> None:
    (tmp_path / "typed.yaml").write_text(_FLOW)
    done = trailblaze(
        "replay", "typed.yaml", "--device", "sim:android", "--secret", f"password={PASSWORD}", cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (picture,) = (tmp_path / ".trailblaze" / "runs").rglob("typed.png")
    dump = picture.parent / "step-03-after.xml"  # the takeScreenshot step: the screen it saved
    hierarchy = parse_saved_screen(dump.read_bytes())
    (email,) = [n for n in hierarchy.walk() if n.resource_id == _EMAIL["android"]]
    assert "{{password}}" in email.text
    image = Image.open(picture).convert("RGB")
    k = image.width / hierarchy.width
    assert _uniform_black(_crop(image, email.visible_bounds, k, k))
