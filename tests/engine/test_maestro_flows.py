"""Maestro flows replayed with no LLM on the simulated phones, as flows and as imported trails (issue 26).

The flows in tests/data/maestro/flows/ cover every Maestro command the demo app can exercise; they
run through `trailblaze replay` (the real uiautomator2 / facebook-wda clients against the simulator),
then `trailblaze import maestro` writes them as trails, which must replay with the same results.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import trailblaze
from tests.support.paths import DATA as _DATA

# each replays flows end to end on both simulated platforms (minutes in all): the full suite only
pytestmark = pytest.mark.slow

DATA = _DATA / "maestro"
FLOWS = DATA / "flows"


def _trailblaze(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return trailblaze(*args, cwd=cwd, timeout=600)


def _results(cwd: Path) -> dict[str, list[tuple[str, str, list[str]]]]:
    """Per trail id: each step's text, status and tool statuses, from the one run.json under `cwd`."""
    (run_json,) = (cwd / ".trailblaze" / "runs").glob("*/run.json")
    out: dict[str, list[tuple[str, str, list[str]]]] = {}
    for trail in json.loads(run_json.read_text(encoding="utf-8"))["trails"]:
        steps: list[dict[str, Any]] = trail["steps"]
        out[trail["id"]] = [(s["text"], s["status"], [t["status"] for t in s["tools"]]) for s in steps]
    return out


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_flows_replay_as_flows_and_as_imported_trails_identically(platform: str, tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    shutil.copytree(FLOWS, flows)
    as_flows = tmp_path / "as-flows"
    as_flows.mkdir()
    ran = _trailblaze("replay", str(flows), "--device", f"sim:{platform}", cwd=as_flows)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    flow_results = _results(as_flows)
    assert set(flow_results) == {
        "Maestro login", "Maestro compose", "Maestro inbox", "Maestro settings", "Maestro control", "sign_in",
    }  # fmt: skip
    assert all(status == "passed" for steps in flow_results.values() for _, status, _ in steps)
    assert sum(len(steps) for steps in flow_results.values()) >= 90
    # control.yaml's takeScreenshot: in its trail's folder of the run directory
    shot = next((as_flows / ".trailblaze" / "runs").rglob("inbox.png"))
    assert shot.read_bytes().startswith(b"\x89PNG")

    trails = tmp_path / "trails"
    imported = _trailblaze("import", "maestro", str(flows), "--out", str(trails), cwd=tmp_path)
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert "not converted" not in imported.stdout
    assert sorted(p.relative_to(trails).as_posix() for p in trails.rglob("*.trail.yaml")) == [
        "compose.trail.yaml",
        "control.trail.yaml",
        "inbox.trail.yaml",
        "login.trail.yaml",
        "settings.trail.yaml",
        "subflows/sign_in.trail.yaml",
    ]  # fmt: skip (the flows' sub-folders are kept)
    as_trails = tmp_path / "as-trails"
    as_trails.mkdir()
    again = _trailblaze("replay", str(trails), "--device", f"sim:{platform}", cwd=as_trails)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _results(as_trails) == flow_results


def test_a_failing_flow_fails_like_a_trail_with_the_selector_named(tmp_path: Path) -> None:
    flow = tmp_path / "wrong.yaml"
    flow.write_text(
        "appId: dev.trailblaze.demo\n---\n- launchApp:\n    clearState: true\n- tapOn: Create account\n",
        encoding="utf-8",
    )
    ran = _trailblaze(
        "replay", str(flow), "--device", "sim:android", "--element-timeout", "0.5", cwd=tmp_path
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "NOT_FOUND no element matches text 'Create account'" in ran.stdout
    assert "Traceback" not in ran.stdout + ran.stderr


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_mobile_maestro_in_a_trail_replays_and_keeps_the_secret_out(platform: str, tmp_path: Path) -> None:
    trail = tmp_path / "mobile_maestro.trail.yaml"
    shutil.copy(DATA / "mobile_maestro.trail.yaml", trail)
    ran = _trailblaze(
        "replay", str(trail), "--device", f"sim:{platform}", "--secret", "password=hunter2", cwd=tmp_path
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    results = _results(tmp_path)["maestro/mobile-maestro"]
    assert [status for _, status, _ in results] == ["passed", "passed", "passed"]
    written = "".join(p.read_text(errors="replace") for p in (tmp_path / ".trailblaze").rglob("*.json"))
    assert "hunter2" not in written + ran.stdout + ran.stderr


def test_pytest_collects_and_runs_a_named_flow(pytester: pytest.Pytester) -> None:
    pytester.makefile(".ini", pytest="[pytest]\naddopts = -p no:cacheprovider\n")
    shutil.copytree(FLOWS, pytester.path / "flows")
    result = pytester.runpytest_subprocess("flows/login.yaml", "--device", "sim:ios", "-q")
    result.assert_outcomes(passed=1)


pytest_plugins = ["pytester"]


def test_mobile_maestro_runs_a_flow_file_beside_the_trail(tmp_path: Path) -> None:
    shutil.copy(FLOWS / "subflows" / "sign_in.yaml", tmp_path / "sign_in.yaml")
    trail = tmp_path / "uses-flow.trail.yaml"
    trail.write_text(
        "trail:\n  - step: Sign in\n    recording:\n      android:\n        - mobile_maestro:\n"
        "            commands:\n              - runFlow:\n                  file: sign_in.yaml\n"
        "                  env: {EMAIL: someone@example.com}\n"
        "              - assertVisible: Inbox\n",
        encoding="utf-8",
    )
    ran = _trailblaze("replay", str(trail), "--device", "sim:android", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (run_json,) = (tmp_path / ".trailblaze" / "runs").glob("*/run.json")
    assert "typed 'someone@example.com'" in run_json.read_text(encoding="utf-8")
