"""A run's options as one object (`trailblaze.engine.options`): the device spec parsed once, the
command line kept in run.json derived from the object, and bad combinations refused by it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import trailblaze.device.devices
from tests.support.paths import ROOT
from trailblaze.cli.main import cli
from trailblaze.engine.options import (
    DeviceChoice,
    ModelChoice,
    RecordOptions,
    RecordRun,
    ReplayRun,
    RunOutput,
)
from trailblaze.engine.replay import ReplayOptions
from trailblaze.engine.shard import parse_shard
from trailblaze.errors import UsageError
from trailblaze.output.ci_policy import CiPolicy


def test_the_device_spec_is_parsed_once_into_the_choice() -> None:
    choice = DeviceChoice.parse(" sim:ios:demo ", latency="zero", element_timeout=2.5)
    assert (choice.spec.platform, choice.spec.simulated, choice.spec.target) == ("ios", True, "demo")
    assert choice.platform == "ios"
    assert choice.timeout_argv() == ["--element-timeout", "2.5"]


def test_a_bad_device_or_latency_is_refused_by_the_choice() -> None:
    with pytest.raises(UsageError, match="sim:android"):
        DeviceChoice.parse("nokia")
    with pytest.raises(UsageError, match="only a simulated device has a latency"):
        DeviceChoice.parse("android:emulator-5554", latency="realistic")


def test_a_replay_run_refuses_what_cannot_work() -> None:
    device = DeviceChoice.parse("sim:android")
    with pytest.raises(UsageError, match="--max-heals bounds self-heal"):
        ReplayRun(paths=("t",), device=device, policy=CiPolicy(max_heals=1))
    with pytest.raises(UsageError, match="--shard-durations balances shards"):
        ReplayRun(paths=("t",), device=device, durations={"a": 1.0})


def test_the_kept_command_line_comes_from_the_options() -> None:
    run = ReplayRun(
        paths=("trails/",),
        device=DeviceChoice.parse("sim:android", element_timeout=3),
        model=ModelChoice(model="anthropic:claude-x", timeout=20),
        output=RunOutput(screenshots="failures"),
        replay=ReplayOptions(self_heal=True, trail_timeout=600),
        shard=parse_shard("2/3"),
        policy=CiPolicy(retries=2, fail_on_flaky=True, max_heals=4),
    )
    assert run.command() == [
        "trailblaze", "replay", "trails/", "--device", "sim:android", "--self-heal",
        "--element-timeout", "3", "--llm-timeout", "20", "--model", "anthropic:claude-x",
        "--screenshots", "failures", "--shard", "2/3", "--retries", "2", "--fail-on-flaky", "--max-heals", "4",
        "--trail-timeout", "600",
    ]  # fmt: skip
    record = RecordRun(
        paths=("a.trail.yaml",),
        device=DeviceChoice.parse("sim:ios"),
        record=RecordOptions(steps=(2, 3), verify=False),
    )
    assert record.command() == [
        "trailblaze", "record", "a.trail.yaml", "--device", "sim:ios", "--step=2", "--step=3", "--no-verify"
    ]


@pytest.mark.slow
def test_a_cli_replay_parses_the_device_once_and_keeps_no_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = trailblaze.device.devices.parse_device_spec

    def counting(spec: str) -> trailblaze.device.devices.DeviceSpec:
        calls.append(spec)
        return real(spec)

    monkeypatch.setattr(trailblaze.device.devices, "parse_device_spec", counting)
    monkeypatch.setattr("trailblaze.engine.options.parse_device_spec", counting)
    monkeypatch.setenv("TRAILBLAZE_RESULTS", "off")  # storing reads the device back from run.json, after the run
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(
        cli,
        [
            "replay", str(ROOT / "trails" / "login.trail.yaml"), "--device", "sim:android",
            "--secret", "password=hunter2", "--run-dir", str(run_dir), "--retries", "1",
        ],  # fmt: skip
    )
    assert result.exit_code == 0, result.output
    assert calls == ["sim:android"]
    kept = json.loads((run_dir / "run.json").read_text())
    assert kept["command"] == [
        "trailblaze", "replay", str(ROOT / "trails" / "login.trail.yaml"), "--device", "sim:android",
        "--retries", "1",
    ]  # fmt: skip
    assert "hunter2" not in (run_dir / "run.json").read_text()


def test_one_spec_text_is_parsed_once_per_process() -> None:
    """pytest asks the platform of a spec per collected item, MCP per call: the parse is done once."""
    from trailblaze.device.devices import parse_device_spec

    first = parse_device_spec("sim:ios:demo@v2")
    before = parse_device_spec.cache_info().hits
    assert parse_device_spec("sim:ios:demo@v2") is first
    assert parse_device_spec.cache_info().hits == before + 1
    with pytest.raises(UsageError):  # a bad spec is refused every time, never remembered as good
        parse_device_spec("nokia")
    with pytest.raises(UsageError):
        parse_device_spec("nokia")


def test_the_pytest_plugin_builds_the_same_option_objects_from_its_settings() -> None:
    """The plugin's settings (resolved once per session) give the trail runner the objects the CLI's
    flags give the run functions: one device spec parsed per device, the replay and CI knobs."""
    from pathlib import Path

    from trailblaze.engine.options import DeviceChoice, RunOutput
    from trailblaze.engine.replay import ReplayOptions
    from trailblaze.output.ci_policy import CiPolicy
    from trailblaze.pytest.plugin import TrailblazeConfig

    config = TrailblazeConfig(
        devices=("sim:android", "android:emulator-5554"), self_heal=True, artifacts="on",
        output_dir=Path("out"), report_dir=None, latency="realistic", app_id="com.example",
        launch_mode="CLEAR_STATE", write_back=False, trail_paths=(), element_timeout=2.5,
        device_logs="always", screenshots="steps", retries=2, fail_on_flaky=True,
    )  # fmt: skip
    assert config.replay_options() == ReplayOptions(self_heal=True, write_back=False)
    assert config.ci_policy() == CiPolicy(retries=2, fail_on_flaky=True)
    assert config.run_output(Path("out/t1")) == RunOutput(run_dir="out/t1", screenshots="steps")
    sim = config.device_choice("sim:android")
    assert isinstance(sim, DeviceChoice) and (sim.latency, sim.element_timeout, sim.device_logs) == ("realistic", 2.5, "always")
    assert config.device_choice("android:emulator-5554").latency is None  # a real device has no latency profile
    with pytest.raises(UsageError, match="--trailblaze-screenshots"):
        TrailblazeConfig(**{**vars(config), "screenshots": "some"}).run_output(None)
