"""Malformed trail files: every problem is reported at its line and column with a readable fix."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import NamedTuple

import pytest

from trailblaze.errors import Problem, TrailFileError
from trailblaze.trail.model import loads_trail


class Case(NamedTuple):
    name: str
    text: str
    line: int
    column: int
    message: str
    """A fragment the message must contain (the reader-facing part, including the fix)."""
    schema_rejects: bool = True
    """Whether the JSON Schema can tell this file is wrong (see test_trail_schema)."""


_REC = "trail:\n  - step: Open it\n    recording:\n      android:\n"
_SEL = _REC + "        - tapOnElementBySelector:\n            nodeSelector:\n"

MALFORMED: list[Case] = [
    # YAML itself
    Case(
        "unclosed flow",
        "trail:\n  - step: [unclosed\n",
        3,
        1,
        "while parsing a flow sequence (line 2)",
        False,
    ),
    Case("tab indent", "trail:\n\t- step: x\n", 2, 1, "indent with spaces, not tabs", False),
    Case("two documents", "trail:\n  - step: a\n---\ntrail: []\n", 3, 1, "remove the `---` line", False),
    Case(
        "colon in plain text",
        "trail:\n  - step: Tap: the: button\n",
        2,
        14,
        "put text that contains ': ' in quotes",
        False,
    ),
    Case(
        "duplicate key",
        "trail:\n  - step: a\n    step: b\n",
        3,
        5,
        "duplicate key 'step' (first written on line 2)",
        False,
    ),
    Case(
        "duplicate top key",
        "trail:\n  - step: a\ntrail:\n  - step: b\n",
        3,
        1,
        "duplicate key 'trail'",
        False,
    ),
    Case(
        "alias",
        "trail:\n  - step: &s a\n  - step: *s\n",
        3,
        11,
        "YAML aliases (*name) are not supported",
        False,
    ),
    Case("custom tag", "trail:\n  - step: !custom a\n", 2, 11, "unsupported YAML tag '!custom'", False),
    # top level
    Case("empty file", "", 1, 1, "the file is empty"),
    Case(
        "scalar root", "just text\n", 1, 1, "a trail file is a mapping with `config`, `trailhead` and `trail`"
    ),
    Case("no trail", "config:\n  id: x\n", 1, 1, "missing `trail:`"),
    Case(
        "trail not a list",
        "trail: hello\n",
        1,
        8,
        "`trail` must be a list of `- step:` items, found the text 'hello'",
    ),
    Case("trail empty", "trail: []\n", 1, 8, "`trail` is empty; add at least one"),
    Case(
        "unknown top key",
        "trail:\n  - step: y\ntrial: 1\n",
        3,
        1,
        "unknown key `trial` at the top level; did you mean `trail`?",
    ),
    # steps
    Case(
        "both step and verify",
        "trail:\n  - step: a\n    verify: b\n",
        3,
        5,
        "exactly one of `step:` and `verify:`, found both",
    ),
    Case("neither step nor verify", "trail:\n  - recordable: false\n", 2, 5, "neither `step:` nor `verify:`"),
    Case("bare string item", "trail:\n  - Open the app\n", 2, 5, "write `- step: Open the app`"),
    Case("empty step", "trail:\n  - step:\n", 2, 5, "`step:` is empty"),
    Case(
        "numeric step",
        "trail:\n  - step: 42\n",
        2,
        11,
        "`step:` must be text, found the number 42; put the text in quotes",
    ),
    Case(
        "unknown step key",
        "trail:\n  - step: a\n    recordng: {}\n",
        3,
        5,
        "unknown key `recordng` in a trail item; did you mean `recording`?",
    ),
    Case(
        "recordable not bool",
        "trail:\n  - step: a\n    recordable: maybe\n",
        3,
        17,
        "`recordable` must be true or false",
    ),
    Case(
        "negative maxRetries",
        "trail:\n  - step: a\n    maxRetries: -1\n",
        3,
        17,
        "`maxRetries` must be a whole number ≥ 0",
    ),
    Case(
        "maxRetries text", "trail:\n  - verify: a\n    maxRetries: often\n", 3, 17, "found the text 'often'"
    ),
    # recordings
    Case(
        "recording is a list",
        "trail:\n  - step: a\n    recording:\n      - pressBack: {}\n",
        4,
        7,
        "`recording` must map a device classifier to a list of tools",
    ),
    Case(
        "v1 recording in unified",
        "trail:\n  - step: a\n    recording:\n      tools: []\n",
        4,
        7,
        "`recording: tools:` is the v1 format",
    ),
    Case(
        "bad classifier",
        "trail:\n  - step: a\n    recording:\n      Android Phone: []\n",
        4,
        7,
        "`Android Phone` is not a device classifier",
    ),
    Case("classifier without tools", _REC, 4, 7, "write `android: []` for a deliberate no-op"),
    Case(
        "classifier maps to a map",
        _REC + "        pressBack: {}\n",
        5,
        9,
        "`android:` must be a list of tools",
    ),
    # tools
    Case(
        "tool with two keys",
        _REC + "        - inputText:\n          text: hi\n",
        5,
        11,
        "found 2 keys (inputText, text); indent the params under the tool name",
    ),
    Case(
        "empty tool map", _REC + "        - {}\n", 5, 11, "a tool is a single-key map `- toolName: {params}`"
    ),
    Case("tool is a number", _REC + "        - 5\n", 5, 11, "found the number 5"),
    Case(
        "params not a mapping",
        _REC + "        - inputText: hello\n",
        5,
        22,
        "the params of `inputText` must be a mapping",
    ),
    Case(
        "unknown param",
        _REC + "        - inputText:\n            text: hi\n            txt: ho\n",
        7,
        13,
        "unknown key `txt` in `inputText`; did you mean `text`?",
    ),
    Case("missing param", _REC + "        - inputText: {}\n", 5, 22, "`inputText` is missing `text`; add it"),
    Case("bare tool needing params", _REC + "        - inputText\n", 5, 11, "`inputText` is missing `text`"),
    Case(
        "swipe direction",
        _REC + "        - swipe:\n            direction: SIDEWAYS\n",
        6,
        24,
        "`direction` in `swipe` must be one of UP, DOWN, LEFT or RIGHT, found 'SIDEWAYS'",
    ),
    Case(
        "scroll direction lower case",
        _REC + "        - scrollUntilTextIsVisible: {text: a, direction: down}\n",
        5,
        58,
        "must be one of UP, DOWN, LEFT or RIGHT, found 'down'",
    ),
    Case(
        "key code",
        _REC + "        - pressKey: {keyCode: ESC}\n",
        5,
        31,
        "`keyCode` in `pressKey` must be one of BACK, ENTER, HOME, BACKSPACE or TAB",
    ),
    Case(
        "launch mode",
        _REC + "        - launchApp: {appId: x, launchMode: RESTART}\n",
        5,
        45,
        "must be one of FORCE_RESTART, RESUME or CLEAR_STATE, found 'RESTART'",
    ),
    Case(
        "number is a bool",
        _REC + "        - tapOnPoint: {x: true, y: 2}\n",
        5,
        27,
        "`x` in `tapOnPoint` must be a whole number, found the boolean true",
    ),
    Case(
        "bool as text",
        _REC + "        - tapOnPoint: {x: 1, y: 2, longPress: 'yes'}\n",
        5,
        47,
        "`longPress` in `tapOnPoint` must be true or false",
    ),
    Case(
        "negative coordinate",
        _REC + "        - tapOnPoint: {x: -1, y: 2}\n",
        5,
        27,
        "`x` in `tapOnPoint` must be ≥ 0, found -1",
    ),
    Case(
        "wait not a number",
        _REC + "        - wait: {timeToWaitInSeconds: soon}\n",
        5,
        39,
        "`timeToWaitInSeconds` in `wait` must be a number",
    ),
    Case(
        "unknown reason typo",
        _REC + "        - pressBack: {reasn: x}\n",
        5,
        23,
        "unknown key `reasn` in `pressBack`; did you mean `reason`?",
    ),
    Case(
        "remember without variable",
        _REC
        + "        - rememberTextBySelector:\n            nodeSelector: {androidAccessibility: {textRegex: a}}\n",
        6,
        13,
        "`rememberTextBySelector` is missing `variable`",
    ),
    # selectors
    Case(
        "two driver branches",
        _SEL
        + "              androidAccessibility: {textRegex: a}\n              iosMaestro: {textRegex: a}\n",
        7,
        15,
        "a nodeSelector takes exactly one driver branch, found androidAccessibility and iosMaestro",
    ),
    Case(
        "unknown selector field",
        _SEL + "              androidAccessibility:\n                textRegx: a\n",
        8,
        17,
        "unknown key `textRegx` in `nodeSelector.androidAccessibility` of `tapOnElementBySelector`; did you mean `textRegex`?",
    ),
    Case(
        "ios field on android branch",
        _SEL + "              androidAccessibility:\n                accessibilityTextRegex: a\n",
        8,
        17,
        "unknown key `accessibilityTextRegex` in `nodeSelector.androidAccessibility`",
    ),
    Case(
        "empty selector",
        _REC + "        - tapOnElementBySelector:\n            nodeSelector: {}\n",
        6,
        27,
        "an empty nodeSelector matches nothing",
    ),
    Case(
        "missing selector",
        _REC + "        - tapOnElementBySelector: {longPress: true}\n",
        5,
        35,
        "`tapOnElementBySelector` is missing `nodeSelector`",
    ),
    Case(
        "selector flag as text",
        _SEL + "              androidAccessibility:\n                isClickable: 'true'\n",
        8,
        30,
        "`nodeSelector.androidAccessibility.isClickable` in `tapOnElementBySelector` must be true or false",
    ),
    Case(
        "unknown relation branch",
        _SEL
        + "              androidAccessibility: {textRegex: a}\n              below:\n                webby: {x: 1}\n",
        9,
        17,
        "unknown key `webby` in `nodeSelector.below`",
    ),
    Case(
        "negative index",
        _SEL + "              androidAccessibility: {textRegex: a}\n              index: -2\n",
        8,
        22,
        "`nodeSelector.index` in `tapOnElementBySelector` must be ≥ 0",
    ),
    Case(
        "selector is text",
        _REC + "        - assertVisibleBySelector:\n            nodeSelector: Sign in\n",
        6,
        27,
        "`nodeSelector` in `assertVisibleBySelector` must be a mapping",
    ),
    Case(
        "descendants not a list",
        _SEL
        + "              iosMaestro: {textRegex: a}\n              containsDescendants: {iosMaestro: {textRegex: b}}\n",
        8,
        36,
        "`nodeSelector.containsDescendants` in `tapOnElementBySelector` must be a list",
    ),
    # config
    Case(
        "config is a list",
        "config: [a]\ntrail:\n  - step: a\n",
        1,
        9,
        "`config` must be a mapping of settings",
    ),
    Case(
        "unknown config key",
        "config:\n  idd: x\ntrail:\n  - step: a\n",
        2,
        3,
        "unknown key `idd` in config; did you mean `id`?",
    ),
    Case(
        "tags not a list",
        "config:\n  tags: smoke\ntrail:\n  - step: a\n",
        2,
        9,
        "`tags` in config must be a list, found the text 'smoke'",
    ),
    Case(
        "memory value number",
        "config:\n  memory:\n    pin: 1234\ntrail:\n  - step: a\n",
        3,
        10,
        "`memory.pin` in config must be text, found the number 1234; put it in quotes",
    ),
    Case(
        "title is a list",
        "config:\n  title: [a]\ntrail:\n  - step: a\n",
        2,
        10,
        "`title` in config must be text, found a list",
    ),
    # trailhead
    Case(
        "trailhead recording list",
        "trailhead:\n  step: go\n  recording:\n    android:\n      - launchApp: {appId: x}\ntrail:\n  - step: a\n",
        5,
        7,
        "a trailhead records ONE tool per classifier as a map, not a list",
    ),
    Case(
        "trailhead without step",
        "trailhead:\n  recording: {}\ntrail:\n  - step: a\n",
        2,
        3,
        "the trailhead has no `step:`",
    ),
    Case(
        "trailhead is text",
        "trailhead: go\ntrail:\n  - step: a\n",
        1,
        12,
        "`trailhead` must be a mapping with `step:` and `recording:`",
    ),
    Case(
        "trailhead unknown key",
        "trailhead:\n  step: go\n  verify: x\ntrail:\n  - step: a\n",
        3,
        3,
        "unknown key `verify` in the trailhead",
    ),
    Case(
        "trailhead bad tool",
        "trailhead:\n  step: go\n  recording:\n    ios:\n      launchApp: {appID: x}\ntrail:\n  - step: a\n",
        5,
        18,
        "`launchApp` is missing `appId`",
    ),
    # v1
    Case(
        "v1 maestro block",
        "- maestro:\n  - back\n- prompts:\n  - step: a\n",
        1,
        3,
        "the deprecated `- maestro:` block is not supported",
    ),
    Case("v1 unknown item", "- prompt:\n    text: a\n", 1, 3, "unknown v1 trail item `prompt`"),
    Case(
        "v1 classifier recording",
        "- prompts:\n    - step: a\n      recording:\n        android: []\n",
        4,
        9,
        "in a v1 (list) trail a recording is `recording:` then `tools:`",
    ),
    Case("v1 without steps", "- config:\n    id: x\n", 1, 1, "the trail has no steps", False),
    Case(
        "v1 two keys in one item",
        "- config: {}\n  prompts: []\n",
        1,
        3,
        "a v1 trail item is a single-key map",
    ),
    Case(
        "v1 bad tool",
        "- tools:\n    - swipe: {direction: NORTH}\n",
        2,
        26,
        "`direction` in `swipe` must be one of UP, DOWN, LEFT or RIGHT",
    ),
]


def test_there_are_at_least_forty_cases() -> None:
    assert len(MALFORMED) >= 40
    assert len({c.name for c in MALFORMED}) == len(MALFORMED)


@pytest.mark.parametrize("case", MALFORMED, ids=[c.name for c in MALFORMED])
def test_malformed_input_reports_line_column_and_message(case: Case) -> None:
    with pytest.raises(TrailFileError) as info:
        loads_trail(case.text, "demo.trail.yaml")
    error = info.value
    first = error.problems[0]
    assert (first.line, first.column) == (case.line, case.column), str(error)
    assert case.message in first.message, str(error)
    assert "\n" not in first.message
    assert str(error).splitlines()[0] == f"demo.trail.yaml:{case.line}:{case.column}: {first.message}"
    assert "Traceback" not in str(error) and "pydantic" not in str(error).lower()
    assert "input_value" not in str(error) and "For further information" not in str(error)


def test_every_problem_is_reported_in_line_order() -> None:
    text = (
        "config:\n  idd: x\n"
        "trail:\n"
        "  - step: a\n    verify: b\n"
        "  - recordable: 3\n"
        "  - step: c\n    recording:\n      android:\n        - swipe: {direction: NORTH}\n        - inputText: {}\n"
    )
    with pytest.raises(TrailFileError) as info:
        loads_trail(text, "t.yaml")
    assert [(p.line, p.column) for p in info.value.problems] == [
        (2, 3),
        (5, 5),
        (6, 5),
        (6, 17),
        (10, 30),
        (11, 22),
    ]
    assert info.value.line == 2
    assert info.value.path == "t.yaml"
    lines = str(info.value).splitlines()
    assert len(lines) == 6 and all(line.startswith("t.yaml:") for line in lines)


@pytest.mark.slow
def test_problems_at_one_position_keep_the_order_they_were_found_whatever_the_hash_seed() -> None:
    # Both problems sit at 2:5. Deduplicating through a set made their order follow the string hash,
    # so the same file printed its errors in a different order from run to run.
    code = (
        "from trailblaze.trail.model import loads_trail\n"
        "try:\n    loads_trail('trail:\\n  - stepp: x\\n')\n"
        "except Exception as exc:\n    print(exc)\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "2")
    }
    assert len(outputs) == 1
    lines = outputs.pop().splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == ["<string>:2:5", "<string>:2:5"]
    assert "unknown key `stepp`" in lines[0] and "neither `step:` nor `verify:`" in lines[1]


def test_problem_format() -> None:
    assert Problem(3, 7, "oops; fix it").format("a/b.trail.yaml") == "a/b.trail.yaml:3:7: oops; fix it"


def test_custom_tools_are_not_validated() -> None:
    text = (
        _REC
        + "        - myApp_login:\n            anything: [1, {deep: true}]\n            reasn: typo is fine here\n"
    )
    trail = loads_trail(text)
    tools = trail.steps[0].recording_for("android")
    assert tools is not None and tools[0].params["anything"] == [1, {"deep": True}]
