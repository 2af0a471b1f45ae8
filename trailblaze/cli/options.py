"""The options and option groups the commands share, and the helpers behind them.

Each builds its value inside the command (imports in the body) so that `trailblaze --help` stays fast."""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from trailblaze.cli.driver_options import driver_options
from trailblaze.common.run_flags import OPTIONS

if TYPE_CHECKING:
    from trailblaze.device.driver_hooks import GivenOptions
    from trailblaze.engine.options import (
        DeviceChoice,
        ModelChoice,
        RecordOptions,
        RunInputs,
        RunOutput,
    )
    from trailblaze.output.artifacts import ScreenshotMode
    from trailblaze.output.ci_policy import CiPolicy


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
        return click.option(OPTIONS["device"].cli, required=True, multiple=True, metavar="SPEC", help=help)(f)
    return click.option(OPTIONS["device"].cli, required=True, metavar="SPEC", help=_DEVICE_HELP)(f)


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
        OPTIONS["script_host"].cli,
        multiple=True,
        metavar="HOST",
        expose_value=False,
        callback=_allow_script_hosts,
        help="A host Maestro scripts may reach with http.* (besides localhost and the project's "
        "[tool.trailblaze] script_hosts); repeatable. Others are refused: a script can send any value it reads.",
    )(f)
    f = click.option(
        OPTIONS["secret_file"].cli,
        "secret_files",
        multiple=True,
        type=click.Path(path_type=str),
        metavar="PATH",
        help="Secrets from a .env file (NAME=VALUE lines, # comments); repeatable.",
    )(f)
    return click.option(
        OPTIONS["secret"].cli,
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


_EX = "\b\nExamples:\n"


def _echo(text: str, *, err: bool = False, label: str = "") -> None:
    """`click.echo` for text that may come from a trail file or a device: secrets redacted (an error can
    quote the screen, and the screen the secret), control characters made visible. `label` is the
    program's own word before it (`error: `), printed as it is: a secret equal to it stays unnamed."""
    from trailblaze.common.printable import printable
    from trailblaze.common.redact import scrub

    click.echo(label + printable(scrub(text)), err=err)


_allure_option = click.option(
    "--allure-dir", "allure_dir", type=click.Path(file_okay=False, path_type=str), metavar="DIR",
    help="Also write Allure results into DIR (one result per trail and device, steps with screenshots; "
    "`allure generate DIR` makes the report).",
)
_ctrf_option = click.option(
    "--ctrf", "ctrf_path", type=click.Path(dir_okay=False, path_type=str), metavar="FILE",
    help="Also write the results as CTRF JSON (https://ctrf.io) to FILE.",
)


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
        OPTIONS["install"].cli,
        "install",
        multiple=True,
        metavar="APK",
        type=click.Path(exists=True, dir_okay=False, path_type=str),
        help="Install (or update, keeping its data) this Android app on the device before the run; repeatable.",
    ),
    click.option(OPTIONS["reinstall"].cli, is_flag=True, help="With --install: uninstall the app first, so it starts with no data."),
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
        OPTIONS["llm_base_url"].cli,
        default=None,
        metavar="URL",
        help="The model endpoint, e.g. http://127.0.0.1:11434/v1 for a local Ollama with --model openai:... "
        "(default: the provider's own, or $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL).",
    )(f)
    f = click.option(
        OPTIONS["llm_retries"].cli,
        type=click.IntRange(0, 10),
        default=None,
        metavar="N",
        help="Retries of a failed or timed-out model call (default 2).",
    )(f)
    return click.option(
        OPTIONS["llm_timeout"].cli,
        type=float,
        default=None,
        metavar="SECONDS",
        callback=_positive_seconds,
        help="How long one model call may take (default 30; at most 3 x 30 s + backoff with the defaults).",
    )(f)


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


def _trace(trace: bool) -> bool:
    if trace:
        _echo("warning: --trace keeps the trace.zip of a failed web trail UNREDACTED: it holds the secrets typed "
              "and every page as it was; do not upload it where the secrets must not go", err=True)  # fmt: skip
    return trace
