"""Hostile trail files through `validate`, `replay` and pytest collection, each a subprocess: no
traceback, no "internal error", no raw escape sequence on the terminal, peak resident memory under
300 MB, and the exit code the case calls for (2: file refused, 1: trail failed, 0: passed).

Each child also runs under a 2 GB address-space cap, so a regression (say, an alias bomb expanding
again) fails the test instead of exhausting the machine. Address space is not the limit asserted:
the in-process simulator's threads reserve stack space they never touch.

The corpus is `trailblaze.testing.hostile_files`; benchmarks/hostile_files.py prints time and peak
memory per file (time is never asserted here).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from trailblaze.testing.hostile_files import Hostile, write_corpus

pytestmark = pytest.mark.slow

MEMORY_LIMIT = 300 * 1024 * 1024
_ADDRESS_SPACE = 2 * 1024 * 1024 * 1024
# The child reports its own peak (VmHWM) at exit: the kernel's ru_maxrss of a child also counts the
# parent's memory it was spawned from (vfork shares it), so a large pytest worker would inflate it.
_LIMITED = (
    "import atexit, os, resource, runpy, sys; "
    f"resource.setrlimit(resource.RLIMIT_AS, ({_ADDRESS_SPACE}, {_ADDRESS_SPACE})); "
    "atexit.register(lambda: open(os.environ['TRAILBLAZE_TEST_HWM'], 'w').write("
    "next(line for line in open('/proc/self/status') if line.startswith('VmHWM:')))); "
    "sys.argv = sys.argv[1:]; runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)"
)
_BAD_OUTPUT = ("Traceback", "internal error", "MemoryError", "RecursionError", "\x1b")


def _run(module: str, *args: str, cwd: Path) -> tuple[int, str]:
    """`python -m module args` under the address-space cap; asserts its peak RSS; never waits on a hang for long."""
    hwm = Path(tempfile.mkdtemp()) / "hwm"
    env = {
        **os.environ,
        "COLUMNS": "200",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "TRAILBLAZE_TEST_HWM": str(hwm),
    }
    env.pop("ANTHROPIC_API_KEY", None)
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(
            [sys.executable, "-c", _LIMITED, module, *args],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        killer = threading.Timer(120, child.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)
        finally:
            killer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    try:  # "VmHWM:   51234 kB"; without it (the child was killed) the kernel's figure, an upper bound
        peak = int(hwm.read_text().split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        peak = usage.ru_maxrss * 1024  # kilobytes on Linux
    finally:
        shutil.rmtree(hwm.parent, ignore_errors=True)
    assert peak < MEMORY_LIMIT, f"peak RSS {peak / 2**20:.0f} MB running {module} {' '.join(args)}"
    return child.returncode, text


def _clean(out: str) -> None:
    for bad in _BAD_OUTPUT:
        assert bad not in out, f"{bad!r} in output:\n{out[-3000:]}"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[Hostile]]]:
    folder = tmp_path_factory.mktemp("hostile")
    yield folder, write_corpus(folder)


def test_corpus_size(corpus: tuple[Path, list[Hostile]]) -> None:
    _, cases = corpus
    assert len(cases) >= 40
    assert sum(not c.regular for c in cases) == 3


def test_validate_refuses_each_hostile_file_cleanly(corpus: tuple[Path, list[Hostile]]) -> None:
    folder, cases = corpus
    code, out = _run("trailblaze", "validate", *(str(c.path) for c in cases), cwd=folder)
    _clean(out)
    assert code == 2, out[-3000:]
    refused = [c for c in cases if c.validate == 2]
    lines = out.splitlines()
    for case in cases:
        mine = [line for line in lines if line.startswith(f"{case.path}:")]
        if case.validate == 2:
            assert mine, f"{case.name}: nothing reported\n{out[-3000:]}"
            assert case.says in "\n".join(mine), f"{case.name}: {mine}"
            if case.regular:  # every problem in a file that can be read has its line:col
                assert all(re.match(rf"{re.escape(str(case.path))}:\d+:\d+: ", line) for line in mine), mine
        else:
            assert not mine, f"{case.name} should be valid: {mine}"
    assert lines[-1].startswith(f"{len(cases)} files checked, {len(refused)} invalid"), lines[-1]


@pytest.mark.parametrize("name", [
    "billion-laughs", "alias-step", "deep-flow", "deep-block", "deep-map", "many-nodes", "huge-file",
    "long-step", "surrogate-step", "surrogate-param", "escape-codes", "binary-junk", "bom-utf8", "crlf",
    "cr-only", "python-tag", "weird-items", "huge-int", "catastrophic-regex", "nested-quantifier-regex",
    "invalid-regex", "unknown-tool", "fifo", "symlink-loop", "device",
])  # fmt: skip
def test_replay_gives_each_hostile_file_its_exit_code(
    name: str, corpus: tuple[Path, list[Hostile]], tmp_path: Path
) -> None:
    folder, cases = corpus
    case = next(c for c in cases if c.name == name)
    code, out = _run(
        "trailblaze", "replay", str(case.path), "--device", "sim:android", "--element-timeout", "0.5",
        "--run-dir", str(tmp_path / "run"), "--report", str(tmp_path / "report.html"), cwd=folder,
    )  # fmt: skip
    _clean(out)
    assert code == case.replay, out[-3000:]
    if case.replay:
        assert case.says in out, out[-3000:]
    if case.replay == 2:  # refused before the device: no run directory
        assert not (tmp_path / "run").exists()
    else:  # it ran: the run log and the report are there, whatever the text held
        assert (tmp_path / "run" / "run.json").is_file()
        assert (tmp_path / "report.html").is_file()


def test_pytest_collection_reports_each_hostile_file_cleanly(corpus: tuple[Path, list[Hostile]]) -> None:
    folder, cases = corpus
    regular = [c for c in cases if c.regular]
    code, out = _run(
        "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "--rootdir", str(folder),
        *(c.path.name for c in regular), cwd=folder,
    )  # fmt: skip
    _clean(out)
    assert code == 2, out[-3000:]  # collection errors interrupt the session
    for case in regular:
        loads = case.validate == 0 or case.says == "unknown tool"  # preflight, not load, refuses it
        collected = f"ERROR collecting {case.path.name}" not in out
        assert collected == loads, f"{case.name}:\n{out[-3000:]}"
    assert "evil\\x1b]52;c;aGk=\\x07\\x1b[2J" in out  # the escape-codes item, named harmlessly


@pytest.mark.parametrize("name", ["fifo", "symlink-loop", "device"])
def test_pytest_names_a_special_file_as_not_regular(name: str, corpus: tuple[Path, list[Hostile]]) -> None:
    folder, cases = corpus
    case = next(c for c in cases if c.name == name)
    code, out = _run("pytest", "--collect-only", "-q", "-p", "no:cacheprovider", case.path.name, cwd=folder)
    _clean(out)
    assert code == 4, out  # pytest's usage error
    assert f"not a regular file: {case.path}" in out, out
