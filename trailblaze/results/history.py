"""The report's history (`trailblaze.output.report.TrailHistory`) from the results store: each trail's
last 20 outcomes on its device, and for a failing step how often it failed and since which commit.

Asked one trail at a time as the page is written, so a report of any size holds one trail's history.
A store that is missing or fails gives no history, never a failed report.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from trailblaze.output.report import HistoryLookup, TrailHistory
from trailblaze.output.runlog import TrailRecord
from trailblaze.results.ingest import device_key, trail_key
from trailblaze.results.query import history
from trailblaze.results.store import Store, StoreError

__all__ = ["HISTORY_RUNS", "history_lookup", "report_history"]

HISTORY_RUNS = 20


def history_lookup(location: str | None) -> tuple[HistoryLookup | None, Store | None]:
    """A lookup over the store at `location` and the open store to close afterwards; (None, None)
    when there is no store there (or it cannot be opened)."""
    from pathlib import Path

    from trailblaze.errors import UsageError
    from trailblaze.results.store import open_store

    if location is None or ("://" not in location and not Path(location).is_file()):
        return None, None
    try:
        store = open_store(location, create=False)
    except (StoreError, UsageError):
        return None, None

    def lookup(trail: TrailRecord) -> TrailHistory | None:
        try:
            rows = history(store, trail_key(trail), device_key(trail.device), HISTORY_RUNS)
        except StoreError:
            return None
        # the cell's colour is the status; its tooltip the run and commit, short: 20 cells stay under 2 KB
        outcomes = [(status, f"{run} {(commit or '?')[:7]}") for status, run, commit, _ in rows]
        steps: dict[int, str] = {}
        for index in {int(step) for *_, step in rows if step is not None}:
            failed = [commit for status, _, commit, step in rows if step is not None and int(step) == index]
            first = (failed[0] or "an unknown commit")[:10]
            steps[index] = f"failed in {len(failed)} of the last {len(rows)} runs, first at {first}"
        return TrailHistory(outcomes, steps)

    return lookup, store


@contextmanager
def report_history(location: str | None) -> Iterator[HistoryLookup | None]:
    """`history_lookup` for the time a report is written; the store is closed afterwards."""
    lookup, store = history_lookup(location)
    try:
        yield lookup
    finally:
        if store is not None:
            store.close()
