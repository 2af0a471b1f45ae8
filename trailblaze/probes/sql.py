"""Keeping probe queries read-only, building the device command, and reading sqlite3's answer.

A query must be one `SELECT` (a `WITH … SELECT` is refused: `WITH` also starts writes) or one
`PRAGMA` from a read-only list, with no `name = value`. The sqlite3 shell's own functions that
write files or load code (`writefile`, `edit`, `load_extension`, `fts3_tokenizer`) are refused
anywhere. The check runs before anything reaches the device, and the device still opens the
database `-readonly`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

__all__ = ["COLUMN_SEP", "ROW_SEP", "QueryRows", "parse_rows", "read_only_sql", "sqlite_command"]

COLUMN_SEP = "\x1f"
"""ASCII unit separator: between columns (never in ordinary text, unlike `|`)."""
ROW_SEP = "\x1e"
"""ASCII record separator: after each row (text values may hold newlines)."""

_READ_PRAGMAS = frozenset(
    {
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
        "foreign_key_list", "database_list", "collation_list", "function_list", "pragma_list",
        "user_version", "schema_version", "application_id", "page_count", "page_size", "freelist_count",
        "encoding", "integrity_check", "quick_check", "foreign_key_check", "compile_options",
        "data_version",
    }
)  # fmt: skip
_ARGUMENT_PRAGMAS = frozenset(
    {
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
        "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check",
    }
)  # fmt: skip
"""The pragmas whose `(argument)` names what to read; on the others an argument sets the value."""
_WRITERS = ("writefile", "edit", "load_extension", "fts3_tokenizer")
_TOKEN = re.compile(
    r"""(?P<comment>--[^\n]*|/\*.*?(?:\*/|\Z))|(?P<quoted>'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`[^`]*`?|\[[^\]]*\]?)|(?P<semi>;)|(?P<other>[^'"`\[;/-]+|[/-])""",
    re.DOTALL,
)


class SqlRefused(ValueError):
    """The query is not one read-only statement."""


def read_only_sql(sql: str) -> str:
    """`sql` without comments and a trailing `;`, checked to be one read-only statement.

    Raises:
        SqlRefused: Anything else, with the reason and what is allowed.
    """
    statements: list[list[tuple[str, str]]] = [[]]
    for match in _TOKEN.finditer(sql):
        kind, text = match.lastgroup or "other", match.group()
        if kind == "semi":
            statements.append([])
        elif kind == "comment":
            statements[-1].append(("other", " "))
        elif kind == "quoted" and not _closed(text):
            raise SqlRefused("the query has an unterminated quote")
        else:
            statements[-1].append((kind, text))
    found = [s for s in statements if "".join(t for _, t in s).strip()]
    if len(found) > 1:
        raise SqlRefused("only one statement is allowed; remove everything after the first `;`")
    statement = found[0] if found else []
    outside = " ".join(t for k, t in statement if k == "other").lower()
    words = outside.split()
    first = words[0] if words else ""
    if first not in ("select", "pragma"):
        shown = f"`{first.upper()}`" if first else "an empty query"
        raise SqlRefused(f"{shown} is not allowed: queries are read-only (one SELECT or read-only PRAGMA)")
    for name in _WRITERS:
        if re.search(rf"\b{name}\s*\(", outside):
            raise SqlRefused(f"{name}() is not allowed: it writes files or loads code")
    if first == "pragma":
        _check_pragma(outside)
    return "".join(t if k == "quoted" else re.sub(r"\s+", " ", t) for k, t in statement).strip()


def _closed(text: str) -> bool:
    end = "]" if text[0] == "[" else text[0]
    return len(text) >= 2 and text.endswith(end)


def _check_pragma(outside: str) -> None:
    found = re.fullmatch(r"\s*pragma\s+(?:\w+\s*\.\s*)?(\w+)\s*(\(.*\))?\s*", outside, re.DOTALL)
    if "=" in outside or found is None:
        raise SqlRefused("a PRAGMA that sets a value is not allowed: queries are read-only")
    name = found.group(1)
    if found.group(2) and name not in _ARGUMENT_PRAGMAS:
        raise SqlRefused(f"PRAGMA {name}(…) sets a value; read it with `PRAGMA {name}`")
    if name not in _READ_PRAGMAS:
        raise SqlRefused(f"PRAGMA {name} is not on the read-only list ({', '.join(sorted(_READ_PRAGMAS))})")


def sqlite_command(app_id: str, db: str, sql: str) -> str:
    """The shell line that runs a checked query as the app, read-only, in a parseable form."""
    words = [
        "run-as", app_id, "sqlite3", "-readonly", "-header",
        "-separator", COLUMN_SEP, "-newline", ROW_SEP, f"databases/{db}", sql,
    ]  # fmt: skip
    return " ".join(shlex.quote(w) for w in words)


@dataclass(frozen=True)
class QueryRows:
    columns: list[str]
    rows: list[list[str]]


def parse_rows(output: str) -> QueryRows:
    """sqlite3's `-header` list output with our separators; no rows gives no columns either."""
    records = output.split(ROW_SEP)
    if records and not records[-1].strip():
        records.pop()
    if not records:
        return QueryRows([], [])
    head, *body = (r.lstrip("\r\n") if i else r for i, r in enumerate(records))
    return QueryRows(head.split(COLUMN_SEP), [r.split(COLUMN_SEP) for r in body])
