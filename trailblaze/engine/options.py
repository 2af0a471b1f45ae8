"""The options of one `record` or `replay` run, as one validated object each.

The CLI builds a `ReplayRun` / `RecordRun` from its flags (and the pytest plugin and the MCP server
from theirs); the run functions in `trailblaze.engine.commands` take that one object. The device spec is
parsed once, here, and the command line kept in run.json is derived from the object, not rebuilt
by hand at each call site (docs/adr/0046-run-options.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from trailblaze.common.deadline import DEFAULT_TRAIL_TIMEOUT_S
from trailblaze.common.flags import CLI, Flags
from trailblaze.device.devices import DeviceSpec, parse_device_spec
from trailblaze.engine.replay import ReplayOptions
from trailblaze.errors import UsageError
from trailblaze.output.ci_policy import CiPolicy

if TYPE_CHECKING:
    from trailblaze.device.driver_hooks import GivenOptions
    from trailblaze.device.logs import DeviceLogMode
    from trailblaze.device.session import DeviceSession
    from trailblaze.engine.shard import Shard
    from trailblaze.output.artifacts import ScreenshotMode

__all__ = ["DeviceChoice", "ModelChoice", "RecordOptions", "RecordRun", "ReplayRun", "RunInputs", "RunOutput"]


@dataclass(frozen=True)
class DeviceChoice:
    """The device a run opens, and how (`--device` and the options that go with it)."""

    spec: DeviceSpec
    text: str
    """The spec as the person wrote it (for messages and run.json)."""
    latency: str | None = None
    element_timeout: float | None = None
    """How long a selector is polled before its tool fails (None: 5 s)."""
    device_logs: DeviceLogMode = "on-failure"
    trace: bool = False
    install: tuple[str, ...] = ()
    reinstall: bool = False
    drivers: tuple[GivenOptions, ...] = ()
    """The drivers' options the run gave (the browser's, an Appium session mode), each checked by
    its driver; those given go to the device's driver."""

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        latency: str | None = None,
        element_timeout: float | None = None,
        device_logs: DeviceLogMode = "on-failure",
        trace: bool = False,
        install: tuple[str, ...] = (),
        reinstall: bool = False,
        drivers: tuple[GivenOptions, ...] = (),
    ) -> DeviceChoice:
        """Parses `--device` once; a latency profile is only for a simulated device, a driver's
        options only for that driver's devices."""
        spec = parse_device_spec(text)
        if latency is not None and not spec.simulated:
            raise UsageError(
                f"only a simulated device has a latency profile, not {text!r}; drop --latency or use sim:..."
            )
        given = tuple(d for d in drivers if d.names())
        for unfit in (d for d in given if d.driver != spec.driver):
            unfit.refuse(text)
        return cls(spec, text, latency, element_timeout, device_logs, trace, tuple(install), reinstall, given)

    @property
    def platform(self) -> str:
        return self.spec.platform

    def open(self, **session_args: Any) -> DeviceSession:
        """Opens the device with these options (a simulated one starts; closing the session stops it).

        `session_args` go to `DeviceSession` (the pytest `trailblaze_session_args` fixture's); the
        element timeout wins over theirs."""
        from trailblaze.device.devices import open_device, session_options

        options = {**session_args, **session_options(self.element_timeout)}
        given = {k: v for d in self.drivers for k, v in d.plugin_options().items()}
        return open_device(self.spec, latency=self.latency, driver_options=given, **options)

    def argv(self) -> list[str]:
        """`--device` and its driver's options, as run.json keeps them."""
        return ["--device", self.text, *(a for d in self.drivers for a in d.args())]

    def timeout_argv(self) -> list[str]:
        return [] if self.element_timeout is None else ["--element-timeout", f"{self.element_timeout:g}"]


@dataclass(frozen=True)
class ModelChoice:
    """The model a step that needs the agent uses (`--model`, `--llm-*`)."""

    model: str | None = None
    base_url: str | None = None
    timeout: float | None = None
    """Per model call (None: 30 s)."""
    retries: int | None = None
    """Per model call (None: 2)."""

    def argv(self) -> list[str]:
        return [*([] if self.timeout is None else ["--llm-timeout", f"{self.timeout:g}"]),
                *([] if self.retries is None else ["--llm-retries", str(self.retries)]),
                *([] if self.model is None else ["--model", self.model])]  # fmt: skip


@dataclass(frozen=True)
class RunInputs:
    """The values templates read: `--memory`, `--arg`, and the secrets (never written anywhere)."""

    memory: Mapping[str, str] = field(default_factory=dict)
    args: Mapping[str, str] = field(default_factory=dict)
    secrets: Mapping[str, str] = field(default_factory=dict)
    flags: Flags = CLI
    """How the front end that gives these spells its options, for the run's hints (`--secret` or
    `--trailblaze-secret`; docs/adr/0055-front-end-flags.md)."""


@dataclass(frozen=True)
class RunOutput:
    """Where the run is kept and reported."""

    run_dir: str | None = None
    """None: `.trailblaze/runs/<time>`."""
    screenshots: ScreenshotMode = "steps"
    junit: str | None = None
    report: str | None = None
    report_single_file: bool = False
    """The HTML report as one self-contained file (images embedded), not a page beside its images."""
    allure_dir: str | None = None
    """Write Allure results into this folder (`trailblaze.output.allure`)."""
    ctrf: str | None = None
    """Write a CTRF JSON document here (`trailblaze.output.ctrf`)."""
    results: str | None = None
    """The results store the run is added to (`trailblaze.results`): a SQLite path or a PostgreSQL URL;
    None: not stored. The CLI resolves `--results` / `TRAILBLAZE_RESULTS` / `.trailblaze/results.db`."""

    def argv(self) -> list[str]:
        return [] if self.screenshots == "steps" else ["--screenshots", self.screenshots]


@dataclass(frozen=True)
class RecordOptions:
    """Knobs of a record run."""

    max_llm_calls: int = 50
    screenshots: bool = True
    rerecord: bool = False
    """Solve every step with the agent even when it has a recording for this device."""
    steps: tuple[int, ...] = ()
    """`--step N`: solve these steps (numbered from 1, as replay prints them) with the agent even when
    recorded; the others replay their recordings."""
    from_step: int | None = None
    """`--from N`: solve step N and every step after it with the agent."""
    verify: bool = True
    """Prove new recordings by a replay from a relaunch before writing them (`--no-verify`: off)."""
    keep_unverified: bool = False
    """Write new recordings even when the proof replay fails (marked `unverified`)."""
    ask: Callable[[str], str] | None = None
    """Answers the agent's `askUser` questions (a person at the terminal); None: the tool is not offered."""
    resume: bool = False
    """`--resume`: start from the recordings a record that stopped part-way kept in the trail's draft
    (`trailblaze.engine.record_draft`); those steps replay with no model call."""
    port_from: str | None = None
    """`trailblaze port --from CLASSIFIER`: steps are solved with no model, by porting their recording for
    this classifier (`trailblaze.port`); None: the agent solves them."""


@dataclass(frozen=True)
class _Run:
    """What every run has: the trail paths, the device, the inputs, the model and the outputs."""

    paths: tuple[str, ...]
    device: DeviceChoice
    inputs: RunInputs = RunInputs()
    model: ModelChoice = ModelChoice()
    output: RunOutput = RunOutput()


@dataclass(frozen=True)
class ReplayRun(_Run):
    """`trailblaze replay PATHS…`."""

    replay: ReplayOptions = ReplayOptions()
    tags: tuple[str, ...] = ()
    shard: Shard | None = None
    durations: Mapping[str, float] | None = None
    """Trail durations of an earlier run, to balance the shards."""
    policy: CiPolicy = CiPolicy()

    def __post_init__(self) -> None:
        if self.policy.max_heals is not None and not self.replay.self_heal:
            raise UsageError("--max-heals bounds self-heal: add --self-heal (without it no step is healed)")
        if self.durations is not None and self.shard is None:
            raise UsageError("--shard-durations balances shards: add --shard I/N")

    def command(self) -> list[str]:
        """The command line kept in run.json (no secret, memory or argument values)."""
        p = self.policy
        return [
            "trailblaze", "replay", *self.paths, *self.device.argv(),
            *(["--self-heal"] if self.replay.self_heal else []),
            *self.device.timeout_argv(), *self.model.argv(), *self.output.argv(),
            *(["--shard", str(self.shard)] if self.shard is not None else []),
            *(["--retries", str(p.retries)] if p.retries else []), *(["--fail-on-flaky"] if p.fail_on_flaky else []),
            *(["--max-heals", str(p.max_heals)] if p.max_heals is not None else []),
            *self._timeout_argv(),
        ]  # fmt: skip

    def _timeout_argv(self) -> list[str]:
        seconds = self.replay.trail_timeout
        return [] if seconds in (None, DEFAULT_TRAIL_TIMEOUT_S) else ["--trail-timeout", f"{seconds:g}"]


@dataclass(frozen=True)
class RecordRun(_Run):
    """`trailblaze record TRAILS…`."""

    record: RecordOptions = RecordOptions()

    def command(self) -> list[str]:
        """The command line kept in run.json (no secret, memory or argument values)."""
        r = self.record
        return [
            "trailblaze", "record", *self.paths, *self.device.argv(), *self.device.timeout_argv(), *self.model.argv(),
            *(f"--step={n}" for n in r.steps), *([f"--from={r.from_step}"] if r.from_step else []),
            *(["--no-verify"] if not r.verify else []), *(["--keep-unverified"] if r.keep_unverified else []),
            *(["--resume"] if r.resume else []),
            *self.output.argv(),
        ]  # fmt: skip
