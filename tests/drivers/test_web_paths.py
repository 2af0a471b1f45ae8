"""Relative web paths (issue 25, item 6): `web_navigate`'s file path is read from the trail's folder,
as `runTrail` paths are, so `trailblaze replay trails/web/` works from any working directory;
`--device web:PATH` takes the same relative path; a bare `snapshot --device web` says what to pass."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

pytest.importorskip("playwright", reason="the web driver needs `pip install -e ./drivers/web` (playwright)")
if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
    pytest.skip("no browser: install Debian's `chromium` package for the web tests", allow_module_level=True)



def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(ROOT)}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180
    )


@pytest.mark.slow
def test_the_web_example_replays_from_any_folder(tmp_path: Path) -> None:
    for cwd in (tmp_path, ROOT / "trails" / "web"):
        run = tmp_path / f"run-{cwd.name}"
        done = _run(cwd, "replay", str(ROOT / "trails" / "web"), "--device", "web", "--run-dir", str(run))
        assert done.returncode == 0, f"from {cwd}: {done.stdout}{done.stderr}"
        assert "1 trail: 1 passed" in done.stdout
        # the page is photographed on the run's own thread (Playwright answers no other), so every
        # step has its picture and no screenshot failed into a retry
        shots = sorted(p.name for p in run.rglob("step-*-after.png"))
        assert shots == [f"step-{n:02d}-after.png" for n in range(5)], shots
        assert '"hiccups": 0' in (run / "run.json").read_text("utf-8")


@pytest.mark.slow
def test_a_missing_file_names_the_trail_folder(tmp_path: Path) -> None:
    trail = tmp_path / "t.trail.yaml"
    trail.write_text(
        "config: {id: t, skip: {android: web, ios: web}}\n"
        "trail:\n  - step: Open\n    recording:\n      web:\n        - web_navigate: {url: site/nope.html}\n"
    )
    done = _run(ROOT, "replay", str(trail), "--device", "web", "--run-dir", str(tmp_path / "run"))
    assert done.returncode == 1
    assert f"no file {tmp_path / 'site' / 'nope.html'} (a url without a scheme is a path from the trail's folder" in (
        " ".join(done.stdout.split())
    )


@pytest.mark.slow
def test_snapshot_takes_a_relative_path_and_says_what_a_bare_web_needs() -> None:
    shown = _run(ROOT, "snapshot", "--device", "web:tests/data/web/todomvc/index.html")
    assert shown.returncode == 0, shown.stderr
    assert 'textbox "What needs to be done?"' in shown.stdout
    bare = _run(ROOT, "snapshot", "--device", "web")
    assert bare.returncode == 2 and bare.stdout == ""
    assert bare.stderr.startswith("error: --device web opens a blank page; pass the page to show: --device web:URL")
    missing = _run(ROOT, "snapshot", "--device", "web:nope/index.html")
    assert missing.returncode == 2 and f"no file {ROOT / 'nope' / 'index.html'}" in missing.stderr
