"""A run directory's `run.json` as results-store rows (`trailblaze.results.store.Rows`).

A trail is keyed by its `config.id` (else its path as run), a device by what it is rather than what
it ran: a simulator is `sim:android` (plus its profile) whichever app build it had, so a replay on a
new build — or on a mutant — compares with the last one. Each retry attempt is a row of its own
(`final` marks the last). A `record` run adds its proof replay (the recordings replayed with no
model), not the recording itself: that is the result the next replay will repeat.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, iter_trails, read_head
from trailblaze.results.store import Rows

__all__ = ["MAX_REASON", "device_key", "run_rows", "trail_key"]

MAX_REASON = 500
"""Characters of a failure's reason kept: its first line, which says what failed."""

_SKIP = {"running", "skipped"}  # not an outcome: nothing to learn from it


def run_rows(run_dir: str | os.PathLike[str], source: str) -> Rows:
    """The rows of the run in `run_dir`; its trails are read one at a time.

    Raises:
        UsageError: no readable run log there.
    """
    head = read_head(run_dir)
    return rows_of(head, iter_trails(run_dir, head), source)


def rows_of(head: RunRecord, trails: Iterable[TrailRecord], source: str) -> Rows:
    key = head.uid or f"{head.started_at}|{head.run_id}"
    rows = Rows(run=(key, head.run_id, head.started_at, source, head.commit, head.branch, head.shard))
    devices: dict[str, str] = {}  # a run's trails share a few device specs: each is parsed once
    for trail in trails:
        result = trail.proof if trail.mode == "record" else trail
        if result is None or result.status in _SKIP:
            continue
        attempts = [*trail.attempts, result] if result is trail else [result]
        name = trail_key(trail)
        device = devices.get(trail.device) or devices.setdefault(trail.device, device_key(trail.device))
        for number, attempt in enumerate(attempts, 1):
            rows.trails.append(_trail_row(key, head, trail, attempt, name, device, number, len(attempts)))
            rows.steps.extend(
                (
                    key,
                    name,
                    device,
                    number,
                    step.index,
                    step.text[:300],
                    step.status,
                    step.mode,
                    step.duration_ms,
                )
                for step in attempt.steps
            )
    return rows


def _trail_row(
    key: str,
    head: RunRecord,
    trail: TrailRecord,
    attempt: TrailRecord,
    name: str,
    device: str,
    number: int,
    count: int,
) -> tuple[object, ...]:
    failed = _failed_step(attempt)
    reason = attempt.error or (failed.error if failed is not None else None)
    heals = sum(s.status == "passed-with-self-heal" or s.mode == "self-heal" for s in attempt.steps)
    return (
        key, name, device, number, int(number == count), count, trail.path, trail.device, trail.platform,
        trail.classifier, attempt.status, attempt.started_at or head.started_at, head.commit, head.branch,
        attempt.duration_ms, failed.index if failed is not None else None, failed.text[:300] if failed else None,
        _first_line(reason), heals, attempt.hiccups, trail.quarantine,
    )  # fmt: skip


def _failed_step(trail: TrailRecord) -> StepRecord | None:
    return next((s for s in trail.steps if s.status == "failed"), None)


def _first_line(text: str | None) -> str | None:
    if not text:
        return None
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:MAX_REASON] or None


def trail_key(trail: TrailRecord) -> str:
    """The trail as the store names it: its id, else its path (relative to here when below here)."""
    if trail.id:
        return trail.id
    path = Path(trail.path)
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd()).as_posix()
        except ValueError:
            return path.as_posix()
    return path.as_posix()


def device_key(spec: str) -> str:
    """The device a result is compared on: a simulator without its app, anything else as given."""
    from trailblaze.device.devices import parse_device_spec
    from trailblaze.errors import UsageError

    try:
        parsed = parse_device_spec(spec)
    except UsageError:  # a name the run gave it (pytest's pool): as it is
        return spec
    if parsed.simulated:
        return f"sim:{parsed.platform}" + (f"+{parsed.profile}" if parsed.profile else "")
    return spec
