"""Every example command of README.md and of every `trailblaze COMMAND --help` runs as written.

Each example (tests/doc_examples.py) runs in bash in a fresh project folder holding the README's own
files (its Python test example, its `conftest.py`, its `login.trail.md`) and the example trail
`trails/login.trail.yaml` with the demo's tools — one trail keeps a `trails/` example to seconds.
What an example needs from outside is a local stand-in: the model is the Messages-API fake serving
the demo policy (`ANTHROPIC_BASE_URL`), `--device android` is a simulated phone behind an adb server
of this test (`ANDROID_ADB_SERVER_PORT`), `--secret password` reads `TRAILBLAZE_SECRET_PASSWORD`, and
a `--port N` becomes a free port. `trailblaze sim …` runs until the script ends.

`PLAN` says what each example must do; a new example without an entry fails
`test_every_example_has_a_plan`, so none goes untested.
"""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import adbutils
import pytest

from tests.doc_examples import ROOT, Example, help_examples, readme_blocks, readme_examples
from tests.report_support import build_run_dir
from tests.system_tools import require
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.testing.messages_api import FakeMessagesAPI

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Run:
    """Run it: this exit code, and this text in its output."""

    code: int = 0
    shows: str = ""


@dataclass(frozen=True)
class Elsewhere:
    """Run as written by something else, named here."""

    by: str


_CI = Elsewhere(".ci/run, which runs the README's two setup commands verbatim on a fresh venv")
_RECORD_DEMO = Elsewhere("tests/test_readme_record.py, which runs the record-demo block as written")
_DEMO_SETUP = "trailblaze replay trails/ --device sim:android --secret password=hunter2 --report report.html"

PLAN: dict[str, Run | Elsewhere] = {
    # README: setup (its replay is also the replay --help example run below)
    f'pip install -e ".[dev]" -e ./drivers/android -e ./drivers/ios && {_DEMO_SETUP}': _CI,
    "python -m pytest -n 2": _CI,
    # README: try it without a phone
    "trailblaze snapshot --device sim:android": Run(shows='Button "Sign in"'),
    "trailblaze sim android --port 15037": Run(shows="127.0.0.1:15037"),
    "adb -P 15037 devices": Run(shows="emulator-5554\tdevice"),
    "ANDROID_ADB_SERVER_PORT=15037 trailblaze tool '{tapOnElementBySelector: {nodeSelector: "
    '{androidAccessibility: {resourceIdRegex: ".*sign_in"}}}}\' --device android': Run(shows="OK tapped"),
    "trailblaze sim ios --port 18100": Run(shows="http://127.0.0.1:18100"),
    "trailblaze sim android": Run(shows="127.0.0.1:"),
    "trailblaze schema": Run(shows='"$schema"'),
    # README: record
    "export ANTHROPIC_API_KEY=…": Run(),
    "trailblaze record trails/login.trail.yaml --device sim:android --secret password=hunter2": Run(
        shows="5/5 steps passed"  # all recorded already: record replays them
    ),
    "trailblaze record login.trail.md --device sim:android --secret password=hunter2": Run(
        shows="login.trail.yaml was updated"  # the sibling .yaml; the .md is never changed
    ),
    "trailblaze sim llm": Run(shows="ANTHROPIC_BASE_URL=http://127.0.0.1:"),
    "trailblaze sim llm --port 8787": Run(shows="ANTHROPIC_BASE_URL=http://127.0.0.1:8787"),
    "cat > first.trail.yaml <<'EOF'": _RECORD_DEMO,
    "ANTHROPIC_BASE_URL=http://127.0.0.1:8787 trailblaze record first.trail.yaml --device sim:android "
    "--secret password=hunter2": _RECORD_DEMO,
    "trailblaze replay first.trail.yaml --device sim:android --secret password=hunter2": _RECORD_DEMO,
    "python benchmarks/record_replay_20.py": Elsewhere(
        "hand: a benchmark (minutes on both platforms) that prints figures; here only `--help` runs"
    ),
    "trailblaze replay trails/ --device android --install app-debug.apk": Elsewhere(
        "tests/test_install_permissions.py, which replays with --install of an APK on the simulated phone"
    ),
    # README: commands, tools, CI
    "trailblaze devices": Run(shows="android:emulator-5554"),
    "trailblaze -V": Run(shows="trailblaze, version "),
    'eval "$(_TRAILBLAZE_COMPLETE=bash_source trailblaze)"': Run(),
    "trailblaze tool '{demo_signIn: {email: user@example.com, password: \"{{password}}\"}}' "
    "--device sim:android --secret password=hunter2": Run(shows="signed in as user@example.com"),
    "trailblaze init --app-id dev.trailblaze.demo": Run(shows="created .github/workflows/trailblaze.yml"),
    "trailblaze replay trails/ --device android --secret password --junit junit.xml --report report.html": Run(
        shows="1 trail: 1 passed"
    ),
    # README: pytest
    "pytest trails/": Run(shows="1 passed"),
    "pytest trails/ -m smoke": Run(shows="1 passed"),
    "pytest tests/": Run(shows="2 passed"),
    "pytest e2e/": Run(shows="1 passed"),
    "pytest tests/data/pytest/trails/email.trail.yaml --device sim:android:demo@v2 "
    "--trailblaze-element-timeout 1": Run(code=1, shows="trail demo/email failed on sim:android:demo@v2"),
    # --help epilogs
    "trailblaze init my-app --app-id com.example.app --platform ios --shards 4": Run(
        shows="created my-app/trails/example.trail.yaml"
    ),
    "trailblaze validate trails/": Run(shows="all valid"),
    "trailblaze validate trails/login.trail.yaml": Run(shows="1 file checked, all valid"),
    "trailblaze sim ios --port 18100 --app demo@v2": Run(shows="http://127.0.0.1:18100"),
    "trailblaze report .trailblaze/runs/20250101-120000 -o report.html --junit junit.xml": Run(
        shows="junit:  junit.xml"
    ),
    "trailblaze snapshot --device android:emulator-5554 --screenshot s.png --set-of-mark": Run(
        shows='EditText "Email"'
    ),
    "trailblaze tool pressBack --device sim:android": Run(shows="OK"),
    "trailblaze tool '{tapOnElementBySelector: {nodeSelector: {iosMaestro: {resourceIdRegex: email}}}}' "
    "--device sim:ios": Run(shows='OK tapped TextField "Email"'),
    "trailblaze tool '{tapOnElementBySelector: {nodeSelector: {androidAccessibility: "
    '{resourceIdRegex: ".*sign_in"}}}}\' --device sim:android': Run(shows="OK tapped"),
    "ANTHROPIC_API_KEY=... trailblaze record trails/login.trail.yaml --device sim:android "
    "--secret password=hunter2": Run(shows="5/5 steps passed"),
    "trailblaze record trails/login.trail.yaml --device android --rerecord --secret password": Run(
        shows="verified by replay"
    ),
    "trailblaze record trails/login.trail.yaml --device sim:ios --step 3 --secret password=hunter2": Run(
        shows="verified by replay"
    ),
    _DEMO_SETUP: Run(shows="1 trail: 1 passed"),
    "trailblaze replay trails/ --device android --secret password --junit junit.xml --tags smoke": Run(
        shows="1 trail: 1 passed"
    ),
    "trailblaze replay trails/login.trail.yaml --device sim:ios:demo@v2 --secret password=hunter2 "
    "--self-heal": Run(shows="passed-with-self-heal"),
}


def _plan(command: str) -> Run | Elsewhere:
    return PLAN[command.split("\n", 1)[0]]  # a heredoc is planned by its first line


def _examples() -> list[Example]:
    seen: set[tuple[str, ...]] = set()
    unique = []
    for example in readme_examples() + help_examples():
        if example.commands not in seen:  # the same script in two places runs once
            seen.add(example.commands)
            unique.append(example)
    return unique


EXAMPLES = _examples()


def test_every_example_has_a_plan() -> None:
    commands = {c.split("\n", 1)[0] for e in EXAMPLES for c in e.commands}
    assert commands - set(PLAN) == set(), "new examples: add them to PLAN"
    assert set(PLAN) - commands == set(), "PLAN names examples that are gone"
    assert len(EXAMPLES) >= 35  # the parser still finds them all


def test_no_example_takes_the_real_adb_servers_port() -> None:
    # 5037 is where the real adb server (and `trailblaze devices`) listens: a simulator there clashes.
    assert [c for e in EXAMPLES for c in e.commands if re.search(r"\b5037\b", c)] == []


def test_the_benchmark_example_exists_and_parses_its_options() -> None:
    done = subprocess.run([sys.executable, "benchmarks/record_replay_20.py", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0 and "--runs" in done.stdout, done.stderr


def test_the_readme_tool_excerpt_is_from_the_demo_tools() -> None:
    (excerpt,) = [block for block in readme_blocks("python") if "@trailblaze.tool" in block]
    source = (ROOT / "trails" / "tools" / "demo.py").read_text()
    for line in excerpt.splitlines()[1:]:  # after the `# trails/tools/demo.py` caption
        assert line.strip() == "..." or line.removesuffix('"""') in source, line


# --- running them ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model() -> Iterator[str]:
    """The local model every example that needs one talks to (the demo policy, as `trailblaze sim llm`)."""
    api = FakeMessagesAPI(policy=demo_policy, keep_requests=False)
    try:
        yield api.url
    finally:
        api.close()


def test_examples_run_as_written(model: str, tmp_path: Path) -> None:
    # The examples are independent (own folder, own phone, own ports) and mostly wait on the device:
    # run four at a time.
    runnable = [e for e in EXAMPLES if not all(isinstance(_plan(c), Elsewhere) for c in e.commands)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        problems = list(
            pool.map(lambda ie: _run_example(ie[1], model, tmp_path / f"ex{ie[0]}"), enumerate(runnable))
        )
    failed = [p for p in problems if p and not p.startswith(_SKIPPED)]
    assert not failed, f"{len(failed)} of {len(runnable)} examples failed:\n\n" + "\n\n".join(failed)
    skipped = [p.removeprefix(_SKIPPED) for p in problems if p and p.startswith(_SKIPPED)]
    if skipped:  # the others passed; these need a program this machine lacks
        pytest.skip(
            f"{len(runnable) - len(skipped)} examples passed, {len(skipped)} not run: " + "; ".join(skipped)
        )


_SKIPPED = "skipped: "


def _run_example(example: Example, model: str, folder: Path) -> str | None:
    """Runs one example's script; None when every command did what PLAN says, else what went wrong
    (or why it was not run)."""
    from trailblaze.sim.runtime import start_simulator

    ports = {p: str(_free_port()) for c in example.commands for p in re.findall(r"--port (\d+)", c)}

    def local(text: str) -> str:  # the README's ports become free ones: examples run in parallel
        for old, new in ports.items():
            text = re.sub(rf"\b{old}\b", new, text)
        return text

    if any(c.startswith("adb ") for c in example.commands):
        try:
            require("adb", _WHEEL_ADB, why=f"{example.where}")
        except pytest.skip.Exception as exc:
            return f"{_SKIPPED}{exc.msg}"
    project = _project(folder, runs="trailblaze report" in " ".join(example.commands))
    phone = start_simulator("android", "demo")  # `--device android` in this example
    servers: list[subprocess.Popen[str]] = []
    env = _environment(model, phone.port)
    try:
        for written in example.commands:
            plan, command = _plan(written), local(written)
            assert isinstance(plan, Run), f"{written!r} is planned as run elsewhere, in a script run here"
            if command.startswith("trailblaze sim "):  # a foreground server: up while the script runs
                proc = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=project, env=env, text=True,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
                servers.append(proc)
                output, code = _first_line(proc), 0
            else:
                done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", command], cwd=project, env=env,
                                      capture_output=True, text=True, timeout=300)  # fmt: skip
                output, code = done.stdout + done.stderr, done.returncode
            if code != plan.code or local(plan.shows) not in output or "Traceback" in output:
                return f"{example.where}: {command}\nexit {code} (want {plan.code}, showing {local(plan.shows)!r}):\n{output}"
        return None
    finally:
        for proc in servers:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.communicate(timeout=30)
        phone.stop()


_WHEEL_ADB = Path(adbutils.__file__).parent / "binaries" / "adb"


def _environment(model: str, adb_port: int) -> dict[str, str]:
    env = {
        **os.environ,
        # the venv's programs; Debian's adb, else the one the adbutils wheel ships
        "PATH": os.pathsep.join(
            [str(Path(sys.executable).parent), os.environ.get("PATH", ""), str(_WHEEL_ADB.parent)]
        ),
        "ANTHROPIC_BASE_URL": model,
        "ANDROID_ADB_SERVER_PORT": str(adb_port),
        "TRAILBLAZE_SECRET_PASSWORD": "hunter2",
        "COLUMNS": "200",
    }
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("TRAILBLAZE_DEVICE", None)
    for name in [n for n in env if n.startswith("PYTEST_")]:  # this run's xdist worker id, addopts, …
        del env[name]
    return env


def _project(folder: Path, *, runs: bool) -> Path:
    (folder / "trails").mkdir(parents=True)
    shutil.copy(ROOT / "trails" / "login.trail.yaml", folder / "trails")
    shutil.copy(ROOT / "trails" / "conftest.py", folder / "trails")
    shutil.copytree(
        ROOT / "trails" / "tools", folder / "trails" / "tools", ignore=shutil.ignore_patterns("__pycache__")
    )
    data = folder / "tests" / "data" / "pytest" / "trails"
    data.mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "data" / "pytest" / "trails" / "email.trail.yaml", data)
    (folder / "e2e").mkdir()
    shutil.copy(ROOT / "tests" / "data" / "pytest" / "trails" / "email.trail.yaml", folder / "e2e")
    (test,) = [b for b in readme_blocks("python") if "def test_" in b]
    (conftest,) = [b for b in readme_blocks("python") if "def llm" in b]
    (folder / "tests" / "test_readme_example.py").write_text(test)
    (folder / "tests" / "conftest.py").write_text(conftest)
    (markdown,) = readme_blocks("markdown")
    (folder / "login.trail.md").write_text(markdown)
    if runs:
        build_run_dir(folder / ".trailblaze" / "runs" / "20250101-120000")  # what `report RUN_DIR` reads
    return folder


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _first_line(proc: subprocess.Popen[str]) -> str:
    """What a server prints first (how to connect), or its error output if it stopped."""
    assert proc.stdout is not None and proc.stderr is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            return proc.stdout.readline()
        if proc.poll() is not None:
            break
    return f"(no first line; exit {proc.poll()}) {proc.stderr.read() if proc.poll() is not None else ''}"
