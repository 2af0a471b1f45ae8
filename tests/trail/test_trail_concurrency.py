"""Concurrent writers of one trail file lose nothing (issue 12 item 12, ADR 0019).

Several processes (self-heal on Android and iOS, `record` on another step) load the same trail and
save their own recordings at about the same moment. Saving locks the file, reads it again and
splices only this trail's edits into what the others left; a step that another writer changed
meanwhile fails the save loudly instead of being overwritten.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from trailblaze.errors import TrailConflictError
from trailblaze.trail.model import ToolCall, load_trail

TRAIL = """\
# shared by two platforms; comments survive every save
config:
  id: shared
trail:
  - step: Type the user name
  - step: Type the password
  - step: Open settings
"""

# Each writer: load, wait for the common start moment, set one recording, save.
_WRITER = textwrap.dedent(
    """
    import sys, time
    from trailblaze.trail.model import ToolCall, load_trail
    path, step, classifier, value, start = sys.argv[1:6]
    trail = load_trail(path)
    time.sleep(max(0.0, float(start) - time.time()))
    trail.set_recording(int(step), classifier, [ToolCall(name="inputText", params={"text": value})])
    trail.save()
    """
)

WRITERS = [(0, "android"), (0, "ios"), (1, "android"), (2, "ios")]


def _round(path: Path, n: int) -> int:
    """One round of four concurrent writers; returns how many of their recordings are missing."""
    path.write_text(TRAIL)
    start = time.time() + 1.0  # every process has loaded the trail by then
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), str(step), classifier, f"r{n}-{step}-{classifier}", f"{start}"],
            stderr=subprocess.PIPE,
            text=True,
        )
        for step, classifier in WRITERS
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    trail = load_trail(path)
    lost = 0
    for step, classifier in WRITERS:
        tools = (trail.steps[step].recording or {}).get(classifier)
        lost += tools != [ToolCall(name="inputText", params={"text": f"r{n}-{step}-{classifier}"})]
    assert path.read_text().startswith("# shared by two platforms")
    return lost


@pytest.mark.slow
def test_ten_rounds_of_four_concurrent_writers_lose_no_update(tmp_path: Path) -> None:
    path = tmp_path / "shared.trail.yaml"
    lost = sum(_round(path, n) for n in range(10))
    assert lost == 0, f"{lost} of 40 recordings lost"
    assert sorted(os.listdir(tmp_path)) == ["shared.trail.yaml"]  # no lock or temp file left behind


def test_a_step_changed_by_another_writer_fails_the_save(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    trail = load_trail(path)
    path.write_text(TRAIL.replace("Type the password", "Type the passphrase"))  # someone edits step 2
    trail.set_recording(1, "android", [ToolCall(name="pressBack")])
    with pytest.raises(TrailConflictError, match=r"t.trail.yaml: step 2 \('Type the password'\) was changed"):
        trail.save()
    assert "passphrase" in path.read_text() and "pressBack" not in path.read_text()
    assert TrailConflictError("x").exit_code == 2


def test_a_step_moved_by_another_writer_fails_the_save(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    trail = load_trail(path)
    path.write_text(TRAIL.replace("trail:\n", "trail:\n  - step: Launch the app\n"))
    trail.set_recording(2, "ios", [ToolCall(name="pressBack")])
    with pytest.raises(TrailConflictError, match="step 3"):
        trail.save()


def test_other_writers_recordings_and_edits_elsewhere_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    mine, theirs = load_trail(path), load_trail(path)
    theirs.set_recording(0, "ios", [ToolCall(name="pressBack")])
    theirs.save()
    text = path.read_text().replace("Open settings", "Open the settings")  # an edit to a step we don't record
    path.write_text(text)
    mine.set_recording(0, "android", [ToolCall(name="hideKeyboard")])
    mine.save()
    again = load_trail(path)
    assert again.steps[0].recording == {
        "ios": [ToolCall(name="pressBack")],
        "android": [ToolCall(name="hideKeyboard")],
    }
    assert again.steps[2].text == "Open the settings"
    # a second save of the same trail keeps merging onto the file, not onto its stale model
    mine.set_recording(1, "android", [ToolCall(name="pressBack")])
    mine.save()
    final = load_trail(path)
    assert final.steps[2].text == "Open the settings" and final.steps[0].recording == again.steps[0].recording
    assert final.steps[1].recording == {"android": [ToolCall(name="pressBack")]}


def test_an_unchanged_file_saves_as_before(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    trail = load_trail(path)
    trail.set_recording(0, "android", [ToolCall(name="pressBack")])
    trail.save()
    trail.set_recording(1, "android", [ToolCall(name="pressBack")])
    trail.save()
    text = path.read_text()
    assert text.startswith("# shared") and text.count("pressBack") == 2
    assert sorted(os.listdir(tmp_path)) == ["t.trail.yaml"]


@pytest.mark.slow
def test_concurrent_android_and_ios_self_heals_both_land(tmp_path: Path) -> None:
    """The reported case: `replay --self-heal` on Android and on iOS at once, one trail file."""
    from trailblaze.testing import FakeMessagesAPI
    from trailblaze.testing.demo_policy import demo_policy

    root = ROOT
    trail = tmp_path / "login.trail.yaml"
    trail.write_bytes((root / "trails" / "login.trail.yaml").read_bytes())
    with FakeMessagesAPI(policy=demo_policy) as api:
        env = {**os.environ, "ANTHROPIC_BASE_URL": api.url, "COLUMNS": "200"}
        env.pop("ANTHROPIC_API_KEY", None)
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "trailblaze", "replay", str(trail), "--device", f"sim:{platform}:demo@v2",
                 "--secret", "password=hunter2", "--element-timeout", "1", "--self-heal",
                 "--run-dir", str(tmp_path / f"run-{platform}")],  # fmt: skip
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for platform in ("android", "ios")
        ]
        outs = [proc.communicate(timeout=180) for proc in procs]
    for proc, (out, err) in zip(procs, outs, strict=True):
        assert proc.returncode == 0, out + err
        assert "passed-with-self-heal" in out
    healed = load_trail(trail).steps[3].recording or {}
    assert "dev.trailblaze.demo:id/log_in" in str(healed["android"])
    assert "'log_in'" in str(healed["ios"])


@pytest.mark.slow
def test_record_refuses_to_save_a_step_edited_while_it_was_solved(tmp_path: Path) -> None:
    """`record`: someone rewords the step while the agent solves it → exit 2, the edit is kept."""
    from typing import Any

    from trailblaze.testing import FakeMessagesAPI
    from trailblaze.testing.demo_policy import demo_policy

    root = ROOT
    trail = tmp_path / "search.trail.yaml"
    trail.write_bytes((root / "trails" / "search.trail.yaml").read_bytes())
    # Without its Android recordings, so the record run has something new to save.
    bare = load_trail(trail)
    for step in bare.steps:
        step.recording = {k: v for k, v in (step.recording or {}).items() if k != "android"}
    bare.save()
    first = load_trail(trail).steps[0].text

    def edit_then_answer(body: dict[str, Any]) -> Any:
        text = trail.read_text()
        if first in text:
            trail.write_text(text.replace(first, "Open the app fresh"))
        return demo_policy(body)

    with FakeMessagesAPI(policy=edit_then_answer) as api:
        env = {**os.environ, "ANTHROPIC_BASE_URL": api.url, "COLUMNS": "200"}
        env.pop("ANTHROPIC_API_KEY", None)
        done = subprocess.run(
            [sys.executable, "-m", "trailblaze", "record", str(trail), "--device", "sim:android",
             "--secret", "password=hunter2", "--run-dir", str(tmp_path / "run")],  # fmt: skip
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"error: search.trail.yaml: step 1 ({first!r}) was changed in the file by someone else" in done.stderr
    assert "run again on the current file" in done.stderr and "Traceback" not in done.stderr
    assert load_trail(trail).steps[0].text == "Open the app fresh"
