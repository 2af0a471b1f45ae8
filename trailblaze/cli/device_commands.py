"""The commands on one device: `devices`, `snapshot`, `tool`."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import click

from trailblaze.cli.options import (
    _EX,
    _PROVIDERS_HELP,
    _debug_option,
    _device_choice,
    _device_options,
    _echo,
    _element_timeout_option,
    _grouped,
    _key_values,
    _latency_for,
    _llm_options,
    _model_choice,
    _model_spec,
    _secret_options,
    _secrets,
)
from trailblaze.common.run_flags import OPTIONS

if TYPE_CHECKING:
    from trailblaze.device.driver_hooks import GivenOptions
    from trailblaze.engine.options import (
        DeviceChoice,
        ModelChoice,
    )


@click.command("devices", short_help="List connected devices.")
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


@click.command(
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


@click.command(
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
@click.option(OPTIONS["memory"].cli, "memory", multiple=True, metavar="K=V", help="A memory variable ({{K}}); repeatable.")
@_secret_options
@_debug_option
@_element_timeout_option
@click.option(OPTIONS["model"].cli, default=None, callback=_model_spec, metavar="PROVIDER:MODEL",
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
