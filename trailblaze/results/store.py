"""Opening the results store: where it is (`--results`, ini `trailblaze_results`, `TRAILBLAZE_RESULTS`,
else `.trailblaze/results.db`), its schema brought up to date, and the two statements everything else
uses — add rows, read rows.

SQLite (`sqlite.py`) and PostgreSQL (`postgres.py`) speak the same SQL here; each backend only opens
the connection, holds the migration lock, and spells its parameters (`?` is written, `%s` sent to
psycopg).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from trailblaze.errors import InfrastructureError, UsageError
from trailblaze.results.location import ENV_VAR, display_url
from trailblaze.results.schema import MIGRATIONS, SCHEMA_VERSION

__all__ = ["Rows", "Store", "StoreError", "open_store"]


class StoreError(InfrastructureError):
    """The store could not be opened, read or written (exit 3): the message names it, never its password."""


class Connection(Protocol):
    def cursor(self) -> Any: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...
    def close(self) -> None: ...


class Backend(Protocol):
    """What differs between SQLite and PostgreSQL."""

    name: str
    where: str
    """The store for messages: a path, or the URL with its password replaced by `***`."""

    def connect(self) -> Connection: ...
    def begin_exclusive(self, cursor: Any) -> None:
        """Starts the transaction that migrates: one process at a time."""

    def sql(self, statement: str) -> str:
        """`statement` with `?` parameters in this driver's spelling."""

    def errors(self) -> tuple[type[BaseException], ...]:
        """The driver's exceptions that mean the store failed."""


@dataclass
class Rows:
    """One run's rows, ready to add (`trailblaze.results.ingest`)."""

    run: tuple[Any, ...]
    trails: list[tuple[Any, ...]] = field(default_factory=list)
    steps: list[tuple[Any, ...]] = field(default_factory=list)


_ADD_RUN = (
    "INSERT INTO runs (run_key, run_id, started_at, source, commit_sha, branch, shard) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)
_ADD_TRAIL = (
    "INSERT INTO trail_results (run_key, trail, device, attempt, final, attempts, path, device_spec, platform, "
    "form_factor, status, started_at, commit_sha, branch, duration_ms, failed_step, failed_step_text, reason, "
    "heals, hiccups, quarantine) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING"
)
_ADD_STEP = (
    "INSERT INTO step_results (run_key, trail, device, attempt, step, text, status, mode, duration_ms) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)


class Store:
    """An open results store; `close()` (or `with`) lets it go."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.where = backend.where
        with self._failures("open"):
            self._conn = backend.connect()
        try:
            self._migrate()
        except BaseException:
            self._conn.close()
            raise

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._conn.close()
        except self.backend.errors():
            pass

    @property
    def version(self) -> int:
        return int(self.rows("SELECT MAX(version) FROM schema_version")[0][0] or 0)

    def add(self, batches: Sequence[Rows]) -> int:
        """Adds runs in one transaction; a run (or trail result) already there is left as it is.

        Returns:
            How many trail results were new.
        """
        with self._failures("write to"), self._transaction() as cur:
            cur.execute(self.backend.sql("SELECT COUNT(*) FROM trail_results"))
            before = int(cur.fetchone()[0])
            for batch in batches:
                cur.execute(self.backend.sql(_ADD_RUN), batch.run)
                if batch.trails:
                    cur.executemany(self.backend.sql(_ADD_TRAIL), batch.trails)
                if batch.steps:
                    cur.executemany(self.backend.sql(_ADD_STEP), batch.steps)
            cur.execute(self.backend.sql("SELECT COUNT(*) FROM trail_results"))
            return int(cur.fetchone()[0]) - before

    def rows(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._failures("read"), self._transaction() as cur:
            cur.execute(self.backend.sql(statement), tuple(params))
            return [tuple(row) for row in cur.fetchall()]

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        cur = self._conn.cursor()
        try:
            yield cur
            self._conn.commit()
        except BaseException:
            self._conn.rollback()
            raise
        finally:
            cur.close()

    @contextmanager
    def _failures(self, doing: str) -> Iterator[None]:
        try:
            yield
        except self.backend.errors() as exc:
            from trailblaze.common.redact import scrub

            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise StoreError(f"cannot {doing} the results store {self.where}: {scrub(first)}") from None

    def _migrate(self) -> None:
        with self._failures("migrate"), self._transaction() as cur:
            self.backend.begin_exclusive(cur)
            cur.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            cur.execute("SELECT MAX(version) FROM schema_version")
            have = int(cur.fetchone()[0] or 0)
            if have > SCHEMA_VERSION:
                raise UsageError(
                    f"the results store {self.where} has schema version {have}, newer than this trailblaze's "
                    f"{SCHEMA_VERSION}; upgrade trailblaze (pip install -U trailblaze) to use it"
                )
            for version in range(have + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[version - 1]:
                    cur.execute(statement)
                cur.execute(self.backend.sql("INSERT INTO schema_version (version) VALUES (?)"), (version,))


def open_store(location: str, *, create: bool = True) -> Store:
    """The store at `location`: a `postgresql://` URL or a SQLite file path (`sqlite:///PATH` too).

    Raises:
        UsageError: a URL of another kind, or no store there when `create` is False.
        StoreError: the store cannot be reached or read.
    """
    if location.startswith(("postgresql://", "postgres://")):
        from trailblaze.results.postgres import PostgresBackend

        return Store(PostgresBackend(location))
    if "://" in location and not location.startswith("sqlite:///"):
        scheme = location.split("://", 1)[0]
        raise UsageError(
            f"--results {display_url(location)}: unknown store kind {scheme!r}; give a SQLite file path "
            "(.trailblaze/results.db) or a postgresql://USER:PASSWORD@HOST/DB URL"
        )
    from trailblaze.results.sqlite import SqliteBackend

    path = Path(location.removeprefix("sqlite:///")) if location.startswith("sqlite:///") else Path(location)
    if not create and not path.is_file():
        raise UsageError(
            f"no results store at {path}: replay or pytest writes one there when a run ends "
            f"(or pass --results / {ENV_VAR} to read another)"
        )
    return Store(SqliteBackend(path))
