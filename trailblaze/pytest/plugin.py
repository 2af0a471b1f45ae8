"""The trailblaze pytest plugin: device fixtures, trail files as test items, a device pool for xdist.

Registered under the `pytest11` entry point, so it is active wherever trailblaze is installed. It
stays inert until a test asks for one of its fixtures or a trail file is collected: importing it
loads nothing heavy, and no device is opened before a test needs one.

Fixtures, chained by scope (the cheapest to rebuild at the bottom):

- session: `trailblaze_config` → `trailblaze_device_spec` (this worker's `--device` from the pool)
  → `trailblaze_device` (a `DeviceSession`; a `sim:*` spec starts one in-process simulator per
  worker); overridable `trailblaze_session_args`, `trailblaze_app_id`, `trailblaze_secrets`.
- function: `driver` (the device's `Driver`, app relaunched with a clean state), `llm` (the model,
  created only when a step needs the agent; override it in `conftest.py` with a test double) and
  `trail_runner` (`.replay(path)`, `.record(path)`, `.tool(text)`).

`pytest trails/` collects every trail under the `trailblaze_trail_paths` folders (default `trails/`),
found as `trailblaze.trail.model.find_trail_files` finds them for the device's platform, or named on the
command line, as one test item that replays it.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import sys
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from trailblaze.common.deadline import DEFAULT_TRAIL_TIMEOUT_S
from trailblaze.common.run_flags import plugin_flag

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.device.driver_hooks import GivenOptions
    from trailblaze.device.logs import DeviceLogMode
    from trailblaze.device.session import DeviceSession
    from trailblaze.engine.options import DeviceChoice, RunOutput
    from trailblaze.engine.replay import ReplayOptions
    from trailblaze.engine.shard import Shard
    from trailblaze.llm.client import LLMClient
    from trailblaze.output.ci_policy import CiPolicy
    from trailblaze.pytest._devices import DevicePool
    from trailblaze.pytest._runner import TrailRunner

__all__ = ["TrailblazeConfig"]

DEFAULT_DEVICE = "sim:android"
DEFAULT_APP_ID = "dev.trailblaze.demo"
_ARTIFACTS = ("on", "off", "retain-on-failure")
_SCREENSHOTS = ("failures", "steps", "off")
_DEVICE_LOGS = ("off", "on-failure", "always")
_LAUNCH_MODES = ("CLEAR_STATE", "FORCE_RESTART", "RESUME")


@dataclass(frozen=True)
class TrailblazeConfig:
    """The plugin's settings, resolved once from the command line, the ini file and the environment."""

    devices: tuple[str, ...]
    """The device pool: `--device` (repeatable), else ini `trailblaze_devices`, else
    `TRAILBLAZE_DEVICE`, else `sim:android`. Worker k of `-n N` takes `devices[k % len(devices)]`."""
    self_heal: bool
    artifacts: str
    """`on`, `off` or `retain-on-failure` (the default): which tests keep their run directory."""
    output_dir: Path
    """Where per-test artifacts go (`--trailblaze-output`, default `test-results/trailblaze`)."""
    report_dir: Path | None
    """`--trailblaze-report DIR`: every run directory is kept there, plus a merged `run.json`,
    `report.html` and `junit.xml`."""
    latency: str | None
    """Latency profile of simulated devices (`zero` when unset)."""
    app_id: str
    launch_mode: str
    """How the `driver` fixture resets the app before each test (default `CLEAR_STATE`)."""
    write_back: bool
    """Whether healed / newly solved recordings are written into the trail file."""
    trail_paths: tuple[Path, ...]
    """Folders whose trail files are collected as test items (ini `trailblaze_trail_paths`)."""
    secrets: dict[str, str] = field(default_factory=dict, repr=False)
    element_timeout: float | None = None
    """Seconds a selector may take to match before its tool fails (`--trailblaze-element-timeout`,
    ini `trailblaze_element_timeout`); None keeps the session default (5 s)."""
    llm_timeout: float | None = None
    """Seconds one model call may take (`--trailblaze-llm-timeout`, ini `trailblaze_llm_timeout`);
    None keeps `AnthropicLLM`'s default (30 s)."""
    llm_retries: int | None = None
    """Retries of a failed model call (`--trailblaze-llm-retries`, ini `trailblaze_llm_retries`);
    None keeps `AnthropicLLM`'s default (2)."""
    each_device: bool = False
    """`--trailblaze-each-device` (ini `trailblaze_each_device`): every trail item runs on every
    device of the pool, parametrized by its spec (`demo/login[sim:ios]`), instead of on the worker's."""
    shard: Shard | None = None
    """`--trailblaze-shard i/N`: only this CI job's share of the collected tests runs."""
    shard_durations: dict[str, float] | None = None
    """Seconds per test of a previous run (`--trailblaze-shard-durations`), to balance the shards."""
    model: str | None = None
    """`PROVIDER:MODEL` of the `llm` fixture (`--trailblaze-model`, ini `trailblaze_model`); None:
    `TRAILBLAZE_MODEL`, then `anthropic:claude-sonnet-5`."""
    install: tuple[str, ...] = ()
    """App files installed on every device when it opens (`--trailblaze-install`, ini `trailblaze_install`)."""
    reinstall: bool = False
    """Uninstall those apps first (`--trailblaze-reinstall`, ini `trailblaze_reinstall`)."""
    device_logs: str = "on-failure"
    """When a step's app log (Android logcat by the app's pid) is kept with its artifacts
    (`--trailblaze-device-logs`, ini `trailblaze_device_logs`): off, on-failure or always."""
    llm_base_url: str | None = None
    """The model endpoint (`--trailblaze-llm-base-url`, ini `trailblaze_llm_base_url`); None: the
    provider's own (or `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL`)."""
    screenshots: str = "failures"
    """Which screenshots a trail run keeps (`--trailblaze-screenshots`, ini `trailblaze_screenshots`):
    `failures` (the default: only a failing step's, so a passing test takes none), `steps` or `off`."""
    drivers: tuple[GivenOptions, ...] = ()
    """The drivers' options given (`--trailblaze-browser`, `-viewport`, …; `--trailblaze-appium-session`):
    each device of the pool gets its own driver's."""
    retries: int = 0
    """Re-runs of a failed trail from its start (`--trailblaze-retries`, ini `trailblaze_retries`);
    a trail that passes only on a retry is flaky (`trailblaze.pytest._ci`)."""
    fail_on_flaky: bool = False
    """A flaky trail fails its test (`--trailblaze-fail-on-flaky`, ini `trailblaze_fail_on_flaky`)."""
    report_single_file: bool = False
    """`--trailblaze-report-single-file`: DIR/report.html embeds its screenshots (one file to attach)."""
    results: str | None = None
    """The results store every test's trail runs are added to (`--trailblaze-results`, ini
    `trailblaze_results`, else `TRAILBLAZE_RESULTS`, else the project's `.trailblaze/results.db`; None: off)."""
    trail_timeout: float = DEFAULT_TRAIL_TIMEOUT_S
    """Wall-clock seconds one trail may run (`--trailblaze-trail-timeout`, ini `trailblaze_trail_timeout`);
    past it the trail fails at the step it reached (a trail's `config.timeout` may lower it)."""
    allure_dir: Path | None = None
    """`--trailblaze-allure-dir DIR` (ini `trailblaze_allure_dir`): Allure results of the merged run."""
    ctrf: Path | None = None
    """`--trailblaze-ctrf FILE` (ini `trailblaze_ctrf`): the merged run as CTRF JSON."""

    # The run options objects the engine takes, as the CLI builds them from its flags (ADR 0046).
    def device_choice(self, spec: str) -> DeviceChoice:
        """`spec` (one device of the pool) with the options every device of this session gets."""
        from trailblaze.device.devices import parse_device_spec
        from trailblaze.engine.options import DeviceChoice

        parsed = parse_device_spec(spec)  # cached: DeviceChoice.parse below does not parse it again
        return DeviceChoice.parse(
            spec,
            latency=self.latency if parsed.simulated else None,
            element_timeout=self.element_timeout,
            device_logs=cast("DeviceLogMode", self.device_logs),
            install=self.install,
            reinstall=self.reinstall,
            drivers=tuple(d for d in self.drivers if d.driver == parsed.driver),  # each fits its own devices
        )

    def replay_options(self) -> ReplayOptions:
        from trailblaze.engine.replay import ReplayOptions

        return ReplayOptions(
            self_heal=self.self_heal, write_back=self.write_back, trail_timeout=self.trail_timeout
        )

    def ci_policy(self) -> CiPolicy:
        from trailblaze.output.ci_policy import CiPolicy

        return CiPolicy(retries=self.retries, fail_on_flaky=self.fail_on_flaky)

    def run_output(self, run_dir: Path | None) -> RunOutput:
        from trailblaze.engine.options import RunOutput
        from trailblaze.output.artifacts import screenshot_mode

        return RunOutput(
            run_dir=None if run_dir is None else str(run_dir),
            screenshots=screenshot_mode(self.screenshots, "--trailblaze-screenshots"),
            results=self.results,
        )

    @property
    def artifacts_root(self) -> Path:
        return self.report_dir if self.report_dir is not None else self.output_dir

    def keeps(self, failed: bool) -> bool:
        """Whether a test's run directory is kept after the test."""
        if self.report_dir is not None or self.artifacts == "on":
            return True
        return failed and self.artifacts == "retain-on-failure"


_CONFIG_KEY = pytest.StashKey[TrailblazeConfig]()
_REPORTS_KEY = pytest.StashKey[dict[str, pytest.TestReport]]()
_DRIVER_SESSION_KEY = pytest.StashKey["DeviceSession"]()


# --- options ----------------------------------------------------------------------------------------


def _results_location(config: pytest.Config, given: str | None, ini: str) -> str | None:
    """`--trailblaze-results` (from where pytest started), else the ini key (from the ini file's folder), else
    `TRAILBLAZE_RESULTS`, else the project's `.trailblaze/results.db` (beside the ini file, wherever pytest
    started); None: off."""
    from trailblaze.results.location import ENV_VAR, resolve_location

    location = resolve_location(given, ini.strip() or None)
    if location is None or "://" in location or given or (not ini.strip() and os.environ.get(ENV_VAR, "").strip()):
        return location
    return str(config.rootpath / location)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("trailblaze", "trailblaze (mobile UI trails)")
    group.addoption(
        plugin_flag("device"),
        action="append",
        dest="trailblaze_devices",
        metavar="SPEC",
        help="device for trails and the `driver` fixture: android[:SERIAL], android@HOST:PORT[:SERIAL], "
        "ios[:WDA_URL], ios@http://HOST:PORT, appium:URL or appium:browserstack|saucelabs|lambdatest (with "
        "--trailblaze-capabilities), sim:android[:APP], sim:ios[:APP]; repeat to form a pool for "
        "`-n N` (default sim:android)",
    )
    group.addoption(
        plugin_flag("self_heal"),
        action="store_true",
        dest="trailblaze_self_heal",
        default=None,
        help="hand a failing recorded step to the agent (needs the `llm` fixture's model)",
    )
    group.addoption(
        "--trailblaze-results",
        dest="trailblaze_results",
        metavar="PATH|URL",
        help="add every trail run's results to this results store: a SQLite file or a postgresql:// URL; "
        "`off`: not stored (default: ini trailblaze_results, else $TRAILBLAZE_RESULTS, else the project's "
        ".trailblaze/results.db)",
    )
    group.addoption(
        "--trailblaze-report",
        dest="trailblaze_report",
        metavar="DIR",
        help="keep every trail run in DIR and write DIR/run.json, report.html and junit.xml (DIR is replaced)",
    )
    group.addoption(
        "--trailblaze-allure-dir",
        dest="trailblaze_allure_dir",
        metavar="DIR",
        help="with --trailblaze-report: also write Allure results of every trail run into DIR",
    )
    group.addoption(
        "--trailblaze-ctrf",
        dest="trailblaze_ctrf",
        metavar="FILE",
        help="with --trailblaze-report: also write every trail run as CTRF JSON to FILE",
    )
    group.addoption(
        "--trailblaze-report-single-file",
        action="store_true",
        dest="trailblaze_report_single_file",
        default=False,
        help="make DIR/report.html one self-contained file, screenshots embedded (megabytes per trail)",
    )
    group.addoption(
        "--trailblaze-artifacts",
        dest="trailblaze_artifacts",
        choices=_ARTIFACTS,
        help="which tests keep their run directory (screenshots, hierarchies, run.json); "
        "default retain-on-failure",
    )
    group.addoption(
        "--trailblaze-screenshots",
        dest="trailblaze_screenshots",
        choices=_SCREENSHOTS,
        help="screenshots a trail run keeps: failures (default: a failing step's only), steps (after "
        "every step) or off",
    )
    group.addoption(
        "--trailblaze-output",
        dest="trailblaze_output",
        metavar="DIR",
        help="folder for per-test artifacts (default test-results/trailblaze)",
    )
    group.addoption(
        "--trailblaze-latency",
        dest="trailblaze_latency",
        metavar="PROFILE",
        help="latency profile of simulated devices: zero (default) or realistic",
    )
    group.addoption(
        "--trailblaze-element-timeout",
        dest="trailblaze_element_timeout",
        metavar="SECONDS",
        help="how long a selector may take to match before its tool fails (default 5; a tool's timeoutMs wins)",
    )
    group.addoption(
        plugin_flag("trail_timeout"),
        dest="trailblaze_trail_timeout",
        metavar="SECONDS",
        help="wall-clock seconds one trail may run before it fails at the step it reached (default 1800)",
    )
    group.addoption(
        plugin_flag("install"),
        dest="trailblaze_install",
        action="append",
        metavar="APK",
        help="install this Android app on the device before the tests (repeatable; ini trailblaze_install)",
    )
    group.addoption(
        plugin_flag("reinstall"),
        dest="trailblaze_reinstall",
        action="store_true",
        default=None,
        help="with --trailblaze-install: uninstall the app first, so it starts with no data",
    )
    group.addoption(
        "--trailblaze-device-logs",
        dest="trailblaze_device_logs",
        metavar="WHEN",
        help="keep the app's device log for a failed step (on-failure, default), every step (always) or never (off)",
    )
    group.addoption(
        plugin_flag("llm_timeout"),
        dest="trailblaze_llm_timeout",
        metavar="SECONDS",
        help="how long one model call may take (default 30)",
    )
    group.addoption(
        plugin_flag("model"),
        dest="trailblaze_model",
        metavar="PROVIDER:MODEL",
        help="the model of the `llm` fixture: anthropic:, bedrock:, vertex: or openai: (any OpenAI-compatible "
        "server); a bare name is an Anthropic model (default $TRAILBLAZE_MODEL, then anthropic:claude-sonnet-5)",
    )
    group.addoption(
        plugin_flag("llm_base_url"),
        dest="trailblaze_llm_base_url",
        metavar="URL",
        help="the model endpoint, e.g. http://127.0.0.1:11434/v1 for a local Ollama (default: the provider's own)",
    )
    group.addoption(
        plugin_flag("llm_retries"),
        dest="trailblaze_llm_retries",
        metavar="N",
        help="retries of a failed or timed-out model call (default 2)",
    )
    group.addoption(
        plugin_flag("secret"),
        action="append",
        dest="trailblaze_secrets",
        metavar="NAME=VALUE|NAME",
        help="a secret for {{NAME}} templates (repeatable); NAME alone reads $TRAILBLAZE_SECRET_NAME; "
        "never written to logs or reports",
    )
    group.addoption(
        plugin_flag("secret_file"),
        action="append",
        dest="trailblaze_secret_files",
        metavar="PATH",
        help="secrets from a .env file (NAME=VALUE lines, # comments); repeatable",
    )
    group.addoption(
        plugin_flag("script_host"),
        action="append",
        dest="trailblaze_script_hosts",
        metavar="HOST",
        help="a host Maestro scripts may reach with http.* besides localhost (repeatable; adds to the ini's "
        "trailblaze_script_hosts); others are refused",
    )
    group.addoption(
        "--trailblaze-each-device",
        action="store_true",
        dest="trailblaze_each_device",
        default=None,
        help="run every trail on every --device (test ids end in [SPEC]) instead of spreading them over the pool",
    )
    group.addoption(
        "--trailblaze-shard",
        dest="trailblaze_shard",
        metavar="I/N",
        help="run only shard I of N (1-based) of the collected tests: one per CI job; an even, stable split",
    )
    group.addoption(
        "--trailblaze-shard-durations",
        dest="trailblaze_shard_durations",
        metavar="FILE",
        help="balance the shards by the test durations of a previous run (JUnit XML or a trailblaze run.json)",
    )
    group.addoption(
        "--trailblaze-retries",
        dest="trailblaze_retries",
        metavar="N",
        help="re-run a failed trail from its start on a clean launch up to N times (0-10); "
        "one that passes only on a retry is reported as flaky",
    )
    group.addoption(
        "--trailblaze-fail-on-flaky",
        action="store_true",
        dest="trailblaze_fail_on_flaky",
        default=None,
        help="a flaky trail (passed only on a retry) fails its test",
    )
    from trailblaze.pytest._drivers import add_driver_options

    add_driver_options(group, parser)
    parser.addini("trailblaze_devices", "device pool used when --device is not given", type="linelist")
    parser.addini(
        "trailblaze_each_device", "run every trail on every device of the pool", type="bool", default=False
    )
    parser.addini(
        "trailblaze_trail_paths",
        "folders whose *.trail.yaml files are collected as tests (default: trails)",
        type="paths",
    )
    parser.addini("trailblaze_artifacts", "on | off | retain-on-failure", default="retain-on-failure")
    parser.addini("trailblaze_output", "folder for per-test artifacts", default="test-results/trailblaze")
    parser.addini("trailblaze_allure_dir", "with --trailblaze-report: Allure results folder", default="")
    parser.addini("trailblaze_ctrf", "with --trailblaze-report: CTRF JSON file", default="")
    parser.addini("trailblaze_screenshots", "failures | steps | off", default="failures")
    parser.addini(
        "trailblaze_script_hosts", "hosts Maestro scripts may reach with http.* besides localhost", type="linelist"
    )
    parser.addini("trailblaze_self_heal", "self-heal failing recorded steps", type="bool", default=False)
    parser.addini("trailblaze_latency", "latency profile of simulated devices", default="")
    parser.addini(
        "trailblaze_element_timeout", "seconds a selector may take to match before its tool fails", default=""
    )
    parser.addini("trailblaze_install", "Android app files (APK) installed before the tests", type="linelist")
    parser.addini("trailblaze_reinstall", "uninstall the trailblaze_install apps first", type="bool", default=False)
    parser.addini("trailblaze_device_logs", "off | on-failure | always (the app's device log)", default="on-failure")
    parser.addini("trailblaze_llm_timeout", "seconds one model call may take (default 30)", default="")
    parser.addini("trailblaze_results", "results store: SQLite file or postgresql:// URL, or off", default="")
    parser.addini("trailblaze_trail_timeout", "wall-clock seconds one trail may run (default 1800)", default="")
    parser.addini("trailblaze_llm_retries", "retries of a failed model call (default 2)", default="")
    parser.addini("trailblaze_retries", "re-runs of a failed trail from its start (0-10, default 0)", default="")
    parser.addini("trailblaze_fail_on_flaky", "a trail passed only on a retry fails", type="bool", default=False)
    parser.addini("trailblaze_model", "PROVIDER:MODEL of the `llm` fixture (default anthropic:claude-sonnet-5)", default="")
    parser.addini("trailblaze_llm_base_url", "the model endpoint (default: the provider's own)", default="")
    parser.addini(
        "trailblaze_app", "app id the `driver` fixture resets before each test", default=DEFAULT_APP_ID
    )
    parser.addini(
        "trailblaze_launch_mode",
        "CLEAR_STATE | FORCE_RESTART | RESUME for the `driver` fixture",
        default="CLEAR_STATE",
    )
    parser.addini(
        "trailblaze_write_back",
        "write healed / newly solved recordings into trail files",
        type="bool",
        default=True,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "platform(*names): run only on devices of these platforms (android, ios); skip elsewhere"
    )
    from trailblaze.pytest import _ci as _pytest_ci
    _pytest_ci.configure(config)  # flaky and quarantined tests: markers, reports, summary
    config.addinivalue_line("markers", "trail: a trail file collected by trailblaze")
    if not config.pluginmanager.hasplugin("xdist"):  # matrix items on a phone carry xdist's group marker
        config.addinivalue_line("markers", "xdist_group(name): run in one pytest-xdist worker (--dist loadgroup)")
    named = _named_trail_problem(config)
    if named:
        raise pytest.UsageError(named)
    settings = _resolve_config(config)
    config.stash[_CONFIG_KEY] = settings
    _allow_script_hosts(config)
    workers = getattr(config.option, "numprocesses", None)
    if isinstance(workers, int) and workers > 0 and not _is_worker(config):
        # Fail before any worker starts rather than once per test on every worker.
        problem = pool_problem(settings.devices, workers) or _matrix_problem(config, settings, workers)
        if problem:
            raise pytest.UsageError(problem)


def _allow_script_hosts(config: pytest.Config) -> None:
    """The ini's `trailblaze_script_hosts` and `--trailblaze-script-host`s: the hosts scripts may reach."""
    hosts = [*config.getini("trailblaze_script_hosts"), *(config.getoption("trailblaze_script_hosts") or ())]
    if not hosts and "trailblaze.maestro.script_http" not in sys.modules:
        return  # nothing to allow: the HTTP modules are not imported at start-up for nothing
    from trailblaze.errors import UsageError
    from trailblaze.maestro.script_http import allow_hosts

    try:
        allow_hosts(hosts)
    except UsageError as exc:
        raise pytest.UsageError(f"--trailblaze-script-host / trailblaze_script_hosts: {exc.message}") from None


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Which device and app each worker uses, and where that choice came from: with nothing
    configured the tests quietly run on `sim:android` and the demo app, which should be said."""
    settings = config.stash.get(_CONFIG_KEY, None)
    if settings is None or _is_worker(config):
        return []
    if config.getoption("trailblaze_devices", default=None):
        source = "--device"
    elif config.getini("trailblaze_devices"):
        source = "ini trailblaze_devices"
    elif os.environ.get("TRAILBLAZE_DEVICE", "").strip():
        source = "TRAILBLAZE_DEVICE"
    else:
        source = "the default: no --device, ini trailblaze_devices or TRAILBLAZE_DEVICE"
    app = "the default, ini trailblaze_app" if settings.app_id == DEFAULT_APP_ID else "ini trailblaze_app"
    pool = settings.devices
    workers = getattr(config.option, "numprocesses", None)
    if settings.each_device:
        uses = f"every trail on each of {', '.join(pool)}"
    elif isinstance(workers, int) and workers > 0:
        uses = ", ".join(f"gw{k}: {pool[k % len(pool)]}" for k in range(workers))
    else:
        uses = pool[0]
    return [f"trailblaze: device {uses} ({source}); app {settings.app_id} ({app})"]


def _matrix_problem(config: pytest.Config, settings: TrailblazeConfig, workers: int) -> str | None:
    """A matrix run on several workers sends each real device's items to one worker (`xdist_group`),
    which only xdist's `loadgroup` scheduling honours."""
    real = sorted(set(settings.devices) - _simulated(settings.devices))
    if not settings.each_device or workers < 2 or not real or config.getoption("dist", "load") == "loadgroup":
        return None
    return (
        f"--trailblaze-each-device with -n {workers} and the device(s) {', '.join(real)}: add --dist loadgroup "
        "so that every trail on one phone runs on one worker (a phone is never driven by two at once)"
    )


def _named_trail_problem(config: pytest.Config) -> str | None:
    """A trail file named on the command line that is a FIFO, a device or a symlink loop.

    pytest itself only says "not found" for those; trailblaze says what the path is instead.
    """
    from trailblaze.common.text_files import regular_file_problem

    for arg in config.args:
        path = config.invocation_params.dir / arg.split("::")[0]
        if not (path.name == "trail.yaml" or path.name.endswith(".trail.yaml")):
            continue
        if os.path.lexists(path) and not path.is_dir():
            problem = regular_file_problem(str(path))
            if problem is not None:
                return problem
    return None


def _resolve_config(config: pytest.Config) -> TrailblazeConfig:
    def option(name: str) -> Any:
        return config.getoption(name, default=None)

    devices = option("trailblaze_devices") or config.getini("trailblaze_devices")
    if not devices:
        env = os.environ.get("TRAILBLAZE_DEVICE", "").strip()
        devices = [env] if env else [DEFAULT_DEVICE]
    artifacts = option("trailblaze_artifacts") or str(config.getini("trailblaze_artifacts"))
    if artifacts not in _ARTIFACTS:
        raise pytest.UsageError(f"trailblaze_artifacts = {artifacts!r}: use one of {', '.join(_ARTIFACTS)}")
    screenshots = option("trailblaze_screenshots") or str(config.getini("trailblaze_screenshots")).strip()
    if screenshots not in _SCREENSHOTS:
        raise pytest.UsageError(
            f"trailblaze_screenshots = {screenshots!r}: use one of {', '.join(_SCREENSHOTS)}"
        )
    launch_mode = str(config.getini("trailblaze_launch_mode")).upper()
    if launch_mode not in _LAUNCH_MODES:
        raise pytest.UsageError(
            f"trailblaze_launch_mode = {launch_mode!r}: use one of {', '.join(_LAUNCH_MODES)}"
        )
    device_logs = option("trailblaze_device_logs") or str(config.getini("trailblaze_device_logs")).strip()
    if device_logs not in _DEVICE_LOGS:
        raise pytest.UsageError(
            f"trailblaze_device_logs = {device_logs!r}: use one of {', '.join(_DEVICE_LOGS)}"
        )
    from trailblaze.pytest._appium import appium_pool, appium_session, set_connect_timeout
    from trailblaze.pytest._web import web_settings

    set_connect_timeout(config)
    devices = appium_pool(config, [str(d).strip() for d in devices])
    _check_specs(devices)
    base = config.invocation_params.dir
    report = option("trailblaze_report")
    output = option("trailblaze_output") or str(config.getini("trailblaze_output"))
    self_heal = option("trailblaze_self_heal")
    trail_paths = config.getini("trailblaze_trail_paths") or [config.rootpath / "trails"]
    return TrailblazeConfig(
        devices=tuple(str(d).strip() for d in devices),
        self_heal=bool(config.getini("trailblaze_self_heal") if self_heal is None else self_heal),
        artifacts=artifacts,
        output_dir=(base / output).resolve(),
        report_dir=(base / report).resolve() if report else None,
        latency=option("trailblaze_latency") or str(config.getini("trailblaze_latency")) or None,
        app_id=str(config.getini("trailblaze_app")),
        launch_mode=launch_mode,
        write_back=bool(config.getini("trailblaze_write_back")),
        trail_paths=tuple(Path(p).resolve() for p in trail_paths),
        secrets=_secrets(option("trailblaze_secrets") or [], option("trailblaze_secret_files") or []),
        element_timeout=_element_timeout(config),
        llm_timeout=_number(config, "llm_timeout", float),
        trail_timeout=_number(config, "trail_timeout", float) or DEFAULT_TRAIL_TIMEOUT_S,
        llm_retries=_number(config, "llm_retries", int),
        each_device=bool(
            config.getini("trailblaze_each_device") if option("trailblaze_each_device") is None else True
        ),
        model=_model(config),
        device_logs=device_logs,
        **_install_settings(config, option("trailblaze_install"), option("trailblaze_reinstall")),
        llm_base_url=option("trailblaze_llm_base_url") or str(config.getini("trailblaze_llm_base_url")).strip() or None,
        **_shard_settings(option("trailblaze_shard"), option("trailblaze_shard_durations"), base),
        screenshots=screenshots,
        drivers=_given(web_settings(config, [str(d) for d in devices]), appium_session(config)),
        retries=_number(config, "retries", int) or 0,
        fail_on_flaky=bool(
            config.getini("trailblaze_fail_on_flaky") if option("trailblaze_fail_on_flaky") is None else True
        ),
        report_single_file=bool(option("trailblaze_report_single_file")),
        allure_dir=_result_file(config, base, report, "trailblaze_allure_dir"),
        ctrf=_result_file(config, base, report, "trailblaze_ctrf"),
        results=_results_location(config, option("trailblaze_results"), str(config.getini("trailblaze_results"))),
    )


def _given(*given: GivenOptions | None) -> tuple[GivenOptions, ...]:
    return tuple(g for g in given if g is not None and g.names())


def _result_file(config: pytest.Config, base: Path, report: str | None, name: str) -> Path | None:
    """`--trailblaze-allure-dir` / `--trailblaze-ctrf` (`name`; ini `trailblaze_allure_dir` / `trailblaze_ctrf`,
    relative to the ini file's folder): written from the merged run, so they need `--trailblaze-report`."""
    given = config.getoption(name, default=None)
    ini = str(config.getini(name)).strip()
    path = (base / given).resolve() if given else (config.rootpath / ini).resolve() if ini else None
    if path is not None and not report:
        flag = "--" + name.replace("_", "-")
        raise pytest.UsageError(
            f"{flag} is written from the merged run of --trailblaze-report DIR: add --trailblaze-report DIR"
        )
    return path


def _install_settings(config: pytest.Config, given: list[str] | None, reinstall: bool | None) -> dict[str, Any]:
    """`--trailblaze-install` (relative to the invocation folder) or ini `trailblaze_install`
    (relative to the ini file's folder); every file must exist before a device opens."""
    if given:
        paths, where, base = given, "--trailblaze-install", config.invocation_params.dir
    else:
        paths, where, base = [str(p) for p in config.getini("trailblaze_install")], "trailblaze_install", config.rootpath
    files = tuple(str((base / p).resolve()) for p in paths)
    for shown, file in zip(paths, files, strict=True):
        if not Path(file).is_file():
            raise pytest.UsageError(f"{where} = {shown!r}: no such file; give the path of the app's APK")
    again = bool(config.getini("trailblaze_reinstall")) if reinstall is None else reinstall
    if again and not files:
        raise pytest.UsageError("trailblaze_reinstall reinstalls the apps of trailblaze_install: add one")
    return {"install": files, "reinstall": again}


def _check_specs(devices: list[str]) -> None:
    from trailblaze.device.devices import parse_device_spec
    from trailblaze.errors import UsageError

    for spec in devices:
        try:
            parse_device_spec(str(spec))
        except UsageError as exc:
            raise pytest.UsageError(f"--device: {exc.message}") from None


def _shard_settings(shard: str | None, durations: str | None, base: Path) -> dict[str, Any]:
    from trailblaze.engine.shard import load_durations, parse_shard
    from trailblaze.errors import UsageError

    if shard is None:
        if durations is not None:
            raise pytest.UsageError("--trailblaze-shard-durations balances shards: add --trailblaze-shard I/N")
        return {}
    try:
        return {
            "shard": parse_shard(shard, "--trailblaze-shard"),
            "shard_durations": None
            if durations is None
            else load_durations(base / durations, "--trailblaze-shard-durations"),
        }
    except UsageError as exc:
        raise pytest.UsageError(exc.message) from None


def _model(config: pytest.Config) -> str | None:
    """`--trailblaze-model` or ini `trailblaze_model`, checked now: an unknown provider stops the run."""
    from trailblaze.errors import UsageError
    from trailblaze.llm.models import parse_model

    given = config.getoption("trailblaze_model", default=None)
    where = "--trailblaze-model"
    if given is None:
        given, where = str(config.getini("trailblaze_model")).strip() or None, "trailblaze_model"
    if given is None:
        return None
    try:
        return str(parse_model(given, where=where))
    except UsageError as exc:
        raise pytest.UsageError(exc.message) from None


def _number(config: pytest.Config, name: str, kind: type[float] | type[int]) -> Any:
    """`--trailblaze-<name>` or ini `trailblaze_<name>`: a positive float / an int 0..10, or None."""
    given = config.getoption(f"trailblaze_{name}", default=None)
    where = f"--trailblaze-{name.replace('_', '-')}"
    if given is None:
        given, where = str(config.getini(f"trailblaze_{name}")).strip(), f"trailblaze_{name}"
        if not given:
            return None
    try:
        value = kind(given)
    except ValueError:
        value = math.nan
    if kind is float and not (math.isfinite(value) and value > 0):
        raise pytest.UsageError(f"{where} = {given!r}: use a positive number of seconds (e.g. 10 or 60)")
    if kind is int and not (isinstance(value, int) and 0 <= value <= 10):
        raise pytest.UsageError(f"{where} = {given!r}: use a whole number of retries from 0 to 10")
    return value


def _element_timeout(config: pytest.Config) -> float | None:
    given = config.getoption("trailblaze_element_timeout", default=None)
    where = "--trailblaze-element-timeout"
    if given is None:
        given, where = str(config.getini("trailblaze_element_timeout")).strip(), "trailblaze_element_timeout"
        if not given:
            return None
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise pytest.UsageError(f"{where} = {given!r}: use a positive number of seconds (e.g. 0.5 or 10)")
    return seconds


def _secrets(values: list[str], files: list[str]) -> dict[str, str]:
    """`--trailblaze-secret-file`s, then `--trailblaze-secret`s; registered so no output shows them."""
    from trailblaze.common.redact import register_secrets
    from trailblaze.common.secret_sources import collect_secrets
    from trailblaze.errors import UsageError

    try:
        found = collect_secrets(
            values, files, flag="--trailblaze-secret", file_flag="--trailblaze-secret-file"
        )
        register_secrets(found, "--trailblaze-secret")
    except UsageError as exc:
        raise pytest.UsageError(exc.message) from None
    return found


# --- the device pool ----------------------------------------------------------------------------------


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _worker(config: pytest.Config) -> tuple[int, int] | None:
    """(index, count) of this pytest-xdist worker, None outside xdist."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return None
    index = int(re.sub(r"\D", "", str(workerinput.get("workerid", ""))) or 0)
    return index, int(workerinput.get("workercount") or index + 1)


def pool_problem(pool: tuple[str, ...], workers: int) -> str | None:
    """Why `workers` xdist workers cannot share `pool`, or None.

    A simulated spec can serve any number of workers (each starts its own simulator); a real
    device can serve only one, so it must not come round again when the workers wrap the pool.
    """
    shared = sorted({pool[k % len(pool)] for k in range(len(pool), workers)} - _simulated(pool))
    if not shared:
        return None
    return (
        f"{workers} xdist workers but {len(pool)} device(s) in the pool, so {', '.join(shared)} would be "
        f"driven by two workers at once: pass --device once per worker (e.g. --device android:SERIAL ...) "
        f"or use -n {len(pool)}"
    )


def _simulated(pool: tuple[str, ...]) -> set[str]:
    """The specs any number of workers can share: simulators (one each) and farm presets (the farm
    gives each worker's session a device of its own)."""
    from trailblaze.pytest._appium import shareable

    return {spec for spec in pool if spec.startswith("sim:") or shareable(spec)}


def worker_device_spec(config: pytest.Config) -> str:
    """The spec this process drives: `pool[k % len(pool)]` for xdist worker k, else `pool[0]`."""
    pool = config.stash[_CONFIG_KEY].devices
    worker = _worker(config)
    if worker is None:
        return pool[0]
    index, count = worker
    problem = pool_problem(pool, count)
    if problem:
        raise pytest.UsageError(problem)
    return pool[index % len(pool)]


# --- collection -------------------------------------------------------------------------------------


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    from trailblaze.maestro.sniff import FLOW_SUFFIXES, flow_file_kind
    from trailblaze.trail.discovery import is_trail_name

    if is_trail_name(file_path.name):
        if not _collectable(parent.config, file_path):
            return None
    elif not file_path.name.endswith(FLOW_SUFFIXES) or not _collectable(parent.config, file_path):
        return None
    elif flow_file_kind(file_path) == "other":  # a Maestro flow is a trail too (docs/adr/0049-maestro-flows.md)
        return None
    from trailblaze.pytest._items import TrailFile

    trail_file: TrailFile = TrailFile.from_parent(parent, path=file_path)
    if parent.config.stash[_CONFIG_KEY].each_device:
        trail_file.matrix = _matrix_devices(parent.config, file_path)
    return trail_file


def _matrix_devices(config: pytest.Config, path: Path) -> list[tuple[str, str | None]]:
    """The devices a trail file runs on in a matrix run, each with why it is skipped there (or None).

    A folder trail's file runs on the devices it is the folder's trail for; a device for which the
    folder has no file gets a skipped item (on the folder's first file, so it is listed once).
    """
    from trailblaze.device.devices import parse_device_spec
    from trailblaze.trail.discovery import is_folder_trail_name, pick_folder_trail

    devices = config.stash[_CONFIG_KEY].devices
    if not is_folder_trail_name(path.name) or _named(config, path):
        return [(spec, None) for spec in devices]
    names = sorted(p.name for p in path.parent.iterdir() if is_folder_trail_name(p.name))
    out: list[tuple[str, str | None]] = []
    for spec in devices:
        platform = parse_device_spec(spec).platform
        chosen = pick_folder_trail(names, platform)
        if path.name in chosen:
            out.append((spec, None))
        elif not chosen and names and path.name == names[0]:
            out.append((spec, f"the folder trail {path.parent.name}/ has no file for {platform} ({', '.join(names)})"))
    return out


def _named(config: pytest.Config, path: Path) -> bool:
    resolved = path.resolve()
    base = config.invocation_params.dir
    return any((base / arg.split("::")[0]).resolve() == resolved for arg in config.args)


def _collectable(config: pytest.Config, path: Path) -> bool:
    """A trail file is a test when it is named on the command line or lies under a trail folder.

    A folder named on the command line counts as a trail folder unless it holds Python tests
    (`trailblaze.pytest._folders`). Trail files elsewhere (test fixtures under `tests/data/`,
    half-written drafts) are data, so a plain `pytest` or `pytest tests/` never turns them into
    items. Under a trail folder, discovery follows `trailblaze.trail.model.find_trail_files`: `build/` and
    hidden folders are skipped, a folder trail (`trail.yaml`, `android-phone.trail.yaml`, …) is the
    one file for the worker's platform, and a `*.trail.md` whose `.trail.yaml` exists is not
    collected (the .yaml is).
    """
    resolved = path.resolve()
    if _named(config, path):
        return True
    from trailblaze.pytest._folders import named_trail_folders

    folders = (*config.stash[_CONFIG_KEY].trail_paths, *named_trail_folders(config))
    folder = next((f for f in folders if resolved.is_relative_to(f)), None)
    return folder is not None and _discovered(config, folder, resolved)


def _discovered(config: pytest.Config, folder: Path, path: Path) -> bool:
    from trailblaze.device.devices import parse_device_spec
    from trailblaze.trail.discovery import walk_trails

    settings = config.stash[_CONFIG_KEY]
    specs = settings.devices if settings.each_device else (worker_device_spec(config),)
    cache: dict[tuple[Path, str], frozenset[Path]] = config.stash.setdefault(_FOUND_KEY, {})
    for platform in sorted({parse_device_spec(spec).platform for spec in specs}):
        if (folder, platform) not in cache:
            cache[(folder, platform)] = frozenset(p.resolve() for p in walk_trails(folder, platform))
        if path in cache[(folder, platform)]:
            return True
    return False


_FOUND_KEY = pytest.StashKey[dict[tuple[Path, str], frozenset[Path]]]()


# --- running ------------------------------------------------------------------------------------------


@pytest.hookimpl(trylast=True)  # after `-k` / `-m` deselected theirs: the shards split what is left
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _skip_other_platforms(config, items)
    _shard_items(config, items)


def _skip_other_platforms(config: pytest.Config, items: list[pytest.Item]) -> None:
    marked = [(item, wanted) for item in items if (wanted := _platforms(item))]
    if not marked:
        return
    from trailblaze.device.devices import parse_device_spec
    from trailblaze.errors import UsageError

    for item, wanted in marked:
        spec = getattr(item, "device_spec", None) or worker_device_spec(config)  # a matrix item names its own
        try:
            platform = parse_device_spec(spec).platform
        except UsageError as exc:
            raise pytest.UsageError(exc.message) from None
        if platform not in wanted:
            item.add_marker(
                pytest.mark.skip(
                    reason=f"needs a {' or '.join(sorted(wanted))} device; this run drives {spec}"
                )
            )


def _shard_items(config: pytest.Config, items: list[pytest.Item]) -> None:
    """`--trailblaze-shard i/N`: keep this job's share of what `-k` / `-m` left (runs after them)."""
    settings = config.stash[_CONFIG_KEY]
    if settings.shard is None:
        return
    from trailblaze.engine.shard import select_shard

    kept = select_shard(items, settings.shard, lambda item: item.nodeid, settings.shard_durations, _duration_names)
    chosen = {id(item) for item in kept}
    dropped = [item for item in items if id(item) not in chosen]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def _duration_names(item: pytest.Item) -> list[str]:
    """Where a previous run may have recorded this test's time: pytest's `--junitxml` (`classname.name`)
    or a trailblaze run.json / JUnit (the trail's id, with its device in a matrix run)."""
    path, bracket, params = item.nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    out = [".".join(names)]
    trail = getattr(item, "trail", None)
    trail_id = trail.config.id if trail is not None and trail.config is not None else None
    if trail_id:
        spec = getattr(item, "device_spec", None)
        out.extend([f"{trail_id}[{spec}]", trail_id] if spec else [trail_id])
    return out


def _platforms(item: pytest.Item) -> set[str]:
    return {str(name).lower() for mark in item.iter_markers("platform") for name in mark.args}


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _scrub_report(report)
    item.stash.setdefault(_REPORTS_KEY, {})[report.when] = report
    session = item.stash.get(_DRIVER_SESSION_KEY, None)
    if session is not None and report.failed and report.when == "call":
        settings = item.config.stash[_CONFIG_KEY]
        if settings.artifacts != "off":
            saved = _capture_failure(session, artifact_dir(item))
            report.sections.append(("trailblaze", f"screen at failure: {', '.join(saved)}"))
    return report


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> Generator[None, Any, Any]:
    result = yield
    if fixturedef.argname == "trailblaze_secrets" and isinstance(result, dict):
        # a conftest override (a vault, the CI environment) is redacted like --trailblaze-secret
        from trailblaze.common.redact import register_secrets

        register_secrets(result, "trailblaze_secrets")
    return result


def _scrub_report(report: pytest.TestReport) -> None:
    """The report's failure text and captured output without any registered secret (`trailblaze.common.redact`):
    this is what the console, `--junitxml` and xdist's controller get."""
    from trailblaze.common.redact import has_secrets, scrub

    if not has_secrets():
        return
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # a skip: (path, line, reason)
        report.longrepr = (longrepr[0], longrepr[1], scrub(longrepr[2]))
    elif longrepr is not None:
        text = str(longrepr)
        clean = scrub(text)
        if clean != text:
            report.longrepr = clean
    report.sections = [(title, scrub(body)) for title, body in report.sections]


def _capture_failure(session: DeviceSession, directory: Path) -> list[str]:
    """Saves the screenshot and hierarchy of a failed test (every element of the dump that shows a
    secret blacked out of the picture); a dead device is noted, not raised."""
    from trailblaze.common.files import write_text
    from trailblaze.common.images import image_ext
    from trailblaze.screen.mask import mask_shown_secrets

    directory.mkdir(parents=True, exist_ok=True)
    saved: list[str] = []
    try:
        hierarchy = session.refresh()
        source = hierarchy.source
        text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
        dump = directory / ("failure.json" if hierarchy.format == "wda-json" else "failure.xml")
        write_text(dump, text)
        saved.append(str(dump))
        data = mask_shown_secrets(session.screenshot(), hierarchy)
        shot = directory / f"failure.{image_ext(data)}"
        shot.write_bytes(data)
        saved.append(str(shot))
    except Exception as exc:  # the device may be what failed; the report matters more than the picture
        saved.append(f"(could not capture the screen: {exc})")
    return saved


def failed_so_far(item: pytest.Item) -> bool:
    """Whether the test failed in setup or call (as far as reported so far)."""
    reports = item.stash.get(_REPORTS_KEY, {})
    return any(r.failed for r in reports.values())


def artifact_dir(item: pytest.Item) -> Path:
    """The folder that keeps a test's run directory and failure captures."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", item.nodeid).strip("-.")
    if len(slug) > 120:
        import hashlib

        slug = slug[:100] + "-" + hashlib.blake2b(item.nodeid.encode(), digest_size=6).hexdigest()
    return item.config.stash[_CONFIG_KEY].artifacts_root / slug


def pytest_sessionstart(session: pytest.Session) -> None:
    report = session.config.stash[_CONFIG_KEY].report_dir
    if report is not None and not _is_worker(session.config):
        from trailblaze.pytest._runner import reset_report_dir

        reset_report_dir(report)


def pytest_sessionfinish(session: pytest.Session) -> None:
    settings = session.config.stash[_CONFIG_KEY]
    report = settings.report_dir
    if report is not None and not _is_worker(session.config):
        from trailblaze.pytest._runner import write_merged_report

        shard = str(settings.shard) if settings.shard is not None else None
        write_merged_report(
            report,
            command=["pytest", *session.config.invocation_params.args],
            shard=shard,
            single_file=settings.report_single_file,
            allure_dir=settings.allure_dir,
            ctrf=settings.ctrf,
        )


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    report = config.stash[_CONFIG_KEY].report_dir
    if report is not None and (report / "report.html").is_file():
        terminalreporter.write_line(f"trailblaze report: {report / 'report.html'}")


# --- fixtures -----------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def trailblaze_config(pytestconfig: pytest.Config) -> TrailblazeConfig:
    """The plugin's resolved settings."""
    return pytestconfig.stash[_CONFIG_KEY]


@pytest.fixture(scope="session")
def trailblaze_device_spec(pytestconfig: pytest.Config) -> str:
    """The `--device` spec this process drives (its pytest-xdist worker's share of the pool)."""
    return worker_device_spec(pytestconfig)


@pytest.fixture(scope="session")
def trailblaze_session_args() -> dict[str, Any]:
    """Keyword arguments for `DeviceSession` (`resolve_timeout`, `settle_timeout`, …); override it.

    `--trailblaze-element-timeout` (or ini `trailblaze_element_timeout`) takes precedence over the
    `resolve_timeout` given here.
    """
    return {}


@pytest.fixture(scope="session")
def trailblaze_secrets(trailblaze_config: TrailblazeConfig) -> dict[str, str]:
    """Secrets for `{{name}}` templates (default: `--trailblaze-secret`); override it to read a vault."""
    return dict(trailblaze_config.secrets)


@pytest.fixture(scope="session")
def trailblaze_app_id(trailblaze_config: TrailblazeConfig) -> str:
    """The app the `driver` fixture resets before each test (ini `trailblaze_app`)."""
    return trailblaze_config.app_id


@pytest.fixture(scope="session")
def trailblaze_device_pool(
    trailblaze_config: TrailblazeConfig, trailblaze_session_args: dict[str, Any]
) -> Iterator[DevicePool]:
    """Every device this process drives, opened on first use (`.get(spec)`) and closed at the end."""
    from trailblaze.pytest._devices import DevicePool

    pool = DevicePool(trailblaze_config.device_choice, trailblaze_session_args)
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture(scope="session")
def trailblaze_device(trailblaze_device_spec: str, trailblaze_device_pool: DevicePool) -> DeviceSession:
    """The device of this process for the whole session; a `sim:*` spec runs its own simulator."""
    return trailblaze_device_pool.get(trailblaze_device_spec)


@pytest.fixture
def driver(
    request: pytest.FixtureRequest,
    trailblaze_device: DeviceSession,
    trailblaze_app_id: str,
    trailblaze_config: TrailblazeConfig,
) -> Driver:
    """The device's `Driver` with the app under test relaunched (`trailblaze_launch_mode`, default
    `CLEAR_STATE`), so every test starts from the app's first screen with no saved state."""
    from trailblaze.errors import TrailblazeError

    mode = trailblaze_config.launch_mode
    try:
        trailblaze_device.act(lambda d: d.launch_app(trailblaze_app_id, mode))  # type: ignore[arg-type]
    except TrailblazeError as exc:
        pytest.fail(f"{type(exc).__name__}: cannot launch {trailblaze_app_id}: {exc.message}", pytrace=False)
    request.node.stash[_DRIVER_SESSION_KEY] = trailblaze_device
    return trailblaze_device.driver


@pytest.fixture
def llm(trailblaze_config: TrailblazeConfig) -> Iterator[LLMClient]:
    """The model the agent uses when a step has no recording or self-heals (`--trailblaze-model`).

    `trail_runner` asks for it only when a step needs it, so fully recorded trails never build a
    client. Override it in `conftest.py` with `trailblaze.testing.ScriptedLLM` / `FunctionLLM`.
    """
    from trailblaze.common.flags import PYTEST
    from trailblaze.llm.models import build_llm, resolve_model

    settings = trailblaze_config
    client = build_llm(
        resolve_model(settings.model),
        base_url=settings.llm_base_url,
        timeout=settings.llm_timeout,
        retries=settings.llm_retries,
        flags=PYTEST,  # its errors name --trailblaze-llm-timeout, not the CLI's --llm-timeout
    )
    try:
        yield client
    finally:
        close = getattr(client, "close", None)
        if callable(close):
            close()


@pytest.fixture
def trail_runner(
    request: pytest.FixtureRequest,
    trailblaze_config: TrailblazeConfig,
    trailblaze_secrets: dict[str, str],
) -> Iterator[TrailRunner]:
    """Replays / records trails and runs single tools on this test's device; one run directory per test.

    The device is the process's (`trailblaze_device`), or a matrix item's own (`--trailblaze-each-device`).
    """
    from trailblaze.pytest._runner import TrailRunner

    item = request.node
    spec: str | None = getattr(item, "device_spec", None)
    if spec is None:
        spec = request.getfixturevalue("trailblaze_device_spec")
        device: DeviceSession = request.getfixturevalue("trailblaze_device")
    else:
        device = request.getfixturevalue("trailblaze_device_pool").get(spec)
    directory = (
        None
        if trailblaze_config.artifacts == "off" and trailblaze_config.report_dir is None
        else artifact_dir(item)
    )
    if directory is not None and directory.exists():
        shutil.rmtree(directory)  # a previous run of this test; this folder belongs to it alone
    from trailblaze.common.flags import PYTEST
    from trailblaze.engine.options import RunInputs

    runner = TrailRunner(
        device,
        device=trailblaze_config.device_choice(spec),
        llm_factory=lambda: request.getfixturevalue("llm"),
        replay=trailblaze_config.replay_options(),
        policy=trailblaze_config.ci_policy(),
        inputs=RunInputs(secrets=trailblaze_secrets, flags=PYTEST.carrying(trailblaze_secrets)),  # its hints name pytest's options
        output=trailblaze_config.run_output(directory),
        command=["pytest", item.nodeid],
    )
    yield runner
    runner.close()
    if directory is not None and directory.exists() and not trailblaze_config.keeps(failed_so_far(item)):
        shutil.rmtree(directory)
