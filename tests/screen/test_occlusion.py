"""Occlusion (docs/adr/0014-occlusion.md): nodes under a dialog or the keyboard are `covered`, left out
of the compact view, refused as tap targets and never recorded; selectors prefer uncovered matches.

Real-world dumps, the demo app's screens as the simulators serve them, and end to end through the
simulators with the real uiautomator2 / facebook-wda clients and a scripted model.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import external_sim as cli_sim  # noqa: F401 (a fixture, requested by name)
from tests.support.cli import run_cli as _cli
from tests.support.demo_screens import demo_screen
from tests.support.hierarchy_fixtures import FIXTURE_IDS, FIXTURES, load
from tests.support.record import (
    api,  # noqa: F401 (a fixture, requested by name)
    record,
)
from trailblaze.agent.loop import Agent
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.engine.options import RunInputs
from trailblaze.engine.record import record_trail
from trailblaze.llm.client import LLMClient, LLMRequest, LLMResponse, TextBlock, ToolResultBlock
from trailblaze.llm.prompts import SCREEN_HEADER
from trailblaze.screen.compact import compact_view
from trailblaze.screen.hierarchy import Hierarchy, parse_hierarchy
from trailblaze.screen.occlusion import covers
from trailblaze.screen.resolve import resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze.screen.selector_gen import generate_selector, selector_for
from trailblaze.testing import FakeMessagesAPI, FunctionLLM, ScriptedLLM, tool, tool_calls
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import ToolCall, load_trail

PLATFORMS = ("android", "ios")
_BRANCH = {"android": "androidAccessibility", "ios": "iosMaestro"}

# Covered nodes per real-world dump. None of them shows a dialog; avito's IME window lies below the
# app's content (the app resized itself, adjustResize) so nothing is under it; ios-wda/keyboard.xml is
# the Settings app's *Keyboards* screen, without a keyboard on screen.
EXPECTED_COVERED = {name: 0 for name in FIXTURE_IDS}


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_real_world_dumps_mark_exactly_the_nodes_under_a_cover(path: Path) -> None:
    h = load(path)
    covers(h)
    covered = [n for n in h.nodes if n.covered]
    assert len(covered) == EXPECTED_COVERED[f"{path.parent.name}/{path.name}"], covered
    assert "behind the dialog" not in compact_view(h).text


def _avito(ime_top: int) -> Hierarchy:
    """The avito dump with its Gboard window moved up to `ime_top` (as if the app had not resized)."""
    raw = (Path(FIXTURES[0]).parent.parent / "android-u2/avito-search-with-ime.xml").read_bytes()
    lines = raw.split(b"\n")
    ime = next(i for i, line in enumerate(lines) if b'package="com.google.android.inputmethod.latin"' in line)
    lines[ime] = lines[ime].replace(b"[0,1167][1080,1920]", f"[0,{ime_top}][1080,1920]".encode())
    return parse_hierarchy(b"\n".join(lines))


def test_the_ime_window_of_a_real_dump_covers_what_lies_under_it() -> None:
    assert covers(_avito(1167)) == []  # as captured: the app window ends where the keyboard starts
    h = _avito(700)
    (keyboard,) = covers(h)
    assert keyboard.kind == "keyboard" and keyboard.describe() == "the keyboard"
    covered = [n for n in h.nodes if n.covered]
    assert covered and all(h.window_kind(n) == "app" and n.center[1] >= 700 for n in covered)
    # Every app node whose tap point lies under the keyboard is covered, none above it.
    app = [n for n in h.visible_nodes() if h.window_kind(n) == "app" and not n.scrollable]
    assert {id(n) for n in app if n.center[1] >= 700} == {id(n) for n in covered if not n.scrollable}
    view = compact_view(h)
    assert re.search(r"^\(\d+ elements under the keyboard are hidden\)$", view.text, re.M)
    assert not any(n.covered for n in view.refs.values())
    assert set(map(id, view.covered.values())) <= set(map(id, covered))


# --------------------------------------------------------------------------------------------------
# The demo app as the simulators serve it


@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_sign_out_dialog_covers_the_settings_screen(platform: str) -> None:
    h = demo_screen("sign-out-dialog", platform)
    (dialog,) = covers(h)
    assert dialog.kind == "dialog" and dialog.describe() == 'Dialog "Sign out?"'
    inside = {id(n) for n in dialog.node.walk()}
    app = [n for n in h.visible_nodes() if h.window_kind(n) == "app" and n.parent is not None]
    for node in app:
        under = id(node) not in inside and not any(id(a) in inside for a in node.ancestors())
        if platform == "ios" and any(id(d) in inside for d in node.walk()):
            under = False  # the window holding the alert
        assert node.covered == under, node
    view = compact_view(h)
    first, *rest = view.text.splitlines()
    assert first == '(7 elements behind the dialog "Sign out?" are hidden)'
    labels = [re.sub(r"^\s*\[\w+\] ", "", line) for line in rest]
    assert labels == [
        # iOS: the alert carries its title as label (its title text is then not repeated).
        ('TextView "Sign out?"' if platform == "android" else 'Alert "Sign out?"'),
        'Button "Cancel"',
        'Button "Sign out"',
    ]
    assert "sign_out" in {n.short_id for n in view.covered.values()}


@pytest.mark.parametrize("platform", PLATFORMS)
def test_android_dialog_is_a_window_of_its_own_after_the_activity(platform: str) -> None:
    h = demo_screen("sign-out-dialog", platform)
    if platform == "android":
        # As on a real device: the dialog's decor view is the root of a second app window, its
        # views inside that window's `android:id/content`.
        assert h.window_kinds[:2] == ["app", "app"]
        assert [n.short_id for n in h.roots[1].walk() if n.short_id][:2] == ["content", "sign_out_dialog"]
        assert not any(n.short_id == "sign_out_dialog" for n in h.roots[0].walk())
    else:
        # iOS: the alert is a later sibling subtree of the screen's content, inside the app window.
        alert = next(n for n in h.nodes if n.short_class == "Alert")
        settings = next(n for n in h.nodes if n.short_id == "sign_out")
        assert alert.order > settings.order and alert.window == settings.window


@pytest.mark.parametrize("platform", PLATFORMS)
def test_selectors_prefer_the_uncovered_match_and_never_describe_a_covered_node(platform: str) -> None:
    h = demo_screen("sign-out-dialog", platform)
    covers(h)
    branch = "androidMaestro" if platform == "android" else "iosMaestro"
    found = resolve(NodeSelector.model_validate({branch: {"textRegex": "Sign out"}}), h)
    assert [n.short_id for n in found] == ["confirm_sign_out"]  # not AMBIGUOUS with the covered one
    behind = next(n for n in h.nodes if n.short_id == "sign_out")
    assert behind.covered and selector_for(behind, h) is None and generate_selector(behind, h) is None
    # Only the covered one matches: it is still found (a tap on it is then refused with the reason).
    by_id = resolve(NodeSelector.model_validate({_BRANCH[platform]: {"resourceIdRegex": "sign_out"}}), h)
    assert by_id == [behind]
    confirm = next(n for n in h.nodes if n.short_id == "confirm_sign_out")
    selector = generate_selector(confirm, h)
    assert selector is not None and resolve(selector, h) == [confirm]


@pytest.mark.parametrize("platform", PLATFORMS)
def test_filled_text_fields_show_value_and_name_the_same_way(platform: str) -> None:
    from tests.support.demo_screens import _Driver, capture
    from trailblaze_sim import create_device
    from trailblaze_sim.model import ManualClock

    device = create_device(platform, "demo", clock=ManualClock(), launch=True)
    drv = _Driver(device)
    drv.tap_id("email")
    device.type_text("ada@example.com")
    drv.tap_id("password")
    device.type_text("hunter2")
    view = compact_view(capture(device)).text
    field = "EditText" if platform == "android" else "TextField"
    secure = "EditText" if platform == "android" else "SecureTextField"
    assert re.search(rf'^\[\w+\] {field} "ada@example\.com" hint="Email"$', view, re.M), view
    assert re.search(rf'^\[\w+\] {secure} "•••••••" hint="Password"', view, re.M), view
    # An empty field shows its name only.
    fresh = compact_view(demo_screen("login", platform)).text
    assert re.search(rf'^\[\w+\] {field} "Email"$', fresh, re.M), fresh


def test_the_wda_placeholder_value_reaches_the_node() -> None:
    h = demo_screen("login", "ios")
    assert 'placeholderValue="Email"' in str(h.source)
    email = next(n for n in h.nodes if n.short_id == "email")
    assert email.hint == "Email" and email.text == ""


# --------------------------------------------------------------------------------------------------
# End to end: the real clients against the simulators


@pytest.fixture(scope="module", params=PLATFORMS)
def device(request: pytest.FixtureRequest) -> Iterator[DeviceSession]:
    with open_device(f"sim:{request.param}", latency="zero", resolve_timeout=0.5) as session:
        yield session


def _run(session: DeviceSession, name: str, **params: object) -> str:
    return str(run_recorded_tool(session, ToolCall(name=name, params=dict(params)), Memory()))


def _by_id(session: DeviceSession, short_id: str) -> dict[str, object]:
    return {"nodeSelector": {_BRANCH[session.info.platform]: {"resourceIdRegex": short_id}}}


def _settings(session: DeviceSession) -> DeviceSession:
    session.act(lambda d: d.launch_app("dev.trailblaze.demo", "CLEAR_STATE"))
    assert _run(session, "tapOnElementBySelector", **_by_id(session, "email")).startswith("OK")
    assert _run(session, "inputText", text="ada@example.com").startswith("OK")
    assert _run(session, "tapOnElementBySelector", **_by_id(session, "password")).startswith("OK")
    assert _run(session, "inputText", text="hunter2").startswith("OK")
    assert _run(session, "tapOnElementBySelector", **_by_id(session, "sign_in")).startswith("OK")
    found = session.resolve(
        NodeSelector.model_validate(_by_id(session, "tab_settings")["nodeSelector"]), timeout=5
    )
    assert found.nodes, "not signed in"
    assert _run(session, "tapOnElementBySelector", **_by_id(session, "tab_settings")).startswith("OK")
    return session


@pytest.mark.slow
def test_a_tap_on_a_covered_element_is_refused_on_replay_and_tool(device: DeviceSession) -> None:
    _settings(device)
    assert _run(device, "tapOnElementBySelector", **_by_id(device, "sign_out")).startswith("OK")
    refused = _run(device, "tapOnElementBySelector", **_by_id(device, "sign_out"))
    assert refused.startswith("NOT_VISIBLE ") and 'covered by Dialog "Sign out?"' in refused, refused
    assert "dismiss it first, or act on an element inside it" in refused
    # The read-compat tap finds the dialog's button, not the covered one, and signs out.
    assert _run(device, "tapOnElementWithText", text="Sign out").startswith("OK")
    assert device.resolve(
        NodeSelector.model_validate(_by_id(device, "sign_in")["nodeSelector"]), timeout=3
    ).nodes


@pytest.mark.slow
def test_the_keyboard_covers_what_lies_under_it(device: DeviceSession) -> None:
    _settings(device)
    assert _run(device, "tapOnElementBySelector", **_by_id(device, "tab_search")).startswith("OK")
    assert _run(device, "tapOnElementBySelector", **_by_id(device, "query")).startswith("OK")
    if device.info.platform == "android":
        # Rows end exactly where the keyboard starts; scroll half a row so one straddles its edge.
        device.act(lambda d: d.swipe(540, 1300, 540, 1200))
    h = device.screen()
    assert h.keyboard_shown
    covered = [n for n in h.visible_nodes() if n.covered]
    assert covered and all(n.covered_by is not None and n.covered_by.kind == "keyboard" for n in covered)
    view = compact_view(h).text
    assert re.search(r"^\(\d+ elements? under the keyboard (is|are) hidden\)$", view, re.M), view
    branch = _BRANCH[device.info.platform]
    row = next(n for n in covered if n.short_id == "message_row" or n.text.startswith("From:"))
    sel: dict[str, object] = {branch: {"textRegex": re.escape(row.text)}}
    if not row.text:  # the row itself: the one containing its (uncovered) title
        title = next(d.text or d.label for d in row.walk() if d is not row and (d.text or d.label))
        sel = {
            branch: {"resourceIdRegex": "message_row"},
            "containsDescendants": [{branch: {"textRegex": title}}],
        }
    refused = _run(device, "tapOnElementBySelector", nodeSelector=sel)
    assert refused.startswith("NOT_VISIBLE ") and "covered by the keyboard" in refused, refused
    assert "hide the keyboard first" in refused
    device.act(lambda d: d.hide_keyboard())


def _ref(view_text: str, label: str) -> str:
    match = re.search(rf'^\s*\[(\w+)\] \w+ "{re.escape(label)}"', view_text, re.M)
    assert match, (label, view_text)
    return match.group(1)


@pytest.mark.slow
def test_a_scripted_model_tapping_behind_the_dialog_is_told_and_nothing_covered_is_recorded(
    device: DeviceSession,
) -> None:
    _settings(device)
    before = compact_view(device.screen())
    behind = _ref(before.text, "Sign out")
    # The dialog's own "Sign out" button sits elsewhere, so it has another ref: read it off the
    # dialog, then close it again so the step starts on the settings screen.
    assert _run(device, "tapOnElementBySelector", **_by_id(device, "sign_out")).startswith("OK")
    with_dialog = compact_view(device.screen())
    confirm = _ref(with_dialog.text, "Sign out")
    assert confirm != behind and behind in with_dialog.covered
    assert _run(device, "tapOnElementBySelector", **_by_id(device, "cancel")).startswith("OK")
    llm = ScriptedLLM(
        [
            tool("tap", ref=behind, reasoning="open the sign-out dialog"),
            tool("tap", ref=behind, reasoning="tap sign out again"),
            tool("tap", ref=confirm, reasoning="confirm in the dialog"),
            tool_calls(("objectiveStatus", {"status": "COMPLETED", "explanation": "signed out"})),
        ]
    )
    result = Agent(llm, device, Memory(), screenshots=False).run_step("Sign out")
    assert result.status == "COMPLETED"
    third = llm.requests[2]
    told = [b.content for m in third.messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert told[-1].startswith("NOT_VISIBLE ") and 'covered by Dialog "Sign out?"' in told[-1], told
    # Recorded: the tap that opened the dialog (nothing covered then) and the dialog's button; the
    # refused tap left no trace.
    branch = _BRANCH[device.info.platform]
    recorded = [c.params["nodeSelector"][branch]["resourceIdRegex"] for c in result.recorded]
    assert [c.name for c in result.recorded] == ["tapOnElementBySelector"] * 2
    assert [r.rsplit("/", 1)[-1] for r in recorded] == ["sign_out", "confirm_sign_out"]
    signed_out = device.resolve(
        NodeSelector.model_validate(_by_id(device, "sign_in")["nodeSelector"]), timeout=3
    )
    assert signed_out.nodes


# --------------------------------------------------------------------------------------------------
# `record` end to end: the recording never holds a tap on a covered element, and it replays


def _sign_in_recording(branch: str, prefix: str) -> str:
    taps = {name: f"{prefix}{name}" for name in ("email", "password", "sign_in")}
    lines = ["        - launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}"]
    for name, text in (("email", "user@example.com"), ("password", "'{{password}}'"), ("sign_in", None)):
        lines.append(
            f"        - tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: '{taps[name]}'}}}}}}"
        )
        if text is not None:
            lines.append(f"        - inputText: {{text: {text}}}")
    return "\n".join(lines)


SIGN_OUT_TRAIL = f"""\
config:
  id: demo/sign-out
trail:
  - step: Launch the demo app and sign in
    recording:
      android:
{_sign_in_recording("androidAccessibility", "dev.trailblaze.demo:id/")}
      ios:
{_sign_in_recording("iosMaestro", "")}
  - step: Open Settings, tap Sign out and confirm it in the dialog
"""


def _screen_text(request: LLMRequest) -> str:
    for message in reversed(request.messages):
        for block in reversed(message.content):
            if isinstance(block, TextBlock) and SCREEN_HEADER in block.text:
                return block.text
    raise AssertionError("no screen in the request")


def _sign_out_model() -> tuple[FunctionLLM, dict[str, str]]:
    """A model that taps `Sign out`, then taps the ref it remembers of it again behind the dialog,
    and only then the dialog's own button."""
    state: dict[str, str] = {}

    def answer(request: LLMRequest) -> LLMResponse:
        screen = _screen_text(request)
        results = [b for m in request.messages for b in m.content if isinstance(b, ToolResultBlock)]
        if results and results[-1].content.startswith("NOT_VISIBLE"):
            state["refused"] = results[-1].content
        sign_out = re.search(r'^\s*\[(\w+)\] Button "Sign out"', screen, re.M)
        if "behind the dialog" in screen:
            if "refused" not in state:
                return tool("tap", ref=state["behind"])  # the ref from before the dialog opened
            assert sign_out is not None
            return tool("tap", ref=sign_out.group(1))
        if sign_out is not None:
            state["behind"] = sign_out.group(1)
            return tool("tap", ref=sign_out.group(1))
        if "refused" in state and '"Sign in"' in screen:
            return tool("objectiveStatus", status="COMPLETED", explanation="signed out")
        settings = re.search(
            r'^\s*\[(\w+)\] \w+ "Settings" .*\[tap\]|^\s*\[(\w+)\] Button "Settings"', screen, re.M
        )
        assert settings is not None, screen
        return tool("tap", ref=settings.group(1) or settings.group(2))

    return FunctionLLM(answer), state


@pytest.mark.slow
def test_record_never_writes_a_covered_tap_and_the_recording_replays(
    device: DeviceSession, tmp_path: Path
) -> None:
    path = tmp_path / "sign-out.trail.yaml"
    path.write_text(SIGN_OUT_TRAIL)
    llm, state = _sign_out_model()
    first = record_trail(path, device, lambda: llm, inputs=RunInputs(secrets={"password": "hunter2"}))
    assert first.status == "passed", first.error
    refusal = state.get("refused", "")
    assert refusal.startswith("NOT_VISIBLE ") and 'covered by Dialog "Sign out?"' in refusal
    recording = load_trail(path).steps[1].recording_for(device.info.classifier)
    assert recording is not None
    ids = [
        json.dumps(call.params["nodeSelector"]) for call in recording if call.name == "tapOnElementBySelector"
    ]
    assert len(ids) == 3 and "tab_settings" in ids[0] and "confirm_sign_out" in ids[2], ids
    assert ids[1].count("sign_out") == 1 and "confirm" not in ids[1]  # the tap that opened the dialog
    # What was recorded replays with no model, and ends signed out.
    again = record_trail(path, device, _no_llm, inputs=RunInputs(secrets={"password": "hunter2"}))
    assert again.status == "passed" and [s.mode for s in again.steps] == ["replay", "replay"]
    assert device.resolve(
        NodeSelector.model_validate(_by_id(device, "sign_in")["nodeSelector"]), timeout=3
    ).nodes


def _no_llm() -> LLMClient:
    raise AssertionError("a recorded trail must replay without a model")


@pytest.mark.slow
def test_trailblaze_tool_refuses_a_covered_tap(cli_sim: tuple[str, dict[str, str]]) -> None:  # noqa: F811
    """The CLI (`trailblaze tool`, separate processes against one external simulator) says the same."""
    device, env = cli_sim
    branch = "androidAccessibility" if device == "android" else "iosMaestro"

    def tap(short_id: str) -> subprocess.CompletedProcess[str]:
        spec = f"tapOnElementBySelector: {{nodeSelector: {{{branch}: {{resourceIdRegex: {short_id}}}}}}}"
        return _cli("tool", spec, "--device", device, "--element-timeout", "3", env=env)

    for step in (
        "email",
        "inputText: {text: ada@example.com}",
        "password",
        "inputText: {text: hunter2}",
        "sign_in",
    ):
        done = _cli("tool", step, "--device", device, env=env) if ":" in step else tap(step)
        assert done.returncode == 0, (step, done.stdout, done.stderr)
    assert tap("tab_settings").returncode == 0
    assert tap("sign_out").returncode == 0
    refused = tap("sign_out")
    assert refused.returncode == 1, refused.stderr
    assert refused.stdout.startswith("NOT_VISIBLE ") and 'covered by Dialog "Sign out?"' in refused.stdout
    assert "dismiss it first, or act on an element inside it" in refused.stdout


DEMO_SIGN_OUT = """\
config:
  id: demo/sign-out
trail:
  - step: Launch the demo app and sign in as user@example.com with the password from the secret `password`
  - step: Tap the Settings tab
  - step: Tap Sign out
  - step: Tap Sign out
  - verify: The login screen is shown with the "Sign in" button
"""


@pytest.mark.slow
def test_recording_through_the_messages_api_fake_confirms_in_the_dialog(
    api: FakeMessagesAPI,  # noqa: F811
    tmp_path: Path,
) -> None:
    """`trailblaze record` (real anthropic SDK, demo policy) on both platforms: the second "Tap Sign
    out" is the dialog's button — before occlusion the policy tapped the covered one, a no-op, and the
    verify failed — and the recording replays green with `trailblaze replay`."""
    trail = tmp_path / "sign-out.trail.yaml"
    trail.write_text(DEMO_SIGN_OUT)
    for platform, branch in (("android", "androidAccessibility"), ("ios", "iosMaestro")):
        done = record(api, str(trail), "--device", f"sim:{platform}", "--secret", "password=hunter2")
        assert done.returncode == 0, done.stdout + done.stderr
        confirm = load_trail(trail).steps[3].recording_for(platform)
        assert confirm is not None and [c.name for c in confirm] == ["tapOnElementBySelector"]
        assert confirm[0].params["nodeSelector"][branch]["resourceIdRegex"].endswith("confirm_sign_out")
        replay = subprocess.run(
            [sys.executable, "-m", "trailblaze", "replay", str(trail), "--device", f"sim:{platform}"]
            + ["--secret", "password=hunter2"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert replay.returncode == 0, replay.stdout + replay.stderr
