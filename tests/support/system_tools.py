"""System programs some tests shell out to, and the Debian package each comes from.

A test that needs one calls `require(...)`: on a machine without the program the test is skipped
with a reason naming the package, so the README's `python -m pytest -n 2` passes on a fresh machine.
`.ci/run` installs every package listed in `DEBIAN_PACKAGES`, so CI runs those tests
(tests/project/test_system_tools.py keeps the two lists in step).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEBIAN_PACKAGES = {
    "chromium": ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"),
    "adb": ("adb",),
    "nodejs": ("node",),
    "npm": ("npm",),
    "postgresql": ("initdb",),
}
"""Debian package → the program names that provide what the tests need, in order of preference.
(Node.js and npm run the real Appium server, tests/support/appium.py, whose tests fail rather than
skip without them: they are the Appium driver's only end-to-end proof.)"""


def find(package: str, fallback: Path | None = None) -> str | None:
    """The path of the package's program on PATH, else `fallback` when it is an executable file."""
    for name in DEBIAN_PACKAGES[package]:
        path = shutil.which(name)
        if path:
            return path
    if fallback is not None and fallback.is_file() and shutil.which(str(fallback)):
        return str(fallback)
    return None


def require(package: str, fallback: Path | None = None, *, why: str) -> str:
    """The program's path, or skip the calling test naming the Debian package that provides it."""
    path = find(package, fallback)
    if path is None:
        pytest.skip(
            f"{why} needs `{DEBIAN_PACKAGES[package][0]}`, not found on PATH: "
            f"install the Debian package with `apt-get install -y {package}` (.ci/run does)"
        )
    return path


def require_node(what: str) -> tuple[str, str]:
    """`node` and `npm`, or fail the calling test saying what to install: the tests that run npm
    packages (the real Appium server, the Allure CLI) are their features' only end-to-end proof, so
    they fail rather than skip. `what`: the tests, as the message names them."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail(
            f"{what} need Node.js and npm on PATH: install them (`apt-get install -y nodejs npm`)", pytrace=False
        )
    return node, npm
