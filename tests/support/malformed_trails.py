"""Malformed trail files, each with the line, column and message its first problem is reported at
(tests/trail/test_trail_errors.py) and whether the JSON Schema rejects it too (tests/trail/test_trail_schema.py)."""

from __future__ import annotations

from typing import NamedTuple


class Case(NamedTuple):
    name: str
    text: str
    line: int
    column: int
    message: str
    """A fragment the message must contain (the reader-facing part, including the fix)."""
    schema_rejects: bool = True
    """Whether the JSON Schema can tell this file is wrong (see test_trail_schema)."""


REC = "trail:\n  - step: Open it\n    recording:\n      android:\n"
_SEL = REC + "        - tapOnElementBySelector:\n            nodeSelector:\n"

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
    Case("classifier without tools", REC, 4, 7, "write `android: []` for a deliberate no-op"),
    Case(
        "classifier maps to a map",
        REC + "        pressBack: {}\n",
        5,
        9,
        "`android:` must be a list of tools",
    ),
    # tools
    Case(
        "tool with two keys",
        REC + "        - inputText:\n          text: hi\n",
        5,
        11,
        "found 2 keys (inputText, text); indent the params under the tool name",
    ),
    Case(
        "empty tool map", REC + "        - {}\n", 5, 11, "a tool is a single-key map `- toolName: {params}`"
    ),
    Case("tool is a number", REC + "        - 5\n", 5, 11, "found the number 5"),
    Case(
        "params not a mapping",
        REC + "        - inputText: hello\n",
        5,
        22,
        "the params of `inputText` must be a mapping",
    ),
    Case(
        "unknown param",
        REC + "        - inputText:\n            text: hi\n            txt: ho\n",
        7,
        13,
        "unknown key `txt` in `inputText`; did you mean `text`?",
    ),
    Case("missing param", REC + "        - inputText: {}\n", 5, 22, "`inputText` is missing `text`; add it"),
    Case("bare tool needing params", REC + "        - inputText\n", 5, 11, "`inputText` is missing `text`"),
    Case(
        "swipe direction",
        REC + "        - swipe:\n            direction: SIDEWAYS\n",
        6,
        24,
        "`direction` in `swipe` must be one of UP, DOWN, LEFT or RIGHT, found 'SIDEWAYS'",
    ),
    Case(
        "scroll direction lower case",
        REC + "        - scrollUntilTextIsVisible: {text: a, direction: down}\n",
        5,
        58,
        "must be one of UP, DOWN, LEFT or RIGHT, found 'down'",
    ),
    Case(
        "key code",
        REC + "        - pressKey: {keyCode: ESC}\n",
        5,
        31,
        "`keyCode` in `pressKey` must be one of BACK, ENTER, HOME, BACKSPACE or TAB",
    ),
    Case(
        "launch mode",
        REC + "        - launchApp: {appId: x, launchMode: RESTART}\n",
        5,
        45,
        "must be one of FORCE_RESTART, RESUME or CLEAR_STATE, found 'RESTART'",
    ),
    Case(
        "number is a bool",
        REC + "        - tapOnPoint: {x: true, y: 2}\n",
        5,
        27,
        "`x` in `tapOnPoint` must be a whole number, found the boolean true",
    ),
    Case(
        "bool as text",
        REC + "        - tapOnPoint: {x: 1, y: 2, longPress: 'yes'}\n",
        5,
        47,
        "`longPress` in `tapOnPoint` must be true or false",
    ),
    Case(
        "negative coordinate",
        REC + "        - tapOnPoint: {x: -1, y: 2}\n",
        5,
        27,
        "`x` in `tapOnPoint` must be ≥ 0, found -1",
    ),
    Case(
        "wait not a number",
        REC + "        - wait: {timeToWaitInSeconds: soon}\n",
        5,
        39,
        "`timeToWaitInSeconds` in `wait` must be a number",
    ),
    Case(
        "unknown reason typo",
        REC + "        - pressBack: {reasn: x}\n",
        5,
        23,
        "unknown key `reasn` in `pressBack`; did you mean `reason`?",
    ),
    Case(
        "remember without variable",
        REC
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
        REC + "        - tapOnElementBySelector:\n            nodeSelector: {}\n",
        6,
        27,
        "an empty nodeSelector matches nothing",
    ),
    Case(
        "missing selector",
        REC + "        - tapOnElementBySelector: {longPress: true}\n",
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
        REC + "        - assertVisibleBySelector:\n            nodeSelector: Sign in\n",
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
