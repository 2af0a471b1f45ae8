"""The `trailblaze` command line: a thin click layer over the library.

Every command imports what it needs inside its body so that `trailblaze --help` stays fast.
Errors: a `TrailblazeError` becomes one line on stderr and its exit code (0 passed, 1 trail failed,
2 usage / trail file, 3 device or LLM infrastructure); a traceback only with `--debug`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import signal
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from trailblaze.__about__ import __version__
from trailblaze.cli.driver_options import driver_options
from trailblaze.common.deadline import DEFAULT_TRAIL_TIMEOUT_S
from trailblaze.errors import EXIT_INFRA, EXIT_USAGE, TrailblazeError

if TYPE_CHECKING:
    from pathlib import Path

    from trailblaze.device.driver_hooks import GivenOptions
    from trailblaze.engine.options import (
        DeviceChoice,
        ModelChoice,
        RecordOptions,
        ReplayRun,
        RunInputs,
        RunOutput,
    )
    from trailblaze.output.artifacts import ScreenshotMode
    from trailblaze.output.ci_policy import CiPolicy
    from trailblaze.output.runlog import RunRecord, TrailRecord


class _Group(click.Group):
    """Keeps the commands in the order they are declared in `--help`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


_DEVICE_HELP = (
    "android[:SERIAL], android@HOST:PORT[:SERIAL] (a remote adb server), ios[:WDA_URL], ios@http://HOST:PORT, "
    "web[:URL] (a browser), appium:URL or appium:browserstack|saucelabs[:REGION]|lambdatest (with --capabilities), "
    "sim:android[:APP] or sim:ios[:APP] (APP: demo, demo@restyled, demo@v2 or a spec file), with +PROFILE for "
    "another screen (small, large, tablet; +landscape, +large-font, +dark: sim:android+small+dark)."
)
_LATENCIES = ("zero", "realistic")  # trailblaze_sim.faults.LATENCY_PROFILES (a plugin: not imported)


def _debug_option(f: Any) -> Any:
    # main() reads --debug from argv before click parses it; the option only has to be accepted here
    return click.option(
        "--debug", is_flag=True, expose_value=False, help="Show tracebacks on errors (or TRAILBLAZE_DEBUG=1)."
    )(f)


def _grouped(name: str, build: Any, *keys: str) -> Callable[[Any], Any]:
    """Hands the command the options `keys` as one value, `build(**those options)`, named `name`:
    `record` / `replay` take a few option objects (trailblaze.engine.options), not one parameter per flag."""

    def decorate(f: Any) -> Any:
        @functools.wraps(f)
        def collect(*args: Any, **kwargs: Any) -> Any:
            parts = {key: kwargs.pop(key) for key in keys}
            return f(*args, **{name: build(**parts)}, **kwargs)

        return collect

    return decorate


def _device_choice(
    device: str | tuple[str, ...],
    latency: str | None,
    drivers: tuple[GivenOptions, ...],
    element_timeout: float | None,
    device_logs: str = "on-failure",
    trace: bool = False,
    install: tuple[str, ...] = (),
    reinstall: bool = False,
) -> DeviceChoice:
    """`--device` and its options, the spec parsed once for the whole run (`trailblaze tool` has only
    the first four). `replay`'s repeated `--device` gives a tuple: one
    device is a `DeviceChoice` as ever, several a tuple of them."""
    from trailblaze.device.logs import DeviceLogMode
    from trailblaze.engine.options import DeviceChoice

    if not isinstance(device, str):
        options = (latency, drivers, element_timeout, device_logs, trace, install, reinstall)
        several = tuple(_device_choice(d, *options) for d in dict.fromkeys(device))
        return several[0] if len(several) == 1 else several  # type: ignore[return-value]

    return DeviceChoice.parse(
        device,
        latency=_latency_for(device, latency),
        element_timeout=element_timeout,
        device_logs=cast("DeviceLogMode", device_logs),
        trace=_trace(trace),
        install=install,
        reinstall=reinstall,
        drivers=drivers,
    )


def _run_inputs(
    memory: tuple[str, ...], args: tuple[str, ...], secrets: tuple[str, ...], secret_files: tuple[str, ...]
) -> RunInputs:
    from trailblaze.common.flags import CLI
    from trailblaze.engine.options import RunInputs

    values, arguments = _key_values(memory, "--memory"), _key_values(args, "--arg")
    flags = CLI.carrying(secrets, secret_files, values, arguments)
    return RunInputs(values, arguments, _secrets(secrets, secret_files), flags=flags)


def _model_choice(
    model: str | None, llm_base_url: str | None, llm_timeout: float | None, llm_retries: int | None
) -> ModelChoice:
    from trailblaze.engine.options import ModelChoice

    return ModelChoice(model, llm_base_url, llm_timeout, llm_retries)


def _run_output(
    run_dir: str | None,
    report_screenshots: str,
    junit_path: str | None = None,
    report_path: str | None = None,
    report_single_file: bool = False,
    allure_dir: str | None = None,
    ctrf_path: str | None = None,
    results: str | None = None,
) -> RunOutput:
    from trailblaze.engine.options import RunOutput
    from trailblaze.results.location import resolve_location

    return RunOutput(
        run_dir, cast("ScreenshotMode", report_screenshots), junit_path, report_path, report_single_file,
        allure_dir, ctrf_path, resolve_location(results),
    )  # fmt: skip


def _replay_output(
    run_dir: str | None,
    report_screenshots: str | None,
    junit_path: str | None,
    report_path: str | None,
    report_single_file: bool,
    allure_dir: str | None,
    ctrf_path: str | None,
    results: str | None,
) -> RunOutput:
    """Replay's outputs; `--screenshots` unset is `steps`, or `failures` under CI=true (and says so)."""
    from trailblaze.engine.ci_defaults import CI_SCREENSHOTS_NOTE, default_screenshots

    if report_screenshots is None:
        report_screenshots = default_screenshots(os.environ)
        if report_screenshots != "steps":
            _echo(CI_SCREENSHOTS_NOTE, err=True)
    return _run_output(
        run_dir, report_screenshots, junit_path, report_path, report_single_file, allure_dir, ctrf_path, results
    )


def _record_options(
    max_llm_calls: int,
    no_screenshots: bool,
    rerecord: bool,
    steps: tuple[int, ...],
    from_step: int | None,
    no_verify: bool,
    keep_unverified: bool,
    ask: str,
    resume: bool,
) -> RecordOptions:
    from trailblaze.agent.ask import AskMode, asker_for
    from trailblaze.engine.options import RecordOptions

    return RecordOptions(
        max_llm_calls=max_llm_calls,
        screenshots=not no_screenshots,
        rerecord=rerecord,
        steps=steps,
        from_step=from_step,
        verify=not no_verify,
        keep_unverified=keep_unverified,
        ask=asker_for(cast("AskMode", ask)),
        resume=resume,
    )


def _ci_policy(retries: int, fail_on_flaky: bool, max_heals: int | None) -> CiPolicy:
    from trailblaze.output.ci_policy import CiPolicy

    return CiPolicy(retries=retries, fail_on_flaky=fail_on_flaky, max_heals=max_heals)


_run_groups = (
    _grouped(
        "device", _device_choice,
        "device", "latency", "drivers", "element_timeout", "device_logs", "trace", "install", "reinstall",
    ),
    _grouped("inputs", _run_inputs, "memory", "args", "secrets", "secret_files"),
    _grouped("model", _model_choice, "model", "llm_base_url", "llm_timeout", "llm_retries"),
)  # fmt: skip


def _with_port_groups(f: Any) -> Any:
    """`port`'s groups: the device, the inputs and the outputs; no model, which a port never calls."""
    for group in reversed((_run_groups[0], _run_groups[1], _grouped("output", _run_output, "run_dir", "report_screenshots"))):
        f = group(f)
    return f


def _with_run_groups(*more: Any) -> Callable[[Any], Any]:
    def decorate(f: Any) -> Any:
        for group in reversed((*_run_groups, *more)):
            f = group(f)
        return f

    return decorate


def _device_options(f: Any, *, several: bool = False) -> Any:
    f = driver_options(f)
    f = click.option(
        "--latency",
        type=click.Choice(_LATENCIES),
        default=None,
        help="How slow a sim:* device is: zero (default) or realistic (like a phone over USB).",
    )(f)
    if several:
        help = _DEVICE_HELP + " Repeat it to run every trail on each device (a matrix; one merged report)."
        return click.option("--device", required=True, multiple=True, metavar="SPEC", help=help)(f)
    return click.option("--device", required=True, metavar="SPEC", help=_DEVICE_HELP)(f)


def _matrix_device_options(f: Any) -> Any:
    return _device_options(f, several=True)


def _allow_script_hosts(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> None:
    if not value and "trailblaze.maestro.script_http" not in sys.modules:
        return  # no host to allow and none allowed before: the HTTP modules are not imported for nothing
    from trailblaze.errors import UsageError
    from trailblaze.maestro.script_http import allow_hosts

    try:
        allow_hosts(value)
    except UsageError as exc:
        raise click.BadParameter(exc.message, ctx=ctx, param=param) from None


def _secret_options(f: Any) -> Any:
    """`--secret`, `--secret-file` and `--script-host`, the hosts scripts may send the run's values to."""
    f = click.option(
        "--script-host",
        multiple=True,
        metavar="HOST",
        expose_value=False,
        callback=_allow_script_hosts,
        help="A host Maestro scripts may reach with http.* (besides localhost and the project's "
        "[tool.trailblaze] script_hosts); repeatable. Others are refused: a script can send any value it reads.",
    )(f)
    f = click.option(
        "--secret-file",
        "secret_files",
        multiple=True,
        type=click.Path(path_type=str),
        metavar="PATH",
        help="Secrets from a .env file (NAME=VALUE lines, # comments); repeatable.",
    )(f)
    return click.option(
        "--secret",
        "secrets",
        multiple=True,
        metavar="K=V|K",
        help="A secret ({{K}}), never written anywhere; K alone reads $TRAILBLAZE_SECRET_K (keeps it off the "
        "command line). At least 4 characters.",
    )(f)


def _latency_for(device: str, latency: str | None) -> str | None:
    if latency is not None and not device.strip().startswith("sim:"):
        raise click.BadParameter(
            f"only a simulated device has a latency profile, not {device!r}; drop --latency or use sim:...",
            param_hint="'--latency'",
        )
    return latency


@click.group(
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Run 'trailblaze COMMAND --help' for a command's options and examples.",
)
@click.option("--debug", is_flag=True, envvar="TRAILBLAZE_DEBUG", help="Show tracebacks on errors.")
@click.version_option(__version__, "-V", "--version", prog_name="trailblaze")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Record and replay natural-language trails on Android and iOS."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


# --- commands ------------------------------------------------------------------------------------
# Each command lives below as a small function; the heavy lifting is in the library modules.


_EX = "\b\nExamples:\n"


@cli.command(
    "init",
    short_help="Scaffold trails/, conftest.py, pytest settings and a CI workflow.",
    epilog=_EX + "  trailblaze init --app-id dev.trailblaze.demo\n"
    + "  trailblaze init my-app --app-id com.example.app --platform ios --shards 4\n"
    + "  trailblaze init --app-id com.example.app --ios --pip-spec git+https://github.com/you/trailblaze@main",
)
@click.argument("folder", default=".", type=click.Path(file_okay=False, path_type=str))
@click.option("--app-id", required=True, metavar="ID", help="The app's Android package name or iOS bundle id.")
@click.option("--platform", type=click.Choice(["android", "ios"]), default="android", show_default=True,
              help="The platform of the example trail's recording and of the CI device.")
@click.option("--shards", type=click.IntRange(1, 256), default=2, show_default=True,
              help="How many machines the CI workflow splits the trails over (per platform).")
@click.option("--ios", is_flag=True,
              help="Also replay on an iOS simulator in CI: a macOS job that builds WebDriverAgent with xcodebuild.")
@click.option("--pip-spec", metavar="SPEC", default=None,
              help="What the CI workflow installs: a version (0.2.0), a wheel or sdist path, or a URL "
              "(git+https://...@main). Default: this trailblaze's version.")
@_debug_option
def init_command(folder: str, app_id: str, platform: str, shards: int, ios: bool, pip_spec: str | None) -> None:
    """Scaffold a project in FOLDER (default: here): trails/ with an example trail for the app, a
    conftest.py, pytest settings in pyproject.toml, .github/workflows/trailblaze.yml and a .gitignore
    for the run directories. Never overwrites a file.

    The workflow boots an Android emulator on ubuntu-latest (with --ios or --platform ios, an iOS
    simulator on macOS), installs the app under test, replays the trails on a sharded job matrix
    and merges the shards into one HTML report and JUnit file. Fill in the lines marked FILL IN
    (how the app is built and where it lands); docs/guides/ci.md explains each step."""
    from pathlib import Path

    from trailblaze.cli.scaffold import GITIGNORE, Platform, pytest_settings, scaffold

    kind = cast(Platform, platform)
    scaffolded = scaffold(Path(folder), app_id, kind, shards, ios=ios, pip_spec=pip_spec)
    for done in scaffolded:
        shown = Path(folder) / done.path
        if done.written:
            _echo(f"created {shown}")
        elif done.path.name == "pyproject.toml":
            _echo(f"skipped {shown} (exists, left as it is): add these pytest settings to it:")
            _echo("\n".join(f"    {line}" for line in pytest_settings(app_id, kind).splitlines()))
        elif done.path.name == ".gitignore" and ".trailblaze" not in _text_of(shown):
            _echo(f"skipped {shown} (exists, left as it is): add these lines to it:")
            _echo("\n".join(f"    {line}" for line in GITIGNORE.splitlines() if not line.startswith("#")))
        else:
            _echo(f"skipped {shown} (exists, left as it is)")
    workflow = Path(folder) / ".github" / "workflows" / "trailblaze.yml"
    if any(done.written and done.path.name == "trailblaze.yml" for done in scaffolded):
        _echo(f"fill in the lines marked FILL IN in {workflow}: how CI builds the app under test and where it lands")
        if pip_spec is None:
            from trailblaze.__about__ import __version__

            _echo(f"note: the workflow installs trailblaze=={__version__} from PyPI; before the first release is there, "
                  "run init again with --pip-spec git+https://github.com/YOU/trailblaze@main (the drivers come from "
                  "the same repository) or a wheel built from a checkout (docs/guides/install.md#before-the-first-release)")
    example = Path(folder) / "trails" / "example.trail.yaml"
    _echo(f"next: trailblaze validate {Path(folder) / 'trails'}; record steps with "
          f"`trailblaze record {example} --device {platform}`")
    if ios and platform != "ios":
        _echo("next for iOS: start WebDriverAgent on a simulator or iPhone and record the same steps there: "
              f"`trailblaze record {example} --device ios` (docs/guides/real-devices.md)")


def _text_of(path: Any) -> str:
    try:
        return str(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return ""


@cli.command(
    "validate",
    short_help="Check trail files and print file:line:col per problem.",
    epilog=_EX + "  trailblaze validate trails/\n  trailblaze validate trails/login.trail.yaml",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--platform", type=click.Choice(["android", "ios", "web"]), default=None,
              help="Check for this platform only, and that every step has a recording for it.")
@_debug_option
@click.pass_context
def validate_command(ctx: click.Context, paths: tuple[str, ...], platform: str | None) -> None:
    """Check trail files (folders: every *.trail.yaml / trail.yaml below) as replay does before the device.

    The same checks as `replay` / `record` run before they touch a device, for android and ios: the
    file loads, every recorded tool exists, every {{template}} has a value. A value that comes from
    the command line (--secret, --arg, --memory) is printed as a note, not an error. With --platform,
    a step with no recording for that platform is a problem too (replay would need a model for it).
    """
    from pathlib import Path

    from trailblaze.engine.check import fact_warnings
    from trailblaze.engine.preflight import PLATFORMS, recorded_platforms, unrecorded, validate_trails
    from trailblaze.errors import TrailFileError
    from trailblaze.trail.model import Trail, find_trail_files, load_trail

    passed_over: list[Path] = []  # counted and named: a flow the sniffer missed is seen, not skipped
    files, missing = find_trail_files(paths, passed_over=passed_over)
    for path in missing:
        _echo(f"{path}: no such file or directory")
    bad: set[Path] = set()
    problems = 0
    loaded: list[tuple[Path, Trail]] = []
    for file in files:
        try:
            loaded.append((file, load_trail(file)))
        except TrailFileError as exc:
            bad.add(file)
            problems += len(exc.problems)
            for problem in exc.problems:
                _echo(problem.format(str(file)))
        except TrailblazeError as exc:
            bad.add(file)
            problems += 1
            _echo(f"{file}: {exc.message}")
    notes = tool_problems = 0
    platforms = (platform,) if platform else PLATFORMS
    found = validate_trails(loaded, platforms=platforms)  # exactly replay's preflight (engine/preflight.py)
    for finding in [*found, *(unrecorded(loaded, platform) if platform else [])]:
        if finding.needs_value:
            notes += 1
            _echo(f"{finding.where}: note: {finding.message}")
            continue
        problems += 1
        in_trail = {file for file, _ in loaded if finding.where.startswith(f"{file}:")}
        if not in_trail and ".trail." in finding.where:  # a sub-trail (runTrail) the check walked into
            in_trail = {Path(finding.where.split(":", 1)[0])}
        bad.update(in_trail)
        tool_problems += not in_trail
        _echo(str(finding))
    warnings = 0
    for file, trail in loaded:  # weak trails: verify steps whose quoted facts no assertion checks
        for warning in fact_warnings(file, trail):
            warnings += 1
            _echo(warning)
    summary = [f"{len(files)} file{'s' * (len(files) != 1)} checked"]
    if bad or tool_problems:
        summary.append(f"{len(bad)} invalid with {problems} problem{'s' * (problems != 1)}")
        if tool_problems:
            summary.append(f"{tool_problems} in custom tools")
    elif files:
        summary.append("all valid")
    else:
        searched = ", ".join(p for p in paths if p not in missing)
        summary.append(f"no *.trail.yaml, *.trail.md, trail.yaml or blaze.yaml found{f' in {searched}' if searched else ''}")
    summary += [recorded for recorded in [recorded_platforms(loaded)] if recorded]
    if passed_over:
        summary.append(_passed_over_text(passed_over))
    if notes:
        summary.append(f"{notes} note{'s' * (notes != 1)} on values to pass at run time")
    if warnings:
        summary.append(f"{warnings} warning{'s' * (warnings != 1)} on unchecked facts (`trailblaze check` says more)")
    if missing:
        summary.append(f"{len(missing)} path{'s' * (len(missing) != 1)} not found")
    _echo(", ".join(summary))
    ctx.exit(EXIT_USAGE if bad or tool_problems or missing or not files else 0)


def _passed_over_text(paths: list[Any]) -> str:
    names = ", ".join(p.name for p in paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    count = len(paths)
    return f"{count} other YAML file{'s' * (count != 1)} looked at and not a trail or a Maestro flow ({names})"


@cli.command(
    "check",
    short_help="Show recorded assertions that cannot fail (no device).",
    epilog=_EX + "  trailblaze check trails/\n  trailblaze check trails/login.trail.yaml --runs .trailblaze/runs",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--runs",
    "runs_dir",
    default=".trailblaze/runs",
    show_default=True,
    type=click.Path(file_okay=False, path_type=str),
    help="Where runs are kept; the newest run of each trail is used.",
)
@click.option(
    "--run",
    "run_dir",
    default=None,
    type=click.Path(exists=True, file_okay=False, path_type=str),
    help="Judge on the screens of this run directory instead.",
)
@_debug_option
@click.pass_context
def check_command(ctx: click.Context, paths: tuple[str, ...], runs_dir: str, run_dir: str | None) -> None:
    """Check that every recorded assertion can fail (exit 1 when one cannot; 0 when all can).

    For each verify step: every quoted text and named state ("is on", "disabled") must be checked by a
    recorded assertion; and each assertion is evaluated on the screen a run saved for its step with
    the asserted element changed (text altered, switch flipped, element removed) — an assertion that
    still passes cannot fail, and is printed. Replay the trail first so there is a run to judge on.
    """
    from pathlib import Path

    from trailblaze.engine.check import check_trail
    from trailblaze.errors import TrailFileError
    from trailblaze.trail.model import find_trail_files, load_trail

    files, missing = find_trail_files(paths)
    for path in missing:
        _echo(f"{path}: no such file or directory")
    weak = unjudged = shown = 0
    for file in files:
        try:
            trail = load_trail(file)
        except TrailFileError as exc:
            for problem in exc.problems:
                _echo(problem.format(str(file)))
            ctx.exit(EXIT_USAGE)
        report = check_trail(file, trail, Path(runs_dir), run_dir=Path(run_dir) if run_dir else None)
        lines = [*report.uncovered, *report.weak]
        weak += len(lines)
        shown += report.shown
        unjudged += len(report.unjudged)
        status = "ok" if report.ok else "WEAK"
        where = f" (screens of {report.run_dir})" if report.run_dir else ""
        _echo(f"{status} {file}: {report.shown} assertion{'s' * (report.shown != 1)} shown to fail{where}")
        for line in lines:
            _echo(f"  ✗ {line}")
        for line in report.unjudged:
            _echo(f"  - not judged: {line}")
    _echo(
        f"{len(files)} trail{'s' * (len(files) != 1)} checked: {shown} assertion{'s' * (shown != 1)} shown to "
        f"fail, {weak} cannot fail or are missing, {unjudged} not judged"
    )
    ctx.exit(EXIT_USAGE if missing or not files else 1 if weak else 0)


def _echo(text: str, *, err: bool = False, label: str = "") -> None:
    """`click.echo` for text that may come from a trail file or a device: secrets redacted (an error can
    quote the screen, and the screen the secret), control characters made visible. `label` is the
    program's own word before it (`error: `), printed as it is: a secret equal to it stays unnamed."""
    from trailblaze.common.printable import printable
    from trailblaze.common.redact import scrub

    click.echo(label + printable(scrub(text)), err=err)


@cli.group("import", short_help="Convert tests of other tools into trails (Maestro flows).")
@_debug_option
def import_group() -> None:
    """Convert tests written for other tools into trails."""


@import_group.command(
    "maestro",
    short_help="Write each Maestro flow as a .trail.yaml that replays it.",
    epilog=_EX + "  trailblaze import maestro flows/login.yaml\n  trailblaze import maestro flows/ --out trails/",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--out", type=click.Path(file_okay=False, path_type=str), help="Write the trails here (default: beside each flow).")
@click.option("--force", is_flag=True, help="Overwrite trail files that exist.")
@_debug_option
@click.pass_context
def import_maestro_command(ctx: click.Context, paths: tuple[str, ...], out: str | None, force: bool) -> None:
    """Write each Maestro flow in PATHS (folders: every flow below) as <name>.trail.yaml: one step per
    command recording `mobile_maestro`, so the trail replays as the flow does and can then be
    re-recorded, healed or extended. Commands trailblaze cannot run become steps for the agent and
    are printed. docs/guides/maestro.md maps Maestro's commands."""
    from pathlib import Path

    from trailblaze.maestro.importer import import_maestro_paths

    code = import_maestro_paths([Path(p) for p in paths], Path(out) if out else None, force=force, echo=_echo)
    ctx.exit(code)


@cli.command("schema", short_help="Print the JSON Schema of trail files.")
@_debug_option
def schema_command() -> None:
    """Print the JSON Schema of trail files (for YAML editors), with the params of the custom tools
    found from the current folder (./trails/tools, [tool.trailblaze] tools, entry points) when a
    trail below it uses one: custom tools are Python code, imported only then."""
    import json

    from trailblaze.tools.discovery import tools_for
    from trailblaze.trail.schema import trail_json_schema

    custom = tools_for(None).tools.custom() if _trails_use_custom_tools() else ()
    click.echo(json.dumps(trail_json_schema(custom), indent=2, ensure_ascii=False))


def _trails_use_custom_tools() -> bool:
    """Whether a trail under ./trails (else the current folder) names a tool that is not built in."""
    from pathlib import Path

    from trailblaze.engine.preflight import uses_custom_tools
    from trailblaze.trail.model import find_trail_files, load_trail

    here = Path("trails") if Path("trails").is_dir() else Path(".")
    for file in find_trail_files([here])[0]:
        try:
            if uses_custom_tools(load_trail(file)):
                return True
        except TrailblazeError:
            continue  # a broken trail: `validate` says why
    return False


@cli.command(
    "sim",
    short_help="Run a simulated Android phone, iPhone or model endpoint in the foreground.",
    epilog=_EX
    + "  trailblaze sim android --port 15037     # then: adb -P 15037 devices\n"
    + "  trailblaze sim ios --port 18100 --app demo@v2\n"
    + "  trailblaze sim android --profile small+dark    # a 360x640 phone in dark mode\n"
    + "  trailblaze sim android --faults 0.033     # 1 request in 30 drops, errs, comes back empty or stalls\n"
    + "  trailblaze sim llm --port 8787          # then: ANTHROPIC_BASE_URL=http://127.0.0.1:8787 trailblaze record …\n"
    + "  trailblaze sim openai --port 8788       # then: trailblaze record … --model openai:demo "
    + "--llm-base-url http://127.0.0.1:8788/v1",
)
@click.argument("platform", type=click.Choice(["android", "ios", "llm", "openai"]))
@click.option("--app", default="demo", show_default=True,
              help="Bundled app NAME[@VARIANT] (demo, demo@restyled, demo@v2) or a spec PATH.")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port to listen on (default: a free port).")
@click.option("--latency", type=click.Choice(_LATENCIES), default="zero", show_default=True,
              help="Latency profile.")
@click.option("--devices", "count", type=click.IntRange(min=1), default=1, show_default=True,
              help="How many devices (android only).")
@click.option("--gestures", type=click.Choice(["timed", "instant"]), default="timed", show_default=True,
              help="timed: a swipe, long press or pinch lasts the duration the client asks for, as on a "
              "phone; instant: it returns at once (the in-process test rigs' default).")
@click.option("--faults", type=click.FloatRange(0.0, 1.0), default=0.0, metavar="RATE",
              help="Each request's chance of a transient fault, as real phones give them: a dropped "
              "connection (served, answer lost), a 500 / JSON-RPC error, an empty dump or a 2 s stall.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the --faults draw: the same seed faults the same requests.")
@click.option("--profile", default=None, metavar="NAME[+MOD...]",
              help="Device profile: phone (default), small, large or tablet, with +landscape, +large-font "
              "(font scale 1.3), +dark; e.g. small+dark. As --device sim:android+small+dark elsewhere.")
@_debug_option
def sim_command(
    platform: str,
    app: str,
    port: int,
    latency: str,
    count: int,
    gestures: str,
    faults: float,
    seed: int,
    profile: str | None,
) -> None:
    """Run a simulated device in the foreground until Ctrl-C.

    `llm` serves a local Messages-API endpoint whose scripted "model" solves the demo app's trails, so
    `trailblaze record` can be tried without an API key (loopback only); `openai` serves the same
    model as an OpenAI-compatible Chat Completions endpoint (for `--model openai:...`).
    """
    if platform in ("llm", "openai"):
        _serve_fake_llm(port, openai=platform == "openai")
        return
    from trailblaze.device.simulator import load_simulator

    plugin = load_simulator(f"trailblaze sim {platform}")
    # asked only when wanted: a trailblaze-sim from before --faults still starts plain simulators
    extra: dict[str, Any] = {"faults": faults, "seed": seed} if faults else {}
    if profile:
        if platform not in ("android", "ios"):
            raise click.UsageError("--profile is for a simulated phone (android, ios)")
        extra["profile"] = profile
    from trailblaze.device.sim_registry import announced

    sim = plugin.start(
        platform, app, count=count, port=port, latency=latency, timed_gestures=gestures == "timed", **extra
    )
    how = sim.how_to_connect() + _driver_hints(platform, sim.device_specs())
    with announced(platform, sim.how_to_connect()):  # `trailblaze devices` in another terminal finds it
        _foreground(how, sim.stop)


def _driver_hints(platform: str, specs: list[tuple[str, dict[str, str]]]) -> str:
    """What the installed drivers add to how to reach a simulator (Appium: the capabilities)."""
    from trailblaze.device.driver_hooks import declared

    return "".join(d.sim_hint(platform, specs) for d in declared() if d.sim_hint is not None)


def _foreground(how_to_use: str, stop: Any) -> None:
    """Prints how to use a server, then serves until Ctrl-C and stops it."""
    import threading

    click.echo(how_to_use)
    sys.stdout.flush()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop()


def _serve_fake_llm(port: int, *, openai: bool = False) -> None:
    from trailblaze.errors import UsageError
    from trailblaze.testing.chat_completions_api import FakeChatCompletionsAPI
    from trailblaze.testing.demo_policy import demo_policy
    from trailblaze.testing.messages_api import FakeMessagesAPI

    kind = FakeChatCompletionsAPI if openai else FakeMessagesAPI
    try:
        api = kind(policy=demo_policy, port=port, keep_requests=False)
    except OSError as exc:
        raise UsageError(
            f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); pick another --port, or 0 for a free one"
        ) from None
    how = (
        f"trailblaze record TRAIL --device sim:android --model openai:demo --llm-base-url {api.url}"
        if openai
        else f"ANTHROPIC_BASE_URL={api.url} trailblaze record TRAIL --device sim:android"
    )
    _foreground(
        f"{how}   # the demo model: a script for the demo app, not a real model (no API key; runs are labelled "
        "demo:trailblaze-demo and cost nothing; it understands only the phrasings docs/guides/recording.md lists); Ctrl-C stops it",
        api.close,
    )


_allure_option = click.option(
    "--allure-dir", "allure_dir", type=click.Path(file_okay=False, path_type=str), metavar="DIR",
    help="Also write Allure results into DIR (one result per trail and device, steps with screenshots; "
    "`allure generate DIR` makes the report).",
)
_ctrf_option = click.option(
    "--ctrf", "ctrf_path", type=click.Path(dir_okay=False, path_type=str), metavar="FILE",
    help="Also write the results as CTRF JSON (https://ctrf.io) to FILE.",
)


@cli.command(
    "report",
    short_help="Re-render the HTML report (and JUnit XML) of a run directory, or merge shards' runs.",
    epilog=_EX + "  trailblaze report .trailblaze/runs/20250101-120000 -o report.html --junit junit.xml\n"
    + "  trailblaze report --merge shards/1 shards/2 shards/3 --report report.html --junit junit.xml",
)
@click.argument("run_dirs", nargs=-1, required=True, metavar="RUN_DIR...", type=click.Path(path_type=str))
@click.option("--output", "-o", "--report", "output", type=click.Path(dir_okay=False, path_type=str),
              help="HTML file (default RUN_DIR/report.html; with --merge, report.html in the current folder); its "
              "screenshots are files beside it (in NAME_files/ when it is not in the run directory).")
@click.option("--report-single-file", "--single-file", "single_file", is_flag=True,
              help="One self-contained HTML file, screenshots embedded (megabytes per trail).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=str), help="Also write JUnit XML here.")
@_allure_option
@_ctrf_option
@click.option("--merge", is_flag=True,
              help="Merge several run directories (the shards of a CI matrix, or a folder holding them) into one "
              "report and one JUnit file.")
@_debug_option
def report_command(
    run_dirs: tuple[str, ...],
    output: str | None,
    single_file: bool,
    junit_path: str | None,
    allure_dir: str | None,
    ctrf_path: str | None,
    merge: bool,
) -> None:
    """Render the HTML report (and JUnit XML) of a run directory from its run.json.

    The page loads the run's screenshots from files beside it, as a trail is opened; with
    --report-single-file they are embedded in it instead. With --merge: one report and one JUnit file
    for every trail of several run directories, e.g. the `replay --shard I/N` runs of a CI matrix
    downloaded next to each other.
    """
    from pathlib import Path

    from trailblaze.errors import UsageError
    from trailblaze.output.report import write_html_report
    from trailblaze.output.runlog import RUN_FILE, iter_trails, read_head
    from trailblaze.results.history import report_history
    from trailblaze.results.location import resolve_location

    results = _Results(junit_path, allure_dir, ctrf_path)
    if merge:
        _merge_reports(list(run_dirs), output, results, single_file=single_file)
        return
    if len(run_dirs) > 1:
        raise UsageError(
            f"{len(run_dirs)} run directories given: pass one, or add --merge to merge them into one report"
        )
    # `report runs/x/run.json` means the same as `report runs/x`
    directory = Path(run_dirs[0])
    if directory.name == RUN_FILE and directory.is_file():
        directory = directory.parent
    head = read_head(directory)  # the run is read one trail at a time: any size fits in memory
    with report_history(resolve_location(None)) as history:
        html_path = write_html_report(directory, output, single_file=single_file, history=history)
    click.echo(f"report: {html_path} ({html_path.stat().st_size / 1024:.0f} KB){_pictures_note(html_path)}")
    results.write(head, directory, lambda: iter_trails(directory, head))


def _pictures_note(page: Any) -> str:
    """`, screenshots in report_files/` when the page's pictures were put beside it."""
    from trailblaze.output.report import pictures_folder

    folder = pictures_folder(page)
    return f", screenshots in {folder}{os.sep}" if folder is not None else ""


@dataclasses.dataclass(frozen=True)
class _Results:
    """`trailblaze report`'s result files besides the HTML page: JUnit, Allure, CTRF."""

    junit: str | None = None
    allure_dir: str | None = None
    ctrf: str | None = None

    def check(self) -> None:
        from trailblaze.common.files import check_writable

        for path, flag in ((self.junit, "--junit"), (self.ctrf, "--ctrf")):
            if path:
                check_writable(path, flag)

    def write(self, run: RunRecord, run_dir: Path, trails: Callable[[], Iterable[TrailRecord]]) -> None:
        """Writes each file asked for; `trails` gives the run's trails afresh for each."""
        if self.junit:
            from trailblaze.output.junit import write_junit

            click.echo(f"junit:  {write_junit(run, self.junit, run_dir=run_dir, trails=trails())}")
        if self.allure_dir:
            from trailblaze.output.allure import write_allure

            click.echo(f"allure: {write_allure(run, self.allure_dir, run_dir=run_dir, trails=trails())}")
        if self.ctrf:
            from trailblaze.output.ctrf import write_ctrf

            click.echo(f"ctrf:   {write_ctrf(run, self.ctrf, run_dir=run_dir, trails=trails())}")


def _merge_reports(paths: list[str], output: str | None, results: _Results, *, single_file: bool) -> None:
    from trailblaze.common.files import check_writable
    from trailblaze.output.ci_policy import is_flaky
    from trailblaze.output.merge import merge_runs, run_dirs
    from trailblaze.output.report import write_html_report
    from trailblaze.results.history import report_history
    from trailblaze.results.location import resolve_location

    target = output or "report.html"
    check_writable(target, "--report")
    results.check()
    merged = merge_runs(run_dirs(paths))
    for name in merged.duplicates:
        _echo(f"warning: {name} is in more than one of the merged runs (were two shards given the same --shard?)",
              err=True)
    with report_history(resolve_location(None)) as history:  # each trail's outcomes before and in these runs
        html_path = write_html_report(merged.root, target, run=merged.run, single_file=single_file, history=history)
    counts: dict[str, int] = {}
    for trail in merged.run.trails:
        status = "flaky" if is_flaky(trail) else trail.status  # a pass on a retry is named (ADR 0044)
        counts[status] = counts.get(status, 0) + 1
    quarantined = sum(bool(t.quarantine) for t in merged.run.trails)
    summary = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no trails"
    summary += f"; {quarantined} quarantined" if quarantined else ""
    n, runs = len(merged.run.trails), len(merged.sources)
    click.echo(f"merged {runs} run{'s' * (runs != 1)}: {n} trail{'s' * (n != 1)} ({summary})")
    click.echo(f"report: {html_path} ({html_path.stat().st_size / 1024:.0f} KB){_pictures_note(html_path)}")
    results.write(merged.run, merged.root, lambda: merged.run.trails)


@cli.group(
    "results", invoke_without_command=True,
    short_help="Trail results over time: flaky trails, failing steps, a CI gate.",
    epilog=_EX + "  trailblaze results\n  trailblaze results --flaky --since 7d\n"
    + "  trailblaze results --gate --max-flake-rate 0.2\n  trailblaze results import shards/",
)  # fmt: skip
@click.option("--results", "location", default=None, metavar="PATH|URL",
              help="The store: a SQLite file or a postgresql:// URL (default: $TRAILBLAZE_RESULTS, else "
              ".trailblaze/results.db).")
@click.option("--since", default=None, metavar="WHEN", help="Only runs since then: 7d, 12h, 30m or a date.")
@click.option("--branch", default=None, help="Only runs of this branch.")
@click.option("--device", "device_filter", default=None,
              help="Only this device (sim:android, a serial; * matches anything).")
@click.option("--trail", default=None, help="Only this trail (its id or path; * matches anything).")
@click.option("--last", type=click.IntRange(min=1), default=20, show_default=True, metavar="N",
              help="Runs counted per trail and device.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--markdown", is_flag=True, help="Print a Markdown table (for a pull-request comment).")
@click.option("--flaky", is_flag=True, help="List the flaky trails with the evidence.")
@click.option("--suggest-quarantine", is_flag=True, help="Print the config.quarantine lines for the flaky trails.")
@click.option("--gate", is_flag=True,
              help="Exit 1 when a trail's latest result on a device failed, or its flake rate is over --max-flake-rate.")
@click.option("--max-flake-rate", type=click.FloatRange(0, 1), default=None, metavar="RATE",
              help="With --gate: the highest flake rate allowed (0.2 = 20%); default: not checked.")
@_debug_option
@click.pass_context
def results_command(
    ctx: click.Context, location: str | None, since: str | None, branch: str | None, device_filter: str | None,
    trail: str | None, last: int, as_json: bool, markdown: bool, flaky: bool, suggest_quarantine: bool, gate: bool,
    max_flake_rate: float | None,
) -> None:  # fmt: skip
    """The latest status, pass and flake rates, the step that fails most, durations and the last failure
    of every trail on every device, from the results store that replay, record and pytest add to."""
    from trailblaze.cli import results as show
    from trailblaze.errors import UsageError
    from trailblaze.results.location import resolve_location
    from trailblaze.results.query import Filters, gate_failures, summaries
    from trailblaze.results.store import open_store

    ctx.ensure_object(dict)["location"] = location
    if ctx.invoked_subcommand is not None:
        return
    where = resolve_location(location)
    if where is None:
        raise UsageError("the results store is off (TRAILBLAZE_RESULTS=off); pass --results PATH|URL to read one")
    if max_flake_rate is not None and not gate:
        raise UsageError("--max-flake-rate is a --gate threshold: add --gate")
    with open_store(where, create=False) as store:
        found = summaries(store, Filters(last=last, since=since, branch=branch, device=device_filter, trail=trail))
    if as_json:
        click.echo(show.json_text(found))
    elif markdown:
        click.echo(show.markdown(found))
    elif flaky:
        click.echo(show.flaky_text(found))
    elif suggest_quarantine:
        click.echo(show.quarantine_lines(found))
    elif not gate:
        click.echo(show.table(found) if found else "no results match")
    if gate:
        if not found:
            raise UsageError(f"--gate: no results in {where} match; nothing to judge (check --results and the filters)")
        failures = gate_failures(found, max_flake_rate)
        for line in failures:
            _echo(f"gate: {line}", err=True)
        if not failures:
            click.echo(f"gate passed: {len(found)} trail × device pair{'s' * (len(found) != 1)}")
        ctx.exit(1 if failures else 0)


@results_command.command(
    "import", short_help="Add run directories from other machines (CI shards) to the store."
)
@click.argument("run_dirs", nargs=-1, required=True, metavar="RUN_DIR...", type=click.Path(path_type=str))
@click.option("--results", "location", default=None, metavar="PATH|URL", help="The store (as for `trailblaze results`).")
@_debug_option
@click.pass_context
def results_import_command(ctx: click.Context, run_dirs: tuple[str, ...], location: str | None) -> None:
    """Add runs whose artifacts came from elsewhere; a run already in the store is not added twice."""
    from trailblaze.cli.results import import_runs
    from trailblaze.errors import UsageError
    from trailblaze.results.location import resolve_location

    where = resolve_location(location or (ctx.obj or {}).get("location"))
    if where is None:
        raise UsageError("the results store is off (TRAILBLAZE_RESULTS=off); pass --results PATH|URL")
    runs, added = import_runs(run_dirs, where)
    click.echo(f"imported {runs} run{'s' * (runs != 1)}: {added} new trail result{'s' * (added != 1)}")


@cli.command("devices", short_help="List connected devices.")
@_debug_option
def devices_command() -> None:
    """List connected devices (adb; WebDriverAgent at $TRAILBLAZE_WDA_URL) and how to start a simulator."""
    from trailblaze.device.devices import list_devices

    found, problems = list_devices()
    for listing in found:
        _echo(f"{listing.spec:<32} {listing.state:<12} {listing.description}")
    for problem in problems:
        _echo(problem)
    if not any(d.state in ("device", "ready") for d in found):
        from trailblaze.device.sim_registry import running_simulators

        sims = running_simulators()
        for sim in sims:
            click.echo(f"`trailblaze sim {sim.platform}` is running (pid {sim.pid}): {sim.how_to_connect}")
        if not sims:
            click.echo(
                "no device connected: start a simulator with `trailblaze sim android` (or `sim ios`), "
                "or use --device sim:android / sim:ios to run one in-process"
            )


@cli.command(
    "snapshot",
    short_help="Print what the device shows, as the agent sees it.",
    epilog=_EX + "  trailblaze snapshot --device sim:android\n"
    + "  trailblaze snapshot --device android:emulator-5554 --screenshot s.png --set-of-mark",
)
@_device_options
@click.option("--screenshot", "screenshot_path", type=click.Path(dir_okay=False, path_type=str), default=None,
              help="Also save the screenshot (PNG) here.")
@click.option("--raw", is_flag=True, help="Print the raw hierarchy dump instead of the compact view.")
@click.option("--set-of-mark", "set_of_mark", is_flag=True, help="Draw the refs on the saved screenshot.")
@_debug_option
def snapshot_command(
    device: str,
    latency: str | None,
    drivers: tuple[GivenOptions, ...],
    screenshot_path: str | None,
    raw: bool,
    set_of_mark: bool,
) -> None:
    """Print what the device shows: the compact view the agent reads (or the raw dump)."""

    from trailblaze.cli.driver_options import fitting
    from trailblaze.common.files import atomic_write, check_writable
    from trailblaze.common.images import as_png
    from trailblaze.device.devices import open_device, parse_device_spec
    from trailblaze.errors import UsageError
    from trailblaze.screen.compact import compact_view, draw_set_of_mark

    if screenshot_path:
        check_writable(screenshot_path, "--screenshot")
    elif set_of_mark:
        raise UsageError("--set-of-mark draws on the saved screenshot; add --screenshot FILE.png")
    latency = _latency_for(device, latency)
    spec = parse_device_spec(device)
    with open_device(device, latency=latency, driver_options=fitting(drivers, spec.driver)) as session:
        if spec.platform == "web" and spec.target is None:  # a blank page: nothing to show
            raise UsageError(
                "--device web opens a blank page; pass the page to show: --device web:URL "
                "(e.g. web:https://example.com or web:path/to/index.html)"
            )
        hierarchy = session.settle()
        view = compact_view(hierarchy)
        if raw:
            source = hierarchy.source
            _echo(source.decode("utf-8", "replace") if isinstance(source, bytes) else source)
        else:
            _echo(view.text)
        if screenshot_path:
            from trailblaze.screen.mask import mask_shown_secrets

            # the option promises a PNG (a device may send JPEG); a shown secret is black, as in a run's
            png = as_png(mask_shown_secrets(session.screenshot(), hierarchy))
            if set_of_mark:
                png = draw_set_of_mark(png, view, hierarchy.scale)
            try:
                atomic_write(screenshot_path, png)
            except OSError as exc:
                raise UsageError(f"--screenshot {screenshot_path}: cannot write ({exc.strerror or exc})") from None
            click.echo(f"screenshot saved to {screenshot_path}", err=True)


def _positive_seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"{value:g} is not a positive number of seconds (e.g. 0.5 or 10)")
    return value


_element_timeout_option = click.option(
    "--element-timeout",
    type=float,
    default=None,
    metavar="SECONDS",
    callback=_positive_seconds,
    help="How long a selector may take to match before its tool fails (default 5; per-tool timeoutMs wins).",
)

_device_logs_option = click.option(
    "--device-logs",
    type=click.Choice(["off", "on-failure", "always"]),
    default="on-failure",
    show_default=True,
    help="When to keep the app's device log (Android logcat by its pid) in the run directory and report: "
    "for a failed step, for every step, or never.",
)

_trace_option = click.option(
    "--trace",
    is_flag=True,
    help="Web: keep Playwright's trace.zip of a failed trail even when the run has secrets. The trace is "
    "NOT redacted: it holds the typed secrets, the URLs and the pages as they were.",
)

_install_options = [
    click.option(
        "--install",
        "install",
        multiple=True,
        metavar="APK",
        type=click.Path(exists=True, dir_okay=False, path_type=str),
        help="Install (or update, keeping its data) this Android app on the device before the run; repeatable.",
    ),
    click.option("--reinstall", is_flag=True, help="With --install: uninstall the app first, so it starts with no data."),
]


def _with_install(f: Any) -> Any:
    for option in reversed(_install_options):
        f = option(f)
    return f


def _model_spec(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Checks `--model PROVIDER:MODEL` up front: an unknown provider is a usage error (exit 2)."""
    if value is None:  # before the imports: a replay with no --model never loads the LLM clients
        return None
    from trailblaze.errors import UsageError
    from trailblaze.llm.models import parse_model

    try:
        return str(parse_model(value))
    except UsageError as exc:
        raise click.BadParameter(exc.message.removeprefix("--model "), ctx=ctx, param=param) from None


_PROVIDERS_HELP = (
    "PROVIDER:MODEL — anthropic:, bedrock:, vertex: or openai: (any OpenAI-compatible server); "
    "a bare name is an Anthropic model"
)
_MODEL_HELP = _PROVIDERS_HELP + " (default: $TRAILBLAZE_MODEL, then anthropic:claude-sonnet-5)."


_Command = TypeVar("_Command", bound=Callable[..., Any])


def _screenshots_choice(default: str | None, default_help: str) -> Callable[[_Command], _Command]:
    return click.option(
        "--screenshots",
        "report_screenshots",
        type=click.Choice(["steps", "failures", "off"]),
        default=default,
        help="Screenshots kept in the run directory and report: after every step, only a failing step's, "
        f"or none (each step's hierarchy dump is kept either way). {default_help}",
    )


_screenshots_option = _screenshots_choice("steps", "[default: steps]")
_results_option = click.option(
    "--results", "results", default=None, metavar="PATH|URL",
    help="Add this run's results to this store: a SQLite file or a postgresql:// URL (default: "
    "$TRAILBLAZE_RESULTS, else .trailblaze/results.db; `off`: not stored). See `trailblaze results`.",
)  # fmt: skip
# None: decided at run time from the environment (trailblaze.engine.ci_defaults).
_replay_screenshots_option = _screenshots_choice(
    None, "[default: steps; failures when CI=true, where a retried trail still keeps every step's]"
)


def _llm_options(f: Any) -> Any:
    f = click.option(
        "--llm-base-url",
        default=None,
        metavar="URL",
        help="The model endpoint, e.g. http://127.0.0.1:11434/v1 for a local Ollama with --model openai:... "
        "(default: the provider's own, or $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL).",
    )(f)
    f = click.option(
        "--llm-retries",
        type=click.IntRange(0, 10),
        default=None,
        metavar="N",
        help="Retries of a failed or timed-out model call (default 2).",
    )(f)
    return click.option(
        "--llm-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        callback=_positive_seconds,
        help="How long one model call may take (default 30; at most 3 x 30 s + backoff with the defaults).",
    )(f)




@cli.command(
    "tool",
    short_help="Run one recorded-form tool and print its result.",
    epilog=_EX + "  trailblaze tool pressBack --device sim:android\n"
    + "  trailblaze tool '{tapOnElementBySelector: {nodeSelector: {iosMaestro: {resourceIdRegex: email}}}}' "
    + "--device sim:ios\n"
    + "  trailblaze tool '{tapOnElementBySelector: {nodeSelector: {androidAccessibility: "
    + "{resourceIdRegex: \".*sign_in\"}}}}' --device sim:android",
)
@click.argument("tool_text", metavar="TOOL")
@_device_options
@click.option("--memory", "memory", multiple=True, metavar="K=V", help="A memory variable ({{K}}); repeatable.")
@_secret_options
@_debug_option
@_element_timeout_option
@click.option("--model", default=None, callback=_model_spec, metavar="PROVIDER:MODEL",
              help="The model for tools that ask one (rememberText, assertWithAi, …); without it they "
              "answer UNSUPPORTED. " + _PROVIDERS_HELP + ".")
@_llm_options
@_grouped("device", _device_choice, "device", "latency", "drivers", "element_timeout")
@_grouped("model", _model_choice, "model", "llm_base_url", "llm_timeout", "llm_retries")
@click.pass_context
def tool_command(
    ctx: click.Context,
    tool_text: str,
    device: DeviceChoice,
    memory: tuple[str, ...],
    secrets: tuple[str, ...],
    secret_files: tuple[str, ...],
    model: ModelChoice,
) -> None:
    """Run one recorded-form TOOL (YAML or JSON, e.g. 'pressBack' or '{inputText: {text: hi}}').

    `launchApp` starts the app from a clean state (CLEAR_STATE) unless its launchMode says
    FORCE_RESTART or RESUME, as in a replay and as the agent's and the MCP server's launchApp do.
    """
    from trailblaze.errors import UsageError
    from trailblaze.tools.discovery import tools_for
    from trailblaze.tools.memory import Memory
    from trailblaze.trail.model import parse_tool

    call = parse_tool(tool_text, "<tool>")
    custom = tools_for(None)  # ./trails/tools or ./tools, [tool.trailblaze] tools, entry points
    hint = custom.tools.unknown_hint(call.name)
    if hint is not None:
        raise UsageError("\n".join([*custom.problems, f"<tool>: {hint}"]))
    mem = Memory(_key_values(memory, "--memory"), secrets=_secrets(secrets, secret_files))
    llm = None
    if model.model is not None:
        from trailblaze.llm.models import build_llm, parse_model

        spec = parse_model(model.model)
        llm = functools.cache(
            lambda: build_llm(spec, base_url=model.base_url, timeout=model.timeout, retries=model.retries)
        )
    with device.open() as session:
        result = custom.tools.run(session, call, mem, llm=llm)
    _echo(str(result))
    ctx.exit(0 if result.ok else 1)


def _secrets(values: tuple[str, ...], files: tuple[str, ...]) -> dict[str, str]:
    """The run's secrets (files, then --secret), registered so nothing the process writes shows them."""
    from trailblaze.common.redact import register_secrets
    from trailblaze.common.secret_sources import collect_secrets

    found = collect_secrets(values, files)
    register_secrets(found)
    return found


def _key_values(values: tuple[str, ...], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep:
            # no '=': the whole value is (at most) a name, never a secret's value
            raise click.BadParameter(
                f"{value!r} is not KEY=VALUE; write {flag} {key.strip() or 'NAME'}=VALUE", param_hint=f"'{flag}'"
            )
        if not key.strip():
            raise click.BadParameter(
                f"{value!r} is not KEY=VALUE (no name); write {flag} NAME=VALUE", param_hint=f"'{flag}'"
            )
        out[key.strip()] = val
    return out


@cli.command(
    "record",
    short_help="Let the agent solve unrecorded steps and write their recordings.",
    epilog=_EX + "  ANTHROPIC_API_KEY=... trailblaze record trails/login.trail.yaml --device sim:android "
    + "--secret password=hunter2\n"
    + "  trailblaze record trails/login.trail.yaml --device android --rerecord --secret password\n"
    + "  trailblaze record trails/login.trail.yaml --device sim:ios --step 3 --secret password=hunter2",
)
@click.argument("trails", nargs=-1, required=True, type=click.Path(path_type=str))
@_device_options
@click.option("--memory", "--env", "-e", "memory", multiple=True, metavar="K=V",
              help="A memory variable ({{K}}; a Maestro flow's ${K}, as Maestro's --env / -e); repeatable.")
@click.option("--arg", "args", multiple=True, metavar="K=V", help="A trail argument ({{args.K}}); repeatable.")
@_secret_options
@click.option("--model", default=None, callback=_model_spec, metavar="PROVIDER:MODEL", help=_MODEL_HELP)
@click.option("--max-llm-calls", type=click.IntRange(min=1), default=50, show_default=True, help="Per step.")
@click.option("--no-screenshots", is_flag=True, help="Send only the view hierarchy, no screenshot.")
@click.option("--rerecord", is_flag=True, help="Solve every step with the agent, even recorded ones.")
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


@cli.command(
    "port",
    short_help="Port recordings to another platform or form factor, with no model.",
    epilog=_EX + "  trailblaze port trails/ --from android --device sim:ios --secret password=hunter2\n"
    + "  trailblaze port trails/open-message.trail.yaml --from android --device sim:android+tablet --secret password",
)
@click.argument("trails", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--from", "source", required=True, metavar="CLASSIFIER",
              help="The recordings to port: android, ios, or a form factor's (android-tablet, ios-ipad).")
@_device_options
@click.option("--memory", "--env", "-e", "memory", multiple=True, metavar="K=V",
              help="A memory variable ({{K}}; a Maestro flow's ${K}, as Maestro's --env / -e); repeatable.")
@click.option("--arg", "args", multiple=True, metavar="K=V", help="A trail argument ({{args.K}}); repeatable.")
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


@cli.command(
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
@click.option("--self-heal", is_flag=True, help="Let the agent repair a step whose recording fails (needs an LLM).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=str), help="Write JUnit XML here.")
@_allure_option
@_ctrf_option
@click.option("--report", "report_path", type=click.Path(path_type=str),
              help="Write the HTML report to this .html file (or report.html in this folder); its screenshots "
              "are files beside it (in NAME_files/ when it is not in the run directory).")
@click.option("--report-single-file", "report_single_file", is_flag=True,
              help="Make the --report one self-contained file, screenshots embedded (megabytes per trail).")
@click.option("--tags", default="", metavar="T,...", help="Only trails whose config.tags include one of these.")
@click.option("--memory", "--env", "-e", "memory", multiple=True, metavar="K=V",
              help="A memory variable ({{K}}; a Maestro flow's ${K}, as Maestro's --env / -e); repeatable.")
@click.option("--arg", "args", multiple=True, metavar="K=V", help="A trail argument ({{args.K}}); repeatable.")
@_secret_options
@click.option("--model", default=None, callback=_model_spec, metavar="PROVIDER:MODEL",
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
@click.option("--trail-timeout", type=float, default=DEFAULT_TRAIL_TIMEOUT_S, show_default=True, metavar="SECONDS",
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


@cli.command(
    "mcp",
    short_help="Serve the device and trail authoring to an MCP client (Claude Code, …).",
    epilog=_EX + "  trailblaze mcp --device sim:android --secret password   # stdio, for Claude Code / Desktop\n"
    + "  trailblaze mcp --device android --http 8765               # streamable HTTP on 127.0.0.1:8765/mcp\n"
    + "  trailblaze mcp --device sim:android --root trails          # a client's paths stay under trails/",
)
@click.option("--device", default=None, metavar="SPEC", help=_DEVICE_HELP + " Omit to pick one with use_device.")
@click.option("--latency", type=click.Choice(_LATENCIES), default=None,
              help="How slow a sim:* device is: zero (default) or realistic.")
@driver_options
@click.option("--http", "http_port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Serve streamable HTTP on 127.0.0.1:PORT/mcp (0: a free port) instead of stdio; every request "
              "needs 'Authorization: Bearer TOKEN' (generated and printed at start unless --token).")
@click.option("--token", default=None, envvar="TRAILBLAZE_MCP_TOKEN", metavar="TOKEN",
              help="With --http: the bearer token clients must send, at least 16 characters "
              "($TRAILBLAZE_MCP_TOKEN; default: a new random one, printed at start).")
@click.option("--root", default=".", type=click.Path(file_okay=False, path_type=str), metavar="FOLDER",
              help="The folder every path a client gives must stay in, symlinks resolved (default: the current one).")
@_secret_options
@_element_timeout_option
@_debug_option
def mcp_command(
    device: str | None,
    latency: str | None,
    drivers: tuple[GivenOptions, ...],
    http_port: int | None,
    token: str | None,
    root: str,
    secrets: tuple[str, ...],
    secret_files: tuple[str, ...],
    element_timeout: float | None,
) -> None:
    """Serve MCP tools that drive the device by refs and record what succeeds into a trail file.

    Tools: list_devices, use_device, device_info; snapshot, screenshot; the agent's device tools
    (tap, inputText, …, assertVisible); trail_start, trail_step, trail_verify, trail_save,
    trail_replay, trail_validate. Secrets are typed as {{name}} and never returned or saved.

    A client is confined: its paths resolve inside --root (the current folder by default), and it
    opens only the simulators, --device and what list_devices shows.
    """
    from pathlib import Path

    from trailblaze.cli.driver_options import for_picked
    from trailblaze.common.flags import MCP
    from trailblaze.device.devices import parse_device_spec
    from trailblaze.device.session import DeviceSession
    from trailblaze.engine.options import DeviceChoice
    from trailblaze.mcp.confine import Confinement
    from trailblaze.mcp.server import require_sdk, serve
    from trailblaze.mcp.session import McpSession
    from trailblaze.mcp.token import MIN_TOKEN_LENGTH
    from trailblaze.tools.memory import Memory

    require_sdk()  # before a simulator starts for nothing
    if token is not None and len(token) < MIN_TOKEN_LENGTH:
        raise click.BadParameter(f"a token has at least {MIN_TOKEN_LENGTH} characters", param_hint="'--token'")
    if not Path(root).is_dir():
        raise click.BadParameter(f"{root} is not a folder", param_hint="'--root'")
    if latency is not None and device is not None:
        _latency_for(device, latency)
    found = _secrets(secrets, secret_files)

    def open_session(spec: str) -> DeviceSession:
        """`--device`, or a device the client picks (`use_device`): the spec parsed once, with the options
        that fit it (a latency profile for a simulated one; a driver's options for its devices)."""
        parsed = parse_device_spec(spec)  # cached: DeviceChoice.parse does not parse it again
        return DeviceChoice.parse(
            spec,
            latency=latency if parsed.simulated else None,
            element_timeout=element_timeout,
            drivers=for_picked(drivers, parsed.driver),
        ).open()

    session = open_session(device) if device is not None else None  # a bad --device fails before serving
    confinement = Confinement(Path(root), {device} if device is not None else set())
    mcp_session = McpSession(
        Memory(secrets=found, flags=MCP), session=session, open_session=open_session, secrets=found, confinement=confinement
    )
    serve(mcp_session, http_port=http_port, token=token, announce=lambda line: click.echo(line, err=True))


def _trace(trace: bool) -> bool:
    if trace:
        _echo("warning: --trace keeps the trace.zip of a failed web trail UNREDACTED: it holds the secrets typed "
              "and every page as it was; do not upload it where the secrets must not go", err=True)  # fmt: skip
    return trace






def _wants_debug(argv: list[str]) -> bool:
    return "--debug" in argv or os.environ.get("TRAILBLAZE_DEBUG", "") not in ("", "0", "false")


def _usage_line(exc: click.UsageError) -> str:
    """click's usage error on one line, with where to read the command's help."""
    message = " ".join(exc.format_message().split())
    command = exc.ctx.command_path if exc.ctx is not None else "trailblaze"
    return f"error: {message.rstrip('.')}; see '{command} --help'"


def _interrupt_once(signum: int, frame: Any) -> None:
    # The first Ctrl-C stops the run; the clean-up it starts (run.json, reports, closing the device)
    # must not be cut short by a second one, which would also end the process as -2 instead of 130.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def _print_traceback() -> None:
    import traceback

    from trailblaze.common.redact import scrub

    click.echo(scrub(traceback.format_exc()).rstrip("\n"), err=True)  # frames quote messages, messages the screen


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point: runs the CLI and maps errors to exit codes."""
    try:
        previous = signal.signal(signal.SIGINT, _interrupt_once)
    except ValueError:  # not the main thread (an embedding): keep Python's handler
        previous = None
    try:
        return _main(argv)
    finally:
        if previous is not None and signal.getsignal(signal.SIGINT) is _interrupt_once:
            signal.signal(signal.SIGINT, previous)  # not interrupted: give the embedder its handler back


def _main(argv: list[str] | None) -> Any:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _wants_debug(args)
    try:
        # with standalone_mode=False, click returns ctx.exit(code)'s code instead of raising
        code = cli.main(args=args, prog_name="trailblaze", standalone_mode=False)
    except click.exceptions.Abort as exc:
        # click turns Ctrl-C into Abort; the command has already said where its run is kept
        ctrl_c = isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)
        click.echo("Interrupted." if ctrl_c else "Aborted.", err=True)
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError" and exc.ctx is not None:  # click >= 8.2
            click.echo(exc.ctx.get_help())  # bare `trailblaze`: the help, on stdout so it pipes to a pager
        else:
            _echo(_usage_line(exc), err=True)
        sys.exit(EXIT_USAGE)
    except click.ClickException as exc:
        _echo(exc.format_message(), err=True, label="error: ")
        sys.exit(EXIT_USAGE if exc.exit_code == 2 else exc.exit_code)
    except TrailblazeError as exc:

        if debug:
            _print_traceback()
        _echo(exc.message, err=True, label="" if "\n" in exc.message else "error: ")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug in trailblaze: still one line unless --debug
        if debug:
            _print_traceback()
        else:
            _echo(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)", err=True, label="internal error: ")
        sys.exit(EXIT_INFRA)
    sys.exit(code if isinstance(code, int) else 0)
