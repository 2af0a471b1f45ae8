"""`trailblaze record --model PROVIDER:MODEL` end to end on every executor (issue 17).

The example login trail, stripped of its recordings, is recorded on `sim:android` through each
executor's real SDK — `anthropic` (Anthropic, Bedrock, Vertex) against `FakeMessagesAPI`, `openai`
against `FakeChatCompletionsAPI` — with the same scripted model (`demo_policy`) behind both fakes.
Every run must write the same recording as the example's committed one. On Anthropic and OpenAI the
model first answers with text instead of a tool call: the agent tells it once and counts it, the
same way on both wire formats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from tests.support.paths import ROOT
from trailblaze.cli.main import cli
from trailblaze.llm.prompts import TEXT_ONLY_HINT
from trailblaze.output.report import write_html_report
from trailblaze.output.runlog import load_run
from trailblaze.testing import FakeChatCompletionsAPI, FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy_unlabelled

pytestmark = pytest.mark.slow

_CLOUD_ENV = {
    # Bedrock: SigV4 keys and a region from the standard AWS variables.
    "AWS_ACCESS_KEY_ID": "AKIAFAKEFORTESTS0001",
    "AWS_SECRET_ACCESS_KEY": "fake-aws-secret-never-sent",
    "AWS_REGION": "us-east-1",
    # Vertex: a bearer token, the project and the region.
    "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.fake-vertex-token",
    "ANTHROPIC_VERTEX_PROJECT_ID": "demo-project",
    "CLOUD_ML_REGION": "us-east5",
}

# (provider, --model, the fake, what to append to its URL for --llm-base-url)
EXECUTORS: list[tuple[str, str, type[FakeMessagesAPI], str]] = [
    ("anthropic", "claude-sonnet-5", FakeMessagesAPI, ""),
    ("openai", "openai:gpt-4.1", FakeChatCompletionsAPI, ""),
    ("bedrock", "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0", FakeMessagesAPI, ""),
    ("vertex", "vertex:claude-sonnet-4-5@20250929", FakeMessagesAPI, "/v1"),
]


TEXT_FIRST = ("anthropic", "openai")


def _natural_language_copy(target: Path) -> None:
    data = yaml.safe_load((ROOT / "trails" / "login.trail.yaml").read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    target.write_text(yaml.safe_dump(data, sort_keys=False))


def _android_recordings(path: Path) -> list[Any]:
    return [step.get("recording", {}).get("android") for step in yaml.safe_load(path.read_text())["trail"]]


def _record(
    provider: str, model: str, fake: type[FakeMessagesAPI], suffix: str, tmp_path: Path
) -> dict[str, Any]:
    trail = tmp_path / provider / "login.trail.yaml"
    trail.parent.mkdir()
    _natural_language_copy(trail)
    with fake(policy=demo_policy_unlabelled) as api:
        if provider in TEXT_FIRST:
            api.enqueue({"content": [{"type": "text", "text": "I will tap the Email field next."}]})
        done = CliRunner().invoke(
            cli,
            [
                "record",
                str(trail),
                "--device",
                "sim:android",
                "--secret",
                "password=hunter2",
                "--model",
                model,
                "--llm-base-url",
                api.url + suffix,
                "--no-verify",
                "--run-dir",
                str(trail.parent / "run"),
            ],  # fmt: skip
            env={**_CLOUD_ENV, "COLUMNS": "200"},
        )
        requests = list(api.requests)
    return {"done": done, "trail": trail, "requests": requests, "run": trail.parent / "run"}


def test_every_executor_records_the_login_trail_identically(tmp_path: Path) -> None:
    # In this process (the SDKs are imported once), each run with its own simulator and fake.
    runs = {e[0]: _record(*e, tmp_path) for e in EXECUTORS}
    expected = _android_recordings(ROOT / "trails" / "login.trail.yaml")
    assert all(expected)
    for provider, run in runs.items():
        done = run["done"]
        assert done.exit_code == 0, f"{provider}: {done.output}{done.exception!r}"
        assert "5/5 steps passed" in done.output, provider
        assert _android_recordings(run["trail"]) == expected, provider
        assert all(b"hunter2" not in r.raw for r in run["requests"]), provider
        recorded = load_run(run["run"]).trails[0]
        assert recorded.usage.llm_calls == len(run["requests"]) >= 5
        (label,) = recorded.usage.models
        assert label.startswith(f"{provider}:"), label
        report = write_html_report(run["run"]).read_text()
        assert f"model {label}" in report  # the report's LLM line names provider and model
        told = [r for r in run["requests"] if TEXT_ONLY_HINT.split("\n")[1].encode() in r.raw]
        if provider in TEXT_FIRST:
            assert recorded.usage.text_answers == 1 and len(told) == 1 and run["requests"].index(told[0]) == 1
            assert f"({label}; 1 answered with text instead of a tool call)" in done.output
        else:
            assert recorded.usage.text_answers == 0 and not told
            assert f"({label})" in done.output  # the run's summary names provider and model

    paths = {p: {r.path for r in run["requests"]} for p, run in runs.items()}
    assert paths["anthropic"] == {"/v1/messages"}
    assert paths["openai"] == {"/v1/chat/completions"}
    assert paths["bedrock"] == {"/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke"}
    assert paths["vertex"] == {
        "/v1/projects/demo-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"
    }
    assert all(r.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIAFAKEFORTESTS0001/")
               for r in runs["bedrock"]["requests"])  # fmt: skip
    assert all(
        r.headers["authorization"] == "Bearer ya29.fake-vertex-token" for r in runs["vertex"]["requests"]
    )
    # The same scripted model saw the same conversation through every wire format.
    calls = {p: len(run["requests"]) - (p in TEXT_FIRST) for p, run in runs.items()}
    assert len(set(calls.values())) == 1, calls


def test_replay_self_heal_uses_the_chosen_model(tmp_path: Path) -> None:
    """`replay --self-heal --model openai:...`: the renamed button of demo@v2 is healed through the
    `openai` SDK, and the summary names provider, model and cost."""
    trail = tmp_path / "login.trail.yaml"
    trail.write_text((ROOT / "trails" / "login.trail.yaml").read_text())
    with FakeChatCompletionsAPI(policy=demo_policy_unlabelled) as api:
        done = CliRunner().invoke(
            cli,
            ["replay", str(trail), "--device", "sim:android:demo@v2", "--secret", "password=hunter2", "--self-heal",
             "--model", "openai:gpt-4.1", "--llm-base-url", api.url, "--run-dir", str(tmp_path / "run")],  # fmt: skip
            env={"COLUMNS": "200"},
        )
        calls = len(api.requests)
    assert done.exit_code == 0, done.output
    assert calls >= 1 and f"1 trail: 1 passed-with-self-heal — {calls} LLM calls (openai:gpt-4.1), $0.0" in done.output
