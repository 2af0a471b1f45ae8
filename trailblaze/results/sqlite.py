"""The SQLite backend: one file, in WAL mode so pytest workers and shards on one machine write at once."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

__all__ = ["BUSY_TIMEOUT_S", "SqliteBackend"]

BUSY_TIMEOUT_S = 60.0
"""How long a writer waits for another's transaction: eight writers of a big run each take well under."""


class SqliteBackend:
    name = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)

    def connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: transactions are begun here (BEGIN IMMEDIATE), not by the module
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # WAL keeps every commit; a power cut may lose the last
        return _Autobegin(conn)  # type: ignore[return-value]

    def begin_exclusive(self, cursor: Any) -> None:
        pass  # every transaction of `_Autobegin` is BEGIN IMMEDIATE already

    def sql(self, statement: str) -> str:
        return statement

    def errors(self) -> tuple[type[BaseException], ...]:
        return (sqlite3.Error, OSError)


class _Autobegin:
    """A connection whose transactions take the write lock as they begin: two writers never both read
    and then fight to write (which SQLite answers with `database is locked` at once, not after a wait)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._open = False

    def cursor(self) -> sqlite3.Cursor:
        if not self._open:
            self._conn.execute("BEGIN IMMEDIATE")
            self._open = True
        return self._conn.cursor()

    def commit(self) -> None:
        if self._open:
            self._conn.execute("COMMIT")
            self._open = False

    def rollback(self) -> None:
        if self._open:
            self._conn.execute("ROLLBACK")
            self._open = False

    def close(self) -> None:
        self._conn.close()
