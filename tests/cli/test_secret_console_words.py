"""A secret equal to a common word does not show which word is secret in the console's own text
(issue 38, item 4): values in data (trail text, ids, paths, errors) are redacted, the program's fixed
text (the summary table's header, labels, status words, `error:`) is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import trailblaze

pytestmark = pytest.mark.slow

_TRAIL = """\
config:
  id: words/status-check
trail:
  - step: Launch the app and look at its status
    recording:
      android:
        - launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}
"""
_WORDS = ["--secret", "s2=status", "--secret", "s3=passed", "--secret", "s4=error", "--secret", "s5=steps"]


def test_the_console_keeps_its_own_words_and_redacts_the_trail_s(tmp_path: Path) -> None:
    trail = tmp_path / "words.trail.yaml"
    trail.write_text(_TRAIL)
    done = trailblaze("replay", str(trail), "--device", "sim:android", *_WORDS, "--run-dir", str(tmp_path / "run"))
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    (header,) = [line for line in out.splitlines() if "┃" in line]
    assert header.split("┃")[1:3] == [" status ", " steps "], header  # the table's own column names
    (row,) = [line for line in out.splitlines() if line.startswith("words/")]
    assert row.split("│")[:2] == ["words/{{s2}}-check ", " passed "], row  # the id is data; the status is not
    assert "1 trail: 1 passed" in out
    # the step's text is data: the secret word in it is still redacted, on the step's line
    assert "Launch the app and look at its {{s2}}" in out
    for value in ("=status", "=passed"):
        assert value not in out


def test_the_error_line_keeps_its_label(tmp_path: Path) -> None:
    missing = tmp_path / "status.trail.yaml"
    done = trailblaze("replay", str(missing), "--device", "sim:android", *_WORDS)
    assert done.returncode == 2
    assert done.stderr.startswith("error: no trail file at "), done.stderr
    assert "{{s2}}.trail.yaml" in done.stderr  # the path is data
