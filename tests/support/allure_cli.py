"""The real Allure 3 report generator (npm `allure`, pinned in `.ci/allure/package-lock.json`).

`ensure_allure()` installs it with `npm ci` when `node_modules` is missing (once per machine: a file
lock keeps pytest-xdist's workers from installing at the same time) and returns its `cli.js`. With
no `node` / `npm` on PATH the calling test fails, saying what to install: the suite never skips it.
"""

from __future__ import annotations

import fcntl
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from tests.support.system_tools import require_node

ALLURE_HOME = ROOT / ".ci" / "allure"
"""The folder with the package.json that pins Allure 3."""
_CLI = ALLURE_HOME / "node_modules" / "allure" / "cli.js"
_LOCK = Path(tempfile.gettempdir()) / "trailblaze-allure-rig.lock"
_NPM_TIMEOUT_S = 600


def ensure_allure() -> tuple[str, Path]:
    """`node` and the Allure CLI's `cli.js`, installed when missing."""
    node, npm = require_node("the Allure report tests")
    with open(_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another xdist worker may be installing right now
        if not _CLI.is_file():
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=ALLURE_HOME, capture_output=True, text=True, timeout=_NPM_TIMEOUT_S, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                pytest.fail(
                    f"npm ci in {ALLURE_HOME} failed ({done.returncode}): {done.stderr.strip()[-2000:]}"
                )
    return node, _CLI
