"""`--element-timeout`: the user's bound on polling a selector, through the real `trailblaze` entry
point (in process) against the simulator driven by the real clients.

The bound is read back from what the run reports (the waited time in the NOT_FOUND message and in
run.json) and from the session's dump count, never from how long the test took.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from trailblaze.cli.main import main
from trailblaze.device.devices import open_device, session_options
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import parse_tool

DEFAULT_BOUND = 5.0
_WAITED = re.compile(r"after (\d+\.\d) s")


def _run(*argv: str) -> int:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    code = exited.value.code
    assert isinstance(code, int)
    return code


def _waited(message: str) -> float:
    found = _WAITED.search(message)
    assert found, message
    return float(found.group(1))


def _login_copy(tmp_path: Path) -> Path:
    target = tmp_path / "login.trail.yaml"
    target.write_bytes((ROOT / "trails" / "login.trail.yaml").read_bytes())
    return target


@pytest.mark.parametrize("command", ["replay", "record"])
@pytest.mark.slow
def test_a_failing_recorded_step_waits_the_given_bound(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """demo@v2 renamed "Sign in" to "Log in": the recorded selector never matches, so the tool fails
    once the bound has passed — 0.5 s, not the default 5 s."""
    trail = _login_copy(tmp_path)
    if command == "record":  # the last step unrecorded: record has work (a fully recorded trail has none)
        trail.write_text(trail.read_text().split("  - verify:")[0] + '  - verify: The Inbox screen is shown\n')
    before = trail.read_bytes()
    code = _run(
        command, str(trail), "--device", "sim:android:demo@v2", "--secret", "password=hunter2",
        "--element-timeout", "0.5", "--run-dir", str(tmp_path / "run"),
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1, out
    assert trail.read_bytes() == before
    run = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run["command"][-2:] == ["--element-timeout", "0.5"]
    step = run["trails"][0]["steps"][3]
    assert step["status"] == "failed" and "sign_in" in step["error"]
    failed = [t for t in step["tools"] if t["status"] == "NOT_FOUND"]
    assert failed, step["tools"]
    for tool in failed:
        waited = _waited(tool["message"])
        assert 0.5 <= waited < DEFAULT_BOUND / 2, tool["message"]
        assert tool["duration_ms"] >= 500
    assert f"after {_waited(step['error']):.1f} s" in out


def test_tool_command_honours_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    code = _run("tool", "tapOnElementWithText: {text: Nope}", "--device", "sim:ios", "--element-timeout", "0.3")
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("NOT_FOUND "), out
    assert 0.3 <= _waited(out) < 1.0, out


@pytest.mark.parametrize("command", ["replay", "record", "tool"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_bad_bound_is_a_usage_error(
    command: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "pressBack" if command == "tool" else str(_login_copy(tmp_path))
    code = _run(command, target, "--device", "sim:android", "--element-timeout", value)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Invalid value for '--element-timeout'" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


def test_the_bound_counts_dumps_not_just_seconds() -> None:
    """Polling stops at the bound: a missing element costs about bound / poll_interval dumps."""
    call = parse_tool("tapOnElementWithText: {text: Nope}", "<test>")
    with open_device("sim:android", latency="zero", **session_options(0.6)) as session:
        assert session.resolve_timeout == 0.6
        session.settle()
        before = session.stats.dumps
        result = run_recorded_tool(session, call, Memory())
        dumps = session.stats.dumps - before
    assert result.status == "NOT_FOUND" and 0.6 <= _waited(result.message) < DEFAULT_BOUND / 2
    # polls 25 ms apart, growing by half (at most 0.25 s) until 0.6 s: about 7 dumps, far from the
    # ~25 of a 5 s bound
    assert 2 <= dumps <= 8, dumps
    assert session_options(None) == {}
