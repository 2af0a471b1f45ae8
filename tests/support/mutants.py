"""App mutants and their kill table, shared by tests/mutation/test_mutants.py and benchmarks/mutant_kills.py.

A mutant (`tests/data/mutants/NAME.yaml`) is the demo app with exactly one fact changed that a
`verify:` step of the example trails states. `manifest.yaml` says which fact and which verify steps
(`trail`, `step` numbered from 1 as replay prints them; `sub_step` when the verify step runs inside
the trail that step `step` runs with `runTrail`) it contradicts. Replaying a contradicted trail on
the mutant must fail *at that verify step*: that is a kill. A failure at an earlier step means the
mutant broke something the trail's actions need (a bad mutant), not a kill.

Every replay gets its own in-process simulator (zero latency) and runs in a thread: a replay mostly
waits for the device, so independent ones overlap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from tests.support.paths import ROOT
from trailblaze.device.devices import open_device
from trailblaze.engine.replay import ReplayOptions, build_memory, replay_trail
from trailblaze.llm.client import LLMClient
from trailblaze.output.runlog import StepRecord, TrailRecord
from trailblaze.trail.model import load_trail

MUTANTS_DIR = ROOT / "tests" / "data" / "mutants"
MANIFEST = MUTANTS_DIR / "manifest.yaml"
EXAMPLES_DIR = ROOT / "trails"
PLATFORMS: tuple[str, ...] = ("android", "ios")
RESTYLED = "demo@restyled"
SECRETS = {"password": "hunter2"}
RESOLVE_TIMEOUT = 2.0
"""Seconds a selector is polled before it counts as absent: short, since a mutant often removes
what a verify step looks for, and long enough for a loaded machine."""

Verdict = Literal["killed", "survived", "broke early", "failed later"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Contradiction(_Strict):
    """A verify step a mutant contradicts."""

    trail: str
    """The trail's file name under trails/ (`login.trail.yaml`)."""
    step: int = Field(ge=1)
    """1-based position in the trail's `trail:`, as replay prints it."""
    sub_step: int | None = Field(default=None, ge=1)
    """When `step` runs another trail (`runTrail`): the verify step's position in that trail."""

    @property
    def path(self) -> tuple[int, ...]:
        return (self.step,) if self.sub_step is None else (self.step, self.sub_step)

    @property
    def label(self) -> str:
        return f"{self.trail}#{'>'.join(map(str, self.path))}"


class MutantEntry(_Strict):
    fact: str
    """The one fact the mutant changes, in one line."""
    contradicts: list[Contradiction] = Field(min_length=1)


class Manifest(_Strict):
    mutants: dict[str, MutantEntry]

    def contradiction(self, mutant: str, trail: str) -> Contradiction | None:
        for c in self.mutants[mutant].contradicts:
            if c.trail == trail:
                return c
        return None

    def pairs(self) -> list[tuple[str, Contradiction]]:
        """Every (mutant, contradicted verify step), in manifest order."""
        return [(name, c) for name, entry in self.mutants.items() for c in entry.contradicts]


def load_manifest(path: Path = MANIFEST) -> Manifest:
    return Manifest.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def mutant_path(name: str) -> Path:
    return MUTANTS_DIR / f"{name}.yaml"


def example_trails() -> list[Path]:
    return sorted(EXAMPLES_DIR.glob("*.trail.yaml"))


@dataclass(frozen=True)
class Job:
    """One replay: a trail on an app (bundled name or spec path) on a simulated platform."""

    trail: Path
    app: str
    platform: str
    profile: str = ""
    """The simulator's device profile (`small`, `tablet+dark`; docs/guides/every-device.md); empty: the phone."""

    @property
    def device(self) -> str:
        return f"sim:{self.platform}" + (f"+{self.profile}" if self.profile else "")

    @property
    def label(self) -> str:
        app = Path(self.app).stem if self.app.endswith(".yaml") else self.app
        return f"{app} {self.trail.name} {self.device.removeprefix('sim:')}"


@dataclass(frozen=True)
class Outcome:
    status: str
    failed_at: tuple[int, ...] = ()
    """1-based path of the failing step: the trail's step, then the step inside what it ran with
    `runTrail`, if the failure is there. Empty when the replay did not fail."""
    error: str = ""
    scrolls: int = 0
    """Targets replay scrolled into view (`SessionStats.scrolls_into_view`)."""
    seconds: float = 0.0
    """The replay's wall time, the device's start excluded."""

    @property
    def failed(self) -> bool:
        return self.status == "failed"


def _failing(steps: Sequence[StepRecord]) -> tuple[int, ...]:
    for step in steps:
        if step.status == "failed":
            for sub in step.subtrails:
                inner = _failing(sub.steps)
                if inner:
                    return (step.index + 1, *inner)
            return (step.index + 1,)
    return ()


def outcome_of(record: TrailRecord, scrolls: int = 0, seconds: float = 0.0) -> Outcome:
    return Outcome(record.status, _failing(record.steps), record.error or "", scrolls, seconds)


def _no_llm() -> LLMClient:
    raise AssertionError("a mutant replay must not ask an LLM: every step needs a recording")


def replay_job(job: Job, latency: str = "zero") -> Outcome:
    """Replays the trail in place (no self-heal, nothing written back) on its own simulator."""
    trail = load_trail(job.trail)
    with open_device(
        job.device, app_override=job.app, latency=latency, resolve_timeout=RESOLVE_TIMEOUT
    ) as session:
        started = time.perf_counter()
        record = replay_trail(
            trail,
            session,
            memory=build_memory(trail, secrets=SECRETS),
            options=ReplayOptions(write_back=False),
            llm_factory=_no_llm,
        )
        seconds = time.perf_counter() - started
        return outcome_of(record, session.stats.scrolls_into_view, seconds)


def run_jobs(
    jobs: Iterable[Job], *, workers: int = 8, on_done: Callable[[Job, Outcome], None] | None = None
) -> dict[Job, Outcome]:
    """Every job's outcome; an exception (device or file trouble) becomes a failed outcome with no step."""

    def one(job: Job) -> tuple[Job, Outcome]:
        try:
            out = replay_job(job)
        except Exception as exc:
            out = Outcome("error", (), f"{type(exc).__name__}: {exc}")
        if on_done is not None:
            on_done(job, out)
        return job, out

    todo = list(jobs)
    with ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="mutant") as pool:
        return dict(pool.map(one, todo))


def verdict(outcome: Outcome, expected: Contradiction) -> Verdict:
    """Killed: failed at the contradicted verify step. Broke early: failed before it."""
    if not outcome.failed_at:
        return "broke early" if outcome.status == "error" else "survived"
    if outcome.failed_at == expected.path:
        return "killed"
    return "broke early" if outcome.failed_at < expected.path else "failed later"


def mutant_jobs(manifest: Manifest, trails: Sequence[Path], *, cross: bool, profile: str = "") -> list[Job]:
    """The replays on mutants: each mutant's contradicted trails, or (`cross`) every trail."""
    jobs: list[Job] = []
    for name, entry in manifest.mutants.items():
        named = {c.trail for c in entry.contradicts}
        for trail in trails:
            if cross or trail.name in named:
                jobs += [Job(trail, str(mutant_path(name)), p, profile) for p in PLATFORMS]
    return jobs


def restyled_jobs(trails: Sequence[Path]) -> list[Job]:
    return [Job(t, RESTYLED, p) for t in trails for p in PLATFORMS]
