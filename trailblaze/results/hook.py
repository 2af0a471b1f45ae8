"""Adding a finished run to the results store, as `replay`, `record` and the pytest plugin do.

Storing is a side effect of a run, never its outcome: any failure (a locked file, an unreachable
server, a full disk, a store from a newer trailblaze) becomes one warning line and the run's exit
code stays what its trails made it.
"""

from __future__ import annotations

import os

__all__ = ["store_run"]


def store_run(run_dir: str | os.PathLike[str], location: str | None, source: str) -> str | None:
    """Adds the run in `run_dir` to the store at `location` (None: storing is off).

    Returns:
        None when it was stored (or is off); else the warning to print, one line, redacted.
    """
    if location is None:
        return None
    try:
        from trailblaze.results.ingest import run_rows
        from trailblaze.results.store import open_store

        rows = run_rows(run_dir, source)
        with open_store(location) as store:
            store.add([rows])
    except Exception as exc:  # whatever went wrong, the run's own result stands
        from trailblaze.common.redact import scrub
        from trailblaze.results.location import display_url

        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        first = (str(message).strip().splitlines() or [""])[0]
        return scrub(f"warning: results not stored in {display_url(location)}: {first}")
    return None
