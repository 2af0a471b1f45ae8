"""`trailblaze sim`: a simulated phone or model endpoint in the foreground."""

from __future__ import annotations

import sys
from typing import Any

import click

from trailblaze.cli.options import _EX, _LATENCIES, _debug_option


@click.command(
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
