"""Property tests: any valid trail model renders to YAML that loads back equal, and no edit of a
file's text makes the loader fail with anything but `TrailFileError`."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.paths import ROOT
from trailblaze.errors import TrailFileError
from trailblaze.tools.builtin import RECORDED_TOOL_PARAMS
from trailblaze.trail.model import ToolCall, Trail, TrailConfig, Trailhead, TrailStep, loads_trail

SOURCES = sorted((ROOT / "tests" / "data" / "trails").glob("*.trail.yaml")) + sorted(
    (ROOT / "trails").glob("*.trail.yaml")
)

# Any Unicode text but surrogates (not encodable) and the C0/C1 controls YAML forbids in a stream
# (the dumper escapes those, so they are included through `_escaped`).
_chars = st.characters(exclude_categories=["Cs"], exclude_characters="\x00")
text = st.text(_chars, min_size=1, max_size=25)
nl_text = st.one_of(
    text,
    st.sampled_from(
        [
            "Tap 'OK'",
            'Say "hi"',
            "a: b",
            "- x",
            "# no comment",
            "{{email}}",
            "yes",
            "null",
            "12",
            "line1\nline2\n",
            "  padded  ",
            "@at",
            "`tick`",
        ]
    ),
)
template = st.sampled_from(["{{email}}", "{{args.name}}", "{{memory.code}}", "${var}", "pre {{x}} post"])
classifier = st.from_regex(r"\A[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,5}){0,2}\Z").filter(lambda c: c != "tools")
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    text,
    template,
)
json_like = st.recursive(
    scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)),
    max_leaves=8,
)

_android = st.fixed_dictionaries(
    {},
    optional={
        "textRegex": st.one_of(text, template),
        "resourceIdRegex": text,
        "contentDescriptionRegex": text,
        "isClickable": st.booleans(),
        "isPassword": st.booleans(),
    },
).filter(bool)
_ios = st.fixed_dictionaries(
    {},
    optional={
        "textRegex": text,
        "accessibilityTextRegex": text,
        "classNameRegex": text,
        "focused": st.booleans(),
    },
).filter(bool)


@st.composite
def node_selector(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    branch = draw(st.sampled_from(["androidAccessibility", "iosMaestro"]))
    selector: dict[str, Any] = {branch: draw(_android if branch == "androidAccessibility" else _ios)}
    if depth < 1 and draw(st.booleans()):
        selector[draw(st.sampled_from(["below", "above", "childOf", "leftOf"]))] = draw(
            node_selector(depth + 1)
        )
    if draw(st.booleans()):
        selector["index"] = draw(st.integers(0, 5))
    return selector


reason = st.one_of(st.none(), nl_text)


def _with_reason(params: dict[str, Any], why: str | None) -> dict[str, Any]:
    return params if why is None else {"reason": why, **params}


known_tool = st.one_of(
    st.builds(
        lambda sel, lp, why: ToolCall(
            name="tapOnElementBySelector",
            params=_with_reason({"nodeSelector": sel, **({"longPress": True} if lp else {})}, why),
        ),
        node_selector(),
        st.booleans(),
        reason,
    ),
    st.builds(
        lambda t, why: ToolCall(name="inputText", params=_with_reason({"text": t}, why)),
        st.one_of(text, template),
        reason,
    ),
    st.builds(
        lambda d: ToolCall(name="swipe", params={"direction": d}),
        st.sampled_from(["UP", "DOWN", "LEFT", "RIGHT"]),
    ),
    st.builds(
        lambda a, m: ToolCall(name="launchApp", params={"appId": a, **({"launchMode": m} if m else {})}),
        text,
        st.sampled_from([None, "FORCE_RESTART", "RESUME", "CLEAR_STATE", "REINSTALL"]),
    ),
    st.builds(
        lambda k: ToolCall(name="pressKey", params={"keyCode": k}),
        st.sampled_from(["BACK", "ENTER", "HOME", "BACKSPACE", "TAB"]),
    ),
    st.builds(
        lambda s: ToolCall(name="wait", params={"timeToWaitInSeconds": s}),
        st.one_of(st.integers(0, 60), st.floats(0, 60)),
    ),
    st.builds(
        lambda x, y: ToolCall(name="tapOnPoint", params={"x": x, "y": y}),
        st.integers(0, 4000),
        st.integers(0, 4000),
    ),
    st.builds(
        lambda sel, t, ms: ToolCall(
            name="assertVisibleBySelector",
            params={
                "nodeSelector": sel,
                **({"expectedText": t} if t else {}),
                **({"timeoutMs": ms} if ms else {}),
            },
        ),
        node_selector(),
        st.one_of(st.none(), text),
        st.one_of(st.none(), st.integers(1, 10_000)),
    ),
    st.sampled_from([ToolCall(name="hideKeyboard"), ToolCall(name="pressBack"), ToolCall(name="eraseText")]),
)
custom_tool = st.builds(
    lambda name, params: ToolCall(name=name, params=params),
    st.from_regex(r"\A[a-z][A-Za-z0-9_]{0,20}\Z").filter(lambda n: n not in RECORDED_TOOL_PARAMS),
    st.dictionaries(text, json_like, max_size=4),
)
tool = st.one_of(known_tool, custom_tool)
recording = st.one_of(st.none(), st.dictionaries(classifier, st.lists(tool, max_size=3), max_size=3))

step = st.builds(
    TrailStep,
    kind=st.sampled_from(["step", "verify"]),
    text=nl_text,
    recording=recording,
    recordable=st.booleans(),
    max_retries=st.one_of(st.none(), st.integers(0, 10)),
)
config = st.one_of(
    st.none(),
    st.builds(
        TrailConfig,
        id=st.one_of(st.none(), text),
        title=st.one_of(st.none(), nl_text),
        target=st.one_of(st.none(), st.just("dev.trailblaze.demo")),
        tags=st.one_of(st.none(), st.lists(text, max_size=3)),
        context=st.one_of(st.none(), nl_text),
        memory=st.one_of(st.none(), st.dictionaries(text, text, max_size=3)),
        args=st.one_of(st.none(), st.dictionaries(text, json_like, max_size=2)),
        skip=st.one_of(st.none(), st.booleans(), text, st.dictionaries(classifier, text, max_size=2)),
        priority=st.one_of(st.none(), st.integers(0, 3), st.just("P1")),
    ),
)
trailhead = st.one_of(
    st.none(),
    st.builds(
        Trailhead, text=nl_text, recording=st.one_of(st.none(), st.dictionaries(classifier, tool, max_size=2))
    ),
)
trails = st.builds(Trail, config=config, trailhead=trailhead, steps=st.lists(step, min_size=1, max_size=4))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trails)
def test_random_valid_trails_round_trip(trail: Trail) -> None:
    rendered = trail.to_yaml()
    loaded = loads_trail(rendered)
    assert loaded == trail
    assert loaded.to_yaml() == rendered


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trails, st.integers(0, 3), classifier, st.lists(tool, max_size=3))
def test_set_recording_on_rendered_text_splices_and_round_trips(
    trail: Trail, index: int, device: str, tools: list[ToolCall]
) -> None:
    loaded = loads_trail(trail.to_yaml())
    index %= len(loaded.steps)
    loaded.set_recording(index, device, tools)
    assert loaded.source_text is not None, "a block-style file must be edited in place"
    again = loads_trail(loaded.to_yaml())
    assert again == loaded
    assert again.steps[index].recording_for(device) == tools


_YAML_BITS = [
    "-",
    ":",
    " ",
    "  ",
    "\n",
    "[",
    "]",
    "{",
    "}",
    "#",
    "&a",
    "*a",
    "!",
    "|",
    ">",
    "'",
    '"',
    "%",
    "@",
    "`",
    "\t",
    "---",
    "step",
    "verify",
    "recording",
    "android",
    "{{x}}",
    "0",
    "true",
    "~",
    "?",
    ",",
    "\\",
    "\x85",
    "\u2028",
    "\ufeff",
    # hostile bits (docs/adr/0018): anchors and aliases, runaway nesting, lone surrogates, escapes
    "&a ",
    "*a",
    "<<: *a",
    "[" * 150,
    "{a: " * 120,
    '"\\ud800"',
    '"\\e[2J"',
    "\x1b]0;x\x07",
]


@st.composite
def mutated_text(draw: st.DrawFn) -> str:
    source = draw(st.sampled_from(SOURCES)).read_text()
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "replace", "dup_line", "drop_line", "indent"]))
        lines = source.splitlines(keepends=True)
        at = draw(st.integers(0, max(len(source) - 1, 0)))
        if kind == "delete":
            source = source[:at] + source[at + draw(st.integers(1, 12)) :]
        elif kind == "insert":
            source = source[:at] + draw(st.sampled_from(_YAML_BITS) | text) + source[at:]
        elif kind == "replace":
            source = source[:at] + draw(st.sampled_from(_YAML_BITS)) + source[at + 1 :]
        elif lines:
            i = draw(st.integers(0, len(lines) - 1))
            if kind == "dup_line":
                lines.insert(i, lines[i])
            elif kind == "drop_line":
                del lines[i]
            else:
                lines[i] = draw(st.sampled_from(["", " ", "  ", "    "])) + lines[i].lstrip(" ")
            source = "".join(lines)
    return source


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_text())
def test_mutated_files_fail_only_with_trail_file_error(source: str) -> None:
    try:
        trail = loads_trail(source, "m.trail.yaml")
    except TrailFileError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.line >= 1 and problem.column >= 1
            assert problem.message and "\n" not in problem.message
        return
    assert trail.to_yaml() == source
    trail.set_recording(0, "android", [ToolCall(name="pressBack")])
    assert loads_trail(trail.to_yaml()).steps[0].recording_for("android") == [ToolCall(name="pressBack")]
