"""The app-state probes over an app's files and the device's network: each one's params beside its
handler (what the params share is `trailblaze.tools.probes.params`).

Each handler answers a `ToolResult` like every tool's. They need a driver with a shell
that reports exit codes (`SupportsShellStatus`, the Android driver); on iOS they answer
`UNSUPPORTED` with what would be needed, and so does any other driver without one.
"""

from __future__ import annotations

import json
import shlex
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from trailblaze.errors import DeviceError
from trailblaze.tools.memory import TEMPLATE_RE
from trailblaze.tools.params import WRITTEN, RecordedToolParams
from trailblaze.tools.probes.params import FILE_NAME, AppTool, Scalar
from trailblaze.tools.probes.sql import (
    VERSION_COMMAND,
    QueryRows,
    SqlRefused,
    has_safe_mode,
    parse_rows,
    read_only_sql,
    sqlite_command,
)
from trailblaze.tools.tooldef import Kind, Offer, Platform, Status, ToolDef, ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.device.driver import ShellOutput, SupportsShellStatus
    from trailblaze.tools.lookup import ToolContext

__all__: list[str] = []

_SHOWN_ROWS = 50
_ANDROID: frozenset[Platform] = frozenset(("android",))
_VERIFY: frozenset[Offer] = frozenset(("model", "verify"))
_IOS_NEEDS = {
    "storage": (
        "WebDriverAgent has no access to app storage/network settings; reading an iOS app's data "
        "needs its container (`xcrun simctl get_app_container` on a Simulator, or a debug endpoint "
        "built into the app)"
    ),
    "network": (
        "WebDriverAgent has no access to app storage/network settings; switching the network on iOS "
        "needs the host (Network Link Conditioner, or a proxy in front of the app)"
    ),
}


class _Stop(Exception):
    """Ends a probe early with its outcome."""

    def __init__(self, status: Status, message: str) -> None:
        super().__init__(message)
        self.outcome = ToolResult(status, message)


def _probe(
    area: str, run: Callable[[ToolContext, Any, SupportsShellStatus], ToolResult]
) -> Callable[[ToolContext, Any], ToolResult]:
    def handler(ctx: ToolContext, p: RecordedToolParams) -> ToolResult:
        driver = ctx.session.driver
        if ctx.platform == "ios":
            return ToolResult("UNSUPPORTED", f"{p.tool_name}: {_IOS_NEEDS[area]}")
        from trailblaze.device.driver import SupportsShellStatus  # the device layer: when a probe runs

        if not isinstance(driver, SupportsShellStatus):
            return ToolResult("UNSUPPORTED", f"{p.tool_name}: this {ctx.platform} driver has no device shell")
        try:
            return run(ctx, p, driver)
        except _Stop as stop:
            return stop.outcome

    return handler


def _app(ctx: ToolContext, app_id: str | None) -> str:
    if app_id:
        return app_id
    current = ctx.session.current_app()
    if current is None:
        raise _Stop("ERROR", "no app is in the foreground; launch it first or pass appId")
    return current


def _probe_tool(
    params: type[RecordedToolParams],
    kind: Kind,
    area: str,
    run: Callable[[ToolContext, Any, SupportsShellStatus], ToolResult],
) -> ToolDef:
    """A probe's one definition: offered to the agent (and on `verify:` steps unless it changes
    the device) and over MCP as it is, Android only, trailblaze's own."""
    offered: frozenset[Offer] = frozenset(("model",)) if kind == "action" else _VERIFY
    return defines(
        params, kind, source="probe", offered_to=offered, platforms=_ANDROID, block_status="extension"
    )(_probe(area, run))


def _run_as_problem(answer: ShellOutput, app_id: str) -> ToolResult | None:
    """The outcome for a `run-as` that could not run the command at all, else None."""
    text = answer.output.strip()
    if "unknown package" in text:
        return ToolResult("NOT_FOUND", f"{app_id} is not installed on this device")
    if "not debuggable" in text:
        return ToolResult(
            "UNSUPPORTED",
            f"run-as refuses {app_id}: only a debuggable build (android:debuggable=true) lets a test "
            "read its files; install the debug build",
        )
    if "exec failed" in text or "inaccessible or not found" in text:  # only sqlite3 can be missing
        return ToolResult(
            "UNSUPPORTED",
            "this device has no sqlite3 to run as the app (production Android images lack it; "
            "use an emulator or a userdebug build)",
        )
    return None


def _prefs_file(name: str) -> str:
    return name if name.endswith(".xml") else f"{name}.xml"


def _list(shell: SupportsShellStatus, app_id: str, folder: str) -> list[str]:
    answer = shell.shell_status(f"run-as {shlex.quote(app_id)} ls {folder}")
    problem = _run_as_problem(answer, app_id)
    if problem is not None:
        raise _Stop(problem.status, problem.message)
    if answer.exit_code != 0:
        return []
    return sorted(line.strip() for line in answer.output.splitlines() if line.strip())


def _read_prefs_file(shell: SupportsShellStatus, app_id: str, file: str) -> dict[str, Any]:
    from trailblaze.tools.probes.prefs import PrefsError, parse_prefs  # XML: when a probe reads prefs

    answer = shell.shell_status(f"run-as {shlex.quote(app_id)} cat {shlex.quote('shared_prefs/' + file)}")
    problem = _run_as_problem(answer, app_id)
    if problem is not None:
        raise _Stop(problem.status, problem.message)
    if answer.exit_code != 0:
        files = [f for f in _list(shell, app_id, "shared_prefs") if f.endswith(".xml")]
        known = ", ".join(files) if files else "none yet (the app writes them when it first saves a setting)"
        raise _Stop("NOT_FOUND", f"{app_id} has no shared_prefs/{file}; its preference files: {known}")
    try:
        return parse_prefs(answer.output)
    except PrefsError as exc:
        raise _Stop("ERROR", f"shared_prefs/{file} of {app_id} is not a preferences file: {exc}") from None


def _read_prefs(ctx: ToolContext, p: ReadPrefs, shell: SupportsShellStatus) -> ToolResult:
    app_id = _app(ctx, p.appId)
    if p.file is not None:
        files = [_prefs_file(p.file)]
    else:
        files = [f for f in _list(shell, app_id, "shared_prefs") if f.endswith(".xml")]
        if not files:
            return ToolResult("OK", f"{app_id} has no shared preferences yet")
    found = {f.removesuffix(".xml"): _read_prefs_file(shell, app_id, f) for f in files}
    return ToolResult("OK", f"shared preferences of {app_id}: {json.dumps(found, ensure_ascii=False)}")


def _assert_pref(ctx: ToolContext, p: AssertPref, shell: SupportsShellStatus) -> ToolResult:
    from trailblaze.tools.probes.prefs import pref_text

    app_id = _app(ctx, p.appId)
    file = _prefs_file(p.file)
    values = _read_prefs_file(shell, app_id, file)
    where = f"{file.removesuffix('.xml')}:{p.key}"
    if p.key not in values:
        keys = ", ".join(sorted(values)) or "none"
        return ToolResult("NOT_FOUND", f"no preference {where} in {app_id}; its keys: {keys}")
    actual, expected = pref_text(values[p.key]), pref_text(p.value)
    if _same(actual, expected):
        return ToolResult("OK", f"{where} = {actual!r}")
    return ToolResult("NOT_VISIBLE", f"{where} is {actual!r}, expected {expected!r}")


def _same(actual: str, expected: str) -> bool:
    if actual == expected:
        return True
    try:
        return float(actual) == float(expected)
    except ValueError:
        return False


_SAFE_MODE: weakref.WeakKeyDictionary[SupportsShellStatus, bool] = weakref.WeakKeyDictionary()
"""Per device connection: whether its sqlite3 has `-safe` (before 3.37 the allow-list alone guards)."""


def _safe_mode(shell: SupportsShellStatus) -> bool:
    known = _SAFE_MODE.get(shell)
    if known is None:
        known = has_safe_mode(shell.shell_status(VERSION_COMMAND).output)
        _SAFE_MODE[shell] = known
    return known


def _query(ctx: ToolContext, p: QueryDatabase, shell: SupportsShellStatus) -> tuple[str, QueryRows]:
    try:
        sql = read_only_sql(p.sql)
    except SqlRefused as exc:
        raise _Stop("ERROR", f"{p.tool_name} refused the query: {exc}") from None
    app_id = _app(ctx, p.appId)
    # Asked of the device, never read off a query's answer: a row may say "unknown option: -safe".
    answer = shell.shell_status(sqlite_command(app_id, p.db, sql, safe=_safe_mode(shell)))
    problem = _run_as_problem(answer, app_id)
    if problem is not None:
        raise _Stop(problem.status, problem.message)
    if "unable to open database" in answer.output:
        files = [f for f in _list(shell, app_id, "databases") if not f.endswith(("-journal", "-wal", "-shm"))]
        known = ", ".join(files) if files else "none"
        raise _Stop("NOT_FOUND", f"{app_id} has no database databases/{p.db}; its databases: {known}")
    if answer.exit_code != 0:
        message = " ".join(answer.output.split())
        raise _Stop("ERROR", f"sqlite3 rejected the query on {p.db}: {message}")
    return sql, parse_rows(answer.output)


def _rows_json(result: QueryRows) -> str:
    shown = result.rows[:_SHOWN_ROWS]
    more = f" (first {_SHOWN_ROWS} of {len(result.rows)} rows)" if len(result.rows) > _SHOWN_ROWS else ""
    body = json.dumps({"columns": result.columns, "rows": shown}, ensure_ascii=False)
    return body + more


_HIDDEN = "values hidden: the query uses a secret, and its result may be derived from it"


def _query_database(ctx: ToolContext, p: QueryDatabase, shell: SupportsShellStatus) -> ToolResult:
    sql, result = _query(ctx, p, shell)
    count = len(result.rows)
    if ctx.secret_inputs:  # `hex('{{password}}')` is the secret in a spelling no redactor knows
        return ToolResult("OK", f"{count} row{'s' * (count != 1)} from {p.db} ({_HIDDEN})")
    return ToolResult("OK", f"{count} row{'s' * (count != 1)} from {p.db}: {_rows_json(result)}")


def _cell(value: Scalar | None) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return "" if value is None else str(value)


def _assert_query(ctx: ToolContext, p: AssertQuery, shell: SupportsShellStatus) -> ToolResult:
    sql, result = _query(ctx, p, shell)
    compared = _compare_query(sql, p, result)
    status, message = compared.status, compared.message
    if ctx.secret_inputs:  # the verdict only: a value may be the secret in another spelling
        shape = f"{len(result.rows)} row{'s' * (len(result.rows) != 1)}"
        verdict = "matched" if status == "OK" else "did not match"
        return ToolResult(status, f"{sql} returned {shape} that {verdict} the expected value ({_HIDDEN})")
    return ToolResult(status, message)


def _compare_query(sql: str, p: AssertQuery, result: QueryRows) -> ToolResult:
    if isinstance(p.expected, list):
        wanted = [[_cell(v) for v in row] for row in p.expected]
        got = result.rows
        ok = len(wanted) == len(got) and all(
            len(w) == len(g) and all(_same(a, b) for a, b in zip(g, w, strict=True))
            for w, g in zip(wanted, got, strict=True)
        )
        if ok:
            return ToolResult("OK", f"{sql} returned the {len(got)} expected row{'s' * (len(got) != 1)}")
        return ToolResult("NOT_VISIBLE", f"{sql} returned {json.dumps(got[:_SHOWN_ROWS])}, expected {json.dumps(wanted)}")
    expected = _cell(p.expected)
    if len(result.rows) != 1 or len(result.rows[0]) != 1:
        shape = f"{len(result.rows)} rows" if len(result.rows) != 1 else f"{len(result.rows[0])} columns"
        return ToolResult("NOT_VISIBLE", f"{sql} returned {shape}, expected one value {expected!r}: {_rows_json(result)}")
    actual = result.rows[0][0]
    if _same(actual, expected):
        return ToolResult("OK", f"{sql} = {actual!r}")
    return ToolResult("NOT_VISIBLE", f"{sql} = {actual!r}, expected {expected!r}")


# --- network ------------------------------------------------------------------------------------

_RADIOS = ("wifi", "data", "airplane")
_SETTING = {"wifi": "wifi_on", "data": "mobile_data", "airplane": "airplane_mode_on"}


def _radio_state(shell: SupportsShellStatus) -> dict[str, bool]:
    """The radios now, from the global settings Android keeps them in (null reads as on for Wi-Fi
    and data, off for airplane mode: the defaults)."""
    command = "; ".join(f"settings get global {_SETTING[r]}" for r in _RADIOS)
    lines = [line.strip() for line in shell.shell_status(command).output.splitlines()]
    lines += ["null"] * (len(_RADIOS) - len(lines))
    state: dict[str, bool] = {}
    for radio, value in zip(_RADIOS, lines, strict=False):
        state[radio] = value not in ("0", "false") if value != "null" else radio != "airplane"
    return state


def _switch(shell: SupportsShellStatus, radio: str, on: bool) -> ShellOutput:
    word = "enable" if on else "disable"
    if radio != "airplane":
        return shell.shell_status(f"svc {radio} {word}")
    answer = shell.shell_status(f"cmd connectivity airplane-mode {word}")
    if answer.exit_code == 0:
        return answer
    # before Android 11 there is no `cmd connectivity airplane-mode`: set it and tell the system
    flag, state = ("1", "true") if on else ("0", "false")
    return shell.shell_status(
        f"settings put global airplane_mode_on {flag} && "
        f"am broadcast -a android.intent.action.AIRPLANE_MODE --ez state {state}",
    )


def _set_network(ctx: ToolContext, p: SetNetwork, shell: SupportsShellStatus) -> ToolResult:
    wanted = {
        r: v for r, v in (("wifi", p.wifi), ("data", p.data), ("airplane", p.airplane)) if v is not None
    }
    before = _radio_state(shell)
    for radio, on in wanted.items():
        original = before[radio]
        ctx.session.on_trail_end(f"setNetwork.{radio}", _restorer(shell, radio, original))
        answer = _switch(shell, radio, on)
        if answer.exit_code != 0:
            said = " ".join(answer.output.split()) or f"exit code {answer.exit_code}"
            return ToolResult("ERROR", f"could not turn {radio} {'on' if on else 'off'}: {said}")
    done = ", ".join(f"{r} {'on' if v else 'off'}" for r, v in wanted.items())
    return ToolResult("OK", f"network: {done} (restored when the trail ends)")


def _restorer(shell: SupportsShellStatus, radio: str, on: bool) -> Callable[[], None]:
    def restore() -> None:
        answer = _switch(shell, radio, on)
        if answer.exit_code != 0:
            said = " ".join(answer.output.split())
            raise DeviceError(f"could not restore {radio} {'on' if on else 'off'}: {said}")

    return restore


class ReadPrefs(AppTool):
    """Read the app's shared preferences (Android, debuggable build) as JSON: one file, or all."""

    tool_name = "readPrefs"
    file: str | None = Field(
        default=None,
        pattern=FILE_NAME,
        description="Preferences file name under shared_prefs/ (`.xml` optional); omit to read every file.",
    )


class AssertPref(AppTool):
    """Assert a shared preference holds `value` (compared as text: true/false, numbers as written;
    a string set as its members sorted and joined with `,`)."""

    tool_name = "assertPref"
    file: str = Field(
        pattern=FILE_NAME,
        description="Preferences file name under shared_prefs/, e.g. `dev.trailblaze.demo_preferences`.",
    )
    key: str = Field(min_length=1, description="The preference's name.")
    value: Scalar = Field(description="The value it must hold.")


class QueryDatabase(AppTool):
    """Run one read-only SQL statement (SELECT or a read-only PRAGMA) on the app's SQLite database
    (Android, debuggable build) and return its columns and rows."""

    tool_name = "queryDatabase"
    db: str = Field(pattern=FILE_NAME, description="Database file name under databases/, e.g. `app.db`.")
    sql: str = Field(min_length=1, description="One SELECT or read-only PRAGMA statement.")

    @field_validator("sql")
    @classmethod
    def _read_only(cls, sql: str, info: ValidationInfo) -> str:
        # A trail file is checked as written (`validate`, load), its templates standing in for a
        # value; the handler checks the interpolated query again before it reaches the device.
        if isinstance(info.context, dict) and info.context.get(WRITTEN):
            try:
                read_only_sql(TEMPLATE_RE.sub("0", sql))
            except SqlRefused as exc:
                raise ValueError(f"the query is refused: {exc}") from None
        return sql


class AssertQuery(QueryDatabase):
    """Assert a read-only query's result: a scalar `expected` needs exactly one row with one column
    equal to it; a list of rows (lists) needs exactly those rows, in order. Values compare as text
    (numbers also by value; true/false as 1/0; null as SQL NULL)."""

    tool_name = "assertQuery"
    expected: Scalar | list[list[Scalar | None]] = Field(
        description="A single value (e.g. a COUNT), or every row as a list of column values."
    )


class SetNetwork(RecordedToolParams):
    """Switch Wi-Fi, mobile data and airplane mode (Android); each radio is put back as it was at
    the start of the trail when the trail ends, passed or failed."""

    tool_name = "setNetwork"
    wifi: bool | None = Field(default=None, description="Wi-Fi on (true) or off (false); omit to leave it.")
    data: bool | None = Field(default=None, description="Mobile data on or off; omit to leave it.")
    airplane: bool | None = Field(default=None, description="Airplane mode on or off; omit to leave it.")

    @model_validator(mode="after")
    def _something_to_switch(self) -> SetNetwork:
        if self.wifi is None and self.data is None and self.airplane is None:
            raise ValueError("setNetwork needs at least one of wifi, data, airplane")
        return self


_read_prefs_tool = _probe_tool(ReadPrefs, "other", "storage", _read_prefs)
_assert_pref_tool = _probe_tool(AssertPref, "assertion", "storage", _assert_pref)
_query_database_tool = _probe_tool(QueryDatabase, "other", "storage", _query_database)
_assert_query_tool = _probe_tool(AssertQuery, "assertion", "storage", _assert_query)
_set_network_tool = _probe_tool(SetNetwork, "action", "network", _set_network)
