"""`trailblaze ARGS` run inside the test process, as if it were a process of its own.

Starting `python -m trailblaze` costs ~0.8 s of interpreter start, imports and plugin loading; the
suite does it hundreds of times. `run` calls the console script's `main` instead and puts back, after
the call, everything a process of its own would have taken with it: the environment, the current
folder, `sys.argv`, the standard streams, the signal handlers, the registered secrets and script
hosts, the caches keyed on the folder or the files under it, and the project's tools modules.

A test that needs a real process (signals, its pid, its stdin, what it imports at start-up, a
background process) asks for one: `trailblaze(..., in_process=False)`. A call from another thread,
or while another call runs here, gets a real process by itself: the environment and the current
folder belong to the whole process. `timeout` cannot stop a call made here: it only bounds a real one.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

_RUNNING = threading.Lock()
"""Held by the one call running in this process."""

_CHECK_LEAKS = os.environ.get("TRAILBLAZE_TEST_LEAKS") == "1"
"""Set it to have every call fail when it leaves a thread or a file descriptor behind."""

_PYTHON_WARNINGS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, None),
    ("ignore", PendingDeprecationWarning, None),
    ("ignore", ImportWarning, None),
    ("ignore", ResourceWarning, None),
)
"""Python's own warning filters (the suite's are `error`): what a process started by `python` has."""

_TOOLS_PACKAGE_PREFIX = "_trailblaze_tools_"  # trailblaze.tools.discovery: a project's tools folder


def can_run() -> bool:
    """True when a call may run here: on the main thread, with no other call running."""
    return threading.current_thread() is threading.main_thread() and not _RUNNING.locked()


def run(args: Sequence[str], *, env: Mapping[str, str], cwd: Path | str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m trailblaze ARGS` with environment `env` in `cwd`, run in this process."""
    if not _RUNNING.acquire(blocking=False):
        raise RuntimeError("another in-process trailblaze call is running")
    try:
        with _process_state(args, env, cwd):
            code, out, err = _call_main(list(args))
    finally:
        _RUNNING.release()
    return subprocess.CompletedProcess([sys.executable, "-m", "trailblaze", *args], code, out, err)


def _call_main(args: list[str]) -> tuple[int, str, str]:
    from trailblaze.cli.main import main

    stdout, stderr = _text_stream(), _text_stream()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _text_stream(), stdout, stderr
    try:
        with warnings.catch_warnings(record=True) as shown:
            warnings.resetwarnings()
            for action, category, module in reversed(_PYTHON_WARNINGS):
                warnings.filterwarnings(action, category=category, module=module or "")  # type: ignore[arg-type]
            code = _exit_code(main, args)
        for w in shown:
            stderr.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line))
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return code, _text_of(stdout), _text_of(stderr)


def _exit_code(main: Any, args: list[str]) -> int:
    """What the process would have exited with, Python's way: `SystemExit`'s code, or 1 with the
    traceback on stderr for any other exception."""
    try:
        main(args)
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def _text_stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", line_buffering=True)


def _text_of(stream: io.TextIOWrapper) -> str:
    """What `subprocess.run(text=True)` reads from the pipe: universal newlines."""
    stream.flush()
    data = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@contextlib.contextmanager
def _process_state(args: Sequence[str], env: Mapping[str, str], cwd: Path | str | None) -> Iterator[None]:
    environ = dict(os.environ)
    folder = os.getcwd()
    argv, path = list(sys.argv), list(sys.path)
    modules = set(sys.modules)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    root = logging.getLogger()
    log_handlers, log_level = list(root.handlers), root.level
    threads = set(threading.enumerate())
    fds = _open_fds()
    os.environ.clear()
    os.environ.update(env)
    import trailblaze

    sys.argv = [str(Path(trailblaze.__file__ or "").parent / "__main__.py"), *args]
    try:
        if cwd is not None:
            os.chdir(cwd)
        with _fresh_globals():
            yield
    finally:
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environ)
        sys.argv[:] = argv
        sys.path[:] = path
        for name in set(sys.modules) - modules:
            if _from_the_project(name):
                del sys.modules[name]
        for signum, handler in handlers.items():
            if handler is not None:
                signal.signal(signum, handler)
        root.handlers[:] = log_handlers
        root.setLevel(log_level)
        if _CHECK_LEAKS:
            _check_leaks(threads, fds)


@contextlib.contextmanager
def _fresh_globals() -> Iterator[None]:
    """What a new process starts without: secrets, script hosts, caches of the folder's files."""
    from trailblaze.common import redact, vcs
    from trailblaze.tools import discovery

    hosts = _script_http()
    secrets = redact._PROCESS
    allowed = hosts._run_hosts if hosts is not None else None
    redact.forget_secrets()
    if hosts is not None:
        hosts.allow_hosts(())
    _forget_caches(discovery, vcs)
    try:
        yield
    finally:
        redact._PROCESS = secrets
        if hosts is not None:
            hosts._run_hosts = allowed
        _forget_caches(discovery, vcs)


def _forget_caches(discovery: Any, vcs: Any) -> None:
    # keyed on paths or on nothing, but what they read (tools files, the git checkout, an Appium spec's
    # capabilities file named relative to the current folder) changes between calls
    from trailblaze.device.devices import parse_device_spec

    discovery.clear_cache()
    vcs.process_revision.cache_clear()
    parse_device_spec.cache_clear()


def _script_http() -> Any:
    """The module that holds the process's allowed script hosts (where it lives in this checkout)."""
    import importlib

    for name in ("trailblaze.maestro.script_http", "trailblaze.tools.maestro.script_http"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def _from_the_project(name: str) -> bool:
    """A module a call imported from the project it ran in (its tools), not from an installed package."""
    if name.startswith(_TOOLS_PACKAGE_PREFIX):
        return True
    module = sys.modules.get(name)
    file = getattr(module, "__file__", None)
    if not file:
        return False
    installed = (sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[2]))
    return not os.path.realpath(file).startswith(installed)


def _open_fds() -> set[str]:
    try:
        return set(os.listdir("/proc/self/fd"))
    except OSError:
        return set()


def _serves_the_test(thread: threading.Thread) -> bool:
    """A request thread of a server the test runs (`socketserver.ThreadingMixIn`), not the call's own."""
    return "process_request_thread" in thread.name


def _check_leaks(threads: set[threading.Thread], fds: set[str]) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        left = [t for t in threading.enumerate() if t not in threads and t.is_alive() and not _serves_the_test(t)]
        if not left:
            break
        time.sleep(0.05)
    assert not left, f"the call left threads running: {left}"
    opened = _open_fds() - fds
    assert len(opened) <= 2, f"the call left file descriptors open: {sorted(opened)}"
