"""A step with no recording for the device, and no model to solve it, is the trail's problem (issue 40,
item 1): replay exits 2 with how to record it, not 3 ("device or LLM infrastructure"), and `validate
--platform` finds it before any device."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.cli import run_cli
from tests.support.device import rig
from tests.support.paths import ROOT
from trailblaze.common.flags import PYTEST
from trailblaze.engine.replay import replay_trail
from trailblaze.errors import UsageError
from trailblaze.llm.client import LLMAuthError, LLMClient
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.trail.model import load_trail
from trailblaze.trail.variables import build_memory


def _android_only(tmp_path: Path, *, extra_step: str | None = None) -> Path:
    """The example login trail with its iOS recordings removed (and a step with none at all)."""
    data = yaml.safe_load((ROOT / "trails" / "login.trail.yaml").read_text())
    for step in data["trail"]:
        step["recording"].pop("ios")
    if extra_step is not None:
        data["trail"].append({"step": extra_step})
    target = tmp_path / "login.trail.yaml"
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    return target


def _no_model_env() -> dict[str, str]:
    """No key, no local endpoint, no model: nothing could solve a step."""
    env = {**os.environ, "COLUMNS": "400"}
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "TRAILBLAZE_MODEL"):
        env.pop(name, None)
    return env


def _trailblaze(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=_no_model_env(), cwd=cwd, timeout=120)


@pytest.mark.slow
def test_replay_on_a_platform_the_trail_was_not_recorded_for_is_exit_2_with_the_fix(tmp_path: Path) -> None:
    trail = _android_only(tmp_path)
    done = _trailblaze("replay", trail.name, "--device", "sim:ios", "--secret", "password=hunter2", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip() == (
        "error: login.trail.yaml step 1 has no ios recording, and no model is configured to solve it "
        "(no API key for https://api.anthropic.com); record it: trailblaze record login.trail.yaml --device sim:ios "
        "--secret password, "
        "or pass a key: set `ANTHROPIC_API_KEY` (or `ANTHROPIC_AUTH_TOKEN`), or point `ANTHROPIC_BASE_URL` at a "
        "local endpoint (another provider: --model PROVIDER:MODEL)"
    )
    assert not (tmp_path / ".trailblaze").exists()  # found before the device: nothing ran


@pytest.mark.slow
def test_an_added_unrecorded_step_is_exit_2_too(tmp_path: Path) -> None:
    trail = _android_only(tmp_path, extra_step="Open the first message")
    done = _trailblaze("replay", trail.name, "--device", "sim:android", "--secret", "password=hunter2", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "login.trail.yaml step 6 has no android recording, and no model is configured" in done.stderr
    assert "record it: trailblaze record login.trail.yaml --device sim:android" in done.stderr


def test_validate_for_a_platform_names_the_unrecorded_step_and_the_recorded_platforms(tmp_path: Path) -> None:
    trail = _android_only(tmp_path)
    done = _trailblaze("validate", trail.name, "--platform", "ios", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert (
        "login.trail.yaml: step 1 has no ios recording; record it: trailblaze record login.trail.yaml --device ios"
        in lines
    )
    assert "recorded for android" in lines[-1]
    done = _trailblaze("validate", trail.name, "--platform", "android", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "recorded for android" in done.stdout.splitlines()[-1]
    done = _trailblaze("validate", str(ROOT / "trails" / "login.trail.yaml"), cwd=tmp_path)
    assert "recorded for android and ios" in done.stdout.splitlines()[-1]


def _no_key() -> LLMClient:
    raise LLMAuthError("no API key for https://api.anthropic.com: set `ANTHROPIC_API_KEY`")


def test_the_engine_says_the_same_under_pytest(tmp_path: Path) -> None:
    """pytest (and any caller of `replay_trail`) builds the model only when a step needs it: the same
    usage error, named at the step, instead of the client's LLMAuthError."""
    trail = _android_only(tmp_path)
    with rig("ios") as r:
        memory = build_memory(load_trail(trail), secrets={"password": "hunter2"}, flags=PYTEST)
        with pytest.raises(UsageError) as info:
            replay_trail(trail, r.session, memory=memory, llm_factory=_no_key, device="sim:ios")
    assert "step 1 ('Launch the demo app with a clean state'): it has no ios recording, and no model" in info.value.message
    assert f"record it: trailblaze record {trail} --device sim:ios, or pass a key" in info.value.message
    assert info.value.message.endswith("(another provider: --trailblaze-model PROVIDER:MODEL)")  # pytest's option


@pytest.mark.slow
def test_a_folder_run_errs_the_unrecorded_trail_and_runs_the_others(tmp_path: Path) -> None:
    """Issue 48 item 4: one trail with no iOS recording, and no model, no longer stops the other two."""
    _android_only(tmp_path)
    (tmp_path / "login.trail.yaml").rename(tmp_path / "b-android-only.trail.yaml")
    for name in ("a-login", "c-login"):
        (tmp_path / f"{name}.trail.yaml").write_text((ROOT / "trails" / "login.trail.yaml").read_text())
    done = _trailblaze(
        "replay", ".", "--device", "sim:ios", "--secret", "password=hunter2", "--run-dir", "run", cwd=tmp_path
    )
    assert done.returncode == 1, done.stdout + done.stderr
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    statuses = {Path(t["path"]).name: t["status"] for t in run["trails"]}
    assert statuses == {"a-login.trail.yaml": "passed", "b-android-only.trail.yaml": "error", "c-login.trail.yaml": "passed"}
    (error,) = [t["error"] for t in run["trails"] if t["status"] == "error"]
    assert "b-android-only.trail.yaml step 1 has no ios recording, and no model is configured" in error
    assert "hunter2" not in done.stdout + done.stderr


@pytest.mark.slow
def test_the_record_hint_runs_as_pasted(tmp_path: Path) -> None:
    """Issue 48 item 3: the hint carries the run's secret by name (never its value) and its memory, so
    pasted as printed, with the secret in its environment variable, it records the missing platform."""
    trail = _android_only(tmp_path)
    env = {**_no_model_env(), "TRAILBLAZE_SECRET_PASSWORD": "hunter2"}
    done = run_cli(
        "replay", trail.name, "--device", "sim:ios", "--secret", "password", "--memory", "who=a b",
        env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    hint = done.stderr.split("record it: ", 1)[1].split(", or pass a key", 1)[0]
    assert hint == "trailblaze record login.trail.yaml --device sim:ios --secret password --memory 'who=a b'"
    with FakeMessagesAPI(policy=demo_policy) as api:
        pasted = subprocess.run(
            [sys.executable, "-m", *shlex.split(hint)], env={**env, "ANTHROPIC_BASE_URL": api.url},
            cwd=tmp_path, capture_output=True, text=True, timeout=240,
        )  # fmt: skip
    assert pasted.returncode == 0, pasted.stdout + pasted.stderr
    assert all(step.recording_for("ios") for step in load_trail(trail).steps)
