"""The probe query guard decides by an allow-list on SQLite's own tokens (issue 31, item 1): a
function name quoted any way SQLite accepts is still a function call, `validate` applies the check,
and the device runs sqlite3 with `-safe`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.device import Rig, rig
from trailblaze.cli.main import main
from trailblaze.device.session import DeviceSession
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.tools.probes.sql import SqlRefused, read_only_sql
from trailblaze.trail.model import ToolCall

PKG = "dev.trailblaze.demo"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT `edit`('x','touch /tmp/PWN; true')",
        "SELECT \"edit\"('x', 'id')",
        "SELECT [edit]('x', 'id')",
        "SELECT edit /* comment */ ('x', 'id')",
        "SELECT EDIT\n('x', 'id')",
        'SELECT "ed""it"(1)',
        "SELECT readfile('/data/data/other.app/databases/x.db')",
        "SELECT * FROM fsdir('/data')",
        "SELECT `load_extension`('/sdcard/evil.so')",
        "SELECT name FROM t WHERE x IN (SELECT [writefile]('/sdcard/x', 'y'))",
        "SELECT sha3_query('SELECT 1')",
        "SELECT LI\u212aE('a', 'b')",  # Kelvin sign: SQLite folds only A-Z, so this is no `like`
    ],
)
def test_a_function_off_the_allow_list_is_refused_however_it_is_quoted(sql: str) -> None:
    with pytest.raises(
        SqlRefused, match=r"\(\) is not allowed: a query may only call functions that compute"
    ):
        read_only_sql(sql)


@pytest.mark.parametrize(
    ("sql", "name"),
    [
        ("SELECT name, data FROM fsdir WHERE path='/etc/hostname'", "fsdir"),
        ('SELECT * FROM main."zipfile" WHERE name = 1', "zipfile"),
        ("SELECT x FROM t, [generate_series]", "generate_series"),
        ("SELECT x FROM t LEFT JOIN dbstat ON 1", "dbstat"),
        ("SELECT x FROM t WHERE x IN (SELECT data FROM sqlite_dbpage)", "sqlite_dbpage"),
        ("SELECT * FROM (t JOIN fsdir)", "fsdir"),
        ("SELECT * FROM pragma_module_list", "pragma_module_list"),
        ("SELECT sql FROM sqlite_stmt", "sqlite_stmt"),
    ],
)
def test_a_table_valued_function_without_parentheses_is_refused(sql: str, name: str) -> None:
    with pytest.raises(SqlRefused, match=rf"^{name} is not allowed: it is a table-valued function"):
        read_only_sql(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT edit, data FROM notes AS fsdir, t dbstat",  # columns and aliases are no sources
        "SELECT name FROM sqlite_master WHERE type = 'table'",
        "SELECT * FROM t, json_each(t.tags) JOIN pragma_table_list",
        "SELECT count(*), upper(title), substr(body, 1, 4) FROM messages WHERE archived IN (0, 1)",
        "SELECT x FROM t WHERE EXISTS (SELECT 1) AND NOT (a = 1) OR b BETWEEN (1) AND (2)",
        "SELECT CAST(n AS TEXT), json_extract(j, '$.a') FROM t JOIN (SELECT 1 AS id) USING (id)",
        "SELECT * FROM pragma_table_info('messages')",
        "SELECT 'edit(''x'')', \"edit\" FROM t",  # a string and a column named edit are no calls
        "SELECT row_number() OVER (PARTITION BY a ORDER BY b) FROM t",
    ],
)
def test_reading_queries_with_safe_functions_pass(sql: str) -> None:
    assert read_only_sql(sql) == sql


def test_validate_refuses_a_quoted_shell_function(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trail = tmp_path / "pwn.trail.yaml"
    trail.write_text(
        "trail:\n  - step: Check the database\n    recording:\n      android:\n"
        "        - assertQuery: {db: app.db, sql: \"SELECT `edit`('x','touch /tmp/PWN; true')\", expected: 1}\n"
    )
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(trail)])
    out, err = capsys.readouterr()
    assert exc.value.code == 2
    assert "the query is refused: edit() is not allowed" in out + err


def test_validate_refuses_a_table_valued_function_at_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trail = tmp_path / "read.trail.yaml"
    trail.write_text(
        "trail:\n  - step: Check the database\n    recording:\n      android:\n"
        "        - queryDatabase: {db: app.db, sql: \"SELECT name, data FROM fsdir WHERE path='/etc/hostname'\"}\n"
    )
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(trail)])
    out, err = capsys.readouterr()
    assert exc.value.code == 2
    assert f"{trail}:5:" in out + err and "the query is refused: fsdir is not allowed" in out + err


def test_validate_reads_templates_in_a_query_as_values(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trail = tmp_path / "ok.trail.yaml"
    trail.write_text(
        "trail:\n  - step: Check the database\n    recording:\n      android:\n"
        "        - assertQuery: {db: app.db, sql: \"SELECT count(*) FROM t WHERE id = {{id}} AND n = '{{name}}'\","
        " expected: 1}\n"
    )
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(trail)])
    out, err = capsys.readouterr()
    assert exc.value.code == 0, out + err


@pytest.fixture(scope="module")
def android() -> Iterator[Rig]:
    with rig("android") as r:
        yield r


def _watched(android: Rig, sent: list[str]) -> DeviceSession:
    """A session on the rig's driver that records every shell command it sends (not closed: the
    rig owns the driver)."""
    driver = android.driver
    real = driver.shell_status

    class _Watching:
        def __getattr__(self, name: str) -> object:
            return getattr(driver, name)

        def shell_status(self, command: str) -> object:
            sent.append(command)
            return real(command)

    return DeviceSession(_Watching())  # type: ignore[arg-type]


def test_the_device_never_sees_a_quoted_edit_and_runs_sqlite3_safe(android: Rig) -> None:
    sent: list[str] = []
    session = _watched(android, sent)
    call = ToolCall(
        name="queryDatabase", params={"db": "app.db", "sql": "SELECT `edit`('x', 'touch /tmp/PWN')"}
    )
    refused = run_recorded_tool(session, call, Memory())
    assert refused.status == "ERROR" and "edit() is not allowed" in refused.message
    assert sent == []
    counted = run_recorded_tool(
        session,
        ToolCall(name="queryDatabase", params={"db": "app.db", "sql": "SELECT count(*) FROM messages"}),
        Memory(),
    )
    assert counted.ok, counted.message
    assert " sqlite3 -readonly -safe " in sent[-1]


def test_a_query_result_that_depends_on_a_secret_is_never_shown(android: Rig) -> None:
    memory = Memory(secrets={"password": "hunter2"})
    session = DeviceSession(android.driver)  # not closed: the rig owns the driver
    derived = "68756E74657232"  # hex('hunter2')
    for sql in (
        "SELECT hex('{{password}}')",
        "SELECT upper('{{password}}')",
        "SELECT substr('{{password}}', 2)",
    ):
        read = run_recorded_tool(
            session, ToolCall(name="queryDatabase", params={"db": "app.db", "sql": sql}), memory
        )
        assert read.ok and "1 row from app.db (values hidden: the query uses a secret" in read.message, (
            read.message
        )
        assert derived not in read.message and "HUNTER2" not in read.message and "unter2" not in read.message
    passes = run_recorded_tool(
        session,
        ToolCall(
            name="assertQuery",
            params={"db": "app.db", "sql": "SELECT hex('{{password}}')", "expected": derived},
        ),
        memory,
    )
    assert passes.ok, passes.message
    fails = run_recorded_tool(
        session,
        ToolCall(
            name="assertQuery",
            params={"db": "app.db", "sql": "SELECT upper('{{password}}')", "expected": "x"},
        ),
        memory,
    )
    assert fails.status == "NOT_VISIBLE" and "did not match the expected value" in fails.message
    for message in (passes.message, fails.message):
        assert derived not in message and "HUNTER2" not in message and "hunter2" not in message
        assert "{{password}}" in message  # the query itself is shown with its template
    plain = run_recorded_tool(
        session, ToolCall(name="queryDatabase", params={"db": "app.db", "sql": "SELECT hex('abc')"}), memory
    )
    assert plain.message.endswith('{"columns": ["hex(\'abc\')"], "rows": [["616263"]]}')


def test_an_sqlite3_before_3_37_is_asked_its_version_once_and_gets_no_safe() -> None:
    from types import SimpleNamespace

    from trailblaze.device.driver import ShellOutput
    from trailblaze.tools.probes import handlers as pp
    from trailblaze.tools.probes.sql import ROW_SEP
    from trailblaze.tools.toolset import get_tool

    sent: list[str] = []

    class _OldSqlite:  # an sqlite3 before 3.37, as on older emulator images
        def shell_status(self, command: str) -> ShellOutput:
            sent.append(command)
            if command == "sqlite3 -version":
                return ShellOutput(0, "3.32.2 2021-07-12 15:00:17 bcd014c473794b09f61fbc0f4d5fc2bf8d1cc5f4\n")
            if " -safe " in command:
                return ShellOutput(
                    1, "sqlite3: Error: unknown option: -safe\nUse -help for a list of options.\n"
                )
            return ShellOutput(0, f"n{ROW_SEP}3{ROW_SEP}")

    ctx = SimpleNamespace(
        session=SimpleNamespace(driver=_OldSqlite()), platform="android", secret_inputs=False
    )
    params = pp.QueryDatabase(appId=PKG, db="app.db", sql="SELECT count(*) AS n FROM messages")
    query = get_tool("queryDatabase")
    assert query is not None
    result = query(ctx, params)
    assert (result.status, result.message) == ("OK", '1 row from app.db: {"columns": ["n"], "rows": [["3"]]}')
    assert sent[0] == "sqlite3 -version" and [" -safe " in c for c in sent[1:]] == [False]
    result = query(ctx, params)  # the version is asked once per device
    assert result.status == "OK" and len(sent) == 3 and sent[2] == sent[1]


def test_a_row_that_says_unknown_option_safe_is_no_reason_to_drop_it(android: Rig) -> None:
    sent: list[str] = []
    session = _watched(android, sent)
    sql = "SELECT 'sqlite3: Error: unknown option: -safe' AS said"
    said = run_recorded_tool(session, ToolCall(name="queryDatabase", params={"db": "app.db", "sql": sql}), Memory())
    assert said.ok and "unknown option: -safe" in said.message, said.message
    queries = [c for c in sent if c.startswith("run-as ")]
    assert len(queries) == 1 and " -safe " in queries[0]
