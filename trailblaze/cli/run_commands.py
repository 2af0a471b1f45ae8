"""The commands that run trails on a device: `record`, `port`, `replay`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trailblaze.cli.options import (
    _EX,
    _MODEL_HELP,
    _allure_option,
    _ci_policy,
    _ctrf_option,
    _debug_option,
    _device_logs_option,
    _device_options,
    _element_timeout_option,
    _grouped,
    _llm_options,
    _matrix_device_options,
    _model_spec,
    _positive_seconds,
    _record_options,
    _replay_output,
    _replay_screenshots_option,
    _results_option,
    _run_output,
    _screenshots_option,
    _secret_options,
    _trace_option,
    _with_install,
    _with_port_groups,
    _with_run_groups,
)
from trailblaze.cli.report_commands import _merge_reports, _Results
from trailblaze.common.deadline import DEFAULT_TRAIL_TIMEOUT_S
from trailblaze.common.run_flags import OPTIONS

if TYPE_CHECKING:
    from trailblaze.engine.options import (
        DeviceChoice,
        ModelChoice,
        RecordOptions,
        ReplayRun,
        RunInputs,
        RunOutput,
    )
    from trailblaze.output.ci_policy import CiPolicy


@click.command(
    "record",
    short_help="Let the agent solve unrecorded steps and write their recordings.",
    epilog=_EX + "  ANTHROPIC_API_KEY=... trailblaze record trails/login.trail.yaml --device sim:android "
    + "--secret password=hunter2\n"
    + "  trailblaze record trails/login.trail.yaml --device android --rerecord --secret password\n"
    + "  trailblaze record trails/login.trail.yaml --device sim:ios --step 3 --secret password=hunter2",
)
@click.argument("trails", nargs=-1, required=True, type=click.Path(path_type=str))
@_device_options
@click.option(OPTIONS["memory"].cli, "--env", "-e", "memory", multiple=True, metavar="K=V",
              help="A memory variable ({{K}}; a Maestro flow's ${K}, as Maestro's --env / -e); repeatable.")
@click.option(OPTIONS["arg"].cli, "args", multiple=True, metavar="K=V", help="A trail argument ({{args.K}}); repeatable.")
@_secret_options
@click.option(OPTIONS["model"].cli, default=None, callback=_model_spec, metavar="PROVIDER:MODEL", help=_MODEL_HELP)
@click.option("--max-llm-calls", type=click.IntRange(min=1), default=50, show_default=True, help="Per step.")
@click.option("--no-screenshots", is_flag=True, help="Send only the view hierarchy, no screenshot.")
@click.option(OPTIONS["rerecord"].cli, is_flag=True, help="Solve every step with the agent, even recorded ones.")
@click.option("--step", "steps", multiple=True, type=click.IntRange(min=1), metavar="N",
              help="Re-record only step N (numbered as replay prints them); the others replay. Repeatable.")
@click.option("--from", "from_step", type=click.IntRange(min=1), default=None, metavar="N",
              help="Re-record step N and every step after it; the steps before replay.")
@click.option("--no-verify", is_flag=True, help="Write new recordings without the proof replay.")
@click.option("--keep-unverified", is_flag=True,
              help="Write new recordings even when the proof replay fails (marked unverified).")
@click.option("--resume", is_flag=True,
              help="Continue from the draft a record that stopped part-way kept (FILE.draft): its steps replay "
              "with no model calls; the whole trail is still proven before it is written.")
@click.option("--ask", "ask", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Let the agent ask you questions (askUser) on the terminal; auto: when stdin is a terminal.")
@_element_timeout_option
@_device_logs_option
@_trace_option
@_with_install
@_llm_options
@_results_option
@click.option("--run-dir", type=click.Path(path_type=str), default=None,
              help="Where to write the run log (default .trailblaze/runs/<time>).")
@_screenshots_option
@_debug_option
@click.pass_context
@_with_run_groups(
    _grouped("output", _run_output, "run_dir", "report_screenshots", "results"),
    _grouped(
        "options", _record_options,
        "max_llm_calls", "no_screenshots", "rerecord", "steps", "from_step", "no_verify", "keep_unverified", "ask",
        "resume",
    ),
)  # fmt: skip
def record_command(
    ctx: click.Context,
    trails: tuple[str, ...],
    device: DeviceChoice,
    inputs: RunInputs,
    model: ModelChoice,
    output: RunOutput,
    options: RecordOptions,
) -> None:
    """Record TRAIL files: the agent solves unrecorded steps; a replay from a relaunch proves the new
    recordings before they are written back."""
    from trailblaze.cli.console import ConsoleProgress
    from trailblaze.engine.commands import run_record_command
    from trailblaze.engine.options import RecordRun

    code = run_record_command(RecordRun(trails, device, inputs, model, output, options), ConsoleProgress())
    ctx.exit(code)


@click.command(
    "port",
    short_help="Port recordings to another platform or form factor, with no model.",
    epilog=_EX + "  trailblaze port trails/ --from android --device sim:ios --secret password=hunter2\n"
    + "  trailblaze port trails/open-message.trail.yaml --from android --device sim:android+tablet --secret password",
)
@click.argument("trails", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--from", "source", required=True, metavar="CLASSIFIER",
              help="The recordings to port: android, ios, or a form factor's (android-tablet, ios-ipad).")
@_device_options
@click.option(OPTIONS["memory"].cli, "--env", "-e", "memory", multiple=True, metavar="K=V",
              help="A memory variable ({{K}}; a Maestro flow's ${K}, as Maestro's --env / -e); repeatable.")
@click.option(OPTIONS["arg"].cli, "args", multiple=True, metavar="K=V", help="A trail argument ({{args.K}}); repeatable.")
@_secret_options
@_element_timeout_option
@_device_logs_option
@_trace_option
@_with_install
@click.option("--run-dir", type=click.Path(path_type=str), default=None,
              help="Where to write the run log (default .trailblaze/runs/<time>).")
@_screenshots_option
@_debug_option
@click.pass_context
@_with_port_groups
def port_command(
    ctx: click.Context,
    trails: tuple[str, ...],
    source: str,
    device: DeviceChoice,
    inputs: RunInputs,
    output: RunOutput,
) -> None:
    """Port TRAIL files' recordings to the --device's platform or form factor with zero model calls: each
    step's recorded target is found on the device by what it means (id, text, label, kind), acted on and
    re-recorded; a replay from a relaunch proves the whole trail before anything is written. A step that
    cannot be ported is left for `trailblaze record --resume`, which solves only what is left."""
    from trailblaze.cli.console import ConsoleProgress
    from trailblaze.engine.commands import run_record_command
    from trailblaze.engine.options import ModelChoice, RecordOptions, RecordRun

    options = RecordOptions(port_from=source)
    code = run_record_command(RecordRun(trails, device, inputs, ModelChoice(), output, options), ConsoleProgress())
    ctx.exit(code)


@click.command(
    "replay",
    short_help="Replay recorded trails with no LLM (CI).",
    epilog=_EX + "  trailblaze replay trails/ --device sim:android --secret password=hunter2 --report report.html\n"
    + "  trailblaze replay trails/ --device android --secret password --junit junit.xml --tags smoke\n"
    + "  trailblaze replay trails/login.trail.yaml --device sim:ios:demo@v2 --secret password=hunter2 --self-heal\n"
    + "  trailblaze replay trails/ --device sim:android --secret password=hunter2 --shard 1/3 --run-dir shards/1\n"
    + "  trailblaze replay trails/ --device sim:android --device sim:android+small --device sim:ios+tablet "
    + "--secret password=hunter2 --report report.html",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@_matrix_device_options
@click.option(OPTIONS["self_heal"].cli, is_flag=True, help="Let the agent repair a step whose recording fails (needs an LLM).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=str), help="Write JUnit XML here.")
@_allure_option
@_ctrf_option
@click.option("--report", "report_path", type=click.Path(path_type=str),
              help="Write the HTML report to this .html file (or report.html in this folder); its screenshots "
              "are files beside it (in NAME_files/ when it is not in the run directory).")
@click.option("--report-single-file", "report_single_file", is_flag=True,
              help="Make the --report one self-contained file, screenshots embedded (megabytes per trail).")
@click.option("--tags", default="", metavar="T,...", help="Only trails whose config.tags include one of these.")
@click.option(OPTIONS["memory"].cli, "--env", "-e", "memory", multiple=True, metavar="K=V",
              help="A memory variable ({{K}}; a Maestro flow's ${K}, as Maestro's --env / -e); repeatable.")
@click.option(OPTIONS["arg"].cli, "args", multiple=True, metavar="K=V", help="A trail argument ({{args.K}}); repeatable.")
@_secret_options
@click.option(OPTIONS["model"].cli, default=None, callback=_model_spec, metavar="PROVIDER:MODEL",
              help="The model for self-heal / unrecorded steps: " + _MODEL_HELP)
@click.option("--max-llm-calls", type=click.IntRange(min=1), default=50, show_default=True, help="Per healed step.")
@_element_timeout_option
@_device_logs_option
@_trace_option
@_with_install
@_llm_options
@_results_option
@click.option("--run-dir", type=click.Path(path_type=str), default=None,
              help="Where to write the run log (default .trailblaze/runs/<time>).")
@click.option("--shard", "shard_text", default=None, metavar="I/N",
              help="Replay only shard I of N (1-based; one per CI job): an even, stable split of the trails.")
@click.option("--shard-durations", type=click.Path(path_type=str), default=None, metavar="FILE",
              help="Balance the shards by the trail durations of a previous run (its run.json or JUnit XML).")
@click.option("--retries", type=click.IntRange(0, 10), default=0, show_default=True, metavar="N",
              help="Re-run a failed trail from its start on a clean launch up to N times; "
              "a trail that passes only on a retry is reported as flaky.")
@click.option("--fail-on-flaky", is_flag=True, help="A flaky trail (passed only on a retry) fails the run (exit 1).")
@click.option("--max-heals", type=click.IntRange(min=0), default=None, metavar="N",
              help="With --self-heal: fail the run (exit 1) when more than N steps needed healing.")
@click.option(OPTIONS["trail_timeout"].cli, type=float, default=DEFAULT_TRAIL_TIMEOUT_S, show_default=True, metavar="SECONDS",
              callback=_positive_seconds,
              help="Wall-clock seconds one trail may run; past it the trail fails at the step it reached and "
              "the next trail runs. A trail's config.timeout may lower it.")
@_replay_screenshots_option
@_debug_option
@click.pass_context
@_with_run_groups(
    _grouped(
        "output", _replay_output,
        "run_dir", "report_screenshots", "junit_path", "report_path", "report_single_file",
        "allure_dir", "ctrf_path", "results",
    ),
    _grouped("policy", _ci_policy, "retries", "fail_on_flaky", "max_heals"),
)
def replay_command(
    ctx: click.Context,
    paths: tuple[str, ...],
    device: DeviceChoice | tuple[DeviceChoice, ...],
    inputs: RunInputs,
    model: ModelChoice,
    output: RunOutput,
    policy: CiPolicy,
    self_heal: bool,
    tags: str,
    max_llm_calls: int,
    shard_text: str | None,
    shard_durations: str | None,
    trail_timeout: float,
) -> None:
    """Replay trail files or folders with their recordings: no LLM unless a step needs one.

    With --shard I/N each CI job replays its share; `trailblaze report --merge` joins their run
    directories into one HTML report and one JUnit file.

    With --retries N a failed trail runs again from its start (the app relaunched) up to N times; one
    that passes only on a retry is flaky (counted in the summary, the report and JUnit), and
    --fail-on-flaky fails the run for it. A trail with `config.quarantine: <reason>` runs and is
    reported, but its failure does not fail the run. --max-heals N fails a --self-heal run that
    healed more than N steps; every heal is listed in the summary with its diff.
    """
    from trailblaze.cli.console import ConsoleProgress
    from trailblaze.engine.commands import run_replay_command
    from trailblaze.engine.options import ReplayRun
    from trailblaze.engine.replay import ReplayOptions
    from trailblaze.engine.shard import load_durations, parse_shard
    from trailblaze.errors import UsageError

    shard = parse_shard(shard_text) if shard_text is not None else None
    if shard_durations is not None and shard is None:  # before the file is read
        raise UsageError("--shard-durations balances shards: add --shard I/N")
    devices = device if isinstance(device, tuple) else (device,)
    run = ReplayRun(
        paths=paths,
        device=devices[0],
        inputs=inputs,
        model=model,
        output=output,
        replay=ReplayOptions(self_heal=self_heal, max_llm_calls=max_llm_calls, trail_timeout=trail_timeout),
        tags=tuple(t.strip() for t in tags.split(",") if t.strip()),
        shard=shard,
        durations=load_durations(shard_durations) if shard_durations is not None else None,
        policy=policy,
    )
    if len(devices) > 1:
        ctx.exit(_replay_matrix(run, devices))
    code = run_replay_command(run, ConsoleProgress())
    ctx.exit(code)


def _replay_matrix(run: ReplayRun, devices: tuple[DeviceChoice, ...]) -> int:
    """`replay --device A --device B …`: every trail on each device in turn, each device's run in a
    folder of the run directory, then one merged report (the trails × devices grid) and JUnit file.
    The exit code is the worst of the devices' (3 a device's infrastructure, 2 usage, 1 a trail)."""
    import dataclasses
    import re
    import time

    from trailblaze.cli.console import ConsoleProgress
    from trailblaze.engine.commands import report_target, run_replay_command

    out = run.output
    from pathlib import Path

    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = Path(out.run_dir) if out.run_dir else Path(".trailblaze", "runs", f"{stamp}-matrix")
    codes = []
    for n, choice in enumerate(devices, 1):
        folder = base / f"{n}-{re.sub(r'[^A-Za-z0-9@.+-]+', '-', choice.text).strip('-')[:60]}"
        click.echo(f"device {n} of {len(devices)}: {choice.text} (run directory {folder})")
        own = dataclasses.replace(out, run_dir=str(folder), report=None, junit=None, allure_dir=None, ctrf=None)
        codes.append(run_replay_command(dataclasses.replace(run, device=choice, output=own), ConsoleProgress()))
    report = str(report_target(out.report)) if out.report else str(base / "report.html")
    _merge_reports([str(base)], report, _Results(out.junit, out.allure_dir, out.ctrf), single_file=out.report_single_file)
    return max(codes)
