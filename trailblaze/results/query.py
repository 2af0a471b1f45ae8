"""What `trailblaze results` reads from the store: per trail × device over its last N runs, the latest
status, pass and flake rates, the step that fails most, durations, the last failure; which are flaky
and why; and the gate's verdict.

Flaky (ADR 0072): a run that passed only after a retry or a self-heal, or a failure on a commit where
the same trail also passed on the same device. The flake rate is those runs over the runs counted.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field

from trailblaze.errors import UsageError
from trailblaze.results.store import Store

__all__ = ["Filters", "Summary", "gate_failures", "parse_since", "summaries"]

PASSING = ("passed", "passed-with-self-heal", "passed-ai")
_COUNTED = "status NOT IN ('skipped', 'running', 'interrupted')"


class Filters(BaseModel):
    last: int = 20
    since: str | None = None
    branch: str | None = None
    device: str | None = None
    trail: str | None = None


class Failure(BaseModel):
    run_id: str
    at: str
    commit: str | None
    step: str | None
    reason: str | None


class Summary(BaseModel):
    trail: str
    device: str
    path: str
    latest: str
    latest_at: str
    latest_commit: str | None
    quarantined: bool
    runs: int
    pass_rate: float
    flake_rate: float
    flaky: list[str] = Field(default_factory=list)
    """Evidence, one line each, when the trail is flaky on the device."""
    failing_step: str | None
    failing_step_count: int
    p50_ms: float
    p95_ms: float
    last_failure: Failure | None


def parse_since(text: str, now: datetime | None = None) -> str:
    """`7d`, `12h`, `30m` or an ISO date / time, as the store's UTC timestamp text."""
    now = now or datetime.now(UTC)
    if m := re.fullmatch(r"\s*(\d+)\s*([dhm])\s*", text):
        amount, unit = int(m[1]), m[2]
        delta = {"d": timedelta(days=amount), "h": timedelta(hours=amount), "m": timedelta(minutes=amount)}[
            unit
        ]
        moment = now - delta
    else:
        try:
            moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            raise UsageError(
                f"--since {text!r}: not a time; give 7d, 12h, 30m or a date such as 2026-01-31"
            ) from None
        moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def summaries(store: Store, filters: Filters) -> list[Summary]:
    """One summary per trail × device, sorted by trail then device.

    Each pair's last N runs are read by their own query, which walks the (final, trail, device,
    started_at) index backwards: the cost is the pairs × N rows read, not the size of the store."""
    where, params = _where(filters)
    pairs = store.rows(
        f"SELECT DISTINCT trail, device FROM trail_results WHERE final = 1{where} ORDER BY trail, device",
        params,
    )
    found = []
    mine, _ = _where(filters, "t.")
    for trail, device in pairs:
        rows = store.rows(
            "SELECT t.trail, t.device, t.path, t.status, t.started_at, t.commit_sha, t.attempts, t.heals,"
            " t.duration_ms, t.failed_step, t.failed_step_text, t.reason, t.quarantine, r.run_id"
            " FROM trail_results t JOIN runs r ON r.run_key = t.run_key"
            f" WHERE t.final = 1 AND t.trail = ? AND t.device = ? AND t.{_COUNTED}{mine}"
            " ORDER BY t.started_at DESC, t.run_key DESC LIMIT ?",
            [trail, device, *params, filters.last],
        )
        if rows:
            found.append(_summary(trail, device, rows))
    return found


def history(
    store: Store, trail: str, device: str, last: int = 20
) -> list[tuple[str, str, str | None, str | None]]:
    """The last `last` outcomes of a trail on a device, oldest first: (status, run id, commit, failed step)."""
    rows = store.rows(
        "SELECT t.status, r.run_id, t.commit_sha, t.failed_step FROM trail_results t JOIN runs r ON r.run_key = t.run_key"
        f" WHERE t.final = 1 AND t.{_COUNTED} AND t.trail = ? AND t.device = ?"
        " ORDER BY t.started_at DESC, t.run_key DESC LIMIT ?",
        [trail, device, last],
    )
    return [(row[0], row[1], row[2], None if row[3] is None else str(row[3])) for row in reversed(rows)]


def gate_failures(found: Sequence[Summary], max_flake_rate: float | None) -> list[str]:
    """Why each trail × device fails the gate, one line each (empty: the gate passes)."""
    lines = []
    for s in found:
        if s.latest not in PASSING and not s.quarantined:
            why = (
                f": {s.last_failure.step or ''} {s.last_failure.reason or ''}".rstrip()
                if s.last_failure
                else ""
            )
            lines.append(
                f"{s.trail} on {s.device}: latest run {s.latest} (commit {_short(s.latest_commit)}){why}"
            )
        if max_flake_rate is not None and s.flake_rate > max_flake_rate:
            lines.append(
                f"{s.trail} on {s.device}: flake rate {s.flake_rate:.0%} over {s.runs} runs is above "
                f"--max-flake-rate {max_flake_rate:g}"
            )
    return lines


def _where(filters: Filters, t: str = "") -> tuple[str, list[Any]]:
    """The filters as ` AND …` clauses on trail_results (named `t` when `t` is `t.`), and their parameters."""
    clauses, params = [], []
    if filters.since:
        clauses.append(f"{t}started_at >= ?")
        params.append(parse_since(filters.since))
    if filters.branch:
        clauses.append(f"{t}branch = ?")
        params.append(filters.branch)
    if filters.device:
        clauses.append(f"({t}device LIKE ? OR {t}device_spec LIKE ?)")
        params += [_like(filters.device)] * 2
    if filters.trail:
        clauses.append(f"({t}trail LIKE ? OR {t}path LIKE ?)")
        params += [_like(filters.trail)] * 2
    return "".join(f" AND {c}" for c in clauses), params


def _like(glob: str) -> str:
    """A `*` glob as a LIKE pattern (`login*`); no `*`: the exact text."""
    return glob.replace("*", "%")


def _summary(trail: str, device: str, rows: list[tuple[Any, ...]]) -> Summary:
    latest = rows[0]
    passing = [r for r in rows if r[3] in PASSING]
    evidence: list[str] = []
    flakes = 0
    for r in rows:
        if r[3] in PASSING and (r[6] > 1 or r[7] > 0 or r[3] == "passed-with-self-heal"):
            flakes += 1
            how = f"on attempt {r[6]} of {r[6]}" if r[6] > 1 else f"with {max(r[7], 1)} self-heal(s)"
            evidence.append(f"run {r[13]} ({r[4]}, commit {_short(r[5])}): passed only {how}")
    by_commit: dict[str, Counter[str]] = {}
    for r in rows:
        if r[5]:
            by_commit.setdefault(r[5], Counter())["pass" if r[3] in PASSING else "fail"] += 1
    for commit, counts in by_commit.items():
        if counts["pass"] and counts["fail"]:
            flakes += counts["fail"]
            failed = next(r for r in rows if r[5] == commit and r[3] not in PASSING)
            where = f" at step {failed[9] + 1} ({failed[10]})" if failed[9] is not None else ""
            evidence.append(
                f"commit {_short(commit)}: passed {counts['pass']}, failed {counts['fail']}; last failure{where}: "
                f"{failed[11] or failed[3]}"
            )
    steps = Counter(f"step {r[9] + 1}: {r[10]}" for r in rows if r[3] not in PASSING and r[9] is not None)
    step, count = steps.most_common(1)[0] if steps else (None, 0)
    durations = sorted(float(r[8]) for r in rows)
    failure = next((r for r in rows if r[3] not in PASSING), None)
    return Summary(
        trail=trail, device=device, path=latest[2], latest=latest[3], latest_at=latest[4], latest_commit=latest[5],
        quarantined=bool(latest[12]), runs=len(rows), pass_rate=len(passing) / len(rows),
        flake_rate=flakes / len(rows), flaky=evidence, failing_step=step, failing_step_count=count,
        p50_ms=_percentile(durations, 0.5), p95_ms=_percentile(durations, 0.95),
        last_failure=None if failure is None else Failure(
            run_id=failure[13], at=failure[4], commit=failure[5],
            step=f"step {failure[9] + 1}" if failure[9] is not None else None, reason=failure[11],
        ),
    )  # fmt: skip


def _percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of sorted `values`."""
    if not values:
        return 0.0
    return values[min(len(values) - 1, max(0, int(round(q * len(values) + 0.5)) - 1))]


def _short(commit: str | None) -> str:
    return commit[:10] if commit else "unknown"
