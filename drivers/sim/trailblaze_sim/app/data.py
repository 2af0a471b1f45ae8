"""What a simulated app keeps on disk, and the device's network switches.

The app's persistent state (`state.*` of its spec) is its default SharedPreferences file,
`shared_prefs/<app_id>_preferences.xml`, in Android's own XML format, rewritten on every change the
way `SharedPreferences.Editor.apply()` does. Its data sources are tables of a real SQLite database,
`databases/app.db`, created on first use (as `SQLiteOpenHelper` does); a `remove` step marks the row
`archived = 1` instead of deleting it. Both live in a per-device temporary data dir, which the
simulated shell exposes only through `run-as <app_id>` (`trailblaze_sim.android.probes`).
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

__all__ = ["DATABASE", "AppDataDir", "NetworkState", "prefs_xml"]

DATABASE = "app.db"


@dataclass
class NetworkState:
    """The device's radios as `svc` and airplane mode set them."""

    wifi: bool = True
    data: bool = True
    airplane: bool = False

    @property
    def online(self) -> bool:
        return not self.airplane and (self.wifi or self.data)


def prefs_xml(values: Mapping[str, Any]) -> str:
    """`values` as Android's `XmlUtils.writeMapXml` writes a SharedPreferences file."""
    lines = ["<?xml version='1.0' encoding='utf-8' standalone='yes' ?>", "<map>"]
    for name, value in values.items():
        attr = quoteattr(str(name))
        if isinstance(value, bool):
            lines.append(f'    <boolean name={attr} value="{str(value).lower()}" />')
        elif isinstance(value, int):
            kind = "int" if -(2**31) <= value < 2**31 else "long"
            lines.append(f'    <{kind} name={attr} value="{value}" />')
        elif isinstance(value, float):
            lines.append(f'    <float name={attr} value="{value}" />')
        elif isinstance(value, set | frozenset):
            lines.append(f"    <set name={attr}>")
            lines += [f"        <string>{escape(str(v))}</string>" for v in sorted(value)]
            lines.append("    </set>")
        else:
            lines.append(f"    <string name={attr}>{escape(str(value))}</string>")
    lines.append("</map>")
    return "\n".join(lines) + "\n"


class AppDataDir:
    """One app's data dir (`/data/data/<app_id>` on the device) in a temporary folder of the host.

    Args:
        app_id: The package; the prefs file is named after it.
    """

    def __init__(self, app_id: str) -> None:
        self.app_id = app_id
        self._lock = threading.RLock()
        self._root: Path | None = None
        self._seed: dict[str, list[dict[str, str]]] = {}
        self._cleanup: weakref.finalize[Any, Any] | None = None

    @property
    def root(self) -> Path:
        """The data dir on the host (created on first use, removed with this object)."""
        with self._lock:
            if self._root is None:
                self._root = Path(tempfile.mkdtemp(prefix="trailblaze-sim-data-"))
                self._cleanup = weakref.finalize(self, shutil.rmtree, self._root, True)
            return self._root

    def reset(self, seed: Mapping[str, list[dict[str, str]]]) -> None:
        """A fresh install: no files; the database, once created, holds `seed`."""
        with self._lock:
            self._seed = {k: [dict(i) for i in v] for k, v in seed.items()}
            if self._root is not None:
                for child in self._root.iterdir():
                    shutil.rmtree(child) if child.is_dir() else child.unlink()

    def save_prefs(self, values: Mapping[str, Any]) -> None:
        """Rewrites the default prefs file atomically, as `apply()` does."""
        with self._lock:
            folder = self.root / "shared_prefs"
            folder.mkdir(exist_ok=True)
            target = folder / f"{self.app_id}_preferences.xml"
            tmp = target.with_suffix(".xml.bak")
            tmp.write_text(prefs_xml(values), "utf-8")
            tmp.replace(target)

    def archive(self, source: str, key: str, value: str) -> None:
        """Marks the rows of `source` whose `key` is `value` as archived."""
        with self._lock, self._connect() as db:
            if key in self._columns(source):
                db.execute(f"UPDATE {_name(source)} SET archived = 1 WHERE {_name(key)} = ?", (value,))

    def database(self) -> Path:
        """The database file, created with the seed data when it does not exist yet."""
        with self._lock:
            path = self.root / "databases" / DATABASE
            if not path.exists():
                self._create(path)
            return path

    # --- internals ---------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.database(), isolation_level=None)
        db.execute("PRAGMA synchronous = OFF")
        return db

    def _columns(self, source: str) -> list[str]:
        rows = self._seed.get(source) or [{}]
        return list(rows[0])

    def _create(self, path: Path) -> None:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.unlink(missing_ok=True)
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous = OFF")
            db.execute("BEGIN")
            db.execute("CREATE TABLE android_metadata (locale TEXT)")
            db.execute("INSERT INTO android_metadata VALUES ('en_US')")
            for source, rows in self._seed.items():
                columns = self._columns(source)
                numeric = {c for c in columns if rows and all(r.get(c, "").isdigit() for r in rows)}
                defs = [f"{_name(c)} {'INTEGER' if c in numeric else 'TEXT'}" for c in columns]
                defs.append("archived INTEGER NOT NULL DEFAULT 0")
                db.execute(f"CREATE TABLE {_name(source)} ({', '.join(defs)})")
                names, marks = ", ".join(map(_name, columns)), ", ".join("?" for _ in columns)
                db.executemany(
                    f"INSERT INTO {_name(source)} ({names}) VALUES ({marks})",
                    [[int(r[c]) if c in numeric else r.get(c, "") for c in columns] for r in rows],
                )
            db.execute("PRAGMA user_version = 1")
            db.execute("COMMIT")
        finally:
            db.close()
        tmp.replace(path)


def _name(identifier: str) -> str:
    """An SQL identifier, quoted (spec names are plain, but a quote must not end it)."""
    return '"' + identifier.replace('"', '""') + '"'
