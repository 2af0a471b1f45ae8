"""The command line as a shell user meets it: `-V` / `--version`, and click's shell completion."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trailblaze", *args],
        capture_output=True, text=True, timeout=60, env={**os.environ, **env},
    )  # fmt: skip


def test_short_and_long_version_flags_print_the_version() -> None:
    short, long = _run("-V"), _run("--version")
    assert short.returncode == long.returncode == 0, short.stderr + long.stderr
    assert short.stdout == long.stdout == f"trailblaze, version {version('trailblaze')}\n"


def test_bash_completion_script_and_its_answers() -> None:
    script = _run(_TRAILBLAZE_COMPLETE="bash_source")
    assert script.returncode == 0, script.stderr
    assert "_trailblaze_completion()" in script.stdout
    assert "complete -o nosort -F _trailblaze_completion trailblaze" in script.stdout
    # What the script asks for when the user types `trailblaze rep<TAB>`.
    answer = _run(_TRAILBLAZE_COMPLETE="bash_complete", COMP_WORDS="trailblaze rep", COMP_CWORD="1")
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.split() == ["plain,report", "plain,replay"]
