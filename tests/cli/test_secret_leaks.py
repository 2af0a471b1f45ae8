"""Secrets never leave the process (issue 12, items 1–2): the leak scan across every way to run.

Two secrets are used at once: `token`, a plain one, and `password`, one made of the characters
every format escapes (`& < > "`, non-ASCII, `% + / =`). Both are typed into the visible Email
field (the Password field masks what it shows), then a later step fails, so the closest-candidate
list, the error, the hierarchy dumps and the agent's screen text all hold them. Each command runs
in a subprocess on both simulated platforms; every file of the run directory, the report, the
JUnit file, stdout / stderr and every request body `FakeMessagesAPI` received are scanned for
every spelling (tests/support/leak_scan.py). The total is printed; it must be 0 occurrences.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.leak_scan import LeakScan
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy

pytestmark = pytest.mark.slow

SECRETS = {"password": 'p&<>"Äß%+/=x9', "token": "plainTok3n-0815"}
PLATFORMS = ("android", "ios")
FAST = ["--element-timeout", "0.3"]

_TYPE = {
    "android": """\
        - tapOnElementBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: 'dev.trailblaze.demo:id/email'}}}
        - inputText: {text: '{{password}} {{token}}'}
        - tapOnElementBySelector: {nodeSelector: {androidAccessibility: {resourceIdRegex: 'dev.trailblaze.demo:id/password'}}}
        - inputText: {text: '{{password}}'}
""",
    "ios": """\
        - tapOnElementBySelector: {nodeSelector: {iosMaestro: {resourceIdRegex: email}}}
        - inputText: {text: '{{password}} {{token}}'}
        - tapOnElementBySelector: {nodeSelector: {iosMaestro: {resourceIdRegex: password}}}
        - inputText: {text: '{{password}}'}
""",
}
_MISSING = {
    "android": "        - tapOnElementBySelector: {nodeSelector: {androidAccessibility: {textRegex: 'Passw.*'}}}\n",
    "ios": "        - tapOnElementBySelector: {nodeSelector: {iosMaestro: {accessibilityTextRegex: 'Passw.*'}}}\n",
}


def leak_trail(*, recorded_typing: bool = True) -> str:
    """Launch, type both secrets into Email (and one into Password), check the screen, then fail."""
    launch = "".join(
        f"      {p}:\n        - launchApp: {{appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}}\n"
        for p in PLATFORMS
    )
    typing = "".join(f"      {p}:\n{_TYPE[p]}" for p in PLATFORMS)
    missing = "".join(f"      {p}:\n{_MISSING[p]}" for p in PLATFORMS)
    text = "config:\n  id: leak/probe\ntrail:\n"
    text += f"  - step: Launch the demo app with a clean state\n    recording:\n{launch}"
    if recorded_typing:
        text += f"  - step: Type the secrets into the Email and Password fields\n    recording:\n{typing}"
    else:  # the agent types it, from the template the demo policy reads off the objective
        text += "  - step: Type the password from the secret `password` into the Email field\n"
    text += '  - verify: The "Forgot password?" link is shown\n'
    text += f"  - step: Tap the Forgot button\n    recording:\n{missing}"
    return text


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(policy=demo_policy) as server:
        yield server


@pytest.fixture(scope="module")
def scan() -> Iterator[LeakScan]:
    result = LeakScan(SECRETS)
    yield result
    print(f"\nleak scan: {result.scans} scans, {len(result.occurrences)} occurrences")


def _env(api: FakeMessagesAPI) -> dict[str, str]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": api.url, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    # the secrets come from the environment, so they are not on the command line (issue 12 item 4)
    env.update({f"TRAILBLAZE_SECRET_{k.upper()}": v for k, v in SECRETS.items()})
    return env


def _run(api: FakeMessagesAPI, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, *args], env=_env(api), capture_output=True, timeout=240, cwd=cwd)


def _secret_flags() -> list[str]:
    return [a for name in SECRETS for a in ("--secret", name)]


def _scan_outputs(scan: LeakScan, label: str, done: subprocess.CompletedProcess[bytes], *paths: Path) -> None:
    scan.data(f"{label} stdout", done.stdout)
    scan.data(f"{label} stderr", done.stderr)
    for path in paths:
        assert path.exists(), (path, done.stdout.decode(), done.stderr.decode())
        scan.path(path)


def _check(scan: LeakScan, before: int) -> None:
    new = scan.occurrences[before:]
    assert not new, scan.report()


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("heal", [False, True], ids=["replay", "replay-self-heal"])
def test_replay_leaks_nothing(
    platform: str, heal: bool, api: FakeMessagesAPI, scan: LeakScan, tmp_path: Path
) -> None:
    trail = tmp_path / "leak.trail.yaml"
    trail.write_text(leak_trail())
    before = len(scan.occurrences)
    run, junit, report = tmp_path / "run", tmp_path / "junit.xml", tmp_path / "report.html"
    done = _run(
        api, "-m", "trailblaze", "replay", str(trail), "--device", f"sim:{platform}", *_secret_flags(), *FAST,
        "--run-dir", str(run), "--junit", str(junit), "--report", str(report), *(["--self-heal"] if heal else []),
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr.decode()
    stdout = done.stdout.decode()
    assert "closest on screen" in stdout or heal, stdout  # the failure the candidates come from
    _scan_outputs(scan, f"replay {platform}", done, run, junit, report, trail)
    assert scan.requests(api) > 0  # the agent saw the screen with both secrets typed into Email
    assert "{{password}}" in (run / "run.json").read_text(encoding="utf-8")  # redacted, not dropped
    _check(scan, before)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_record_leaks_nothing(platform: str, api: FakeMessagesAPI, scan: LeakScan, tmp_path: Path) -> None:
    trail = tmp_path / "leak.trail.yaml"
    trail.write_text(leak_trail(recorded_typing=False))
    before = len(scan.occurrences)
    run = tmp_path / "run"
    done = _run(
        api, "-m", "trailblaze", "record", str(trail), "--device", f"sim:{platform}", *_secret_flags(), *FAST,
        "--run-dir", str(run),
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr.decode()
    _scan_outputs(scan, f"record {platform}", done, run, trail)
    assert scan.requests(api) > 0
    # The agent's typing is kept as the template (the trail itself is written only when the whole
    # record passes its proof replay, which the failing last step prevents on iOS).
    assert "{{password}}" in (run / "run.json").read_text(encoding="utf-8")
    _check(scan, before)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_tool_leaks_nothing(platform: str, api: FakeMessagesAPI, scan: LeakScan, tmp_path: Path) -> None:
    """The selector itself holds both secrets: the NOT_FOUND message quotes it."""
    key = "androidAccessibility" if platform == "android" else "iosMaestro"
    tool = f"{{tapOnElementBySelector: {{nodeSelector: {{{key}: {{textRegex: '{{{{password}}}}{{{{token}}}}'}}}}}}}}"
    if platform == "ios":
        tool = tool.replace("textRegex", "accessibilityTextRegex")
    before = len(scan.occurrences)
    done = _run(api, "-m", "trailblaze", "tool", tool, "--device", f"sim:{platform}", *_secret_flags(), *FAST)
    assert done.returncode == 1, done.stderr.decode()
    assert b"NOT_FOUND" in done.stdout and b"{{password}}" in done.stdout, done.stdout
    _scan_outputs(scan, f"tool {platform}", done)
    _check(scan, before)


_PYTEST_FILE = """
import os


def test_replay_through_the_fixture(trail_runner):
    trail_runner.replay("trails/leak.trail.yaml").assert_passed()


def test_user_code_that_prints_a_secret(trailblaze_secrets):
    print("typed", trailblaze_secrets["password"], trailblaze_secrets["token"])
    assert trailblaze_secrets["password"] == "something else"
"""


@pytest.mark.parametrize("platform", PLATFORMS)
def test_pytest_leaks_nothing(platform: str, api: FakeMessagesAPI, scan: LeakScan, tmp_path: Path) -> None:
    (tmp_path / "trails").mkdir()
    (tmp_path / "trails" / "leak.trail.yaml").write_text(leak_trail())
    (tmp_path / "test_leak.py").write_text(_PYTEST_FILE)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    before = len(scan.occurrences)
    report, junit = tmp_path / "report", tmp_path / "junit.xml"
    done = _run(
        api, "-m", "pytest", "trails", "test_leak.py", "--device", f"sim:{platform}",
        *[a for name in SECRETS for a in ("--trailblaze-secret", name)],
        "--trailblaze-element-timeout", "0.3", "--trailblaze-report", str(report), f"--junitxml={junit}",
        "-rA", "-vv", "--showlocals", cwd=tmp_path,
    )  # fmt: skip
    out = done.stdout.decode()
    assert done.returncode == 1 and "3 failed" in out, out + done.stderr.decode()
    assert "closest candidates on screen" in out and "{{password}}" in out
    _scan_outputs(scan, f"pytest {platform}", done, tmp_path)  # report/, junit.xml, every artifact
    assert scan.requests(api) > 0
    _check(scan, before)
