"""`trailblaze results`: the store's table as text, Markdown or JSON, `--flaky` with its evidence,
`--suggest-quarantine`, `--gate`; and `trailblaze results import`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from trailblaze.results.query import Summary

__all__ = ["import_runs", "json_text", "markdown", "quarantine_lines", "table", "flaky_text"]


def _pct(x: float) -> str:
    return f"{x:.0%}"


def _secs(ms: float) -> str:
    return f"{ms / 1000:.1f}s"


def _cells(s: Summary) -> list[str]:
    failure = s.last_failure
    last = (
        "-"
        if failure is None
        else f"{(failure.commit or 'unknown')[:10]} {failure.step or ''} {failure.reason or ''}".strip()
    )
    return [
        s.trail, s.device, s.latest + (" (quarantined)" if s.quarantined else ""), f"{_pct(s.pass_rate)} of {s.runs}",
        _pct(s.flake_rate), f"{s.failing_step} ({s.failing_step_count}x)" if s.failing_step else "-",
        f"{_secs(s.p50_ms)}/{_secs(s.p95_ms)}", last[:80],
    ]  # fmt: skip


_HEAD = ["trail", "device", "latest", "pass rate", "flake rate", "fails most at", "p50/p95", "last failure"]


def table(found: Sequence[Summary]) -> str:
    rows = [_HEAD, *(_cells(s) for s in found)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEAD))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def markdown(found: Sequence[Summary]) -> str:
    """The table for a pull-request comment (`|` in a cell escaped)."""
    lines = ["| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in _cells(s)) + " |" for s in found]
    flaky = [s for s in found if s.flaky]
    if flaky:
        lines += ["", f"**Flaky:** {', '.join(f'`{s.trail}` on `{s.device}`' for s in flaky)}"]
    return "\n".join(lines)


def json_text(found: Sequence[Summary]) -> str:
    return json.dumps([s.model_dump() for s in found], indent=2)


def flaky_text(found: Sequence[Summary]) -> str:
    flaky = [s for s in found if s.flaky]
    if not flaky:
        return f"no flaky trail in {len(found)} trail × device pair{'s' * (len(found) != 1)}"
    out = []
    for s in flaky:
        out.append(f"{s.trail} on {s.device}: flake rate {_pct(s.flake_rate)} over {s.runs} runs")
        out += [f"  {line}" for line in s.flaky]
    return "\n".join(out)


def quarantine_lines(found: Sequence[Summary]) -> str:
    """What to add to each flaky trail's `config:` so its failures stop failing the build (ADR 0044)."""
    out = []
    for s in found:
        if s.flaky and not s.quarantined:
            reason = f"flaky on {s.device}: flake rate {_pct(s.flake_rate)} over {s.runs} runs (trailblaze results --flaky)"
            out.append(f"# {s.path}: add under config:\n  quarantine: {json.dumps(reason)}")
    return "\n".join(out) or "nothing to quarantine: no flaky trail that is not quarantined already"


def import_runs(paths: Sequence[str], location: str) -> tuple[int, int]:
    """Adds every run directory under `paths` (a run directory, or a folder of them); (runs, new results).

    Raises:
        UsageError: a path with no run directory.
    """
    from trailblaze.errors import UsageError
    from trailblaze.output.runlog import RUN_FILE
    from trailblaze.results.ingest import run_rows
    from trailblaze.results.store import open_store

    dirs: list[Path] = []
    for given in paths:
        path = Path(given)
        path = path.parent if path.name == RUN_FILE else path
        found = [path] if (path / RUN_FILE).is_file() else sorted(p.parent for p in path.rglob(RUN_FILE))
        if not found:
            raise UsageError(
                f"{given}: no run.json here or below; pass run directories written by replay or record"
            )
        dirs += found
    batches = [run_rows(d, "import") for d in dirs]
    with open_store(location) as store:
        return len(batches), store.add(batches)
