"""The PostgreSQL backend, for a store shared by CI jobs and machines (`trailblaze[postgres]`, psycopg 3).

psycopg is imported here only, when a `postgresql://` store is opened. The URL's password is
registered as a secret the moment the URL is seen, so no message, log or report can carry it.
"""

from __future__ import annotations

from typing import Any

from trailblaze.errors import UsageError

__all__ = ["CONNECT_TIMEOUT_S", "PostgresBackend"]

CONNECT_TIMEOUT_S = 10
_MIGRATION_LOCK = 0x7472_6169_6C73  # pg_advisory_xact_lock key: one migrating process per database


class PostgresBackend:
    name = "postgresql"

    def __init__(self, url: str) -> None:
        from urllib.parse import urlsplit

        from trailblaze.common.redact import MIN_SECRET_LENGTH, register_secrets
        from trailblaze.results.location import display_url

        self.url = url
        self.where = display_url(url)
        password = urlsplit(url).password
        if password and len(password) >= MIN_SECRET_LENGTH:  # a shorter one is in no message: `***` there
            register_secrets({"results_password": password}, "--results")

    def connect(self) -> Any:
        try:
            import psycopg
        except ImportError:
            raise UsageError(
                f"--results {self.where}: a PostgreSQL store needs psycopg; pip install 'trailblaze[postgres]'"
            ) from None
        return psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S)

    def begin_exclusive(self, cursor: Any) -> None:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))

    def sql(self, statement: str) -> str:
        return statement.replace("%", "%%").replace("?", "%s")  # a LIKE pattern's % is literal

    def errors(self) -> tuple[type[BaseException], ...]:
        import psycopg

        return (psycopg.Error, OSError)
