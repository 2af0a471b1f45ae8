"""`replay_trail` in process: the simulator through the real clients, no LLM unless a step needs one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import copy_example
from tests.support.paths import ROOT
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.engine.heal import ambiguity, closest_candidates, seed_text, trail_diff
from trailblaze.engine.replay import ReplayOptions, build_memory, replay_trail
from trailblaze.llm.client import LLMClient, LLMRequest, LLMResponse
from trailblaze.output.rundir import RunDir
from trailblaze.output.runlog import load_run
from trailblaze.testing import FunctionLLM, ScriptedLLM, tool
from trailblaze.testing.demo_policy import demo_llm
from trailblaze.tools.execute import ToolResult
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import ToolCall, load_trail

EXAMPLES = sorted(p.name for p in (ROOT / "trails").glob("*.trail.yaml"))
SECRETS = {"password": "hunter2"}


def no_llm() -> LLMClient:
    raise AssertionError("replay must not construct an LLM client for this trail")


@pytest.fixture(scope="module")
def android() -> Iterator[DeviceSession]:
    with open_device("sim:android", latency="zero", resolve_timeout=1.0) as s:
        yield s


@pytest.fixture(scope="module")
def android_v2() -> Iterator[DeviceSession]:
    with open_device("sim:android:demo@v2", latency="zero", resolve_timeout=1.0) as s:
        yield s


def replay(path: Path, session: DeviceSession, **kwargs: object) -> object:
    trail = load_trail(path)
    return replay_trail(trail, session, memory=build_memory(trail, secrets=SECRETS), **kwargs)  # type: ignore[arg-type]


def on_own_simulators(spec: str, check: Callable[[str, DeviceSession], None], **device_options: Any) -> None:
    """Runs `check(example, session)` for every example, each on its own simulator in its own thread.

    A replay mostly waits (device latency, settle intervals, the app's own delays), so independent
    simulators overlap instead of queueing; the first failed assertion is re-raised here. A callable
    option value is called once per simulator (e.g. for fresh `Conditions`).
    """

    def one(name: str) -> None:
        options = {key: value() if callable(value) else value for key, value in device_options.items()}
        with open_device(spec, **options) as session:
            check(name, session)

    with ThreadPoolExecutor(max_workers=len(EXAMPLES), thread_name_prefix="example") as pool:
        list(pool.map(one, EXAMPLES))


# --- every example on every app variant ------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
@pytest.mark.parametrize("app", ["demo", "demo@restyled"])
def test_every_example_replays_without_an_llm(platform: str, app: str, tmp_path: Path) -> None:
    def check(name: str, session: DeviceSession) -> None:
        path = copy_example(name, tmp_path)
        before = path.read_bytes()
        record = replay(path, session, llm_factory=no_llm)
        assert record.status == "passed", record.error  # type: ignore[attr-defined]
        assert all(s.mode == "replay" and s.status == "passed" for s in record.steps)  # type: ignore[attr-defined]
        assert path.read_bytes() == before

    on_own_simulators(f"sim:{platform}:{app}", check, latency="zero", resolve_timeout=2.0)


# --- what runs and what never does -------------------------------------------------------------------


def test_noop_read_compat_and_skip(android: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n"
        "  - step: Launch the app\n    recording:\n      android:\n"
        "        - launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}\n"
        "  - step: Nothing to do on android\n    recording:\n      android: []\n      ios:\n        - pressBack\n"
        "  - verify: The login screen greets the user\n    recording:\n      android-phone:\n"
        "        - assertVisibleWithText: {text: Welcome back}\n"
        "  - step: Tap forgot\n    recording:\n      android:\n"
        "        - tapOnElementWithText: {text: 'Forgot password\\?'}\n"
    )
    before = path.read_bytes()
    record = replay_trail(path, android, llm_factory=no_llm)
    assert record.status == "passed", record.error
    assert [s.mode for s in record.steps] == ["replay", "noop", "replay", "replay"]
    assert record.steps[3].tools[0].message.startswith("tapped")
    assert path.read_bytes() == before

    path.write_text("config:\n  skip: {android: flaky on android}\n" + path.read_text())
    skipped = replay_trail(path, android, llm_factory=no_llm)
    assert skipped.status == "skipped" and skipped.error and "flaky on android" in skipped.error
    assert {s.status for s in skipped.steps} == {"skipped"}


def test_unrecorded_step_without_an_llm_fails_clearly(android: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text("trail:\n  - step: Launch the demo app\n    recording:\n      ios:\n        - pressBack\n")
    record = replay_trail(path, android)
    assert record.status == "failed"
    assert "no recording for android-phone" in (record.error or "") and "none is configured" in (record.error or "")


def test_unrecorded_step_is_solved_and_written_as_passed_ai(android: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text("# keep me\ntrail:\n  - step: Launch the demo app with a clean state\n")
    record = replay_trail(path, android, llm_factory=demo_llm, options=ReplayOptions(screenshots=False))
    assert record.status == "passed-ai" and record.steps[0].status == "passed-ai"
    assert record.steps[0].recording_written and record.heal_diff and "+    recording:" in record.heal_diff
    text = path.read_text()
    assert text.startswith("# keep me\n") and "launchApp" in text
    again = replay_trail(path, android, llm_factory=no_llm)
    assert again.status == "passed" and again.steps[0].mode == "replay"


def test_recordable_false_is_solved_every_time_and_never_written(android: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n  - step: Launch the demo app with a clean state\n    recordable: false\n"
        "    recording:\n      android:\n        - pressBack\n"
    )
    before = path.read_bytes()
    llm = ScriptedLLM(
        [tool("launchApp", appId="dev.trailblaze.demo"), tool("objectiveStatus", status="COMPLETED", explanation="ok")]
    )
    record = replay_trail(path, android, llm_factory=lambda: llm, options=ReplayOptions(screenshots=False))
    assert record.status == "passed-ai" and path.read_bytes() == before


@pytest.mark.slow
def test_trailhead_runs_first_and_its_failure_is_fatal_even_with_self_heal(
    android: DeviceSession, tmp_path: Path
) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trailhead:\n  step: Start signed out\n  recording:\n    android:\n"
        "      tapOnElementWithText: {text: No such thing}\n"
        "trail:\n  - step: Launch\n    recording:\n      android:\n        - launchApp: {appId: dev.trailblaze.demo}\n"
    )
    before = path.read_bytes()
    record = replay_trail(path, android, llm_factory=no_llm, options=ReplayOptions(self_heal=True))
    assert [s.kind for s in record.steps] == ["trailhead", "step"]
    assert [s.status for s in record.steps] == ["failed", "skipped"]
    assert "trailhead" in (record.error or "") and "never healed" in (record.error or "")
    assert path.read_bytes() == before


# --- failure diagnostics and self-heal on demo@v2 --------------------------------------------------


@pytest.mark.slow
def test_v2_login_fails_with_diagnostics_and_keeps_the_file(android_v2: DeviceSession, tmp_path: Path) -> None:
    path = copy_example("login.trail.yaml", tmp_path)
    before = path.read_bytes()
    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android:demo@v2")
    record = replay(path, android_v2, llm_factory=no_llm, rundir=run)
    run.finish()
    assert record.status == "failed"  # type: ignore[attr-defined]
    step = record.steps[3]  # type: ignore[attr-defined]
    assert [s.status for s in record.steps] == ["passed"] * 3 + ["failed", "skipped"]  # type: ignore[attr-defined]
    error = step.error or ""
    for part in ("login.trail.yaml", "step 4", 'Tap the "Sign in" button', "tapOnElementBySelector",
                 "resourceIdRegex=dev.trailblaze.demo:id/sign_in", 'Button "Log in" (id log_in)', "--self-heal"):  # fmt: skip
        assert part in error, part
    assert step.candidates[0].startswith('Button "Log in" (id log_in)')
    # the keyboard was up and the target not on screen: the replayer hid it first, and says so
    assert [(t.name, t.source) for t in step.tools] == [("hideKeyboard", "auto"), ("tapOnElementBySelector", "recording")]
    assert (tmp_path / "run" / (step.screenshot_after or "missing")).is_file()
    assert "log_in" in (tmp_path / "run" / (step.hierarchy_after or "missing")).read_text()
    assert load_run(tmp_path / "run").trails[0].steps[3].candidates == step.candidates
    assert path.read_bytes() == before


@pytest.mark.slow
def test_v2_self_heal_seeds_the_agent_and_writes_a_minimal_diff(android_v2: DeviceSession, tmp_path: Path) -> None:
    path = copy_example("search.trail.yaml", tmp_path)
    before = path.read_text()
    seen: list[LLMRequest] = []
    inner = demo_llm()

    def spy(request: LLMRequest) -> LLMResponse:
        seen.append(request)
        return inner.complete(request)

    record = replay(path, android_v2, llm_factory=lambda: FunctionLLM(spy), options=ReplayOptions(self_heal=True, screenshots=False))
    assert record.status == "passed-with-self-heal", record.error  # type: ignore[attr-defined]
    statuses = [s.status for s in record.steps]  # type: ignore[attr-defined]
    assert statuses == ["passed-with-self-heal"] + ["passed"] * 5  # the next steps replay their own recordings
    assert record.steps[0].mode == "self-heal" and record.steps[0].recording_written  # type: ignore[attr-defined]
    assert all(s.mode == "replay" for s in record.steps[1:])  # type: ignore[attr-defined]
    objective = seen[0].messages[0].content[0].text  # type: ignore[union-attr]
    assert "## SELF-HEAL" in objective and "Already done in this step" in objective
    assert "5. inputText text={{password}}" in objective and "hunter2" not in str(seen[0])
    assert "sign_in" in objective and "NOT_FOUND" in objective
    assert len(seen) == 1  # one call: tap "Log in" + COMPLETED
    diff = record.heal_diff or ""  # type: ignore[attr-defined]
    assert "-                resourceIdRegex: dev.trailblaze.demo:id/sign_in" in diff
    assert "+                resourceIdRegex: dev.trailblaze.demo:id/log_in" in diff
    assert sum(1 for line in diff.splitlines() if line.startswith(("+ ", "- ", "+  ", "-  "))) == 2
    after = path.read_text()
    assert trail_diff(before, after, path.name) == diff
    # the healed trail now replays on v2 with no LLM at all
    again = replay(path, android_v2, llm_factory=no_llm)
    assert again.status == "passed"  # type: ignore[attr-defined]


@pytest.mark.slow
def test_verify_step_is_healed_as_a_verify_step(android: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n  - step: Launch the demo app\n    recording:\n      android:\n"
        "        - launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}\n"
        '  - verify: The heading "Welcome back" is shown\n    recording:\n      android:\n'
        "        - assertVisibleBySelector:\n            nodeSelector:\n"
        "              androidAccessibility: {textRegex: Welcome home}\n"
    )
    tools_offered: list[set[str]] = []
    inner = demo_llm()

    def spy(request: LLMRequest) -> LLMResponse:
        tools_offered.append({t.name for t in request.tools})
        return inner.complete(request)

    # without self-heal the file is kept; with it the assertion is re-solved with assertion tools only
    before = path.read_bytes()
    failed = replay_trail(path, android, llm_factory=no_llm)
    assert failed.status == "failed" and path.read_bytes() == before
    record = replay_trail(path, android, llm_factory=lambda: FunctionLLM(spy), options=ReplayOptions(self_heal=True, screenshots=False))
    assert record.status == "passed-with-self-heal", record.error
    assert tools_offered and all("tap" not in names and "assertVisible" in names for names in tools_offered)
    assert "resourceIdRegex: dev.trailblaze.demo:id/welcome" in path.read_text() and "Welcome home" not in path.read_text()


@pytest.mark.slow
def test_self_heal_without_write_back_keeps_the_file(android_v2: DeviceSession, tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n  - step: Launch the demo app\n    recording:\n      android:\n"
        "        - launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}\n"
        '  - step: Tap the "Sign in" button\n    recording:\n      android:\n'
        "        - tapOnElementWithText: {text: Sign in}\n"
    )
    before = path.read_bytes()
    options = ReplayOptions(self_heal=True, write_back=False, screenshots=False)
    record = replay_trail(path, android_v2, llm_factory=demo_llm, options=options)
    assert record.status == "passed-with-self-heal", record.error
    assert path.read_bytes() == before and record.heal_diff is None


# --- heal helpers ------------------------------------------------------------------------------------


def test_ambiguous_heals_are_refused() -> None:
    assert ambiguity([ToolCall(name="tapOnPoint", params={"x": 10, "y": 20})]) is not None
    indexed = {"nodeSelector": {"androidAccessibility": {"textRegex": "Row"}, "index": 2}}
    assert "index" in (ambiguity([ToolCall(name="tapOnElementBySelector", params=indexed)]) or "")
    nested = {"nodeSelector": {"androidAccessibility": {"textRegex": "x"}, "below": {"index": 0}}}
    assert ambiguity([ToolCall(name="tapOnElementBySelector", params=nested)]) is not None
    fine = {"nodeSelector": {"androidAccessibility": {"resourceIdRegex": "log_in"}}}
    assert ambiguity([ToolCall(name="tapOnElementBySelector", params=fine), ToolCall(name="inputText", params={"text": "a"})]) is None


def test_seed_text_and_candidates(android_v2: DeviceSession) -> None:
    call = ToolCall(name="tapOnElementWithText", params={"text": "Sign in"})
    done = [(ToolCall(name="inputText", params={"text": "{{password}}"}), ToolResult("OK", "typed '{{password}}'", "action"))]
    text = seed_text(done, call, ToolResult("NOT_FOUND", "no element", "action"))
    assert text.splitlines()[0] == "## SELF-HEAL" and "1. inputText text={{password}}" in text
    assert "tapOnElementWithText text=Sign in -> NOT_FOUND no element" in text
    android_v2.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
    ranked = closest_candidates(call, android_v2.screen())
    assert ranked[0].startswith('Button "Log in"')


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_reliability_on_realistic_latency_with_animations(platform: str, tmp_path: Path) -> None:
    """Two replays of every example on the realistic profile with a UI that animates after actions
    (`benchmarks/reliability.py` runs 20)."""
    from trailblaze_sim.faults import LATENCY_PROFILES, Conditions

    def conditions() -> Conditions:  # one per simulator: each has its own latency draws
        return Conditions(latency=LATENCY_PROFILES["realistic"], animate_after_action_ms=300, seed=3)

    failures: list[str | None] = []

    def check(name: str, session: DeviceSession) -> None:
        path = copy_example(name, tmp_path)
        for _ in range(2):
            record = replay(path, session, llm_factory=no_llm)
            if record.status != "passed":  # type: ignore[attr-defined]
                failures.append(record.error)  # type: ignore[attr-defined]

    on_own_simulators(f"sim:{platform}", check, latency=conditions)
    assert failures == []


@pytest.mark.slow
def test_a_steps_before_picture_is_the_previous_after_unless_the_device_moved(
    android: DeviceSession, tmp_path: Path
) -> None:
    from trailblaze.output.runlog import StepRecord, TrailRecord

    run = RunDir(tmp_path / "run", Memory(), command=["test"], device="sim:android")
    path = copy_example("login.trail.yaml", tmp_path)
    shots = android.stats.screenshots
    record = replay(path, android, llm_factory=no_llm, rundir=run)
    steps = record.steps  # type: ignore[attr-defined]
    assert [s.status for s in steps] == ["passed"] * 5
    # one screenshot for the first "before", then one "after" per step: each later "before" is the
    # previous "after" (no device call in between), the same file in the run directory; the last step
    # (an assertion) does not act, so its "after" is the picture the session already holds. Pictures
    # ride along with the settle's dump (ADR 0036): the settle after "Sign in" takes one more beside
    # the dump that still shows "Signing in…" (in flight with it, so it costs no time)
    run.flush()
    assert len(steps) <= android.stats.screenshots - shots <= len(steps) + 1
    for previous, step in zip(steps, steps[1:], strict=False):
        assert (step.screenshot_before, step.hierarchy_before) == (previous.screenshot_after, previous.hierarchy_after)
    assert all((tmp_path / "run" / s.screenshot_before).is_file() for s in steps)

    # an action between two steps, or a cache the session dropped, means a fresh picture
    run.start_trail(TrailRecord(path="x.trail.yaml"))
    run.start_step(StepRecord(index=0, kind="step", text="a"), android)
    run.finish_step(android, 0.0)
    android.act(lambda d: d.press_key("BACK"))
    second = run.start_step(StepRecord(index=1, kind="step", text="b"), android)
    run.flush()  # screenshots land in the background
    assert second.screenshot_before is not None and second.screenshot_before.endswith("step-01-before.jpg")
    run.finish_step(android, 0.0)
    android.invalidate()  # e.g. after a `wait`: the screen may have moved on by itself
    third = run.start_step(StepRecord(index=2, kind="step", text="c"), android)
    run.flush()
    assert third.screenshot_before is not None and third.screenshot_before.endswith("step-02-before.jpg")
