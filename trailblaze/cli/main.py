"""The `trailblaze` command line: a thin click layer over the library.

Every command imports what it needs inside its body so that `trailblaze --help` stays fast.
Errors: a `TrailblazeError` becomes one line on stderr and its exit code (0 passed, 1 trail failed,
2 usage / trail file, 3 device or LLM infrastructure); a traceback only with `--debug`.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import click

from trailblaze.__about__ import __version__
from trailblaze.cli.device_commands import devices_command, snapshot_command, tool_command
from trailblaze.cli.init_command import init_command
from trailblaze.cli.mcp_command import mcp_command
from trailblaze.cli.options import _echo
from trailblaze.cli.report_commands import report_command, results_command
from trailblaze.cli.run_commands import port_command, record_command, replay_command
from trailblaze.cli.sim_command import sim_command
from trailblaze.cli.trail_commands import check_command, import_group, schema_command, validate_command
from trailblaze.errors import EXIT_INFRA, EXIT_USAGE, TrailblazeError


class _Group(click.Group):
    """Keeps the commands in the order they are declared in `--help`."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


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
# Each command lives in the module of its group (trailblaze/cli/*_command(s).py); the heavy lifting is
# in the library modules. Registered in the order `--help` lists them.
for _command in (
    init_command, validate_command, check_command, import_group, schema_command, sim_command, report_command,
    results_command, devices_command, snapshot_command, tool_command, record_command, port_command,
    replay_command, mcp_command,
):
    cli.add_command(_command)


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
