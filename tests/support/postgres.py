"""A throwaway PostgreSQL server for the shared results store's tests: `initdb` in a temporary folder,
`postgres` on a free port of 127.0.0.1 with a password (scram), stopped and deleted afterwards.

PostgreSQL refuses to run as root, so as root the folder is given to the `postgres` system user (the
Debian package creates it) and the server runs as that user. Without PostgreSQL the test fails naming
the package to install (.ci/run installs it).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

PASSWORD = "pg-s3cret-pw"
"""The test server's password: every message must show it as `***`."""


def _bin_dir() -> Path:
    found = shutil.which("initdb")
    candidates = [found] if found else sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if not candidates:
        pytest.fail(
            "the PostgreSQL results-store tests need a PostgreSQL server: install the Debian package with "
            "`apt-get install -y postgresql` (.ci/run does)"
        )
    return Path(candidates[0]).parent


def _as_server_user(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def postgres_server() -> Iterator[str]:
    """Yields `postgresql://trailblaze:PASSWORD@127.0.0.1:PORT/postgres`."""
    bin_dir = _bin_dir()
    folder = Path(tempfile.mkdtemp(prefix="trailblaze-pg-"))
    data, pwfile = folder / "data", folder / "pw"
    pwfile.write_text(PASSWORD)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
        shutil.chown(pwfile, "postgres")
    port = _free_port()
    server = None
    try:
        subprocess.run(
            _as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-U", "trailblaze", "--auth=scram-sha-256",
                             f"--pwfile={pwfile}", "--no-sync"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        server = subprocess.Popen(
            _as_server_user([str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(folder),
                             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    err = server.stderr.read().decode() if server.stderr else ""
                    pytest.fail(f"the test PostgreSQL server did not start: {err[-500:]}")
                time.sleep(0.1)
        yield f"postgresql://trailblaze:{PASSWORD}@127.0.0.1:{port}/postgres"
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(folder, ignore_errors=True)
