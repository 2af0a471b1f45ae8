"""Maestro's commands: which ones trailblaze runs, their accepted forms, and why the others are refused.

A command is written as Maestro writes it: a bare name (`- back`), or a one-key mapping whose value is
a scalar shorthand (`- tapOn: Sign in`) or a mapping of fields. `normalize` turns every form into
`(name, fields)`; `check` finds what a command cannot do here, as `(path, message)` pairs whose path
leads into the command so the reader can name `file:line`. Values may be written as strings
(`timeout: "3000"`, `clearState: "true"`), as Block's Trailblaze records `mobile_maestro` commands.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from trailblaze.common.limits import (
    MAX_ERASE_CHARACTERS,
    MAX_RANDOM_TEXT,
    MAX_REPEAT_ROUNDS,
    MAX_REPEAT_TIMES,
    MAX_TAP_REPEAT,
)
from trailblaze.device.media import MEDIA_EXTENSIONS

__all__ = [
    "AI_COMMANDS",
    "ANDROID_KEYCODES",
    "CONTAINERS",
    "SCRIPT_COMMANDS",
    "REFUSED",
    "SUPPORTED",
    "as_bool",
    "as_int",
    "check",
    "repeat_rounds",
    "command_list",
    "normalize",
    "summary",
]

Problem = tuple[tuple[str | int, ...], str]

_SELECTOR_KEYS = frozenset(
    {
        "text", "id", "index", "below", "above", "leftOf", "rightOf", "childOf", "containsChild",
        "containsDescendants", "enabled", "selected", "checked", "focused", "optional", "label",
        "retryTapIfNoChange", "waitUntilVisible", "waitToSettleTimeoutMs", "width", "height", "tolerance",
    }
)  # fmt: skip
_RELATIONS = ("below", "above", "leftOf", "rightOf", "childOf", "containsChild")
_TAP_KEYS = _SELECTOR_KEYS | {"point", "repeat", "delay"}
_COMMON = frozenset({"label", "optional"})

_SHORTHAND: dict[str, str | None] = {
    # command → the field a scalar value stands for (None: the command takes no scalar)
    "tapOn": "text", "doubleTapOn": "text", "longPressOn": "text", "assertVisible": "text",
    "assertNotVisible": "text", "copyTextFrom": "text", "launchApp": "appId", "stopApp": "appId",
    "killApp": "appId", "clearState": "appId", "inputText": "text", "eraseText": "charactersToErase",
    "pressKey": "key", "openLink": "link", "runFlow": "file", "takeScreenshot": "path",
    "inputRandomText": None, "inputRandomNumber": None, "inputRandomEmail": None,
    "inputRandomPersonName": None, "back": None, "hideKeyboard": None, "scroll": None,
    "pasteText": None, "waitForAnimationToEnd": None, "swipe": None, "scrollUntilVisible": None,
    "extendedWaitUntil": None, "repeat": None, "retry": None,
    "evalScript": "script", "runScript": "file", "assertTrue": "condition",
    "assertWithAI": "assertion", "assertNoDefectsWithAI": None, "extractTextWithAI": "query",
    "setPermissions": None, "addMedia": "files", "clearKeychain": None,
}  # fmt: skip

_FIELDS: dict[str, frozenset[str]] = {
    "tapOn": _TAP_KEYS,
    "doubleTapOn": _TAP_KEYS,
    "longPressOn": _TAP_KEYS,
    "assertVisible": _SELECTOR_KEYS,
    "assertNotVisible": _SELECTOR_KEYS,
    "copyTextFrom": _SELECTOR_KEYS,
    "launchApp": _COMMON | {"appId", "clearState", "clearKeychain", "stopApp", "permissions", "arguments"},
    "stopApp": _COMMON | {"appId"},
    "killApp": _COMMON | {"appId"},
    "clearState": _COMMON | {"appId"},
    "inputText": _COMMON | {"text"},
    "inputRandomText": _COMMON | {"length"},
    "inputRandomNumber": _COMMON | {"length"},
    "inputRandomEmail": _COMMON,
    "inputRandomPersonName": _COMMON,
    "eraseText": _COMMON | {"charactersToErase"},
    "pressKey": _COMMON | {"key"},
    "back": _COMMON,
    "hideKeyboard": _COMMON,
    "scroll": _COMMON,
    "pasteText": _COMMON,
    "swipe": _COMMON | {"direction", "start", "end", "from", "duration", "waitToSettleTimeoutMs"},
    "scrollUntilVisible": _COMMON
    | {
        "element",
        "direction",
        "timeout",
        "speed",
        "visibilityPercentage",
        "centerElement",
        "waitToSettleTimeoutMs",
    },
    "extendedWaitUntil": _COMMON | {"visible", "notVisible", "timeout"},
    "waitForAnimationToEnd": _COMMON | {"timeout"},
    "openLink": _COMMON | {"link", "browser", "autoVerify"},
    "takeScreenshot": _COMMON | {"path"},
    "runFlow": _COMMON | {"file", "commands", "env", "when"},
    "repeat": _COMMON | {"times", "while", "commands"},
    "retry": _COMMON | {"maxRetries", "file", "commands", "env"},
    "evalScript": _COMMON | {"script"},
    "runScript": _COMMON | {"file", "env", "when", "source"},
    "assertTrue": _COMMON | {"condition"},
    "assertWithAI": _COMMON | {"assertion"},
    "assertNoDefectsWithAI": _COMMON,
    "extractTextWithAI": _COMMON | {"query", "outputVariable"},
    "setPermissions": _COMMON | {"appId", "permissions"},
    "clearKeychain": _COMMON,
    "addMedia": _COMMON | {"files"},
}
_FIELDS["inputText"] = _FIELDS["inputText"] | {"id"}  # Maestro reads and ignores it (a note says so)

AI_COMMANDS = frozenset({"assertWithAI", "assertNoDefectsWithAI", "extractTextWithAI"})
"""Commands that ask the run's model on every run (marked AI, counted as LLM calls)."""
SCRIPT_COMMANDS = frozenset({"evalScript", "runScript", "assertTrue"})

SUPPORTED: frozenset[str] = frozenset(_FIELDS)
"""The Maestro commands trailblaze runs."""

CONTAINERS = frozenset({"runFlow", "repeat", "retry"})
"""Commands that hold a command list of their own."""

REFUSED: dict[str, str] = {
    "setLocation": "trailblaze has no location simulation",
    "travel": "trailblaze has no location simulation",
    "startRecording": "trailblaze does not record the screen (reports keep a screenshot per step)",
    "stopRecording": "trailblaze does not record the screen (reports keep a screenshot per step)",
    "setAirplaneMode": "airplane mode is not driven here; use the `setNetwork` tool in a trail",
    "toggleAirplaneMode": "airplane mode is not driven here; use the `setNetwork` tool in a trail",
    "openBrowser": "opening a browser app is not supported; use openLink",
    "setOrientation": "trailblaze does not rotate the device",
    "assertScreenshot": "screenshot comparison is not supported",
}
"""Maestro commands trailblaze refuses, each with the reason (validate and replay say it, exit 2)."""

_KEYS = {"enter": "ENTER", "backspace": "BACKSPACE", "home": "HOME", "back": "BACK", "tab": "TAB"}
ANDROID_KEYCODES = {
    "lock": 276, "volume up": 24, "volume down": 25, "remote dpad up": 19, "remote dpad down": 20,
    "remote dpad left": 21, "remote dpad right": 22, "remote dpad center": 23,
    "remote media play pause": 85, "remote media stop": 86, "remote media next": 87,
    "remote media previous": 88, "remote media rewind": 89, "remote media fast forward": 90,
    "escape": 111, "power": 26, "remote system navigation up": 280, "remote system navigation down": 281,
    "remote button a": 96, "remote button b": 97, "remote menu": 82, "tv input": 178,
    "tv input hdmi 1": 243, "tv input hdmi 2": 244, "tv input hdmi 3": 245,
}  # fmt: skip
"""Every other key name Maestro knows (its `KeyCode`), as the Android key code it sends."""
_ACTIONS = frozenset({"back", "hideKeyboard", "scroll", "clearKeychain", "pasteText"})
_SWIPE_DIRECTIONS = frozenset({"UP", "DOWN", "LEFT", "RIGHT"})
_SIMPLE_VAR = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"^\s*[A-Za-z_][\w-]*\s*$|^\s*maestro\.copiedText\s*$")
_POINT = re.compile(r"^\s*-?\d+(?:\.\d+)?%?\s*,\s*-?\d+(?:\.\d+)?%?\s*$")


def key_code(name: str) -> str | None:
    """Trailblaze's key for a Maestro key name (`Enter`, `backspace`, …), None when it has none."""
    return _KEYS.get(name.strip().lower())


def normalize(item: Any) -> tuple[str, dict[str, Any]]:
    """`(name, fields)` for a command in any of Maestro's forms.

    Raises:
        ValueError: not a command (a list, a number, a mapping of several keys, a scalar where the
            command takes fields).
    """
    if isinstance(item, str):
        name = "hideKeyboard" if item == "hide keyboard" else item
        return name, {}
    if not isinstance(item, dict) or len(item) != 1:
        keys = ", ".join(map(str, item)) if isinstance(item, dict) else ""
        raise ValueError(
            f"a Maestro command is one name or a one-key mapping, found {keys or type(item).__name__}; "
            "put each command in its own `- ` item"
        )
    ((name, value),) = item.items()
    name = str(name)
    if name == "action" and isinstance(value, str) and value in _ACTIONS:
        return value, {}  # Maestro's older `- action: back` form
    if value is None:
        return name, {}
    if isinstance(value, dict):
        return name, dict(value)
    if isinstance(value, list) and name in ("runFlow", "retry", "repeat"):
        raise ValueError(f"{name} takes fields (`commands:` …), not a bare list")
    if isinstance(value, list) and name == "addMedia":
        return name, {"files": value}
    field = _SHORTHAND.get(name)
    if field is None:
        if name in SUPPORTED:
            raise ValueError(f"{name} takes fields, not {value!r}")
        return name, {}
    return name, {field: value}


def command_list(value: Any) -> list[Any] | None:
    """The list of a `commands:` field, None when it is not a list."""
    return value if isinstance(value, list) else None


def as_bool(value: Any) -> bool | None:
    """A Maestro boolean written as a bool or as "true" / "false"; None for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def as_int(value: Any) -> int | None:
    """A Maestro number written as a number or a numeric string; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


def summary(item: Any) -> str:
    """A short text for a command, used as a step's text (`tapOn "Sign in"`, `launchApp`)."""
    try:
        name, fields = normalize(item)
    except ValueError:
        return "Maestro command"
    fields = {k: v for k, v in fields.items() if k not in ("optional", "label")}
    if isinstance(item, dict) and isinstance(next(iter(item.values())), dict):
        label = next(iter(item.values())).get("label")
        if isinstance(label, str) and label.strip():
            return label.strip()
    if name in CONTAINERS:
        inner = fields.get("commands")
        count = len(inner) if isinstance(inner, list) else 0
        what = f" {fields['file']}" if isinstance(fields.get("file"), str) else ""
        return f"{name}{what} ({count} command{'s' * (count != 1)})" if count else f"{name}{what}"
    if not fields:
        return name
    if len(fields) == 1:
        ((key, value),) = fields.items()
        if not isinstance(value, (dict, list)):
            return (
                f"{name} {key}={value!r}"
                if key not in ("text", "appId", "link", "key")
                else f"{name} {value!r}"
            )
    shown = ", ".join(f"{k}={v!r}" for k, v in fields.items() if not isinstance(v, (dict, list)))
    return f"{name} {shown}".strip() if shown else name


# --- checking ----------------------------------------------------------------------------------------


def check(item: Any, rounds: tuple[int, ...] = ()) -> list[Problem]:
    """What keeps the command `item` from running here (empty when it runs), nested commands included.

    `rounds`: the `times` of the repeats around `item`, whose product is bounded."""
    try:
        name, fields = normalize(item)
    except ValueError as exc:
        return [((), str(exc))]
    at: tuple[str | int, ...] = (name,) if isinstance(item, dict) else ()
    if name in REFUSED:
        return [(at, f"Maestro command `{name}` is not supported: {REFUSED[name]}")]
    if name not in SUPPORTED:
        return [
            (
                at,
                f"unknown Maestro command `{name}`; `trailblaze import maestro --help` names the supported ones",
            )
        ]
    problems = [
        ((*at, key), f"{name} has no field `{key}`")
        for key in fields
        if key not in _FIELDS[name] and key not in ("traits", "css")
    ]
    for key in ("traits", "css"):
        if key in fields and name in _SELECTOR_COMMANDS:
            problems.append(
                ((*at, key), f"{name}: selecting by `{key}` is not supported; select by text or id")
            )
    problems += [((*at, *p), m) for p, m in _check_fields(name, fields, rounds)]
    return problems


_SELECTOR_COMMANDS = frozenset(
    {"tapOn", "doubleTapOn", "longPressOn", "assertVisible", "assertNotVisible", "copyTextFrom"}
)


def _check_fields(name: str, fields: dict[str, Any], rounds: tuple[int, ...]) -> Iterator[Problem]:
    if name in _SELECTOR_COMMANDS:
        if name in ("tapOn", "doubleTapOn", "longPressOn"):
            yield from _cap(fields, "repeat", MAX_TAP_REPEAT, f"{name}: repeat", "tap fewer times")
        if name in ("tapOn", "doubleTapOn", "longPressOn") and "point" in fields:
            point = fields["point"]
            if not _is_template(point) and (not isinstance(point, str) or not _POINT.match(point)):
                yield ("point",), f'{name}: point is "x, y" or "x%, y%", found {fields["point"]!r}'
        else:
            yield from check_selector(fields, name)
    elif name == "launchApp":
        if "permissions" in fields and not isinstance(fields["permissions"], dict):
            yield ("permissions",), "launchApp: permissions is a mapping of permission → allow / deny / unset"
        if "arguments" in fields and not isinstance(fields["arguments"], dict):
            yield ("arguments",), "launchApp: arguments is a mapping of name → value"
    elif name == "pressKey":
        key = fields.get("key")
        if not isinstance(key, str) or (
            key_code(key) is None and key.strip().lower() not in ANDROID_KEYCODES
        ):
            yield (
                ("key",),
                f"pressKey: {key!r} is not a key Maestro knows (Enter, Backspace, Home, Back, Tab, Volume Up, Remote Dpad Down, …)",
            )
    elif name in ("inputText",) and "text" not in fields:
        yield (), "inputText needs text"
    elif name in ("inputRandomText", "inputRandomNumber"):
        yield from _cap(fields, "length", MAX_RANDOM_TEXT, f"{name}: length", "type fewer characters")
    elif name == "eraseText":
        yield from _cap(
            fields, "charactersToErase", MAX_ERASE_CHARACTERS, "eraseText", "erase fewer characters"
        )
    elif name == "evalScript" and (
        fields.get("script") is None or isinstance(fields["script"], (dict, list))
    ):
        yield (), "evalScript needs a script (`- evalScript: ${output.count = 1}`)"
    elif name == "runScript":
        if not isinstance(fields.get("file"), str):
            yield (), "runScript needs file (a .js file beside the flow)"
        if "env" in fields and not isinstance(fields["env"], dict):
            yield ("env",), "runScript: env is a mapping of name → value"
        if "when" in fields:
            yield from ((("when", *p), m) for p, m in check_condition(fields["when"], name))
    elif name == "assertTrue" and fields.get("condition") is None:
        yield (), "assertTrue needs a condition (`- assertTrue: ${output.count > 0}`)"
    elif name == "assertWithAI" and not isinstance(fields.get("assertion"), str):
        yield (), "assertWithAI needs assertion (what must be true of the screen)"
    elif name == "extractTextWithAI" and not isinstance(fields.get("query"), str):
        yield (), "extractTextWithAI needs query (what to read from the screen)"
    elif name == "setPermissions" and not isinstance(fields.get("permissions"), dict):
        yield (
            ("permissions",),
            "setPermissions: permissions is a mapping of permission → allow / deny / unset",
        )
    elif name == "addMedia":
        files = fields.get("files")
        if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
            yield (), "addMedia lists the media files to add (`- addMedia: [photo.png]`)"
        else:
            for written in files:
                ext = PurePosixPath(written).suffix.lstrip(".").lower()
                if ext not in MEDIA_EXTENSIONS:
                    yield (
                        (),
                        f"addMedia {written}: .{ext or '(no extension)'} is not a media type Maestro adds; "
                        f"use one of {', '.join('.' + e for e in sorted(MEDIA_EXTENSIONS))}",
                    )
    elif name == "swipe":
        yield from _check_swipe(fields)
    elif name == "scrollUntilVisible":
        element = fields.get("element")
        if element is None:
            yield (), "scrollUntilVisible needs element"
        elif isinstance(element, dict):
            yield from ((("element", *p), m) for p, m in check_selector(element, name))
        direction = str(fields.get("direction", "DOWN")).upper()
        if direction not in _SWIPE_DIRECTIONS:
            yield (
                ("direction",),
                f"scrollUntilVisible: direction is UP, DOWN, LEFT or RIGHT, found {direction!r}",
            )
    elif name == "extendedWaitUntil":
        if ("visible" in fields) == ("notVisible" in fields):
            yield (), "extendedWaitUntil needs one of visible or notVisible"
        for key in ("visible", "notVisible"):
            if isinstance(fields.get(key), dict):
                yield from (((key, *p), m) for p, m in check_selector(fields[key], name))
    elif name in ("openLink",) and not isinstance(fields.get("link"), str):
        yield ("link",), "openLink needs link"
    elif name == "takeScreenshot" and not isinstance(fields.get("path"), str):
        yield ("path",), "takeScreenshot needs path"
    elif name in CONTAINERS:
        yield from _check_container(name, fields, rounds)


def check_selector(fields: dict[str, Any], name: str) -> Iterator[Problem]:
    """Problems of a Maestro element selector (relations included)."""
    for key in fields:
        if key in ("traits", "css"):
            continue  # reported by `check` once, at the command
        if key not in _TAP_KEYS:
            yield (key,), f"{name}: a selector has no field `{key}`"
    for key in ("index", "width", "height", "tolerance"):
        if key in fields and as_int(fields[key]) is None and not _is_template(fields[key]):
            yield (key,), f"{name}: {key} is a number, found {fields[key]!r}"
    for rel in _RELATIONS:
        sub = fields.get(rel)
        if isinstance(sub, dict):
            yield from (((rel, *p), m) for p, m in check_selector(sub, name))
    for i, sub in enumerate(fields.get("containsDescendants") or []):
        if isinstance(sub, dict):
            yield from ((("containsDescendants", i, *p), m) for p, m in check_selector(sub, name))


def _is_template(value: Any) -> bool:
    return isinstance(value, str) and "${" in value


def _check_swipe(fields: dict[str, Any]) -> Iterator[Problem]:
    if "direction" in fields:
        if str(fields["direction"]).upper() not in _SWIPE_DIRECTIONS:
            yield (
                ("direction",),
                f"swipe: direction is UP, DOWN, LEFT or RIGHT, found {fields['direction']!r}",
            )
    elif "start" in fields and "end" in fields:
        for key in ("start", "end"):
            if not isinstance(fields[key], str) or not _POINT.match(fields[key]):
                yield (key,), f'swipe: {key} is "x, y" or "x%, y%", found {fields[key]!r}'
    else:
        yield (), "swipe needs direction, or start and end"
    if isinstance(fields.get("from"), dict):
        yield from ((("from", *p), m) for p, m in check_selector(fields["from"], "swipe"))


def _check_container(name: str, fields: dict[str, Any], rounds: tuple[int, ...]) -> Iterator[Problem]:
    commands = fields.get("commands")
    inner, too_many = repeat_rounds(name, fields, rounds)
    if too_many is not None:
        yield ("times",), too_many
    if name != "repeat" and "file" in fields and "commands" in fields:
        yield (), f"{name}: give file or commands, not both"
    if name == "repeat" and not isinstance(commands, list):
        yield (), "repeat needs commands"
    if name != "repeat" and "file" not in fields and not isinstance(commands, list):
        yield (), f"{name} needs file or commands"
    if "commands" in fields and not isinstance(commands, list):
        yield ("commands",), f"{name}: commands is a list of Maestro commands"
    for i, sub in enumerate(commands if isinstance(commands, list) else []):
        yield from ((("commands", i, *p), m) for p, m in check(sub, inner))
    for key in ("when", "while"):
        if key in fields:
            yield from (((key, *p), m) for p, m in check_condition(fields[key], name))
    if (
        name == "repeat"
        and "times" in fields
        and as_int(fields["times"]) is None
        and not _is_template(fields["times"])
    ):
        yield ("times",), f"repeat: times is a number, found {fields['times']!r}"
    if name == "repeat":
        yield from _cap(fields, "times", MAX_REPEAT_TIMES, "repeat: times", "repeat fewer times")
    if "env" in fields and not isinstance(fields["env"], dict):
        yield ("env",), f"{name}: env is a mapping of name → value"


def repeat_rounds(
    name: str, fields: dict[str, Any], rounds: tuple[int, ...], around: str = ""
) -> tuple[tuple[int, ...], str | None]:
    """The `times` of the repeats around the commands of `name` (`rounds` and its own, for a
    `repeat`), and the problem when their product is past `MAX_REPEAT_ROUNDS` (said once: at the
    repeat that crosses it, not at those inside it). `around` says where the outer rounds are."""
    times = as_int(fields["times"]) if name == "repeat" and fields.get("times") is not None else None
    if times is None or not 0 < times <= MAX_REPEAT_TIMES:  # past it, `_cap` says so
        return rounds, None
    inner = (*rounds, times)
    total = math.prod(inner)
    if total <= MAX_REPEAT_ROUNDS or math.prod(rounds) > MAX_REPEAT_ROUNDS:
        return inner, None
    product = " × ".join(f"{n:,}" for n in inner)
    return inner, (
        f"repeat: nested repeats run their commands {product} = {total:,} times{around}, more than "
        f"{MAX_REPEAT_ROUNDS:,}; repeat fewer times or nest fewer repeats"
    )


def _cap(fields: dict[str, Any], key: str, limit: int, what: str, fix: str) -> Iterator[Problem]:
    """A number past trailblaze's bound for it: a hostile flow must not loop or type for hours."""
    value = as_int(fields.get(key)) if fields.get(key) is not None else None
    if value is not None and value > limit:
        yield (key,), f"{what} {value:,} is more than {limit:,}; {fix}"


def check_condition(value: Any, name: str) -> Iterator[Problem]:
    """Problems of a `when:` / `while:` condition."""
    if not isinstance(value, dict):
        yield (), f"{name}: a condition is a mapping (visible, notVisible, platform or true)"
        return
    for key, sub in value.items():
        if key in ("visible", "notVisible"):
            if isinstance(sub, dict):
                yield from (((key, *p), m) for p, m in check_selector(sub, name))
        elif key == "platform":
            if str(sub).lower() not in ("android", "ios", "web"):
                yield (key,), f"{name}: platform is Android, iOS or Web, found {sub!r}"
        elif key == "true":
            pass  # a literal, `${NAME}` or a JavaScript expression: evaluated when the condition is met
        elif key not in ("label", "optional"):
            yield (key,), f"{name}: a condition has no field `{key}`"
