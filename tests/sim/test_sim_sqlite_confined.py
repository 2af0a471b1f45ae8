"""The simulator's `run-as … sqlite3` stays inside the app's database (issue 38, item 3).

The simulated adb port takes no authentication, so any local process can reach it. Through the real
`adb` client, `ATTACH DATABASE` (and `VACUUM INTO`, which attaches its target) must neither create
a host file nor read one: the simulated sqlite3 allows no attached database at all, as the
`queryDatabase` probe's `-safe` does on a device.
"""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest

from tests.support.system_tools import require
from trailblaze_sim import create_device
from trailblaze_sim.model import ManualClock
from trailblaze_sim.server.adb import AndroidSimServer

_WHEEL_ADB = Path(adbutils.__file__).parent / "binaries" / "adb"
_APP = "dev.trailblaze.demo"
_DB = "databases/app.db"


@pytest.fixture
def server() -> Iterator[AndroidSimServer]:
    require("adb", _WHEEL_ADB, why="the real adb client check")
    with AndroidSimServer(create_device("android", clock=ManualClock())) as srv:
        yield srv


def _sqlite3(server: AndroidSimServer, sql: str) -> subprocess.CompletedProcess[str]:
    """`adb shell run-as <app> sqlite3 <db> "<sql>"`, as one shell line (what a local attacker sends)."""
    adb = require("adb", _WHEEL_ADB, why="the real adb client check")
    line = f'run-as {_APP} sqlite3 {_DB} "{sql}"'
    return subprocess.run(
        [adb, "-P", str(server.port), "shell", line],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=20,
    )


def test_the_app_database_is_still_readable(server: AndroidSimServer) -> None:
    done = _sqlite3(server, "SELECT 40 + 2;")
    assert (done.returncode, done.stdout) == (0, "42\n"), done.stderr


@pytest.mark.parametrize(
    "sql",
    [
        "ATTACH DATABASE '{path}' AS x; CREATE TABLE x.t(a); INSERT INTO x.t VALUES ('pwned');",
        "ATTACH DATABASE 'file:{path}?mode=rwc' AS x; CREATE TABLE x.t(a);",
        "VACUUM INTO '{path}';",
    ],
    ids=["attach", "attach-uri", "vacuum-into"],
)
def test_sqlite3_creates_no_host_file(server: AndroidSimServer, tmp_path: Path, sql: str) -> None:
    target = tmp_path / "written-from-the-phone.db"
    done = _sqlite3(server, sql.format(path=target))
    assert not target.exists(), done
    assert done.returncode == 1 and done.stderr.startswith("Error: "), done


def test_sqlite3_reads_no_host_file(server: AndroidSimServer, tmp_path: Path) -> None:
    host = tmp_path / "host-secrets.db"
    with sqlite3.connect(host) as db:
        db.execute("CREATE TABLE secrets(value TEXT)")
        db.execute("INSERT INTO secrets VALUES ('host-only-3c1f')")
    db.close()
    done = _sqlite3(server, f"ATTACH DATABASE '{host}' AS h; SELECT value FROM h.secrets;")
    assert "host-only-3c1f" not in done.stdout + done.stderr
    assert done.returncode == 1 and done.stderr.startswith("Error: "), done
