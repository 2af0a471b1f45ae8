"""Maestro web flows (`url:` instead of `appId:`, issue 37 item 2): they run in a browser on the web
driver, `launchApp` opens the URL, Maestro's text and id matching selects the page's elements; on a
phone they are skipped with the reason, and `import maestro` records them for `web` only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import trailblaze
from tests.support.paths import DATA
from tests.support.system_tools import require

pytestmark = pytest.mark.slow

TODOMVC = DATA / "web" / "todomvc" / "index.html"


def _flow(folder: Path, last: str) -> Path:
    flow = folder / "todo.yaml"
    flow.write_text(
        f"url: {TODOMVC.as_uri()}\n"
        "---\n"
        "- launchApp\n"
        '- tapOn: "What needs to be done\\\\?"\n'
        '- inputText: "Buy milk"\n'
        "- pressKey: Enter\n"
        '- inputText: "Walk the dog"\n'
        "- pressKey: Enter\n"
        '- assertVisible: "Buy milk"\n'
        f'- assertVisible: "{last}"\n',
        encoding="utf-8",
    )
    return flow


def test_a_web_flow_runs_in_the_browser_and_can_fail(tmp_path: Path) -> None:
    require("chromium", why="a Maestro web flow runs in the browser")
    _flow(tmp_path, ".*items left")
    passed = trailblaze("replay", "todo.yaml", "--device", "web", "--run-dir", "run", cwd=tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    steps = json.loads((tmp_path / "run" / "run.json").read_text("utf-8"))["trails"][0]["steps"]
    assert [s["status"] for s in steps] == ["passed"] * 8
    _flow(tmp_path, "Write the report")  # never typed: the flow's last assertion must fail
    failed = trailblaze("replay", "todo.yaml", "--device", "web", "--element-timeout", "1", cwd=tmp_path)
    assert failed.returncode == 1 and "no element matches text 'Write the report'" in failed.stdout


def test_a_web_flow_is_skipped_on_a_phone_and_imports_for_web_only(tmp_path: Path) -> None:
    _flow(tmp_path, ".*items left")
    phone = trailblaze("replay", "todo.yaml", "--device", "sim:android", cwd=tmp_path)
    assert phone.returncode == 2, phone.stdout + phone.stderr  # it ran nothing, and says so
    assert "a Maestro web flow (url:) runs in a browser: use --device web" in phone.stdout
    assert "1 skipped" in phone.stdout and "error: nothing ran: the one trail was skipped" in phone.stderr
    imported = trailblaze("import", "maestro", "todo.yaml", "--out", "trails", cwd=tmp_path)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    (trail,) = (tmp_path / "trails").rglob("*.trail.yaml")
    text = trail.read_text("utf-8")
    assert "      web:\n" in text and "android:" not in text.split("trail:")[1]
