"""App-state probes (readPrefs / assertPref / queryDatabase / assertQuery / setNetwork) on the
simulated Android phone through the real uiautomator2 / adbutils clients, in trails, as single
tools and over the MCP McpSession; UNSUPPORTED on the simulated iPhone through facebook-wda."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.device import Rig, rig
from tests.support.paths import DATA as _DATA
from tests.support.paths import ROOT
from trailblaze.device.driver import ShellOutput
from trailblaze.device.session import DeviceSession
from trailblaze.engine.replay import replay_trail
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.tools.probes.prefs import PrefsError, parse_prefs, pref_text
from trailblaze.tools.probes.sql import SqlRefused, read_only_sql
from trailblaze.trail.model import ToolCall, load_trail
from trailblaze.trail.variables import build_memory
from trailblaze_sim.app.data import prefs_xml

REPO = ROOT
DATA = _DATA / "prefs"
PKG = "dev.trailblaze.demo"
PREFS = f"{PKG}_preferences"


@pytest.fixture(scope="module")
def android() -> Iterator[Rig]:
    with rig("android") as r:
        yield r


def tool(session: DeviceSession, name: str, **params: Any) -> Any:
    return run_recorded_tool(session, ToolCall(name=name, params=params), Memory())


def write_trail(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(body, "utf-8")
    return path


def replay(session: DeviceSession, path: Path) -> Any:
    trail = load_trail(path)
    return replay_trail(trail, session, memory=build_memory(trail, secrets={"password": "hunter2"}))


# --- no device --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "sent"),
    [
        (
            "SELECT COUNT(*) FROM messages WHERE archived = 1;",
            "SELECT COUNT(*) FROM messages WHERE archived = 1",
        ),
        ("  /* c */ select 'a;b',\n  n FROM messages -- end", "select 'a;b', n FROM messages"),
        ("PRAGMA table_info(messages)", "PRAGMA table_info(messages)"),
        ("PRAGMA user_version", "PRAGMA user_version"),
    ],
)
def test_one_read_only_statement_is_sent_without_comments(sql: str, sent: str) -> None:
    assert read_only_sql(sql) == sent


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("DELETE FROM messages", "`DELETE` is not allowed: queries are read-only"),
        ("UPDATE messages SET archived = 0", "`UPDATE` is not allowed"),
        ("SELECT 1; DROP TABLE messages", "only one statement is allowed"),
        ("WITH x AS (SELECT 1) DELETE FROM messages", "`WITH` is not allowed"),
        ("PRAGMA user_version = 7", "a PRAGMA that sets a value is not allowed"),
        ("PRAGMA journal_mode(WAL)", "PRAGMA journal_mode(…) sets a value"),
        ("PRAGMA writable_schema", "PRAGMA writable_schema is not on the read-only list"),
        ("SELECT writefile('/sdcard/x', title) FROM messages", "writefile() is not allowed"),
        ("SELECT 'unterminated", "unterminated quote"),
        ("-- only a comment", "an empty query is not allowed"),
        (".tables", "`.TABLES` is not allowed"),
    ],
)
def test_anything_but_one_read_only_statement_is_refused(sql: str, why: str) -> None:
    with pytest.raises(SqlRefused, match=__import__("re").escape(why)):
        read_only_sql(sql)


def test_a_real_shared_preferences_file_parses_with_every_type() -> None:
    values = parse_prefs((DATA / "every_type.xml").read_text("utf-8"))
    assert values == {
        "signed_in": True,
        "user": "Ann <ann@example.com> & co",
        "launches": 12,
        "last_sync": 1764145200123,
        "font_scale": 1.15,
        "tags": ["beta", "inbox"],
        "empty": "",
        "nothing": None,
    }
    assert [pref_text(values[k]) for k in ("signed_in", "launches", "tags", "nothing")] == [
        "true", "12", "beta,inbox", "null",
    ]  # fmt: skip
    sim = {"signed_in": True, "user": "a&b", "count": 3, "big": 2**40, "ratio": 0.5}
    assert parse_prefs(prefs_xml(sim)) == sim


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("<map><string name='a'>x</map>", "not well-formed"),
        ("<prefs />", "root element is <prefs>"),
        ("<map><int name='n' value='x' /></map>", "bad value 'x'"),
        ("<!DOCTYPE map [<!ENTITY a 'b'>]><map />", "DOCTYPE is not allowed"),
    ],
)
def test_a_broken_preferences_file_says_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(PrefsError, match=__import__("re").escape(why)):
        parse_prefs(text)


# --- sim:android --------------------------------------------------------------------------------


@pytest.mark.slow
def test_after_login_and_archive_a_trail_asserts_the_stored_user_and_the_archived_row(
    android: Rig, tmp_path: Path
) -> None:
    # a sub-trail lives in the calling trail's project (`runTrail` is confined to it): copied beside it
    archive = tmp_path / "archive-message.trail.yaml"
    archive.write_text(
        (REPO / "trails" / "archive-message.trail.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    path = write_trail(
        tmp_path,
        "stored.trail.yaml",
        f"""\
config:
  title: Archiving is stored
trail:
  - step: Sign in and archive Message 3
    recording:
      android:
        - runTrail: {{path: '{archive}'}}
  - verify: The signed-in user and the archived message are stored
    recording:
      android:
        - assertPref: {{file: {PREFS}, key: user, value: user@example.com}}
        - assertPref: {{file: {PREFS}, key: signed_in, value: true}}
        - assertQuery: {{db: app.db, sql: 'SELECT COUNT(*) FROM messages WHERE archived = 1', expected: 1}}
        - assertQuery:
            db: app.db
            sql: SELECT n, title FROM messages WHERE archived = 1
            expected: [[3, Message 3]]
""",
    )
    record = replay(android.session, path)
    assert record.status == "passed", record.error
    first = record.steps[1].tools[0]
    assert (first.status, first.message) == ("OK", f"{PREFS}:user = 'user@example.com'")

    session = android.session
    read = tool(session, "readPrefs")
    assert read.ok and f'"{PREFS}": {{"signed_in": true, "user": "user@example.com"' in read.message
    wrong = tool(session, "assertPref", file=PREFS, key="user", value="other@example.com")
    assert (wrong.status, wrong.message) == (
        "NOT_VISIBLE", f"{PREFS}:user is 'user@example.com', expected 'other@example.com'"
    )  # fmt: skip
    missing = tool(session, "assertPref", file=PREFS, key="token", value="x")
    assert (
        missing.status == "NOT_FOUND"
        and "its keys: dark_mode, notifications, signed_in, user" in missing.message
    )
    rows = tool(session, "queryDatabase", db="app.db", sql="SELECT n, archived FROM messages WHERE n <= 3")
    assert (
        rows.message
        == '3 rows from app.db: {"columns": ["n", "archived"], "rows": [["1", "0"], ["2", "0"], ["3", "1"]]}'
    )
    count = tool(
        session,
        "assertQuery",
        db="app.db",
        sql="SELECT COUNT(*) FROM messages WHERE archived = 1",
        expected=2,
    )
    assert count.status == "NOT_VISIBLE" and count.message.endswith("= '1', expected '2'")
    no_db = tool(session, "queryDatabase", db="mail.db", sql="SELECT 1")
    assert (no_db.status, no_db.message) == (
        "NOT_FOUND",
        f"{PKG} has no database databases/mail.db; its databases: app.db",
    )


def test_the_data_dir_is_readable_only_through_run_as(android: Rig) -> None:
    driver: Any = android.driver
    plain = driver.shell_status(f"cat /data/data/{PKG}/shared_prefs/{PREFS}.xml")
    assert plain == ShellOutput(1, f"cat: /data/data/{PKG}/shared_prefs/{PREFS}.xml: Permission denied\n")
    other = tool(android.session, "readPrefs", appId="com.android.settings")
    assert other.status == "UNSUPPORTED" and "only a debuggable build" in other.message


class _Watching:
    """The rig's driver, noting every shell command it is asked to run."""

    def __init__(self, driver: Any) -> None:
        self._driver = driver
        self.commands: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._driver, name)

    def shell_status(self, command: str) -> ShellOutput:
        self.commands.append(command)
        return self._driver.shell_status(command)  # type: ignore[no-any-return]


def test_a_query_that_is_not_one_select_is_refused_before_the_device(android: Rig) -> None:
    watching = _Watching(android.driver)
    session = DeviceSession(watching)  # type: ignore[arg-type]  # not closed: the rig owns the driver
    refused = tool(session, "queryDatabase", db="app.db", sql="DELETE FROM messages")
    assert (refused.status, refused.message) == (
        "ERROR",
        "queryDatabase refused the query: `DELETE` is not allowed: queries are read-only (one SELECT or read-only PRAGMA)",
    )
    also = tool(session, "assertQuery", db="app.db", sql="SELECT 1; DROP TABLE messages", expected=1)
    assert also.status == "ERROR" and "only one statement is allowed" in also.message
    assert watching.commands == []
    counted = tool(session, "assertQuery", db="app.db", sql="SELECT COUNT(*) FROM messages", expected=40)
    assert counted.ok, counted.message
    assert watching.commands[-1].startswith(f"run-as {PKG} sqlite3 -readonly -safe -header")
    shell_words = tool(session, "queryDatabase", db="app.db", sql="SELECT 'it''s $(id); `id` | \\' AS t")
    assert (
        shell_words.message == '1 row from app.db: {"columns": ["t"], "rows": [["it\'s $(id); `id` | \\\\"]]}'
    )


SIGN_IN = """\
  - step: Sign in as user@example.com
    recording:
      android:
        - tapOnElementBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: 'dev.trailblaze.demo:id/email'}}}
        - inputText: {text: user@example.com}
        - tapOnElementBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: 'dev.trailblaze.demo:id/password'}}}
        - inputText: {text: '{{password}}'}
        - tapOnElementBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: 'dev.trailblaze.demo:id/sign_in'}}}
"""


@pytest.mark.slow
def test_offline_sign_in_shows_the_banner_and_the_network_comes_back_after_the_trail(
    android: Rig, tmp_path: Path
) -> None:
    path = write_trail(
        tmp_path,
        "offline.trail.yaml",
        f"""\
config:
  title: Offline sign-in is refused
trail:
  - step: Launch the app with no network
    recording:
      android:
        - launchApp: {{appId: {PKG}, launchMode: CLEAR_STATE}}
        - setNetwork: {{wifi: false, data: false}}
{SIGN_IN}\
  - verify: The app says there is no connection and stays on the sign-in screen
    recording:
      android:
        - assertVisibleWithText: {{text: No connection}}
        - assertVisibleWithText: {{text: 'No connection: check Wi-Fi or mobile data and try again'}}
        - readPrefs: {{}}
""",
    )
    network = android.device.network
    record = replay(android.session, path)
    assert record.status == "passed", record.error
    assert record.steps[2].tools[2].message == f"{PKG} has no shared preferences yet"  # never signed in
    switched = record.steps[0].tools[1]
    assert (switched.status, switched.message) == (
        "OK",
        "network: wifi off, data off (restored when the trail ends)",
    )
    assert (network.wifi, network.data, network.online) == (True, True, True)
    assert (
        android.driver.shell_status("settings get global wifi_on; settings get global mobile_data").output
        == "1\n1\n"
    )  # type: ignore[attr-defined]

    failing = write_trail(
        tmp_path,
        "airplane.trail.yaml",
        """\
config:
  title: A failing trail still puts the network back
trail:
  - step: Turn on airplane mode and look for something that is not there
    recording:
      android:
        - setNetwork: {airplane: true, wifi: false}
        - assertVisibleWithText: {text: Online}
""",
    )
    record = replay(android.session, failing)
    assert record.status == "failed"
    assert (network.airplane, network.wifi, network.online) == (False, True, True)
    assert android.driver.shell_status("cmd connectivity airplane-mode").output == "disabled\n"  # type: ignore[attr-defined]


def test_a_probe_through_the_mcp_workbench_is_recorded_and_replays(android: Rig, tmp_path: Path) -> None:
    from trailblaze.mcp.confine import Confinement
    from trailblaze.mcp.session import McpSession
    from trailblaze.mcp.surface import mcp_tools

    bench = McpSession(Memory(), session=android.session, confinement=Confinement(tmp_path))
    tools = {t.name: t for t in mcp_tools(bench.tools)}
    assert {"readPrefs", "assertPref", "queryDatabase", "assertQuery", "setNetwork"} <= set(tools)
    assert tools["assertQuery"].read_only and not tools["setNetwork"].read_only

    def call(name: str, **args: Any) -> Any:
        reply = tools[name].call(bench, args)
        assert reply.ok, reply.text
        return reply

    try:
        target = tmp_path / "stored-messages.trail.yaml"
        call("trail_start", path=str(target), title="The inbox's messages are stored")
        call("trail_step", text="Launch the demo app with a clean state")
        call("launchApp", appId=PKG, launchMode="CLEAR_STATE")
        call("trail_verify", text="The database holds 40 messages")
        reply = call("assertQuery", db="app.db", sql="SELECT COUNT(*) FROM messages", expected=40)
        assert reply.text.startswith("OK SELECT COUNT(*) FROM messages = '40'")
        assert "recorded in verify 2 ('The database holds 40 messages'): assertQuery" in reply.text
        call("trail_save")
    finally:
        bench.session = None  # the module's rig owns the device
    saved = yaml.safe_load(target.read_text("utf-8"))
    assert saved["trail"][1]["recording"]["android"] == [
        {"assertQuery": {"db": "app.db", "sql": "SELECT COUNT(*) FROM messages", "expected": 40}}
    ]
    assert replay(android.session, target).status == "passed"


def test_on_ios_every_probe_is_unsupported_and_says_what_it_would_need() -> None:
    with rig("ios") as ios:
        for name, params in [
            ("readPrefs", {}),
            ("assertPref", {"file": PREFS, "key": "user", "value": "x"}),
            ("queryDatabase", {"db": "app.db", "sql": "SELECT 1"}),
            ("assertQuery", {"db": "app.db", "sql": "SELECT 1", "expected": 1}),
            ("setNetwork", {"wifi": False}),
        ]:
            result = tool(ios.session, name, **params)
            assert result.status == "UNSUPPORTED", (name, result)
            assert result.message.startswith(
                f"{name}: WebDriverAgent has no access to app storage/network settings; "
            ), result.message
            assert (
                "simctl get_app_container" if name != "setNetwork" else "Network Link Conditioner"
            ) in result.message
        assert ios.device.network.online


def test_pytest_tools_switch_the_network_until_the_test_ends(android: Rig) -> None:
    from trailblaze.pytest._runner import TrailRunner

    def no_llm() -> Any:
        raise AssertionError("no step here needs the model")

    runner = TrailRunner(android.session, device="sim:android", llm_factory=no_llm)
    assert runner.tool("setNetwork: {airplane: true}").ok
    assert not android.device.network.online
    again = runner.tool("setNetwork: {airplane: false, wifi: false}")
    assert again.ok and (android.device.network.airplane, android.device.network.wifi) == (False, False)
    runner.close()  # the fixture's teardown: the state from before the first switch comes back
    network = android.device.network
    assert (network.airplane, network.wifi, network.data) == (False, True, True)


class _OldAndroid(_Watching):
    """An Android 10 device: no `cmd connectivity airplane-mode`."""

    def shell_status(self, command: str) -> ShellOutput:
        if command.startswith("cmd connectivity"):
            self.commands.append(command)
            return ShellOutput(255, "Unknown command: airplane-mode\n")
        return super().shell_status(command)


def test_airplane_mode_falls_back_to_the_setting_and_its_broadcast(android: Rig) -> None:
    old = _OldAndroid(android.driver)
    session = DeviceSession(old)  # type: ignore[arg-type]  # not closed: the rig owns the driver
    assert tool(session, "setNetwork", airplane=True).ok
    assert android.device.network.airplane
    assert old.commands[-1] == (
        "settings put global airplane_mode_on 1 && am broadcast -a android.intent.action.AIRPLANE_MODE --ez state true"
    )
    session.end_trail()
    assert not android.device.network.airplane and old.commands[-1].endswith("--ez state false")
