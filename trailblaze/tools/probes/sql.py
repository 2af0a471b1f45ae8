"""Keeping probe queries read-only, building the device command, and reading sqlite3's answer.

A query is decided by an allow-list, on tokens read with SQLite's own rules (`tokenize.c`): `'…'`
strings, `"…"` / `` `…` `` / `[…]` quoted names, `--` and `/* */` comments. It must be one `SELECT`
(a `WITH … SELECT` is refused: `WITH` also starts writes) or one `PRAGMA` from a read-only list,
with no `name = value`, and every function it calls — quoted or not, with comments before the `(`
or not — must be on `SAFE_FUNCTIONS` (the sqlite3 shell adds `edit()`, which runs a command,
`writefile()`, `readfile()`, `fsdir()`, `load_extension()`; none of them is on it). A table-valued
function needs no `(`: `FROM fsdir WHERE path = '/etc/hostname'` reads a file, so every table a
`FROM` / `JOIN` names is checked too — the known table-valued functions and virtual tables of SQLite
and its shell, and any `pragma_*` or `sqlite_*` name, are refused unless the allow-list names them
(`json_each`, the read-only pragmas, the schema tables). The check runs
when a trail is validated and again, on the interpolated query, before anything reaches the
device; the device opens the database `-readonly`, and with `-safe` where its sqlite3 has it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

__all__ = [
    "COLUMN_SEP",
    "ROW_SEP",
    "SAFE_FUNCTIONS",
    "QueryRows",
    "VERSION_COMMAND",
    "SqlRefused",
    "has_safe_mode",
    "parse_rows",
    "read_only_sql",
    "sqlite_command",
]

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

SAFE_FUNCTIONS = frozenset(
    {
        # core scalar functions (sqlite.org/lang_corefunc.html) that only compute
        "abs", "char", "coalesce", "concat", "concat_ws", "format", "glob", "hex", "if", "ifnull", "iif",
        "instr", "length", "like", "likelihood", "likely", "lower", "ltrim", "max", "min", "nullif",
        "octet_length", "printf", "quote", "random", "replace", "round", "rtrim", "sign", "soundex",
        "sqlite_version", "substr", "substring", "trim", "typeof", "unhex", "unicode", "unlikely", "upper",
        "changes", "total_changes", "last_insert_rowid", "regexp",
        # aggregates and window functions
        "avg", "count", "group_concat", "string_agg", "sum", "total", "median", "row_number", "rank",
        "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value", "last_value",
        "nth_value",
        # dates and maths
        "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff",
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh",
        "degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power", "radians",
        "sin", "sinh", "sqrt", "tan", "tanh", "trunc",
        # JSON, including the table-valued json_each / json_tree
        "json", "jsonb", "json_array", "json_array_length", "json_error_position", "json_extract",
        "json_insert", "json_object", "json_patch", "json_pretty", "json_quote", "json_remove",
        "json_replace", "json_set", "json_type", "json_valid", "json_group_array", "json_group_object",
        "json_each", "json_tree",
    }
)  # fmt: skip
"""Functions a probe query may call: they compute from their arguments and touch nothing else."""
_SAFE_TABLE_FUNCTIONS = frozenset(f"pragma_{name}" for name in _READ_PRAGMAS)
_VIRTUAL_TABLES = frozenset(
    {
        "fsdir", "zipfile", "sqlar", "generate_series", "dbstat", "sqlite_dbpage", "sqlite_stmt",
        "sqlite_dbdata", "sqlite_dbptr", "sqlite_memstat", "sqlite_btreeinfo", "completion", "carray",
        "readfile", "writefile", "edit", "load_extension", "sha3_query", "fts3tokenize", "fts5vocab",
        "csv", "unionvtab", "swarmvtab", "zorder", "vfsstat", "explain", "bytecode", "tables_used",
    }
)  # fmt: skip
"""Table-valued functions and eponymous virtual tables of SQLite, its shell and its extensions: as a
table they read files (`fsdir`, `zipfile`), memory or raw pages, or other statements."""
_SCHEMA_TABLES = frozenset(
    {
        "sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema", "sqlite_sequence",
        "sqlite_stat1", "sqlite_stat4",
    }
)  # fmt: skip
"""The `sqlite_*` tables that are plain tables of the database file (its schema and statistics)."""
_FROM_ENDS = frozenset(
    {
        "where", "group", "having", "order", "limit", "window", "union", "intersect", "except",
        "select", "values", "returning",
    }
)  # fmt: skip
"""Keywords that end a FROM clause at its own bracket depth."""
_PAREN_KEYWORDS = frozenset(
    {
        "all", "and", "as", "between", "by", "case", "cast", "distinct", "else", "escape", "except",
        "exists", "filter", "from", "groups", "having", "in", "intersect", "is", "join", "limit", "not",
        "offset", "on", "or", "over", "partition", "range", "rows", "select", "then", "union", "using",
        "values", "when", "where", "window",
    }
)  # fmt: skip
"""Keywords that SQLite reads as syntax, not as a function call, when a `(` follows them."""

# SQLite's tokenizer: identifiers may hold `$` and any non-ASCII character; quoted names double
# their closing quote to escape it, except `[…]`, which ends at the first `]`.
_TOKEN = re.compile(
    r"""(?P<space>[ \t\n\f\r]+)
      |(?P<comment>--[^\n]*|/\*(?:.*?\*/|.*\Z))
      |(?P<string>'(?:[^']|'')*(?:'|\Z))
      |(?P<quoted>"(?:[^"]|"")*(?:"|\Z)|`(?:[^`]|``)*(?:`|\Z)|\[[^\]]*(?:\]|\Z))
      |(?P<semi>;)
      |(?P<open>\()
      |(?P<variable>[?][0-9]*|[:@#$][A-Za-z0-9_$\x80-\U0010ffff]+)
      |(?P<word>[A-Za-z0-9_\x80-\U0010ffff][A-Za-z0-9_$\x80-\U0010ffff]*)
      |(?P<other>.)""",
    re.DOTALL | re.VERBOSE,
)


class SqlRefused(ValueError):
    """The query is not one read-only statement."""


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str

    @property
    def name(self) -> str:
        """The name a word or quoted name stands for, lower-cased (SQLite names ignore ASCII case)."""
        if self.kind != "quoted":
            return _ascii_lower(self.text)
        if self.text[0] == "[":
            return _ascii_lower(self.text[1:-1])
        quote = self.text[0]
        return _ascii_lower(self.text[1:-1].replace(quote * 2, quote))


def _ascii_lower(text: str) -> str:
    # as SQLite folds names: only A-Z (Python's lower() would turn the Kelvin sign into `k`)
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _tokens(sql: str) -> list[_Token]:
    out: list[_Token] = []
    for match in _TOKEN.finditer(sql):
        kind, text = match.lastgroup or "other", match.group()
        if kind in ("string", "quoted") and not _closed(text):
            raise SqlRefused("the query has an unterminated quote")
        out.append(_Token(kind, text))
    return out


_CLOSED = {
    "'": re.compile(r"'(?:[^']|'')*'", re.DOTALL),
    '"': re.compile(r'"(?:[^"]|"")*"', re.DOTALL),
    "`": re.compile(r"`(?:[^`]|``)*`", re.DOTALL),
    "[": re.compile(r"\[[^\]]*\]", re.DOTALL),
}


def _closed(text: str) -> bool:
    return _CLOSED[text[0]].fullmatch(text) is not None


def read_only_sql(sql: str) -> str:
    """`sql` without comments and a trailing `;`, checked to be one read-only statement.

    Raises:
        SqlRefused: Anything else, with the reason and what is allowed.
    """
    statements: list[list[_Token]] = [[]]
    for token in _tokens(sql):
        if token.kind == "semi":
            statements.append([])
        elif token.kind in ("space", "comment"):
            if not statements[-1] or statements[-1][-1].kind != "space":
                statements[-1].append(_Token("space", " "))
        else:
            statements[-1].append(token)
    found = [s for s in statements if any(t.kind != "space" for t in s)]
    if len(found) > 1:
        raise SqlRefused("only one statement is allowed; remove everything after the first `;`")
    statement = found[0] if found else []
    code = [t for t in statement if t.kind != "space"]
    first = code[0].name if code and code[0].kind == "word" else ""
    if first not in ("select", "pragma"):
        words = "".join(t.text for t in statement).split()
        shown = f"`{words[0].upper()}`" if words else "an empty query"
        raise SqlRefused(f"{shown} is not allowed: queries are read-only (one SELECT or read-only PRAGMA)")
    if first == "pragma":
        _check_pragma(code)
    else:
        _check_functions(code)
        _check_sources(code)
    return "".join(t.text for t in statement).strip()


def _check_functions(code: list[_Token]) -> None:
    for token, after in zip(code, code[1:], strict=False):
        if after.kind != "open" or token.kind not in ("word", "quoted"):
            continue
        name = token.name
        if token.kind == "word" and name in _PAREN_KEYWORDS:
            continue
        if name in SAFE_FUNCTIONS or name in _SAFE_TABLE_FUNCTIONS:
            continue
        raise SqlRefused(
            f"{name}() is not allowed: a query may only call functions that compute a value "
            "(core, date, math and JSON functions; see SAFE_FUNCTIONS), not the sqlite3 shell's"
        )


def _check_sources(code: list[_Token]) -> None:
    """Refuses a FROM / JOIN source that is a table-valued function or virtual table not allowed."""
    in_from: list[bool] = [False]  # one flag per bracket depth
    expect = False  # the next name is a source (after FROM, JOIN or a `,` in a FROM clause)
    for i, token in enumerate(code):
        if token.kind == "open":
            in_from.append(expect)  # `FROM (a JOIN b)` is a FROM clause too; a subquery's SELECT ends it
            continue
        if token.text == ")":
            if len(in_from) > 1:
                in_from.pop()
            expect = False
            continue
        word = token.name if token.kind == "word" else ""
        if word == "from" or (word == "join" and in_from[-1]):
            in_from[-1], expect = True, True
        elif word in _FROM_ENDS:
            in_from[-1], expect = False, False
        elif token.text == "," and in_from[-1]:
            expect = True
        elif expect and token.kind in ("word", "quoted"):
            dotted = i + 2 < len(code) and code[i + 1].text == "." and code[i + 2].kind in ("word", "quoted")
            name = code[i + 2].name if dotted else token.name  # `main.fsdir` is `fsdir`
            _check_source(name)
            expect = dotted  # after `schema .` the table name itself comes next
        elif token.text != ".":
            expect = False


def _check_source(name: str) -> None:
    if name in SAFE_FUNCTIONS or name in _SAFE_TABLE_FUNCTIONS or name in _SCHEMA_TABLES:
        return
    if name in _VIRTUAL_TABLES or name.startswith(("pragma_", "sqlite_")):
        raise SqlRefused(
            f"{name} is not allowed: it is a table-valued function or virtual table, not a table of "
            "the app's database (json_each, json_tree, the read-only pragma_* tables and the schema "
            "tables are)"
        )


def _check_pragma(code: list[_Token]) -> None:
    text = " ".join(t.text.lower() if t.kind == "word" else t.text for t in code)
    found = re.fullmatch(r"pragma\s+(?:\w+\s*\.\s*)?(\w+)\s*(\(.*\))?", text, re.DOTALL)
    if any(t.text == "=" for t in code) or found is None:
        raise SqlRefused("a PRAGMA that sets a value is not allowed: queries are read-only")
    name = found.group(1)
    if found.group(2) and name not in _ARGUMENT_PRAGMAS:
        raise SqlRefused(f"PRAGMA {name}(…) sets a value; read it with `PRAGMA {name}`")
    if name not in _READ_PRAGMAS:
        raise SqlRefused(f"PRAGMA {name} is not on the read-only list ({', '.join(sorted(_READ_PRAGMAS))})")


VERSION_COMMAND = "sqlite3 -version"
"""Asked once per device: `-safe` is passed only to a sqlite3 that has it (3.37.0 and later)."""
_SAFE_SINCE = (3, 37, 0)


def has_safe_mode(version_output: str) -> bool:
    """Whether `sqlite3 -version`'s answer is 3.37.0 or later; an answer that is no version keeps
    `-safe` (an sqlite3 without it then refuses the query rather than running it unguarded)."""
    found = re.match(r"\s*(\d+)\.(\d+)\.(\d+)", version_output)
    return found is None or tuple(int(n) for n in found.groups()) >= _SAFE_SINCE


def sqlite_command(app_id: str, db: str, sql: str, *, safe: bool = True) -> str:
    """The shell line that runs a checked query as the app, read-only, in a parseable form.

    `-safe` makes the shell itself refuse `edit()`, `writefile()`, `ATTACH` and dot-commands that
    reach the file system: a second wall behind `read_only_sql`, where the device's sqlite3 has it.
    """
    words = [
        "run-as", app_id, "sqlite3", "-readonly", *(["-safe"] if safe else []), "-header",
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
