"""What a run's result means for the build: flaky trails, quarantine and the heal budget (ADR 0044).

A replay's exit code used to be "did every trail pass". Three CI knobs make that answer honest
instead of merely green:

- **retries** (`replay --retries N`, pytest `--trailblaze-retries N`): a failed trail runs again from
  its start on a clean launch; the earlier attempts stay in its record (`TrailRecord.attempts`).
  A trail that passed only on a retry is *flaky*: it passes, but it is named as such everywhere,
  and `--fail-on-flaky` makes it fail the build.
- **quarantine** (`config.quarantine: <reason>`, pytest marker `trailblaze_quarantine`): the trail
  runs and its result is reported, but its failure does not fail the build.
- **heal budget** (`replay --self-heal --max-heals N`): more than N healed steps fail the build, and
  every heal is listed with its diff, so a healed run never reads as a clean pass.

This module only reads the run log; the runner and the pytest plugin print its lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from trailblaze.common.redact import scrub
from trailblaze.output.runlog import RunRecord, TrailRecord

__all__ = ["CiPolicy", "Heal", "Verdict", "heals", "is_blocking", "is_flaky", "is_passing", "verdict"]


@dataclass(frozen=True)
class CiPolicy:
    """The run's CI knobs."""

    retries: int = 0
    """Re-runs of a failed trail (0: none)."""
    fail_on_flaky: bool = False
    """A trail that passed only on a retry fails the build."""
    max_heals: int | None = None
    """More healed steps than this fail the build (None: no budget)."""


@dataclass(frozen=True)
class Heal:
    """One step self-heal repaired."""

    trail: str
    step: int
    """1-based, as the console numbers steps."""
    text: str
    diff: str | None
    """The trail's `trail.diff`, relative to the run directory (None: nothing was written)."""


@dataclass(frozen=True)
class Verdict:
    """The run's exit code (0 or 1) and the lines that explain it beyond the per-trail table."""

    code: int
    lines: list[str]
    trails: int = 0
    skipped: list[str] = field(default_factory=list)
    """The error (`skipped on android-phone: why`) of each trail the run skipped."""


def is_passing(trail: TrailRecord) -> bool:
    """Passed (cleanly, healed, by the agent or on a retry) or skipped."""
    return trail.status.startswith("passed") or trail.status == "skipped"


def is_flaky(trail: TrailRecord) -> bool:
    """Passed, but only after at least one failed attempt."""
    return trail.status.startswith("passed") and bool(trail.attempts)


def is_blocking(trail: TrailRecord) -> bool:
    """A failure that fails the build: not passing and not quarantined."""
    return not is_passing(trail) and not trail.quarantine


def label(trail: TrailRecord) -> str:
    """How the summary names a trail: its id, else its file name."""
    return trail.id or Path(trail.path).name


def heals(run: RunRecord) -> list[Heal]:
    """Every healed step of the run, earlier attempts included (each rewrote the trail file)."""
    return [heal for trail in run.trails for heal in _heals(trail)]


def _heals(trail: TrailRecord) -> list[Heal]:
    out: list[Heal] = []
    for attempt in [*trail.attempts, trail]:
        diff = f"{attempt.directory}/trail.diff" if attempt.heal_diff and attempt.directory else None
        out.extend(
            Heal(label(trail), step.index + 1, step.text, diff)
            for step in attempt.steps
            if step.status == "passed-with-self-heal"
        )
    return out


def verdict(
    run: RunRecord, policy: CiPolicy, root: Path | None = None, *, trails: Iterable[TrailRecord] | None = None
) -> Verdict:
    """The exit code the run earns under `policy`, and the summary lines naming every flaky,
    quarantined and healed trail (paths under `root`, the run directory, when given).

    `trails`: the run's trails when they are not in `run` (read one at a time from run.json, each
    looked at once).

    The lines' values (trail names, errors, step text, paths) are redacted here, their labels
    (`flaky:`, `healed:`) are not: a secret equal to a label must not point itself out."""
    flaky_lines: list[str] = []
    quarantined: list[str] = []
    healed: list[Heal] = []
    failing = flaky = total = 0
    skipped: list[str] = []
    for trail in run.trails if trails is None else trails:
        total += 1
        if trail.status == "skipped":
            skipped.append(scrub(trail.error or "skipped"))
        failing += is_blocking(trail)
        if is_flaky(trail):
            flaky += 1
            first = scrub(trail.attempts[0].error or "failed")
            n = len(trail.attempts) + 1
            flaky_lines.append(
                f"flaky: {scrub(label(trail))} passed on attempt {n} of {n}; attempt 1 failed: {first}"
            )
        if trail.quarantine:
            quarantined.append(f"quarantined: {scrub(label(trail))} {trail.status} ({scrub(trail.quarantine)})")
        healed += _heals(trail)
    lines = flaky_lines + quarantined
    for heal in healed:
        where = heal.diff if root is None or heal.diff is None else str(root / heal.diff)
        shown = f"{scrub(heal.trail)} step {heal.step} ({scrub(heal.text)})"
        lines.append(f"healed: {shown} — diff {scrub(where) if where else 'not written'}")
    over_budget = policy.max_heals is not None and len(healed) > policy.max_heals
    if over_budget:
        lines.append(
            f"heal budget exceeded: {len(healed)} step{'s' * (len(healed) != 1)} needed healing, "
            f"--max-heals {policy.max_heals}: the run fails"
        )
    if policy.fail_on_flaky and flaky:
        lines.append(f"--fail-on-flaky: {flaky} flaky trail{'s' * (flaky != 1)} fail the run")
    code = 1 if failing or over_budget or (policy.fail_on_flaky and flaky) else 0
    return Verdict(code, lines, total, skipped)
