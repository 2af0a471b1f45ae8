"""`trailblaze record --ask`: the model asks, the person answers on the terminal (docs/adr/0016).

The CLI runs in a subprocess whose stdin/stdout are a pseudo-terminal; the model is the local
Messages-API fake answering with the demo policy, plus one `askUser` call."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy

TRAIL = """\
config:
  id: ask/email
trail:
  - step: Launch the demo app with a clean state
  - step: Type user@example.com into the Email field
"""
QUESTION = "Which account should I sign in with?"
ANSWER = "the test account user@example.com, password hunter2"


def _asked(body: dict[str, Any]) -> bool:
    return any(
        b.get("type") == "tool_use" and b["name"] == "askUser"
        for m in body["messages"]
        if m["role"] == "assistant"
        for b in m["content"]
    )


def asking_policy(body: dict[str, Any]) -> Any:
    """The demo policy, but on the Email step it first asks the person once."""
    offered = {t["name"] for t in body.get("tools", [])}
    if "askUser" in offered and "Email field" in json.dumps(body["messages"][0]) and not _asked(body):
        return {"content": [{"type": "tool_use", "name": "askUser", "input": {"question": QUESTION}}]}
    return demo_policy(body)


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI(policy=asking_policy) as server:
        yield server


def command(trail: Path, run_dir: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "trailblaze", "record", str(trail), "--device", "sim:android",
            "--secret", "password=hunter2", "--run-dir", str(run_dir), *extra]  # fmt: skip


def env(api: FakeMessagesAPI) -> dict[str, str]:
    out = {**os.environ, "ANTHROPIC_BASE_URL": api.url, "COLUMNS": "200", "TERM": "dumb"}
    out.pop("ANTHROPIC_API_KEY", None)
    return out


def read_until(fd: int, wanted: bytes, seen: bytearray, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while wanted not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"timed out waiting for {wanted!r}; output so far:\n{seen.decode(errors='replace')}"
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                chunk = b""
            if not chunk:
                raise AssertionError(f"terminal closed before {wanted!r}:\n{seen.decode(errors='replace')}")
            seen += chunk


def drain(fd: int, seen: bytearray) -> None:
    while select.select([fd], [], [], 0.2)[0]:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return
        if not chunk:
            return
        seen += chunk


@pytest.mark.slow
def test_the_answer_typed_into_the_terminal_reaches_the_next_request(
    api: FakeMessagesAPI, tmp_path: Path
) -> None:
    trail = tmp_path / "email.trail.yaml"
    trail.write_text(TRAIL)
    run_dir = tmp_path / "run"
    master, slave = pty.openpty()
    proc = subprocess.Popen(command(trail, run_dir), stdin=slave, stdout=slave, stderr=slave, env=env(api))
    os.close(slave)
    seen = bytearray()
    try:
        read_until(master, b"answer> ", seen)
        assert QUESTION.encode() in seen
        os.write(master, ANSWER.encode() + b"\n")
        code = proc.wait(timeout=120)
        drain(master, seen)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    out = seen.decode(errors="replace")
    assert code == 0, out
    assert "2/2 steps passed" in out

    bodies = api.bodies
    assert all("askUser" in {t["name"] for t in b["tools"]} for b in bodies)  # stdin is a terminal
    asked = next(i for i, b in enumerate(bodies) if _asked(b))
    results = [
        blk for m in bodies[asked]["messages"] if m["role"] == "user" for blk in m["content"]
        if isinstance(blk, dict) and blk.get("type") == "tool_result"
    ]  # fmt: skip
    answer = results[-1]
    assert not answer.get("is_error", False)
    content = json.dumps(answer["content"])
    assert "the person answered: the test account user@example.com, password {{password}}" in content
    # the exchange is in the transcript, redacted; the secret is nowhere; askUser is never recorded
    assert not any("hunter2" in json.dumps(b) for b in bodies)
    files = [f for f in run_dir.rglob("*") if f.is_file()]
    assert all(b"hunter2" not in f.read_bytes() for f in files)
    transcripts = "".join(f.read_text() for f in run_dir.rglob("*.json"))
    assert QUESTION in transcripts and "the person answered: the test account" in transcripts
    text = trail.read_text()
    assert "askUser" not in text and "inputText" in text and "user@example.com" in text


@pytest.mark.slow
def test_without_a_terminal_the_tool_is_not_offered(api: FakeMessagesAPI, tmp_path: Path) -> None:
    trail = tmp_path / "email.trail.yaml"
    trail.write_text(TRAIL)
    done = subprocess.run(
        command(trail, tmp_path / "run"), stdin=subprocess.DEVNULL, capture_output=True, text=True,
        env=env(api), timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert api.bodies and not any("askUser" in {t["name"] for t in b["tools"]} for b in api.bodies)
    assert "answer>" not in done.stdout


def test_record_options_ask_callback_answers_and_is_never_recorded(tmp_path: Path) -> None:
    from trailblaze.device.devices import open_device
    from trailblaze.engine.record import RecordOptions, record_trail
    from trailblaze.llm.client import ToolResultBlock
    from trailblaze.output.rundir import RunDir
    from trailblaze.testing import ScriptedLLM, tool
    from trailblaze.tools.memory import Memory

    questions: list[str] = []

    def ask(question: str) -> str:
        questions.append(question)
        return "dev.trailblaze.demo"

    llm = ScriptedLLM(
        [
            tool("askUser", question="Which app should I launch?"),
            tool("launchApp", appId="dev.trailblaze.demo"),
            tool("objectiveStatus", status="COMPLETED", explanation="launched"),
        ]
    )
    path = tmp_path / "launch.trail.yaml"
    path.write_text("trail:\n  - step: Launch the app the person names\n")
    with open_device("sim:android", latency="zero") as session:
        rundir = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")
        record = record_trail(path, session, lambda: llm, options=RecordOptions(ask=ask), rundir=rundir)
    assert record.status == "passed", record.error
    assert questions == ["Which app should I launch?"]
    assert "askUser" in {t.name for t in llm.requests[0].tools}
    answer = [b for b in llm.requests[1].messages[-1].content if isinstance(b, ToolResultBlock)]
    assert answer[0].content == "OK the person answered: dev.trailblaze.demo" and not answer[0].is_error
    assert [(t.name, t.recorded) for t in record.steps[0].tools] == [
        ("askUser", False),
        ("launchApp", True),
        ("objectiveStatus", False),
    ]
    assert "askUser" not in path.read_text() and "launchApp" in path.read_text()


def test_asker_modes_and_what_the_person_sees() -> None:
    import io

    from trailblaze.agent.ask import asker_for, terminal_asker

    assert asker_for("never", io.StringIO("x\n")) is None
    assert asker_for("auto", io.StringIO("x\n")) is None  # not a terminal: the tool is not offered
    always = asker_for("always", io.StringIO("  blue \n"))
    assert always is not None and always("Which colour?") == "blue"
    out = io.StringIO()
    ask = terminal_asker(io.StringIO(""), out)
    assert ask("Pick\x1b[2J one\nof these?") == ""  # end of input: no answer
    assert out.getvalue() == "\n  ? the agent asks: Pick[2J one of these?\n  answer> "  # no escape codes
