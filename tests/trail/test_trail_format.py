"""The trail file model: loading both formats, lookups, byte-exact round trips, surgical recording edits."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.support.paths import ROOT
from trailblaze.common.yaml_lines import content_end, parse_document
from trailblaze.errors import TrailFileError, UsageError
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.builtin import RECORDED_TOOL_PARAMS
from trailblaze.tools.recorded.app import LaunchApp
from trailblaze.tools.recorded.selector import TapOnElementBySelector
from trailblaze.tools.toolset import all_tools
from trailblaze.trail.model import (
    ANY_CLASSIFIER,
    ToolCall,
    Trail,
    TrailConfig,
    Trailhead,
    TrailStep,
    classifier_lineage,
    find_trail_files,
    load_trail,
    loads_trail,
    parse_tool,
    save_trail,
)

FIXTURES = sorted((ROOT / "tests" / "data" / "trails").glob("*.trail.yaml"))
EXAMPLES = sorted((ROOT / "trails").glob("*.trail.yaml"))
ALL_FILES = FIXTURES + EXAMPLES

TAP_SIGN_IN = ToolCall(
    name="tapOnElementBySelector",
    params={"nodeSelector": {"androidAccessibility": {"resourceIdRegex": "sign_in"}}},
)
HIDE = ToolCall(name="hideKeyboard")


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def test_there_are_enough_files_to_test() -> None:
    assert len(FIXTURES) >= 9
    names = {p.name for p in EXAMPLES}
    assert {
        "login.trail.yaml",
        "archive-message.trail.yaml",
        "compose-validation.trail.yaml",
        "settings-dark-mode.trail.yaml",
        "search.trail.yaml",
    } <= names


@pytest.mark.parametrize("path", ALL_FILES, ids=_ids(ALL_FILES))
def test_unchanged_file_saves_byte_identical(path: Path, tmp_path: Path) -> None:
    original = path.read_bytes()
    trail = load_trail(path)
    target = tmp_path / path.name
    trail.save(target)
    assert target.read_bytes() == original
    assert trail.path == str(target)


@pytest.mark.parametrize("path", ALL_FILES, ids=_ids(ALL_FILES))
def test_fresh_rendering_loads_back_equal(path: Path) -> None:
    trail = load_trail(path)
    trail.config = trail.config.model_copy() if trail.config else None  # same content, still in sync
    assert trail.to_yaml() == path.read_text()
    step = next(s for s in trail.steps if not s.static)
    step.recordable = not step.recordable  # out of sync: rendered fresh
    rendered = trail.to_yaml()
    assert rendered != path.read_text()
    again = loads_trail(rendered)
    assert again == trail
    assert again.format == trail.format


@pytest.mark.parametrize("path", EXAMPLES, ids=_ids(EXAMPLES))
def test_examples_are_recorded_for_both_platforms_of_the_demo_app(path: Path) -> None:
    trail = load_trail(path)
    assert trail.config is not None
    assert trail.config.target == "dev.trailblaze.demo"
    assert trail.config.id and trail.config.id.startswith("demo/")
    assert trail.config.title and trail.config.tags
    # every step carries recordings made by `trailblaze record` for both platform families
    for step in trail.steps:
        assert step.recording is not None and set(step.recording) >= {"android", "ios"}
        assert step.recording_for("android-phone") and step.recording_for("ios-iphone")
    assert any(step.kind == "verify" for step in trail.steps)


def test_login_example_names_the_password_secret_without_a_value() -> None:
    text = (ROOT / "trails" / "login.trail.yaml").read_text()
    assert "secret `password`" in text
    assert "hunter2" not in text
    # the recording types the template, for each platform
    assert text.count("text: '{{password}}'") == 2


# --- model ----------------------------------------------------------------------------------------


def test_unified_fixture_model() -> None:
    trail = load_trail(ROOT / "tests/data/trails/unified-templates.trail.yaml")
    assert trail.format == "unified"
    config = trail.config
    assert config is not None
    assert config.tags == ["smoke", "login"]
    assert config.memory == {"email": "user@example.com"}
    assert config.skip == {"ios": "not yet recorded on iOS"}
    assert config.context is not None and config.context.endswith("field.\n")
    first, second, third, fourth = trail.steps
    assert (first.kind, first.text) == ("step", "Type the email into the Email field")
    assert first.recording_for("android") == [
        ToolCall(
            name="tapOnElementBySelector",
            params={"nodeSelector": {"androidAccessibility": {"resourceIdRegex": "email"}}},
        ),
        ToolCall(name="inputText", params={"text": "{{email}}"}),
    ]
    assert first.recording_for("ios-iphone") == []  # deliberate no-op, not "unrecorded"
    assert first.recording_for("web") is None
    assert second.recordable is False and second.max_retries == 3
    tools = second.recording_for("android-phone") or []
    assert [t.name for t in tools] == [
        "tapOnElementBySelector",
        "inputText",
        "hideKeyboard",
        "hideKeyboard",
        "eraseText",
        "eraseText",
    ]
    assert tools[1].params == {"text": "{{password}}"}
    assert tools[2].params == {} and tools[3].params == {}
    assert third.text == "Tap Sign in and wait for the inbox"
    assert fourth.kind == "verify" and fourth.recording is None
    assert fourth.text == "The inbox greets {{args.name}}"


def test_three_recording_states_are_distinct() -> None:
    trail = loads_trail(
        "trail:\n"
        "  - step: never recorded\n"
        "  - step: no-op\n    recording:\n      android: []\n"
        "  - step: recorded\n    recording:\n      android:\n        - pressBack: {}\n"
    )
    absent, noop, recorded = trail.steps
    assert absent.recording is None and absent.recording_for("android") is None
    assert noop.recording == {"android": []} and noop.recording_for("android") == []
    assert recorded.recording_for("android") == [ToolCall(name="pressBack")]


def test_classifier_lookup_is_closest_first() -> None:
    assert classifier_lineage("android-phone") == ["android-phone", "android"]
    assert classifier_lineage("ios-iphone-pro") == ["ios-iphone-pro", "ios-iphone", "ios"]
    step = TrailStep(
        text="x",
        recording={
            "android": [ToolCall(name="pressBack")],
            "android-tablet": [HIDE],
            "ios-iphone": [],
        },
    )
    assert step.recording_for("android-phone") == [ToolCall(name="pressBack")]
    assert step.recording_for("android-tablet") == [HIDE]
    assert step.recording_for("android") == [ToolCall(name="pressBack")]
    assert step.recording_for("ios-iphone") == []
    assert step.recording_for("ios-ipad") is None
    assert step.recording_for("ios") is None


def test_trailhead_is_one_tool_per_classifier() -> None:
    trail = load_trail(ROOT / "tests/data/trails/unified-trailhead.trail.yaml")
    assert trail.trailhead is not None
    assert trail.trailhead.text == "Launch the sample app"
    tool = trail.trailhead.recording_for("android-phone")
    assert tool == ToolCall(name="launchApp", params={"appId": "xyz.block.trailblaze.examples.sampleapp"})
    assert trail.trailhead.recording_for("android") is None
    # no launchMode: Trailblaze's default, REINSTALL, which is our CLEAR_STATE (ADR 0033)
    assert isinstance(tool.model, LaunchApp) and tool.model.launchMode == "CLEAR_STATE"


def test_v1_prompts_are_normalised() -> None:
    trail = load_trail(ROOT / "tests/data/trails/v1-prompts.trail.yaml")
    assert trail.format == "v1"
    assert [s.kind for s in trail.steps] == ["step", "step", "step"]
    launch = trail.steps[0].recording_for("ios-iphone")
    assert launch == [
        ToolCall(
            name="app_ios_launchAppSignedIn", params={"email": "user@example.com", "password": "12345678"}
        )
    ]
    assert trail.steps[0].recording_for("android") == launch  # a v1 file is for one device: any classifier
    assert trail.steps[1].recording is not None and set(trail.steps[1].recording) == {ANY_CLASSIFIER}
    assert trail.steps[2].recordable is False and trail.steps[2].recording is None


def test_v1_tools_block_becomes_a_static_step_and_reinstall_reads_as_clear_state() -> None:
    trail = load_trail(ROOT / "tests/data/trails/v1-tools-config.trail.yaml")
    assert trail.config is not None and trail.config.id == "sample-app/catalog/overlay-tap"
    static, catalog, dialog = trail.steps
    assert static.static and static.text == "Run recorded tools: launchApp"
    tools = static.recording_for("ios")
    assert tools is not None and tools[0].params["launchMode"] == "REINSTALL"  # raw kept for round trip
    model = tools[0].model
    assert isinstance(model, LaunchApp) and model.launchMode == "CLEAR_STATE"
    assert (catalog.kind, dialog.kind) == ("step", "verify")
    assert dialog.text == 'A dialog showing "Coffee Latte" is visible'


def test_v1_trailhead_and_config_tolerated_fields() -> None:
    trail = load_trail(ROOT / "tests/data/trails/v1-trailhead.trail.yaml")
    assert trail.config is not None
    assert (trail.config.platform, trail.config.driver, trail.config.skip) == (
        "android",
        "ANDROID_ONDEVICE_ACCESSIBILITY",
        "flaky on API 30",
    )
    assert trail.trailhead is not None
    assert trail.trailhead.recording_for("android") == ToolCall(
        name="launchApp", params={"appId": "dev.trailblaze.demo"}
    )
    assert trail.steps[0].recording_for("android") == []
    assert trail.steps[1].static and trail.steps[1].recording_for("x") == [ToolCall(name="pressBack")]


def test_selectors_with_relations_and_index_are_typed() -> None:
    trail = load_trail(ROOT / "tests/data/trails/unified-selectors.trail.yaml")
    android = trail.steps[0].recording_for("android")
    assert android is not None
    model = android[0].model
    assert isinstance(model, TapOnElementBySelector)
    selector = model.nodeSelector
    assert selector.branch_name == "androidAccessibility"
    assert selector.index == 2
    assert selector.below is not None and selector.below.androidAccessibility is not None
    assert selector.childOf is not None and selector.childOf.androidAccessibility is not None
    assert selector.childOf.androidAccessibility.isScrollable is True
    ios = trail.steps[0].recording_for("ios")
    assert ios is not None
    ios_model = ios[0].model
    assert isinstance(ios_model, TapOnElementBySelector)
    assert ios_model.nodeSelector.containsDescendants is not None
    assert ios_model.nodeSelector.leftOf is not None
    iphone = trail.steps[0].recording_for("ios-iphone")
    assert iphone is not None
    assert iphone[0].params["reason"].startswith("Multi-line reasons are kept verbatim.\n")
    tablet = trail.steps[0].recording_for("android-tablet")
    assert tablet is not None and tablet[0].params["nodeSelector"]["androidMaestro"]["clickable"] is True
    compat = trail.steps[2].recording_for("android") or []
    assert {t.name for t in compat} == {
        "tapOnElementWithText",
        "tapOnElementWithAccessibilityText",
        "assertVisibleWithText",
        "assertVisibleWithAccessibilityText",
        "assertVisibleWithResourceId",
        "assertNotVisibleBySelector",
        "longPressOnElementWithText",
    }
    assert all(t.model is not None for t in compat)


def test_unknown_custom_tools_keep_their_params_verbatim() -> None:
    trail = load_trail(ROOT / "tests/data/trails/unified-custom-tools.trail.yaml")
    tools = trail.steps[0].recording_for("ios-iphone")
    assert tools is not None
    assert tools[0] == ToolCall(name="contacts_ios_openApp", params={"dismissKeyboard": True})
    assert tools[0].model is None
    assert tools[1].params["extra"] == {"nested": [1, 2.5, None, "x"], "when": "2024-01-02"}


def test_every_design_tool_is_known_and_accepts_reason() -> None:
    expected = {
        "tapOnElementBySelector",
        "tapOnPoint",
        "inputText",
        "eraseText",
        "hideKeyboard",
        "swipe",
        "scrollUntilTextIsVisible",
        "launchApp",
        "pressBack",
        "pressKey",
        "assertVisibleBySelector",
        "assertNotVisibleWithText",
        "rememberTextBySelector",
        "wait",
        "tapOnElementWithText",
        "tapOnElementWithAccessibilityText",
        "assertVisibleWithText",
        "assertVisibleWithAccessibilityText",
        "assertVisibleWithResourceId",
        "assertNotVisibleBySelector",
        "longPressOnElementWithText",
        "runTrail",
    }
    others = {t.name for t in all_tools() if t.source in ("catalog", "web", "probe")}
    assert set(RECORDED_TOOL_PARAMS) == expected | others
    for name, model in RECORDED_TOOL_PARAMS.items():
        assert model.tool_name == name
        assert "reason" in model.model_fields


def test_tool_call_api() -> None:
    params = TapOnElementBySelector(
        nodeSelector=NodeSelector.model_validate({"androidAccessibility": {"textRegex": "Hi"}})
    )
    call = ToolCall.from_params(params)
    assert call.params == {"nodeSelector": {"androidAccessibility": {"textRegex": "Hi"}}}  # defaults omitted
    assert (
        call.to_yaml()
        == "tapOnElementBySelector:\n  nodeSelector:\n    androidAccessibility:\n      textRegex: Hi\n"
    )
    assert parse_tool(call.to_yaml()) == call
    assert parse_tool("pressBack") == ToolCall(name="pressBack")
    assert parse_tool("inputText: {text: '{{email}}'}").params == {"text": "{{email}}"}
    assert str(ToolCall(name="inputText", params={"text": "hi", "reason": "r"})) == "inputText(text='hi')"
    with pytest.raises(TrailFileError, match=r"<tool>:1:1?\d*: .*direction"):
        parse_tool("swipe: {direction: NORTH}")
    with pytest.raises(ValueError):
        ToolCall(name="swipe", params={"direction": "NORTH"})
    with pytest.raises(ValueError):
        ToolCall(name="inputText", params={"text": "x", "typo": 1})


def test_equality_ignores_source_text() -> None:
    text = "# comment\ntrail:\n  - step: 'a'\n"
    built = Trail(steps=[TrailStep(text="a")])
    assert loads_trail(text) == built
    assert loads_trail(text).to_yaml() == text
    assert built.to_yaml() == "trail:\n  - step: a\n"


def test_templates_survive_round_trips() -> None:
    text = 'trail:\n  - step: go\n    recording:\n      android:\n        - inputText: {text: "{{args.user}} and {{memory.x}}"}\n'
    trail = loads_trail(text)
    assert trail.to_yaml() == text
    trail.set_recording(0, "ios", [ToolCall(name="inputText", params={"text": "{{email}}"})])
    again = loads_trail(trail.to_yaml())
    assert again.steps[0].recording_for("ios") == [ToolCall(name="inputText", params={"text": "{{email}}"})]
    assert again.steps[0].recording_for("android") == [
        ToolCall(name="inputText", params={"text": "{{args.user}} and {{memory.x}}"})
    ]
    assert "'{{email}}'" in trail.to_yaml()  # quoted: a bare {{ would be a YAML flow mapping


# --- set_recording: only the intended bytes change ---------------------------------------------------


def _entry_lines(text: str, path: tuple[str | int, ...]) -> tuple[int, int]:
    """0-based [first, last] line of the mapping entry at `path` (key line to last content line)."""
    doc = parse_document(text)
    key, value = doc.key_node(path), doc.node(path)
    assert key is not None and value is not None
    end = max(content_end(text, value), content_end(text, key))
    return key.start_mark.line, text.count("\n", 0, end)


def _assert_only_entry_changed(
    before: str, after: str, path: tuple[str | int, ...], *, existed: bool
) -> None:
    old_lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    first, last = _entry_lines(after, path)
    if existed:
        old_first, old_last = _entry_lines(before, path)
        assert first == old_first
    else:
        old_first, old_last = first, first - 1  # a pure insertion
    assert new_lines[:first] == old_lines[:old_first]
    assert new_lines[last + 1 :] == old_lines[old_last + 1 :]


@pytest.mark.parametrize("path", ALL_FILES, ids=_ids(ALL_FILES))
def test_set_recording_touches_only_that_entry(path: Path) -> None:
    before = path.read_text()
    trail = load_trail(path)
    for index in range(len(trail.steps)):
        trail = loads_trail(before, str(path))
        step_path, _kind = trail._step_paths[index]
        trail.set_recording(index, "android", [TAP_SIGN_IN, HIDE])
        after = trail.to_yaml()
        assert trail.source_text == after, "the edit must be spliced, not re-rendered"
        reloaded = loads_trail(after)
        assert reloaded == trail
        recorded = reloaded.steps[index].recording_for("android")
        assert recorded == [TAP_SIGN_IN, HIDE]
        doc = parse_document(before)
        target, existed = _expected_entry(trail.format, trail.steps[index].static, step_path, doc._nodes)
        _assert_only_entry_changed(before, after, target, existed=existed)
        for other, step in enumerate(reloaded.steps):
            if other != index:
                assert step == load_trail(path).steps[other]


def _expected_entry(
    fmt: str, static: bool, step: tuple[str | int, ...], existing: Mapping[tuple[str | int, ...], object]
) -> tuple[tuple[str | int, ...], bool]:
    """The entry set_recording should rewrite (or insert), and whether it was there before."""
    if static:
        return (*step, "tools"), True
    key = "tools" if fmt == "v1" else "android"
    if (*step, "recording", key) in existing:
        return (*step, "recording", key), True
    if (*step, "recording") in existing:
        return (*step, "recording", key), False
    return (*step, "recording"), False


def test_set_recording_replaces_one_classifier_exactly() -> None:
    before = (ROOT / "tests/data/trails/unified-assertions.trail.yaml").read_text()
    trail = loads_trail(before)
    trail.set_recording(1, "android", [ToolCall(name="assertNotVisibleWithText", params={"text": "Inbox"})])
    expected = before.replace(
        before[
            before.index("      android:\n        - assertVisibleBySelector:") : before.index(
                "      ios-iphone:\n        - assertVisibleBySelector:"
            )
        ],
        "      android:\n        - assertNotVisibleWithText:\n            text: Inbox\n",
    )
    assert trail.to_yaml() == expected
    assert "# pinned driver" in expected and "# The verify below" in expected


def test_set_recording_inserts_a_new_classifier_after_the_others() -> None:
    before = "trail:\n  - step: a  # keep me\n    recording:\n      ios: []   # ios no-op\n  - step: b\n"
    trail = loads_trail(before)
    trail.set_recording(0, "android-phone", [ToolCall(name="pressBack")])
    assert trail.to_yaml() == (
        "trail:\n  - step: a  # keep me\n    recording:\n      ios: []   # ios no-op\n"
        "      android-phone:\n        - pressBack: {}\n  - step: b\n"
    )


def test_set_recording_adds_a_recording_block_to_a_bare_step() -> None:
    before = 'trail:\n  - step: "Tap the \\"Tap Me\\" button"\n\n  - verify: \'done\'\n'
    trail = loads_trail(before)
    trail.set_recording(1, "ios", [])
    assert (
        trail.to_yaml()
        == 'trail:\n  - step: "Tap the \\"Tap Me\\" button"\n\n  - verify: \'done\'\n    recording:\n      ios: []\n'
    )


def test_set_recording_after_a_literal_block_keeps_the_block() -> None:
    before = "trail:\n  - step: |\n      line one\n      line two\n\n  - step: next\n"
    trail = loads_trail(before)
    trail.set_recording(0, "android", [HIDE])
    after = trail.to_yaml()
    assert after == (
        "trail:\n  - step: |\n      line one\n      line two\n    recording:\n      android:\n"
        "        - hideKeyboard: {}\n\n  - step: next\n"
    )
    assert loads_trail(after).steps[0].text == "line one\nline two\n"


def test_set_recording_on_flow_style_step_still_loads_back() -> None:
    before = "trail:\n  - {step: a, recording: {ios: []}}\n  - step: b # comment\n"
    trail = loads_trail(before)
    trail.set_recording(0, "android", [HIDE])
    after = trail.to_yaml()
    assert after.endswith("  - step: b # comment\n")
    assert loads_trail(after).steps[0].recording == {"ios": [], "android": [HIDE]}


def test_set_recording_in_flow_sequence_rewrites_only_that_sequence() -> None:
    trail = loads_trail("# head\ntrail: [{step: a}, {step: b}]\n")
    trail.set_recording(1, "android", [HIDE])
    assert trail.source_text == (
        "# head\ntrail:\n  - step: a\n  - step: b\n    recording:\n      android:\n        - hideKeyboard: {}\n"
    )


def test_set_recording_on_v1_writes_recording_tools() -> None:
    before = (ROOT / "tests/data/trails/v1-tools-config.trail.yaml").read_text()
    trail = loads_trail(before)
    trail.set_recording(1, "android", [HIDE])
    assert trail.to_yaml() == before.replace(
        '    - step: Navigate to the "Catalog" tab\n',
        '    - step: Navigate to the "Catalog" tab\n      recording:\n        tools:\n          - hideKeyboard: {}\n',
    )
    assert trail.steps[1].recording == {ANY_CLASSIFIER: [HIDE]}


def test_set_trailhead_recording_touches_only_that_classifier() -> None:
    before = (ROOT / "tests/data/trails/unified-trailhead.trail.yaml").read_text()
    trail = loads_trail(before)
    trail.set_trailhead_recording("ios", ToolCall(name="launchApp", params={"appId": "dev.trailblaze.demo"}))
    assert trail.to_yaml() == before.replace(
        "        appId: xyz.block.trailblaze.examples.sampleapp\n",
        "        appId: xyz.block.trailblaze.examples.sampleapp\n    ios:\n      launchApp:\n        appId: dev.trailblaze.demo\n",
    )
    trail.set_trailhead_recording("android-phone", ToolCall(name="launchApp", params={"appId": "other"}))
    assert "        appId: other\n    ios:" in trail.to_yaml()
    with pytest.raises(UsageError, match="no `trailhead:`"):
        loads_trail("trail:\n  - step: a\n").set_trailhead_recording("android", HIDE)


def test_set_recording_rejects_bad_classifier_and_index() -> None:
    trail = loads_trail("trail:\n  - step: a\n")
    with pytest.raises(UsageError, match="not a device classifier"):
        trail.set_recording(0, "Android Phone", [HIDE])
    with pytest.raises(IndexError):
        trail.set_recording(3, "android", [HIDE])
    assert trail.to_yaml() == "trail:\n  - step: a\n"


def test_other_mutations_render_fresh() -> None:
    trail = loads_trail("# gone after a structural edit\ntrail:\n  - step: a\n")
    trail.steps.append(TrailStep(kind="verify", text="b"))
    assert trail.to_yaml() == "trail:\n  - step: a\n\n  - verify: b\n"


def test_built_trail_renders_like_trailblaze() -> None:
    trail = Trail(
        config=TrailConfig(id="demo/x", title="X", target="dev.trailblaze.demo", tags=["a"]),
        trailhead=Trailhead(
            text="Launch",
            recording={"android": ToolCall(name="launchApp", params={"appId": "dev.trailblaze.demo"})},
        ),
        steps=[
            TrailStep(text="Tap it", recording={"android": [TAP_SIGN_IN]}, max_retries=2),
            TrailStep(kind="verify", text="It: worked", recordable=False),
        ],
    )
    assert trail.to_yaml() == (
        "config:\n  id: demo/x\n  title: X\n  target: dev.trailblaze.demo\n  tags:\n    - a\n\n"
        "trailhead:\n  step: Launch\n  recording:\n    android:\n      launchApp:\n        appId: dev.trailblaze.demo\n\n"
        "trail:\n  - step: Tap it\n    recording:\n      android:\n        - tapOnElementBySelector:\n"
        "            nodeSelector:\n              androidAccessibility:\n                resourceIdRegex: sign_in\n"
        "    maxRetries: 2\n\n  - verify: 'It: worked'\n    recordable: false\n"
    )


# --- saving -----------------------------------------------------------------------------------------


def test_save_is_atomic_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "t.trail.yaml"
    target.write_text("trail:\n  - step: a\n")
    os.chmod(target, 0o640)
    trail = load_trail(target)
    trail.set_recording(0, "android", [HIDE])
    save_trail(trail)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert load_trail(target).steps[0].recording_for("android") == [HIDE]
    assert [p.name for p in tmp_path.iterdir()] == ["t.trail.yaml"]  # no temp file left behind


def test_failed_save_leaves_the_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "t.trail.yaml"
    target.write_text("trail:\n  - step: a\n")
    trail = load_trail(target)
    trail.format = "v1"
    trail.steps[0].recording = {"android": [HIDE], "ios": []}  # cannot be written as v1
    with pytest.raises(UsageError, match="v1"):
        trail.save()
    assert target.read_text() == "trail:\n  - step: a\n"
    assert len(list(tmp_path.iterdir())) == 1


def test_save_needs_a_path() -> None:
    with pytest.raises(UsageError, match="give a path"):
        Trail(steps=[TrailStep(text="a")]).save()


def test_load_reports_missing_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such trail file"):
        load_trail(tmp_path / "nope.trail.yaml")
    bad = tmp_path / "bad.trail.yaml"
    bad.write_bytes(b"trail:\n  - step: \xff\n")
    with pytest.raises(TrailFileError, match=r"bad.trail.yaml:1:1: not UTF-8"):
        load_trail(bad)


def test_find_trail_files(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.trail.yaml").write_text("trail: [{step: a}]\n")
    (tmp_path / "a" / "trail.yaml").write_text("trail: [{step: a}]\n")
    (tmp_path / "a" / "other.yaml").write_text("x: 1\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "h.trail.yaml").write_text("x\n")
    explicit = tmp_path / "named.yaml"
    explicit.write_text("trail: [{step: a}]\n")
    files, missing = find_trail_files([tmp_path, explicit, tmp_path / "gone"])
    assert [p.name for p in files] == ["trail.yaml", "x.trail.yaml", "named.yaml"]
    assert missing == [str(tmp_path / "gone")]


def test_windows_line_endings_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "crlf.trail.yaml"
    target.write_bytes(b"# c\r\ntrail:\r\n  - step: a   # x\r\n  - step: b\r\n")
    trail = load_trail(target)
    trail.save()
    assert target.read_bytes() == b"# c\r\ntrail:\r\n  - step: a   # x\r\n  - step: b\r\n"
    trail.set_recording(1, "ios", [HIDE])
    trail.save()
    assert target.read_bytes() == (
        b"# c\r\ntrail:\r\n  - step: a   # x\r\n  - step: b\r\n    recording:\r\n      ios:\r\n        - hideKeyboard: {}\r\n"
    )
