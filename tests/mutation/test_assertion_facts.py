"""Recorded assertions pin what the step states, and are shown able to fail (docs/adr/0038).

Offline parts (pinning, stated facts, the mutation proof) run on the demo app's real screens
(`demo_screens`, the simulator's own dumps); the agent gate runs the real agent loop on the simulated
device with a scripted model.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.demo_screens import demo_screen
from tests.support.paths import DATA, ROOT
from trailblaze.agent.loop import Agent
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.mutation.facts import stated_facts, uncovered
from trailblaze.mutation.mutants import prove_assertion
from trailblaze.screen.compact import compact_view
from trailblaze.screen.hierarchy import Hierarchy, Node
from trailblaze.testing import ScriptedLLM, tool, tool_calls
from trailblaze.testing.demo_policy import parse_screen
from trailblaze.tools.assertions import pin_assertion, text_matches
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import ToolCall

ANDROID_ID = "dev.trailblaze.demo:id/"


def node(h: Hierarchy, short_id: str) -> Node:
    return next(n for n in h.nodes if n.resource_id.rsplit("/", 1)[-1] == short_id)


def assert_call(params: dict[str, object]) -> ToolCall:
    return ToolCall(name="assertVisibleBySelector", params=params)


# --- what an assertion pins -----------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_an_assertion_pins_the_text_it_saw(platform: str) -> None:
    h = demo_screen("detail", platform)
    pinned = pin_assertion(node(h, "message_body"), h)
    assert pinned.params is not None
    assert pinned.params["expectedText"] == "This is message 3."
    branch = "androidAccessibility" if platform == "android" else "iosMaestro"
    rid = f"{ANDROID_ID}message_body" if platform == "android" else "message_body"
    assert pinned.params["nodeSelector"] == {branch: {"resourceIdRegex": rid}}


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_switch_assertion_pins_its_state_on_both_platforms(platform: str) -> None:
    h = demo_screen("settings", platform)
    dark, notes = pin_assertion(node(h, "dark_mode"), h), pin_assertion(node(h, "notifications"), h)
    assert dark.params is not None and notes.params is not None
    key = "isChecked" if platform == "android" else "checked"  # iOS: WDA's value "0"/"1", mapped
    branch = "androidAccessibility" if platform == "android" else "iosMaestro"
    assert dark.params["nodeSelector"][branch][key] is False
    assert notes.params["nodeSelector"][branch][key] is True
    assert dark.params["expectedText"] == "Dark mode"


def test_a_stated_fact_that_the_screen_contradicts_is_refused_not_recorded() -> None:
    h = demo_screen("settings", "ios")
    wrong_state = pin_assertion(node(h, "dark_mode"), h, state={"checked": True})
    assert wrong_state.params is None and "off (unchecked) on the screen, not on" in str(wrong_state.problem)
    h = demo_screen("detail", "android")
    wrong_text = pin_assertion(node(h, "message_body"), h, expected_text="This is message 4.")
    assert wrong_text.params is None
    assert "shows 'This is message 3.', not 'This is message 4.'" in str(wrong_text.problem)


def test_widening_is_explicit_and_recorded_as_a_regex() -> None:
    h = demo_screen("inbox", "android")
    clock = node(h, "clock")
    pinned = pin_assertion(clock, h, text_pattern=r"\d\d:\d\d:\d\d")
    assert pinned.params is not None
    assert pinned.params["expectedText"] == r"\d\d:\d\d:\d\d" and pinned.params["textMatchMode"] == "REGEX"
    assert pin_assertion(clock, h, text_pattern=r"\d\d").problem is not None  # must match what it shows


def test_text_match_modes() -> None:
    body = node(demo_screen("detail", "android"), "message_body")
    assert text_matches(body, " This is message 3. ")  # trimmed, as Trailblaze compares
    assert not text_matches(body, "this is message 3.")  # case-sensitive
    assert text_matches(body, "This is", "PREFIX") and not text_matches(body, "is message", "PREFIX")
    assert text_matches(body, r"This is message \d\.", "REGEX") and not text_matches(body, r"message \d", "REGEX")


# --- the facts a verify step states ---------------------------------------------------------------


def test_stated_facts_read_quotes_and_states() -> None:
    facts = stated_facts('The "Dark mode" switch is off and the "Notifications" switch is on')
    assert [(f.text, f.state) for f in facts] == [
        ("Dark mode", ("checked", False)),
        ("Notifications", ("checked", True)),
    ]
    assert [f.text for f in stated_facts('The heading "Message 3" and the body "This is message 3."')] == [
        "Message 3",
        "This is message 3.",
    ]
    assert [f.state for f in stated_facts("The Send button is disabled")] == [("enabled", False)]
    assert stated_facts("The results are shown on the screen") == []  # "on the screen" is a place


def test_uncovered_names_each_fact_no_assertion_checks() -> None:
    text = 'The "Dark mode" switch is off and the "Notifications" switch is on'
    by_id = assert_call({"nodeSelector": {"iosMaestro": {"resourceIdRegex": "dark_mode"}}})
    pinned = assert_call({"nodeSelector": {"iosMaestro": {"resourceIdRegex": "dark_mode", "checked": False}}, "expectedText": "Dark mode"})
    wrong_state = assert_call({"nodeSelector": {"iosMaestro": {"resourceIdRegex": "notifications", "checked": False}}, "expectedText": "Notifications"})
    assert [f.describe() for f in uncovered(text, [by_id])] == ['"Dark mode" is off', '"Notifications" is on']
    assert [f.describe() for f in uncovered(text, [pinned, wrong_state])] == ['"Notifications" is on']
    gone = ToolCall(name="assertNotVisibleWithText", params={"text": "Message 3"})
    assert uncovered('The inbox no longer lists "Message 3"', [gone]) == []


# --- the mutation proof ---------------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_an_id_only_assertion_on_an_element_with_text_cannot_fail(platform: str) -> None:
    h = demo_screen("detail", platform)
    branch = "androidAccessibility" if platform == "android" else "iosMaestro"
    rid = f"{ANDROID_ID}message_body" if platform == "android" else "message_body"
    weak = prove_assertion(assert_call({"nodeSelector": {branch: {"resourceIdRegex": rid}}}), h)
    assert weak.status == "cannot-fail" and weak.survived == ("text",)
    assert "checks only that TextView 'This is message 3.' (message_body) exists" in weak.message or (
        "checks only that StaticText 'This is message 3.' (message_body) exists" in weak.message
    )
    strong = prove_assertion(
        assert_call({"nodeSelector": {branch: {"resourceIdRegex": rid}}, "expectedText": "This is message 3."}), h
    )
    assert strong.status == "can-fail" and strong.killed == ("text", "removed")
    anything = prove_assertion(
        assert_call({"nodeSelector": {branch: {"resourceIdRegex": rid}}, "expectedText": ".*", "textMatchMode": "REGEX"}),
        h,
    )
    assert anything.status == "cannot-fail"  # a widening that accepts every text is caught too


def test_a_switch_assertion_without_its_state_cannot_fail_on_ios() -> None:
    h = demo_screen("settings", "ios")
    weak = prove_assertion(assert_call({"nodeSelector": {"iosMaestro": {"resourceIdRegex": "dark_mode"}}, "expectedText": "Dark mode"}), h)
    assert weak.status == "cannot-fail" and weak.survived == ("checked",)
    assert "still passes when its switch flips" in weak.message
    strong = prove_assertion(
        assert_call({"nodeSelector": {"iosMaestro": {"resourceIdRegex": "dark_mode", "checked": False}}, "expectedText": "Dark mode"}), h
    )
    assert strong.status == "can-fail" and "checked" in strong.killed


def test_absence_and_duplicates_and_screen_left_unchanged() -> None:
    h = demo_screen("inbox", "android")
    before = [(n.text, n.label, n.checked, n.on_screen) for n in h.nodes]
    gone = prove_assertion(ToolCall(name="assertNotVisibleWithText", params={"text": "Message 99"}), h)
    assert gone.status == "can-fail" and gone.killed == ("shown",)
    # "Inbox" is both the heading and a tab: a bare text assertion still passes with either changed
    loose = prove_assertion(ToolCall(name="assertVisibleWithText", params={"text": "Inbox"}), h)
    assert loose.status == "cannot-fail" and loose.survived
    assert [(n.text, n.label, n.checked, n.on_screen) for n in h.nodes] == before
    fails = prove_assertion(assert_call({"nodeSelector": {"androidAccessibility": {"textRegex": "Nope"}}}), h)
    assert fails.status == "does-not-hold"


# --- the agent: a verify step's COMPLETED needs its facts asserted ----------------------------------


@pytest.fixture(scope="module")
def settings() -> Iterator[DeviceSession]:
    with open_device("sim:ios", latency="zero", resolve_timeout=0.5) as s:
        s.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
        h = s.screen()
        for short_id, text in (("email", "user@example.com"), ("password", "hunter2")):
            x, y = node(h, short_id).center
            s.act(lambda d, x=x, y=y: d.tap(x, y))
            s.act(lambda d, t=text: d.input_text(t))
            h = s.screen()
        x, y = node(h, "sign_in").center
        s.act(lambda d: d.tap(x, y))
        x, y = node(s.screen(), "tab_settings").center
        s.act(lambda d: d.tap(x, y))
        yield s


def ref(session: DeviceSession, label: str) -> str:
    return next(e.ref for e in parse_screen(compact_view(session.screen()).text) if e.label == label)


@pytest.mark.slow
def test_an_assertion_by_ref_without_text_records_the_text_and_state_it_saw(settings: DeviceSession) -> None:
    llm = ScriptedLLM(
        [
            tool_calls(
                ("assertVisible", {"ref": ref(settings, "Dark mode")}),
                ("assertVisible", {"ref": ref(settings, "Notifications")}),
                ("objectiveStatus", {"status": "COMPLETED", "explanation": "both shown"}),
            )
        ]
    )
    agent = Agent(llm, settings, Memory(), screenshots=False)
    result = agent.run_step('The "Dark mode" switch is off and the "Notifications" switch is on', verify=True)
    assert result.status == "COMPLETED", result.explanation
    assert [c.params for c in result.recorded] == [
        {"nodeSelector": {"iosMaestro": {"resourceIdRegex": "dark_mode", "checked": False}}, "expectedText": "Dark mode"},
        {"nodeSelector": {"iosMaestro": {"resourceIdRegex": "notifications", "checked": True}}, "expectedText": "Notifications"},
    ]


@pytest.mark.slow
def test_completed_is_refused_until_every_stated_fact_is_asserted(settings: DeviceSession) -> None:
    llm = ScriptedLLM(
        [
            tool_calls(
                ("assertVisible", {"ref": ref(settings, "Sign out")}),  # true, but not what the step states
                ("objectiveStatus", {"status": "COMPLETED", "explanation": "done"}),
            ),
            tool_calls(
                ("assertState", {"ref": ref(settings, "Dark mode"), "checked": True}),  # the app says off
                ("objectiveStatus", {"status": "COMPLETED", "explanation": "done"}),
            ),
            tool("objectiveStatus", status="FAILED", explanation="Dark mode is off"),
        ]
    )
    agent = Agent(llm, settings, Memory(), screenshots=False)
    result = agent.run_step('The "Dark mode" switch is on', verify=True)
    assert result.status == "FAILED"
    refusals = [r.outcome for r in result.runs]
    first_completed = next(
        b.content for m in llm.requests[1].messages for b in m.content if getattr(b, "is_error", False)
    )
    assert 'states facts no assertion checks: "Dark mode" is on' in first_completed
    assert refusals[2].status == "ERROR" and "is off (unchecked) on the screen, not on" in refusals[2].message


# --- record: the proof replay is followed by the mutation proof -----------------------------------


@pytest.mark.slow
def test_record_does_not_write_a_trail_whose_assertion_cannot_fail(tmp_path) -> None:  # type: ignore[no-untyped-def]

    import yaml

    from trailblaze.engine.options import RunInputs
    from trailblaze.engine.record import RecordOptions, record_trail
    from trailblaze.testing.demo_policy import demo_llm

    root = ROOT
    data = yaml.safe_load((root / "trails" / "login.trail.yaml").read_text())
    data["trail"][-1]["recording"]["android"] = [  # the tab "Inbox" exists: that is all this checks
        {"assertVisibleBySelector": {"nodeSelector": {"androidAccessibility": {"resourceIdRegex": f"{ANDROID_ID}tab_inbox"}}}}
    ]
    path = tmp_path / "login.trail.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    before = path.read_bytes()
    with open_device("sim:android", latency="zero") as session:
        record = record_trail(
            path, session, demo_llm, inputs=RunInputs(secrets={"password": "hunter2"}), options=RecordOptions(steps=(4,))
        )
    assert record.status == "failed" and record.verification == "failed"
    note = str(record.verification_note)
    assert note.startswith("NOT verified: 1 recorded assertion cannot fail (step 5: assertVisibleBySelector")
    assert "does not check TextView 'Inbox' (tab_inbox): it still passes when its text changes or it is no longer selected" in note
    assert path.read_bytes() == before  # the trail is not written as verified
    # with the assertion pinned, the same record is verified and says how many assertions can fail
    pinned = data["trail"][-1]["recording"]["android"][0]["assertVisibleBySelector"]
    pinned["expectedText"] = "Inbox"
    pinned["nodeSelector"]["androidAccessibility"]["isSelected"] = True
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with open_device("sim:android", latency="zero") as session:
        record = record_trail(
            path, session, demo_llm, inputs=RunInputs(secrets={"password": "hunter2"}), options=RecordOptions(steps=(4,))
        )
    assert record.verification == "verified", record.verification_note
    assert str(record.verification_note).endswith("· 1 assertion shown to fail")


def test_web_assertions_pin_text_checked_and_selected() -> None:
    """On a page (a DOM walk the web driver saved, TodoMVC filtered to Active): a checkbox's state, the
    selected filter link and a field's text are pinned, and proven able to fail."""

    from trailblaze.screen.web_hierarchy import parse_web_dump

    source = (DATA / "web" / "todomvc-active-dump.json").read_text()
    h = parse_web_dump(source)
    toggle_all = next(n for n in h.nodes if n.resource_id == "toggle-all")
    active = next(n for n in h.nodes if n.class_name == "link" and n.label == "Active")
    pinned = pin_assertion(toggle_all, h)
    assert pinned.params == {
        "nodeSelector": {"web": {"dataTestId": "toggle-all", "checked": False}},
        "expectedText": "Mark all as complete",
    }
    link = pin_assertion(active, h)
    assert link.params == {"nodeSelector": {"web": {"ariaNameRegex": "Active", "selected": True}}}
    for params, killed in ((pinned.params, ("text", "checked", "removed")), (link.params, ("text", "selected", "removed"))):
        verdict = prove_assertion(assert_call(params), h)
        assert verdict.status == "can-fail" and verdict.killed == killed, verdict.message
    weak = prove_assertion(assert_call({"nodeSelector": {"web": {"dataTestId": "toggle-all"}}}), h)
    assert weak.status == "cannot-fail" and set(weak.survived) == {"text", "checked"}


# --- validate warns, check judges ------------------------------------------------------------------


@pytest.mark.slow
def test_validate_warns_and_check_names_assertions_that_cannot_fail(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.support.cli import copy_example, trailblaze

    trail = copy_example("open-message.trail.yaml", tmp_path)
    text = trail.read_text()
    weak = text.replace("            expectedText: This is message 2.\n", "")
    assert weak != text
    trail.write_text(weak)
    checked = trailblaze("validate", str(trail))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    line = next(i for i, ln in enumerate(weak.splitlines(), 1) if "verify: The message detail shows the body" in ln)
    col = weak.splitlines()[line - 1].index('"This is message 2."') + 1
    assert (
        f"{trail}:{line}:{col}: warning: step 3 (android) states \"This is message 2.\" but no recorded assertion checks it"
        in checked.stdout
    )
    assert "2 warnings on unchecked facts" in checked.stdout
    runs = tmp_path / "runs"
    replayed = trailblaze("replay", str(trail), "--device", "sim:android", "--secret", "password=hunter2",
                          "--run-dir", str(runs / "r1"))  # fmt: skip
    assert replayed.returncode == 0, replayed.stdout  # green: the assertion cannot fail on the body's text
    judged = trailblaze("check", str(trail), "--runs", str(runs))
    assert judged.returncode == 1, judged.stdout + judged.stderr
    assert "step 3 (android): assertVisibleBySelector checks only that TextView 'This is message 2.' (message_body) exists, not its text" in judged.stdout
    assert 'step 3 (ios): "This is message 2." is not checked' in judged.stdout
    trail.write_text(text)
    again = trailblaze("check", str(trail), "--runs", str(runs))
    assert again.returncode == 0 and "1 assertion shown to fail" in again.stdout, again.stdout
