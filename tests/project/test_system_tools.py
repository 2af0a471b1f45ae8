"""Tests that need a system program are skipped, naming its Debian package, on a machine without it;
`.ci/run` installs every such package so CI always runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.system_tools import DEBIAN_PACKAGES, require


def test_ci_installs_every_package_the_tests_need() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    installed = {name for line in re.findall(r"apt-get install -y -qq ([^>\n]+)", script) for name in line.split()}
    assert installed == set(DEBIAN_PACKAGES)


def test_require_skips_naming_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    for package in DEBIAN_PACKAGES:
        with pytest.raises(pytest.skip.Exception) as skipped:
            require(package, why="this check")
        assert f"apt-get install -y {package}" in str(skipped.value)
    program = tmp_path / "adb"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert require("adb", why="this check") == str(program)


@pytest.mark.slow
def test_browser_check_is_skipped_without_chromium(tmp_path: Path) -> None:
    # A machine without chromium on PATH (an empty folder is the whole PATH): skipped, not failed.
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist",
         str(ROOT / "tests" / "output" / "test_report_browser.py")],
        cwd=ROOT, env={**os.environ, "PATH": str(tmp_path)}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped" in done.stdout and "failed" not in done.stdout
    assert "install the Debian package with `apt-get install -y chromium`" in done.stdout
