"""Our release workflow and the one `trailblaze init` writes pass zizmor's offline audits (issue 38,
item 5): least-privilege `permissions:`, every action pinned to a full commit SHA with its version in a
comment, and checkouts that keep no credentials. zizmor (PyPI `zizmor`, the dev extra) reads the files;
a finding at medium severity or above fails."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import trailblaze
from tests.support.paths import ROOT

RELEASE = ROOT / ".github" / "workflows" / "release.yml"
_PINNED = re.compile(r"^\s*-?\s*uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$")


def _zizmor() -> str:
    found = shutil.which("zizmor", path=str(Path(sys.executable).parent)) or shutil.which("zizmor")
    assert found, 'zizmor is not installed: pip install -e ".[dev]" (it is in the dev extra)'
    return found


def _findings(workflow: Path) -> list[dict[str, Any]]:
    """zizmor's findings for one workflow file, offline (no GitHub API)."""
    done = subprocess.run(
        [_zizmor(), "--offline", "--no-ignores", "--no-progress", "--format", "json", str(workflow)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip(), done.stderr  # exit 0 or the findings' code, always a JSON list
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


def _serious(findings: list[dict[str, Any]]) -> list[str]:
    return [
        f"{f['ident']} ({f['determinations']['severity']}): {f['desc']}"
        for f in findings
        if f["determinations"]["severity"] in ("Medium", "High")
    ]


def _init_workflow(tmp_path: Path, *flags: str) -> Path:
    done = trailblaze("init", str(tmp_path), "--app-id", "com.example.app", *flags)
    assert done.returncode == 0, done.stderr
    return tmp_path / ".github" / "workflows" / "trailblaze.yml"


def test_zizmor_finds_what_it_should(tmp_path: Path) -> None:
    """The audit bites: a workflow with a tag reference and no permissions has findings."""
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
    )
    assert {"unpinned-uses", "artipacked"} <= {f["ident"] for f in _findings(bad)}


def test_release_workflow_passes_zizmor() -> None:
    assert _serious(_findings(RELEASE)) == []


@pytest.mark.parametrize(
    "flags",
    [[], ["--ios"], ["--platform", "ios"], ["--pip-spec", "dist/trailblaze-0.2.0-py3-none-any.whl"]],
    ids=["android", "both", "ios", "wheel"],  # a wheel in the repository: the merge job checks it out too
)
def test_the_init_workflow_passes_zizmor(tmp_path: Path, flags: list[str]) -> None:
    assert _serious(_findings(_init_workflow(tmp_path, *flags))) == []


@pytest.mark.parametrize("which", ["release", "init"])
def test_every_action_is_pinned_to_a_commit_with_its_version(tmp_path: Path, which: str) -> None:
    path = RELEASE if which == "release" else _init_workflow(tmp_path, "--ios")
    text = path.read_text(encoding="utf-8")
    uses = [line for line in text.splitlines() if re.match(r"^\s*-?\s*uses:", line)]
    assert uses and [u for u in uses if not _PINNED.match(u)] == []
    workflow = yaml.safe_load(text)
    assert workflow["permissions"] == {"contents": "read"}  # more only per job, where a job needs it
    checkouts = [
        step
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if str(step.get("uses", "")).startswith("actions/checkout@")
    ]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)
