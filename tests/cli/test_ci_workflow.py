"""The GitHub Actions workflow `trailblaze init` writes (issue 27 item 1): it validates against the
GitHub workflow schema (vendored, tests/data/schemas/), boots an emulator with the standard action on
a stock runner, installs the pinned trailblaze, and its replay and merge commands, run here against
the simulated phone, pass and merge."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.support.cli import NO_LLM, trailblaze
from tests.support.paths import DATA, ROOT
from trailblaze.__about__ import __version__
from trailblaze.cli.ci_workflow import EMULATOR_ACTION, github_workflow

SCHEMAS = DATA / "schemas"
APP = "dev.trailblaze.demo"  # the simulated phone's app


def _load(text: str) -> dict[str, Any]:
    loaded = yaml.safe_load(text)
    # YAML 1.1 reads the key `on` as True; GitHub (and the schema) mean the string
    return {("on" if key is True else key): value for key, value in loaded.items()}


def _schema_errors(workflow: dict[str, Any]) -> list[str]:
    schema = json.loads((SCHEMAS / "github-workflow.json").read_text("utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    return [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator.iter_errors(workflow)]


def _steps(job: dict[str, Any], uses: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(uses)]


def _named(job: dict[str, Any], words: str) -> dict[str, Any]:
    (step,) = [s for s in job["steps"] if words in str(s.get("name", ""))]
    return step


@pytest.mark.parametrize("platforms", [["android"], ["ios"], ["android", "ios"]])
def test_the_workflow_validates_against_the_github_workflow_schema(platforms: list[Any]) -> None:
    workflow = _load(github_workflow(platforms, 3))
    assert _schema_errors(workflow) == []
    assert set(workflow["jobs"]) == {*platforms, "report"}
    assert workflow["jobs"]["report"]["needs"] == platforms
    # the validator does bite: a job with no runner is not a workflow
    del workflow["jobs"]["report"]["runs-on"]
    assert _schema_errors(workflow)


def test_the_android_job_boots_an_emulator_installs_the_app_and_replays_inside_it() -> None:
    text = github_workflow(["android"], 2)
    job = _load(text)["jobs"]["android"]
    assert job["runs-on"] == "ubuntu-latest" and job["strategy"]["matrix"]["shard"] == [1, 2]
    names = [str(s.get("name", s.get("uses", ""))) for s in job["steps"]]
    kvm, (emulator,) = (
        names.index("Enable KVM (hardware acceleration for the emulator)"),
        _steps(job, EMULATOR_ACTION),
    )
    # pinned to the commit of release v2.37.0 (a tag can be moved; tests/project/test_workflow_audit.py)
    assert EMULATOR_ACTION == "reactivecircus/android-emulator-runner@e89f39f1abbbd05b1113a29cf4db69e7540cae5a"
    assert "uses: reactivecircus/android-emulator-runner@e89f39f1abbbd05b1113a29cf4db69e7540cae5a # v2.37.0" in text
    assert kvm < job["steps"].index(emulator)
    assert "udevadm trigger --name-match=kvm" in _named(job, "Enable KVM")["run"]
    # API level and ABI are inputs of the action, set in one place (the job's env)
    assert emulator["with"]["api-level"] == "${{ env.ANDROID_API_LEVEL }}" and job["env"]["ANDROID_API_LEVEL"]
    assert emulator["with"]["arch"] == "${{ env.ANDROID_ABI }}" and job["env"]["ANDROID_ABI"] == "x86_64"
    script = emulator["with"]["script"]
    assert "\n" not in script  # the action runs each line of `script` on its own
    assert script.startswith('trailblaze replay trails/ --device "$TRAILBLAZE_DEVICE" --install "$APP_APK"')
    assert "--shard ${{ matrix.shard }}/2" in script and "--screenshots failures" in script
    # the pinned spec of this trailblaze, not the bare names that are not the user's one install
    assert _named(job, "Install trailblaze")["run"] == f'pip install "trailblaze[android]=={__version__}"'
    assert "pip install trailblaze trailblaze-android" not in text
    # what the user fills in is marked, and the app's build comes before the replay
    assert "# FILL IN: the APK of the app under test" in text and job["env"]["APP_APK"].endswith(".apk")
    assert names.index("Build the app under test (FILL IN)") < names.index("Install trailblaze") < kvm
    # repository secrets map to TRAILBLAZE_SECRET_<NAME>, which `--secret <name>` reads
    assert "# TRAILBLAZE_SECRET_PASSWORD: ${{ secrets.APP_PASSWORD }}" in text


def test_the_ios_job_builds_webdriveragent_on_a_macos_simulator() -> None:
    text = github_workflow(["android", "ios"], 2)
    job = _load(text)["jobs"]["ios"]
    assert job["runs-on"].startswith("macos-")
    assert job["env"]["TRAILBLAZE_DEVICE"] == "ios:http://127.0.0.1:8100"
    assert "YOUR_APP_SCHEME" in _named(job, "Build the app under test (FILL IN your scheme)")["run"]
    assert "xcrun simctl install booted" in _named(job, "Install the app")["run"]
    (wda,) = [s for s in _steps(job, "actions/checkout") if "repository" in s.get("with", {})]
    assert wda["with"]["repository"] == "appium/WebDriverAgent"
    start = _named(job, "Build and start WebDriverAgent")["run"]
    assert "xcodebuild build-for-testing" in start and "-scheme WebDriverAgentRunner" in start
    assert "xcodebuild test-without-building" in start and "127.0.0.1:8100/status" in start
    replay = _named(job, "Replay shard")["run"]
    assert replay.startswith('trailblaze replay trails/ --device "$TRAILBLAZE_DEVICE" --shard')
    assert "--install" not in replay  # iOS apps are installed with simctl, before WebDriverAgent starts
    assert _named(job, "Install trailblaze")["run"] == f'pip install "trailblaze[ios]=={__version__}"'
    names = {
        s["with"]["name"]
        for j in ("android", "ios")
        for s in _steps(_load(text)["jobs"][j], "actions/upload")
    }
    assert names == {
        "trailblaze-android-shard-${{ matrix.shard }}",
        "trailblaze-ios-shard-${{ matrix.shard }}",
    }


@pytest.mark.parametrize("platforms", [["android"], ["android", "ios"]])
def test_every_shell_step_is_valid_bash(platforms: list[Any]) -> None:
    workflow = _load(github_workflow(platforms, 2))
    scripts = [s["run"] for job in workflow["jobs"].values() for s in job["steps"] if "run" in s]
    scripts += [s["with"]["script"] for s in _steps(workflow["jobs"]["android"], EMULATOR_ACTION)]
    for script in scripts:
        checked = subprocess.run(["bash", "-n", "-c", script], capture_output=True, text=True)
        assert checked.returncode == 0, (script, checked.stderr)


def _apk(package: str) -> bytes:
    """An APK the simulated phone installs: the manifest names the package (as tests/support/sim_android.py's `apk`)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            "AndroidManifest.xml",
            f'<?xml version="1.0"?>\n<manifest xmlns:android="http://schemas.android.com/apk/res/android" '
            f'package="{package}" android:versionCode="3"></manifest>',
        )
        z.writestr("classes.dex", b"dex\n035\x00")
    return buf.getvalue()


def _shell(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`script` as the runner's shell runs it, with this venv's `trailblaze` first on PATH."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    full = {**os.environ, "PATH": path, "ANTHROPIC_BASE_URL": NO_LLM, "CI": "true", **env}
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_the_scaffolded_replay_and_merge_commands_pass_on_the_simulated_phone(tmp_path: Path) -> None:
    project = tmp_path / "app"
    done = trailblaze("init", str(project), "--app-id", APP, "--shards", "3")
    assert done.returncode == 0, done.stderr
    assert (
        f"fill in the lines marked FILL IN in {project / '.github/workflows/trailblaze.yml'}" in done.stdout
    )
    workflow = _load((project / ".github/workflows/trailblaze.yml").read_text("utf-8"))
    assert _schema_errors(workflow) == []
    (emulator,) = _steps(workflow["jobs"]["android"], EMULATOR_ACTION)
    (project / "app.apk").write_bytes(_apk(APP))
    # each matrix job: the emulator step's script on "the emulator" (here the simulated phone)
    downloaded = tmp_path / "downloaded"
    (downloaded / "shards").mkdir(parents=True)
    for shard in (1, 2, 3):
        script = emulator["with"]["script"].replace("${{ matrix.shard }}", str(shard))
        replayed = _shell(script, project, TRAILBLAZE_DEVICE="sim:android", APP_APK="app.apk")
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert "Traceback" not in replayed.stderr
        if shard == 1:
            assert (
                f"installed {APP} from app.apk" in replayed.stdout and "1 trail: 1 passed" in replayed.stdout
            )
        # actions/download-artifact with `pattern:` puts each artifact in a folder of its name
        shutil.move(project / "trailblaze-run", downloaded / "shards" / f"trailblaze-android-shard-{shard}")
    (merge,) = [s["run"] for s in workflow["jobs"]["report"]["steps"] if "--merge" in str(s.get("run", ""))]
    merged = _shell(merge, downloaded)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "merged 3 runs: 1 trail (1 passed)" in merged.stdout
    suite = ET.parse(downloaded / "junit.xml").getroot()
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "0", "0")
    assert (downloaded / "report.html").stat().st_size > 0


def test_the_release_workflow_builds_checks_and_publishes_with_trusted_publishing() -> None:
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text("utf-8")
    workflow = _load(text)
    assert _schema_errors(workflow) == []
    assert workflow["on"] == {"push": {"tags": ["v*"]}} and workflow["permissions"] == {"contents": "read"}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    built = _named(build, "Build every distribution")["run"]
    assert "for project in . drivers/android drivers/ios drivers/web" in built and "python -m build" in built
    assert _named(build, "Check the distributions")["run"] == "python -m twine check --strict dist/*"
    # only the publishing job may mint the OIDC token, and no password or token is passed
    assert publish["needs"] == "build" and publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    (pypi,) = _steps(publish, "pypa/gh-action-pypi-publish@")
    assert "with" not in pypi and "secrets." not in text
    # the tag check: v<version> passes, anything else stops the release
    check = _named(build, "The tag names the version")["run"]
    root = ROOT
    for tag, code in ((f"v{__version__}", 0), ("v9.9.9", 1)):
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", check], cwd=root, capture_output=True, text=True,
            env={**os.environ, "GITHUB_REF_NAME": tag, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"},
        )  # fmt: skip
        assert done.returncode == code, (tag, done.stderr)


def _gitlab_example() -> str:
    guide = (ROOT / "docs" / "guides" / "ci.md").read_text("utf-8")
    (block,) = [b.split("```", 1)[0] for b in guide.split("```yaml\n")[1:] if "stages: [replay, report]" in b]
    return block


def test_the_gitlab_example_validates_against_the_gitlab_ci_schema() -> None:
    pipeline = yaml.safe_load(_gitlab_example())
    schema = json.loads((SCHEMAS / "gitlab-ci.json").read_text("utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    assert [e.message for e in validator.iter_errors(pipeline)] == []
    pipeline["replay"]["parallel"] = "two"  # the validator does bite
    assert list(validator.iter_errors(pipeline))
    installs = [line for job in ("replay", "report") for line in pipeline[job]["before_script" if job == "replay" else "script"]
                if line.startswith("pip install")]  # fmt: skip
    assert installs == [
        f'pip install "trailblaze[android]=={__version__}"',
        f'pip install "trailblaze=={__version__}"',
    ]


@pytest.mark.slow
def test_the_gitlab_example_replays_its_shards_and_merges_them_on_the_simulated_phone(tmp_path: Path) -> None:
    pipeline = yaml.safe_load(_gitlab_example())
    project = tmp_path / "app"
    assert trailblaze("init", str(project), "--app-id", APP).returncode == 0
    (project / "app.apk").write_bytes(_apk(APP))
    replay = pipeline["replay"]
    variables = {**replay["variables"], "TRAILBLAZE_DEVICE": "sim:android", "APP_APK": "app.apk"}
    total = replay["parallel"]
    for index in range(1, total + 1):  # the emulator boot (before_script) needs KVM; the script runs here
        for line in replay["script"]:
            done = _shell(line, project, **variables, CI_NODE_INDEX=str(index), CI_NODE_TOTAL=str(total))
            assert done.returncode == 0, done.stdout + done.stderr
    assert sorted(p.name for p in (project / "shards").iterdir()) == ["1", "2"]
    for line in pipeline["report"]["script"]:
        if not line.startswith("pip install"):
            done = _shell(line, project)
            assert done.returncode == 0, done.stdout + done.stderr
    assert "merged 2 runs: 1 trail (1 passed)" in done.stdout
    suite = ET.parse(project / "junit.xml").getroot()
    assert (suite.get("tests"), suite.get("failures")) == ("1", "0")
