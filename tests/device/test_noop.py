"""No-op detection (docs/adr/0016): an action that changes nothing on screen says so, is marked in
run.json and the report, and cannot complete a step on its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from trailblaze.agent.loop import Agent
from trailblaze.device.devices import open_device
from trailblaze.device.noop import NO_CHANGE
from trailblaze.device.session import DeviceSession
from trailblaze.device.settle import same_screen
from trailblaze.engine.record import record_trail
from trailblaze.engine.replay import replay_trail
from trailblaze.llm.client import ToolResultBlock
from trailblaze.output.report import write_html_report
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import load_run
from trailblaze.screen.compact import compact_view
from trailblaze.screen.hierarchy import Hierarchy, parse_hierarchy
from trailblaze.testing import ScriptedLLM, tool, tool_calls
from trailblaze.testing.demo_policy import parse_screen
from trailblaze.tools.execute import ToolResult, run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import parse_tool

APP = "dev.trailblaze.demo"


@pytest.fixture(scope="module")
def session() -> Iterator[DeviceSession]:
    with open_device("sim:android", latency="zero", resolve_timeout=0.5) as s:
        yield s


@pytest.fixture
def login(session: DeviceSession) -> DeviceSession:
    session.act(lambda d: d.launch_app(APP, "CLEAR_STATE"))
    return session


def run(session: DeviceSession, text: str) -> ToolResult:
    return run_recorded_tool(session, parse_tool(text, "<test>"), Memory())


def ref(session: DeviceSession, label: str) -> str:
    for element in parse_screen(compact_view(session.screen()).text):
        if element.label == label:
            return element.ref
    raise AssertionError(f"{label!r} not on screen")


def _android(extra: str) -> Hierarchy:
    return parse_hierarchy(
        '<?xml version="1.0"?><hierarchy rotation="0"><node index="0" class="android.widget.Switch" '
        f'package="p" visible-to-user="true" text="Dark mode" bounds="[0,0][500,100]" {extra} /></hierarchy>'
    )


def test_checked_and_selected_state_are_changes() -> None:
    off, on = _android('checkable="true" checked="false"'), _android('checkable="true" checked="true"')
    assert not same_screen(off, on)
    assert not same_screen(_android('selected="false"'), _android('selected="true"'))
    assert same_screen(_android('focused="false"'), _android('focused="true"'))  # focus is not a change


def test_tool_results_say_no_visible_change(login: DeviceSession) -> None:
    heading = run(login, '{tapOnElementWithText: {text: "Welcome back"}}')
    assert heading.ok and heading.no_change and str(heading).endswith(NO_CHANGE)
    assert str(heading).startswith('OK tapped TextView "Welcome back"')
    swipe = run(login, "{swipe: {direction: UP}}")  # nothing to scroll on the login screen
    assert swipe.ok and swipe.no_change
    # a text field: the second tap only keeps it focused, which is its effect, never a no-op
    first = run(login, '{tapOnElementWithText: {text: "Email"}}')
    again = run(login, '{tapOnElementWithText: {text: "Email"}}')
    assert first.ok and again.ok and not first.no_change and not again.no_change
    assert not run(login, "hideKeyboard").no_change  # not judged at all
    forgot = run(login, '{tapOnElementWithText: {text: "Forgot password"}}')
    assert forgot.ok and not forgot.no_change and NO_CHANGE not in str(forgot)


@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.slow
def test_toggling_a_switch_is_a_change(platform: str) -> None:
    with open_device(f"sim:{platform}", latency="zero") as s:
        from trailblaze.tools.discovery import tools_for
        from trailblaze.trail.model import load_trail

        trail = load_trail(ROOT / "trails" / "settings-dark-mode.trail.yaml")
        mem = Memory(secrets={"password": "hunter2"})
        tools = tools_for(trail.path).tools  # demo_signIn, demo_openTab (trails/tools/)
        for step in trail.steps[:2]:  # sign in, open Settings
            for call in step.recording_for(s.info.classifier) or []:
                assert tools.run(s, call, mem).ok
        calls = trail.steps[3].recording_for(s.info.classifier) or []
        results = [run_recorded_tool(s, call, mem) for call in calls]  # "Turn on the Dark mode switch"
        assert results and all(r.ok and not r.no_change for r in results), results
        again = run_recorded_tool(s, calls[-1], mem)  # turning it off again is a change too
        assert again.ok and not again.no_change


def test_a_step_of_only_no_ops_cannot_complete(login: DeviceSession) -> None:
    heading, forgot = ref(login, "Welcome back"), ref(login, "Forgot password?")
    done = ("objectiveStatus", {"status": "COMPLETED", "explanation": "tapped"})
    llm = ScriptedLLM(
        [
            tool_calls(("tap", {"ref": heading}), done),
            tool("objectiveStatus", status="COMPLETED", explanation="surely done now"),
            tool_calls(("tap", {"ref": forgot}), done),
        ]
    )
    result = Agent(llm, login, Memory(), screenshots=False).run_step('Open "Forgot password?"')
    assert result.status == "COMPLETED" and result.llm_calls == 3

    def results(i: int) -> list[ToolResultBlock]:
        return [b for b in llm.requests[i].messages[-1].content if isinstance(b, ToolResultBlock)]

    tapped, refused = results(1)
    assert not tapped.is_error and tapped.content.endswith("(no visible change)")
    assert (
        refused.is_error and "COMPLETED refused" in refused.content and "no visible change" in refused.content
    )
    (again,) = results(2)
    assert again.is_error and "no visible change" in again.content
    assert [r.outcome.no_change for r in result.runs if r.use.name == "tap"] == [True, False]


NL_STEP = """\
config:
  id: noop/forgot
trail:
  - step: Open "Forgot password?"
"""


@pytest.mark.slow
def test_run_json_report_and_replay_mark_no_ops(login: DeviceSession, tmp_path: Path) -> None:
    heading, forgot = ref(login, "Welcome back"), ref(login, "Forgot password?")
    done = ("objectiveStatus", {"status": "COMPLETED", "explanation": "tapped"})
    llm = ScriptedLLM([tool("tap", ref=heading), tool_calls(("tap", {"ref": forgot}), done)])
    path = tmp_path / "forgot.trail.yaml"
    path.write_text(NL_STEP)
    rundir = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")
    record = record_trail(path, login, lambda: llm, rundir=rundir)
    assert record.status == "passed", record.error

    # replay: the recorded no-op tap still runs and passes, and is marked again
    login.act(lambda d: d.launch_app(APP, "CLEAR_STATE"))
    replayed = replay_trail(path, login, rundir=rundir)
    rundir.finish()
    assert replayed.status == "passed", replayed.error
    recorded, replay = load_run(tmp_path / "run").trails
    taps = [t for t in recorded.steps[0].tools if t.name == "tapOnElementBySelector"]
    assert [(t.no_change, t.recorded) for t in taps] == [(True, True), (False, True)]
    assert [t.no_change for t in replay.steps[0].tools] == [True, False]
    assert taps[0].message.endswith(NO_CHANGE)
    html = write_html_report(tmp_path / "run").read_text()
    assert html.count('class="tag nochange"') == 2


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_example_trails_replay_without_a_single_no_op(platform: str) -> None:
    files = sorted((ROOT / "trails").glob("*.trail.yaml"))
    tools = []
    with open_device(f"sim:{platform}", latency="zero") as s:
        for file in files:
            record = replay_trail(file, s, memory=Memory(secrets={"password": "hunter2"}))
            assert record.status == "passed", record.error
            tools += [t for step in record.steps for t in step.tools]
    assert len(tools) > 40
    assert [t for t in tools if t.no_change] == []
