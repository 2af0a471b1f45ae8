"""`trailblaze replay` with several `--device`s: every trail on each device, one run directory per device,
one merged report opening on the trails × devices grid, one JUnit file, the worst exit code."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.cli import copy_example, trailblaze
from tests.support.paths import ROOT

pytestmark = pytest.mark.slow


def test_a_matrix_replay_merges_its_devices_and_fails_when_one_fails(tmp_path: Path) -> None:
    copy_example("login.trail.yaml", tmp_path)
    mutant = ROOT / "tests" / "data" / "mutants" / "inbox-heading.yaml"  # its inbox reads "Mailbox"
    done = trailblaze(
        "replay", "login.trail.yaml", "--device", "sim:android", "--device", "sim:android+small",
        "--device", f"sim:ios:{mutant}+tablet", "--secret", "password=hunter2", "--element-timeout", "1",
        "--run-dir", "run", "--report", "report.html", "--junit", "junit.xml", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert sorted(p.name for p in (tmp_path / "run").iterdir() if p.is_dir()) == [
        "1-sim-android",
        "2-sim-android+small",
        f"3-sim-ios-{str(mutant).strip('/').replace('/', '-')}+tablet"[:62],
    ]
    assert "merged 3 runs: 3 trails (2 passed, 1 failed)" in done.stdout
    page = (tmp_path / "report.html").read_text("utf-8")
    grid = page[page.index('<section class="grid"') : page.index("</section>")]
    assert grid.count('<th scope="col">') == 3 and grid.count('class="g-passed"') == 2
    assert grid.count('class="g-failed"') == 1
    cases = ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    assert sorted(c.find("failure") is not None for c in cases) == [False, False, True]


def test_one_device_given_twice_runs_once(tmp_path: Path) -> None:
    copy_example("login.trail.yaml", tmp_path)
    done = trailblaze(
        "replay", "login.trail.yaml", "--device", "sim:android", "--device", "sim:android",
        "--secret", "password=hunter2", "--run-dir", "run", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "device 1 of" not in done.stdout and (tmp_path / "run" / "run.json").is_file()
