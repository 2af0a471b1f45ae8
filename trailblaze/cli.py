"""The `trailblaze` command line: a thin click layer over the library.

Every command imports what it needs inside its body so that `trailblaze --help` stays fast.
Errors: a `TrailblazeError` becomes one line on stderr and its exit code (0 passed, 1 trail failed,
2 usage / trail file, 3 device or LLM infrastructure); a traceback only with `--debug`.
"""

from __future__ import annotations

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


def _wants_debug(argv: list[str]) -> bool:
    return "--debug" in argv or os.environ.get("TRAILBLAZE_DEBUG", "") not in ("", "0", "false")


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point: runs the CLI and maps errors to exit codes."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _wants_debug(args)
    try:
        cli.main(args=args, prog_name="trailblaze", standalone_mode=False)
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
    sys.exit(0)
