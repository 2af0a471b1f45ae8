"""`trailblaze mcp`: the device and trail authoring served to an MCP client."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trailblaze.cli.driver_options import driver_options
from trailblaze.cli.options import (
    _DEVICE_HELP,
    _EX,
    _LATENCIES,
    _debug_option,
    _element_timeout_option,
    _latency_for,
    _secret_options,
    _secrets,
)
from trailblaze.common.run_flags import OPTIONS

if TYPE_CHECKING:
    from trailblaze.device.driver_hooks import GivenOptions


@click.command(
    "mcp",
    short_help="Serve the device and trail authoring to an MCP client (Claude Code, …).",
    epilog=_EX + "  trailblaze mcp --device sim:android --secret password   # stdio, for Claude Code / Desktop\n"
    + "  trailblaze mcp --device android --http 8765               # streamable HTTP on 127.0.0.1:8765/mcp\n"
    + "  trailblaze mcp --device sim:android --root trails          # a client's paths stay under trails/",
)
@click.option(OPTIONS["device"].cli, default=None, metavar="SPEC", help=_DEVICE_HELP + " Omit to pick one with use_device.")
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
