"""The `trailblaze` command line: a thin click layer over the library.

Every command imports what it needs inside its body so that `trailblaze --help` stays fast.
Errors: a `TrailblazeError` becomes one line on stderr and its exit code (0 passed, 1 trail failed,
2 usage / trail file, 3 device or LLM infrastructure); a traceback only with `--debug`.
"""

from __future__ import annotations

import math
import os
import sys
import traceback
from typing import Any

import click

from trailblaze.errors import EXIT_INFRA, EXIT_USAGE, TrailblazeError


class _Group(click.Group):
    """Keeps the commands in the order they are declared in `--help`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, envvar="TRAILBLAZE_DEBUG", help="Show tracebacks on errors.")
@click.version_option(package_name="trailblaze")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Record and replay natural-language trails on Android and iOS."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


# --- commands ------------------------------------------------------------------------------------
# Each command lives below as a small function; the heavy lifting is in the library modules.


@cli.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.pass_context
def validate_command(ctx: click.Context, paths: tuple[str, ...]) -> None:
    """Check trail files (folders: every *.trail.yaml / trail.yaml below) and their recorded tools."""
    from trailblaze.errors import TrailFileError
    from trailblaze.trail import find_trail_files, load_trail

    files, missing = find_trail_files(paths)
    for path in missing:
        click.echo(f"{path}: no such file or directory")
    bad = 0
    problems = 0
    for file in files:
        try:
            load_trail(file)
        except TrailFileError as exc:
            bad += 1
            problems += len(exc.problems)
            for problem in exc.problems:
                click.echo(problem.format(str(file)))
        except TrailblazeError as exc:
            bad += 1
            problems += 1
            click.echo(f"{file}: {exc.message}")
    summary = [f"{len(files)} file{'s' * (len(files) != 1)} checked"]
    if bad:
        summary.append(f"{bad} invalid with {problems} problem{'s' * (problems != 1)}")
    elif files:
        summary.append("all valid")
    else:
        summary.append("no *.trail.yaml or trail.yaml found")
    if missing:
        summary.append(f"{len(missing)} path{'s' * (len(missing) != 1)} not found")
    click.echo(", ".join(summary))
    ctx.exit(EXIT_USAGE if bad or missing or not files else 0)


@cli.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of trail files (for YAML editors)."""
    import json

    from trailblaze.schema import trail_json_schema

    click.echo(json.dumps(trail_json_schema(), indent=2, ensure_ascii=False))


@cli.command("sim")
@click.argument("platform", type=click.Choice(["android", "ios"]))
@click.option("--app", default="demo", show_default=True, help="Bundled app NAME[@VARIANT] or a spec PATH.")
@click.option("--port", type=int, default=0, help="Port to listen on (default: a free port).")
@click.option("--latency", default="zero", show_default=True, help="Latency profile: zero or realistic.")
@click.option("--devices", "count", type=int, default=1, show_default=True, help="How many devices.")
def sim_command(platform: str, app: str, port: int, latency: str, count: int) -> None:
    """Run a simulated device in the foreground until Ctrl-C."""
    import threading

    from trailblaze.sim.runtime import start_simulator

    sim = start_simulator(platform, app, count=count, port=port, latency=latency)
    click.echo(sim.how_to_connect(), err=False)
    sys.stdout.flush()
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()


@cli.command("report")
@click.argument("run_dir", type=click.Path(path_type=str))
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=str), help="HTML file (default RUN_DIR/report.html).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=str), help="Also write JUnit XML here.")
def report_command(run_dir: str, output: str | None, junit_path: str | None) -> None:
    """Render the HTML report (and JUnit XML) of a run directory from its run.json."""
    from pathlib import Path

    from trailblaze.junit import write_junit
    from trailblaze.report import write_html_report
    from trailblaze.runlog import RUN_FILE, load_run

    # `report runs/x/run.json` means the same as `report runs/x`
    directory = Path(run_dir)
    if directory.name == RUN_FILE and directory.is_file():
        directory = directory.parent
    run = load_run(directory)
    html_path = write_html_report(directory, output)
    click.echo(f"report: {html_path} ({html_path.stat().st_size / 1024:.0f} KB)")
    if junit_path:
        click.echo(f"junit:  {write_junit(run, junit_path)}")


@cli.command("devices")
def devices_command() -> None:
    """List connected devices (adb; WebDriverAgent at $TRAILBLAZE_WDA_URL) and how to start a simulator."""
    from trailblaze.devices import list_devices

    found, problems = list_devices()
    for listing in found:
        click.echo(f"{listing.spec:<32} {listing.state:<12} {listing.description}")
    for problem in problems:
        click.echo(problem)
    if not any(d.state in ("device", "ready") for d in found):
        click.echo(
            "no device connected: start a simulator with `trailblaze sim android` (or `sim ios`), "
            "or use --device sim:android / sim:ios to run one in-process"
        )


@cli.command("snapshot")
@click.option("--device", required=True, help="android[:SERIAL], ios[:WDA_URL], sim:android[:APP], sim:ios[:APP].")
@click.option("--screenshot", "screenshot_path", type=click.Path(dir_okay=False, path_type=str), default=None,
              help="Also save the screenshot (PNG) here.")
@click.option("--raw", is_flag=True, help="Print the raw hierarchy dump instead of the compact view.")
@click.option("--set-of-mark", "set_of_mark", is_flag=True, help="Draw the refs on the saved screenshot.")
def snapshot_command(device: str, screenshot_path: str | None, raw: bool, set_of_mark: bool) -> None:
    """Print what the device shows: the compact view the agent reads (or the raw dump)."""
    from pathlib import Path

    from trailblaze.compact import compact_view, draw_set_of_mark
    from trailblaze.devices import open_device

    with open_device(device) as session:
        hierarchy = session.settle()
        view = compact_view(hierarchy)
        if raw:
            source = hierarchy.source
            click.echo(source.decode("utf-8", "replace") if isinstance(source, bytes) else source)
        else:
            click.echo(view.text)
        if screenshot_path:
            png = session.screenshot()
            if set_of_mark:
                png = draw_set_of_mark(png, view, hierarchy.scale)
            Path(screenshot_path).write_bytes(png)
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


@cli.command("tool")
@click.argument("tool_text", metavar="TOOL")
@click.option("--device", required=True, help="android[:SERIAL], ios[:WDA_URL], sim:android[:APP], sim:ios[:APP].")
@click.option("--memory", "memory", multiple=True, metavar="K=V", help="A memory variable ({{K}}); repeatable.")
@click.option("--secret", "secrets", multiple=True, metavar="K=V", help="A secret ({{K}}), never printed.")
@_element_timeout_option
@click.pass_context
def tool_command(
    ctx: click.Context,
    tool_text: str,
    device: str,
    memory: tuple[str, ...],
    secrets: tuple[str, ...],
    element_timeout: float | None,
) -> None:
    """Run one recorded-form TOOL (YAML or JSON, e.g. 'pressBack' or '{inputText: {text: hi}}')."""
    from trailblaze.devices import open_device, session_options
    from trailblaze.execute import run_recorded_tool
    from trailblaze.memory import Memory
    from trailblaze.trail import parse_tool

    call = parse_tool(tool_text, "<tool>")
    mem = Memory(_key_values(memory, "--memory"), secrets=_key_values(secrets, "--secret"))
    with open_device(device, **session_options(element_timeout)) as session:
        result = run_recorded_tool(session, call, mem)
    click.echo(str(result))
    ctx.exit(0 if result.ok else 1)


def _key_values(values: tuple[str, ...], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for value in values:
        key, sep, val = value.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r} is not KEY=VALUE", param_hint=flag)
        out[key.strip()] = val
    return out


@cli.command("record")
@click.argument("trails", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--device", required=True, help="android[:SERIAL], ios[:WDA_URL], sim:android[:APP], sim:ios[:APP].")
@click.option("--memory", "memory", multiple=True, metavar="K=V", help="A memory variable ({{K}}); repeatable.")
@click.option("--arg", "args", multiple=True, metavar="K=V", help="A trail argument ({{args.K}}); repeatable.")
@click.option("--secret", "secrets", multiple=True, metavar="K=V", help="A secret ({{K}}), never written anywhere.")
@click.option("--model", default=None, help="Claude model (default: $TRAILBLAZE_MODEL, then a current Sonnet).")
@click.option("--max-llm-calls", type=click.IntRange(min=1), default=50, show_default=True, help="Per step.")
@click.option("--no-screenshots", is_flag=True, help="Send only the view hierarchy, no screenshot.")
@click.option("--rerecord", is_flag=True, help="Solve every step with the agent, even recorded ones.")
@_element_timeout_option
@click.option("--run-dir", type=click.Path(path_type=str), default=None, help="Where to write the run log.")
@click.option("--debug", "_debug", is_flag=True, help="Show tracebacks on errors.")
@click.pass_context
def record_command(
    ctx: click.Context,
    trails: tuple[str, ...],
    device: str,
    memory: tuple[str, ...],
    args: tuple[str, ...],
    secrets: tuple[str, ...],
    model: str | None,
    max_llm_calls: int,
    no_screenshots: bool,
    rerecord: bool,
    element_timeout: float | None,
    run_dir: str | None,
    _debug: bool,
) -> None:
    """Record TRAIL files: the agent solves unrecorded steps and writes their recordings back."""
    from trailblaze.runner import RecordOptions, run_record_command

    code = run_record_command(
        list(trails),
        device=device,
        memory=_key_values(memory, "--memory"),
        args=_key_values(args, "--arg"),
        secrets=_key_values(secrets, "--secret"),
        model=model,
        options=RecordOptions(max_llm_calls=max_llm_calls, screenshots=not no_screenshots, rerecord=rerecord),
        run_dir=run_dir,
        command=["trailblaze", "record", *trails, "--device", device, *_timeout_args(element_timeout)],
        element_timeout=element_timeout,
    )
    ctx.exit(code)


@cli.command("replay")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--device", required=True, help="android[:SERIAL], ios[:WDA_URL], sim:android[:APP], sim:ios[:APP].")
@click.option("--self-heal", is_flag=True, help="Let the agent repair a step whose recording fails (needs an LLM).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=str), help="Write JUnit XML here.")
@click.option("--report", "report_path", type=click.Path(path_type=str),
              help="Write the HTML report to this .html file (or report.html in this folder).")
@click.option("--tags", default="", metavar="T,...", help="Only trails whose config.tags include one of these.")
@click.option("--memory", "memory", multiple=True, metavar="K=V", help="A memory variable ({{K}}); repeatable.")
@click.option("--arg", "args", multiple=True, metavar="K=V", help="A trail argument ({{args.K}}); repeatable.")
@click.option("--secret", "secrets", multiple=True, metavar="K=V", help="A secret ({{K}}), never written anywhere.")
@click.option("--model", default=None, help="Claude model for self-heal / unrecorded steps.")
@click.option("--max-llm-calls", type=click.IntRange(min=1), default=50, show_default=True, help="Per healed step.")
@_element_timeout_option
@click.option("--run-dir", type=click.Path(path_type=str), default=None, help="Where to write the run log.")
@click.option("--debug", "_debug", is_flag=True, help="Show tracebacks on errors.")
@click.pass_context
def replay_command(
    ctx: click.Context,
    paths: tuple[str, ...],
    device: str,
    self_heal: bool,
    junit_path: str | None,
    report_path: str | None,
    tags: str,
    memory: tuple[str, ...],
    args: tuple[str, ...],
    secrets: tuple[str, ...],
    model: str | None,
    max_llm_calls: int,
    element_timeout: float | None,
    run_dir: str | None,
    _debug: bool,
) -> None:
    """Replay trail files or folders with their recordings: no LLM unless a step needs one."""
    from trailblaze.runner import run_replay_command

    code = run_replay_command(
        list(paths),
        device=device,
        self_heal=self_heal,
        junit=junit_path,
        report=report_path,
        tags=[t.strip() for t in tags.split(",") if t.strip()],
        memory=_key_values(memory, "--memory"),
        args=_key_values(args, "--arg"),
        secrets=_key_values(secrets, "--secret"),
        model=model,
        run_dir=run_dir,
        command=[
            "trailblaze", "replay", *paths, "--device", device, *(["--self-heal"] if self_heal else []),
            *_timeout_args(element_timeout),
        ],  # fmt: skip
        max_llm_calls=max_llm_calls,
        element_timeout=element_timeout,
    )
    ctx.exit(code)


def _timeout_args(element_timeout: float | None) -> list[str]:
    return [] if element_timeout is None else ["--element-timeout", f"{element_timeout:g}"]


def _wants_debug(argv: list[str]) -> bool:
    return "--debug" in argv or os.environ.get("TRAILBLAZE_DEBUG", "") not in ("", "0", "false")


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point: runs the CLI and maps errors to exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _wants_debug(args)
    try:
        # with standalone_mode=False, click returns ctx.exit(code)'s code instead of raising
        code = cli.main(args=args, prog_name="trailblaze", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_USAGE if exc.exit_code == 2 else exc.exit_code)
    except TrailblazeError as exc:
        if debug:
            traceback.print_exc()
        click.echo(f"error: {exc.message}" if "\n" not in exc.message else exc.message, err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug in trailblaze: still one line unless --debug
        if debug:
            traceback.print_exc()
        else:
            click.echo(
                f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)", err=True
            )
        sys.exit(EXIT_INFRA)
    sys.exit(code if isinstance(code, int) else 0)
