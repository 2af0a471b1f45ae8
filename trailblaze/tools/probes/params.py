"""Params of the app-state probes (recorded tools; their JSON schemas are also what the model and an
MCP client see)."""

from __future__ import annotations

import re

from pydantic import Field, ValidationInfo, field_validator, model_validator

from trailblaze.tools.memory import TEMPLATE_RE
from trailblaze.tools.params import WRITTEN, RecordedToolParams
from trailblaze.tools.probes.sql import SqlRefused, read_only_sql

__all__ = ["Scalar"]

_NAME = r"^[A-Za-z0-9_][A-Za-z0-9._-]*$"
"""A file name inside the app's data dir: no path, so nothing outside it can be named."""
_APP_ID = r"^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$"

Scalar = str | int | float | bool


class _AppTool(RecordedToolParams):
    appId: str | None = Field(
        default=None, pattern=_APP_ID, description="The app's package; omit for the app in the foreground."
    )


class ReadPrefs(_AppTool):
    """Read the app's shared preferences (Android, debuggable build) as JSON: one file, or all."""

    tool_name = "readPrefs"
    file: str | None = Field(
        default=None,
        pattern=_NAME,
        description="Preferences file name under shared_prefs/ (`.xml` optional); omit to read every file.",
    )


class AssertPref(_AppTool):
    """Assert a shared preference holds `value` (compared as text: true/false, numbers as written;
    a string set as its members sorted and joined with `,`)."""

    tool_name = "assertPref"
    file: str = Field(
        pattern=_NAME,
        description="Preferences file name under shared_prefs/, e.g. `dev.trailblaze.demo_preferences`.",
    )
    key: str = Field(min_length=1, description="The preference's name.")
    value: Scalar = Field(description="The value it must hold.")


class QueryDatabase(_AppTool):
    """Run one read-only SQL statement (SELECT or a read-only PRAGMA) on the app's SQLite database
    (Android, debuggable build) and return its columns and rows."""

    tool_name = "queryDatabase"
    db: str = Field(pattern=_NAME, description="Database file name under databases/, e.g. `app.db`.")
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


def _regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"{value!r} is not a regular expression: {exc}") from None
    return value


class ReadLogs(_AppTool):
    """Read the app's device log (Android logcat, the app's own processes) since the run started, or
    since a step started; optionally only the lines matching a regular expression."""

    tool_name = "readLogs"
    sinceStep: int | None = Field(
        default=None, ge=1, description="Only lines since step N (1-based, as replay numbers them) started."
    )
    grep: str | None = Field(default=None, min_length=1, description="A regular expression lines must match.")

    _grep_is_a_regex = field_validator("grep")(_regex)


class AssertLogContains(_AppTool):
    """Assert that the app's device log (Android logcat, since the run started) has a line matching
    `pattern` (a regular expression), waiting up to `timeoutMs` for it to be written."""

    tool_name = "assertLogContains"
    pattern: str = Field(
        min_length=1, description="A regular expression, e.g. `Signed in as .*@example.com`."
    )
    timeoutMs: int | None = Field(
        default=None,
        ge=0,
        le=600_000,
        description="How long to wait for the line (default: the element timeout, 5 s).",
    )

    _pattern_is_a_regex = field_validator("pattern")(_regex)
