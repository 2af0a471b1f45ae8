"""Form-factor recordings (docs/guides/every-device.md): a tablet whose layout breaks one phone-recorded
step says so on replay, and `port` (or `record`) on the tablet writes a recording for that step alone,
under `android-tablet`, leaving the phone's as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.cli import copy_example, trailblaze
from tests.support.paths import ROOT

APP = ROOT / "tests" / "data" / "apps" / "tablet-archive.yaml"
"""The demo app whose tablet layout turns Archive into an icon button (`archive_icon`)."""

pytestmark = pytest.mark.slow


def _recordings(path: Path) -> list[dict[str, object]]:
    return [step.get("recording") or {} for step in yaml.safe_load(path.read_text("utf-8"))["trail"]]


def test_a_tablet_gets_a_recording_for_the_one_step_its_layout_changes(tmp_path: Path) -> None:
    trail = copy_example("archive-message.trail.yaml", tmp_path)
    before = _recordings(trail)
    tablet = f"sim:android:{APP}+tablet"
    common = ["--secret", "password=hunter2", "--element-timeout", "1"]

    failed = trailblaze("replay", trail.name, "--device", tablet, *common, "--run-dir", "r1", cwd=tmp_path)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    said = " ".join(failed.stdout.split())
    assert "step 5 ('Tap \"Archive\"')" in said
    assert "this android-tablet (1600x2560 px) ran the android recording, made on another form factor" in said
    assert f"trailblaze record archive-message.trail.yaml --device {tablet}" in said

    ported = trailblaze(
        "port", trail.name, "--from", "android", "--device", tablet, *common, "--run-dir", "r2", cwd=tmp_path
    )
    assert ported.returncode == 0, ported.stdout + ported.stderr
    assert "ported 1 of 1 step with 0 model calls, 0 left for record" in ported.stdout
    after = _recordings(trail)
    assert [sorted(r) for r in after] == [
        sorted([*r, *(["android-tablet"] if i == 4 else [])]) for i, r in enumerate(before)
    ]
    assert after[4]["android-tablet"] == [
        {
            "tapOnElementBySelector": {
                "nodeSelector": {"androidAccessibility": {"resourceIdRegex": "dev.trailblaze.demo:id/archive_icon"}},
                "reason": "next: tap Archive",
            }
        }
    ]
    assert all(a.get("android") == b.get("android") for a, b in zip(after, before, strict=True))

    for device in (tablet, f"sim:android:{APP}"):  # the tablet takes its own, a phone the platform's
        again = trailblaze("replay", trail.name, "--device", device, *common, "--run-dir", "r3", cwd=tmp_path)
        assert again.returncode == 0, device + again.stdout + again.stderr


def test_record_on_a_tablet_asks_the_model_only_for_the_step_that_fails_there(tmp_path: Path) -> None:
    from trailblaze.testing.demo_policy import demo_policy
    from trailblaze.testing.messages_api import FakeMessagesAPI

    trail = copy_example("archive-message.trail.yaml", tmp_path)
    before = _recordings(trail)
    with FakeMessagesAPI(policy=demo_policy) as api:
        done = trailblaze(
            "record", trail.name, "--device", f"sim:android:{APP}+tablet", "--secret", "password=hunter2",
            "--element-timeout", "1", "--run-dir", "run", base_url=api.url, cwd=tmp_path,
        )  # fmt: skip
        calls = len(api.requests)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "recorded 1 step · verified by replay" in done.stdout
    after = _recordings(trail)
    assert [sorted(r) for r in after] == [sorted([*r, *(["android-tablet"] if i == 4 else [])]) for i, r in enumerate(before)]
    assert after[4]["android"] == before[4]["android"]
    assert 0 < calls <= 3  # one step solved by the model; the six others replayed its phone recording
