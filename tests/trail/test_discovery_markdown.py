"""Folder discovery like Trailblaze's, and Markdown test cases (`*.trail.md`) (ADR 0021)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import trailblaze
from tests.support.paths import ROOT
from trailblaze.errors import TrailFileError
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import find_trail_files, load_trail

NL = "trail:\n  - step: {}\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "trails"
    write(root / "clock" / "set-alarm" / "android-phone.trail.yaml", NL.format("phone"))
    write(root / "clock" / "set-alarm" / "android.trail.yaml", NL.format("android"))
    write(root / "clock" / "set-alarm" / "ios.trail.yaml", NL.format("ios"))
    write(root / "clock" / "set-alarm" / "trail.yaml", NL.format("any"))
    write(root / "contacts" / "create" / "blaze.yaml", NL.format("blaze"))
    write(root / "contacts" / "create" / "notes.yaml", "not a trail\n")
    write(root / "tablet-only" / "android-tablet.trail.yaml", NL.format("tablet"))
    write(root / "login.trail.yaml", NL.format("login"))
    write(root / "build" / "generated.trail.yaml", NL.format("build output"))
    write(root / "app" / "build" / "copy" / "trail.yaml", NL.format("nested build output"))
    write(root / ".hidden" / "x.trail.yaml", NL.format("hidden"))
    write(root / "md" / "case.trail.md", "- Open the app\n")
    write(root / "md" / "done.trail.md", "- Open the app\n")
    write(root / "md" / "done.trail.yaml", NL.format("recorded"))
    return root


def names(files: list[Path], root: Path) -> list[str]:
    return [f.relative_to(root).as_posix() for f in files]


def test_a_folder_trail_is_one_file_per_device_closest_first(tree: Path) -> None:
    found = {c: names(find_trail_files([tree], c)[0], tree) for c in ("android-phone", "android", "ios-ipad", "web")}
    assert "clock/set-alarm/android-phone.trail.yaml" in found["android-phone"]
    assert "clock/set-alarm/android.trail.yaml" in found["android"]
    assert "clock/set-alarm/ios.trail.yaml" in found["ios-ipad"]
    assert "clock/set-alarm/trail.yaml" in found["web"]
    for files in found.values():
        assert sum(f.startswith("clock/set-alarm/") for f in files) == 1
        assert "contacts/create/blaze.yaml" in files and "login.trail.yaml" in files
        assert "md/case.trail.md" in files and "md/done.trail.yaml" in files and "md/done.trail.md" not in files
        assert not any(f.startswith(("build/", "app/build/", ".hidden/")) for f in files)
    assert "tablet-only/android-tablet.trail.yaml" in found["android"]  # the platform alone: its narrower file
    assert "tablet-only/android-tablet.trail.yaml" not in found["android-phone"] + found["ios-ipad"]


def test_validate_checks_every_file_of_a_folder_trail(tree: Path) -> None:
    files, missing = find_trail_files([tree])
    assert not missing
    assert {"clock/set-alarm/android-phone.trail.yaml", "clock/set-alarm/ios.trail.yaml", "clock/set-alarm/trail.yaml"} <= set(
        names(files, tree)
    )
    explicit, _ = find_trail_files([tree / "build" / "generated.trail.yaml"])
    assert explicit == [tree / "build" / "generated.trail.yaml"]  # a file named explicitly is taken


@pytest.mark.slow
def test_replay_of_a_folder_picks_the_device_file_and_the_folder_names_the_trail(tmp_path: Path) -> None:
    login = (ROOT / "trails" / "login.trail.yaml").read_text()
    without_id = login.replace("  id: demo/login\n", "")
    folder = tmp_path / "trails" / "sign-in"
    write(folder / "android.trail.yaml", without_id)
    write(folder / "ios.trail.yaml", "trail:\n  - step: never run on android\n    recording:\n      ios:\n        - nope\n")
    write(tmp_path / "trails" / "build" / "stale.trail.yaml", "not: [valid\n")
    done = trailblaze(
        "replay", str(tmp_path / "trails"), "--device", "sim:android", "--secret", "password=hunter2",
        "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 trail: 1 passed" in done.stdout
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    (trail,) = run["trails"]
    assert trail["id"] == "sign-in" and Path(trail["path"]).name == "android.trail.yaml"


@pytest.mark.slow
def test_pytest_collects_a_folder_trail_once_and_skips_build(tmp_path: Path) -> None:
    write(tmp_path / "trails" / "sign-in" / "android-phone.trail.yaml", NL.format("phone"))
    write(tmp_path / "trails" / "sign-in" / "ios.trail.yaml", NL.format("ios"))
    write(tmp_path / "trails" / "build" / "old.trail.yaml", NL.format("stale"))
    write(tmp_path / "trails" / "notes" / "case.trail.md", "- Open the app\n")
    write(tmp_path / "pytest.ini", "[pytest]\n")
    for device, picked in (("sim:android", "android-phone.trail.yaml"), ("sim:ios", "ios.trail.yaml")):
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "trails", "--device", device, "-p", "no:cacheprovider"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        items = [line for line in done.stdout.splitlines() if "::" in line]
        assert items == sorted(["trails/notes/case.trail.md::case", f"trails/sign-in/{picked}::sign-in"]), done.stdout


# --- Markdown test cases -------------------------------------------------------------------------------

CASE = """---
id: demo/login-md
title: Sign in (a Markdown test case)
target: dev.trailblaze.demo
context: >-
  The password for this account is provided as the secret `password`;
  type it only into the Password field.
---
# Sign in with a valid account

Written by a person; the recorder adds the tools to `login.trail.yaml`.

- Launch the demo app with a clean state
- Type user@example.com into the Email field
- Type the password from the secret `password`
  into the Password field
- Tap the "Sign in" button
- Verify the Inbox screen is shown with the heading "Inbox"
"""


def test_markdown_reads_as_a_trail(tmp_path: Path) -> None:
    case = write(tmp_path / "login.trail.md", CASE)
    trail = load_trail(case)
    assert trail.path == str(tmp_path / "login.trail.yaml") and trail.config is not None
    assert trail.config.id == "demo/login-md" and "secret `password`" in (trail.config.context or "")
    assert [(s.kind, s.text) for s in trail.steps] == [
        ("step", "Launch the demo app with a clean state"),
        ("step", "Type user@example.com into the Email field"),
        ("step", "Type the password from the secret `password` into the Password field"),
        ("step", 'Tap the "Sign in" button'),
        ("verify", 'Verify the Inbox screen is shown with the heading "Inbox"'),
    ]
    assert all(s.recording is None for s in trail.steps)


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("---\nid: x\nnope: 1\n---\n- a\n", "3:1", "unknown key `nope` in config"),
        ("---\nid: x\n- a\n", "1:1", "front matter `---` is never closed"),
        ("# title\n\n- a\n-\n- b\n", "4:1", "an empty list item"),
        ("---\nid: x\n---\nJust prose.\n", "3:1", "no steps"),
        ("---\ntags: [a\n---\n- a\n", "3:", "YAML syntax error: while parsing a flow sequence (line 2)"),
    ],
)
def test_markdown_errors_name_the_md_file_line(tmp_path: Path, text: str, where: str, message: str) -> None:
    case = write(tmp_path / "bad.trail.md", text)
    with pytest.raises(TrailFileError) as info:
        load_trail(case)
    first = str(info.value).splitlines()[0]
    assert first.startswith(f"{case}:{where}") and message in first, first
    done = trailblaze("validate", str(case))
    assert done.returncode == 2 and f"bad.trail.md:{where}" in done.stdout and "Traceback" not in done.stderr


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(policy=demo_policy) as server:
        yield server


@pytest.mark.slow
def test_record_a_markdown_case_writes_the_sibling_yaml_then_replays_it(api: FakeMessagesAPI, tmp_path: Path) -> None:
    case = write(tmp_path / "login.trail.md", CASE)
    common = ["--device", "sim:android", "--secret", "password=hunter2"]
    done = trailblaze("record", str(case), *common, "--run-dir", str(tmp_path / "run"), base_url=api.url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert case.read_text() == CASE  # the .md is never touched
    sibling = tmp_path / "login.trail.yaml"
    # … and the output names the file that was written, not the .md
    assert f"{sibling} was updated:" in done.stdout and "+++ b/login.trail.yaml" in done.stdout, done.stdout
    recorded = load_trail(sibling)
    assert [s.kind for s in recorded.steps] == ["step"] * 4 + ["verify"]
    assert all(s.recording_for("android") for s in recorded.steps)
    tools = [c.to_data() for s in recorded.steps for c in s.recording_for("android") or []]
    assert any(t.get("inputText", {}).get("text") == "{{password}}" for t in tools)
    assert "hunter2" not in sibling.read_text()
    assert "# Sign in with a valid account" in sibling.read_text()
    calls = len(api.requests)
    # later runs use the .yaml (the .md is noted), with no LLM
    done = trailblaze("replay", str(case), *common, "--run-dir", str(tmp_path / "run2"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "note: login.trail.md is not read: login.trail.yaml beside it holds the trail" in " ".join(done.stdout.split())
    assert len(api.requests) == calls
    folder = trailblaze("replay", str(tmp_path), *common, "--run-dir", str(tmp_path / "run3"))
    assert folder.returncode == 0 and "1 trail: 1 passed" in folder.stdout, folder.stdout + folder.stderr
