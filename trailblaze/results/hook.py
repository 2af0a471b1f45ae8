"""Adding a finished run to the results store, as `replay`, `record` and the pytest plugin do.

Storing is a side effect of a run, never its outcome: any failure (a locked file, an unreachable
server, a full disk, a store from a newer trailblaze) becomes one warning line and the run's exit
code stays what its trails made it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trailblaze.output.runlog import TrailRecord
    from trailblaze.results.store import Rows

__all__ = ["store_run", "store_trails"]


def store_run(run_dir: str | os.PathLike[str], location: str | None, source: str) -> str | None:
    """Adds the run in `run_dir` to the store at `location` (None: storing is off).

    Returns:
        None when it was stored (or is off); else the warning to print, one line, redacted.
    """

    def rows() -> Rows:
        from trailblaze.results.ingest import run_rows

        return run_rows(run_dir, source)

    return _store(rows, location)


def store_trails(
    trails: Sequence[TrailRecord], location: str | None, source: str, *, command: list[str], device: str
) -> str | None:
    """Adds trails that ran without a run directory (pytest with `--trailblaze-artifacts off`) as one run.

    Returns:
        As `store_run`.
    """

    def rows() -> Rows:
        import uuid

        from trailblaze.common.vcs import process_revision
        from trailblaze.output.rundir import now_iso
        from trailblaze.output.runlog import RunRecord
        from trailblaze.results.ingest import rows_of

        commit, branch = process_revision()
        started = min((t.started_at for t in trails if t.started_at), default=None) or now_iso()
        head = RunRecord(
            run_id="pytest", started_at=started, command=command, device=device,
            uid=uuid.uuid4().hex, commit=commit, branch=branch,
        )  # fmt: skip
        return rows_of(head, trails, source)

    return _store(rows, location) if trails else None


def _store(rows: Callable[[], Rows], location: str | None) -> str | None:
    if location is None:
        return None
    try:
        from trailblaze.results.store import open_store

        taken = rows()
        with open_store(location) as store:
            store.add([taken])
    except Exception as exc:  # whatever went wrong, the run's own result stands
        from trailblaze.common.redact import scrub
        from trailblaze.results.location import display_url

        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        first = (str(message).strip().splitlines() or [""])[0]
        return scrub(f"warning: results not stored in {display_url(location)}: {first}")
    return None
