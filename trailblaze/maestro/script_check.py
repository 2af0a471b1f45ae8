"""Maestro's JavaScript compiled without running it, so `validate` finds a syntax error before the device.

A script is compiled as the runner evaluates it (a whole script, not an expression: `${a = 1; a}` is
one), behind a `throw` on its first line: QuickJS parses the whole text before it runs any of it, so a
syntax error anywhere is reported and nothing of the script runs. Each check gets a fresh context
(a fraction of a millisecond), so no declaration of one script meets another's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from trailblaze.common import yaml_lines as _yaml
from trailblaze.maestro.commands import CONTAINERS, normalize

__all__ = ["INLINE", "command_errors", "inline_errors", "syntax_error"]

INLINE = re.compile(r"(?<!\\)\$\{([^$]*)\}")
"""Maestro's `${…}`: everything up to the last `}` before the next `$` (a backslash before `$` keeps it as written)."""
_STOP = "throw 0;"
_AT = re.compile(r"<input>:(\d+):(\d+)")
_MEMORY_LIMIT = 64 * 1024 * 1024


def syntax_error(source: str) -> tuple[int, int, str] | None:
    """The first syntax error of `source` as (line, column, message), 1-based within `source`; None
    when it compiles. Nothing of `source` runs."""
    import quickjs

    context = quickjs.Context()
    context.set_memory_limit(_MEMORY_LIMIT)
    context.set_max_stack_size(1024 * 1024)
    try:
        context.eval(_STOP + source)
    except quickjs.StackOverflow:
        return 1, 1, "the script nests too deep to compile"
    except quickjs.JSException as exc:
        text = str(exc).strip()
        first = text.splitlines()[0] if text else ""
        if not first.startswith("SyntaxError"):
            return None  # the `throw` ran: everything before it compiled
        found = _AT.search(text)
        line, col = (int(found.group(1)), int(found.group(2))) if found else (1, len(_STOP) + 1)
        if line == 1:
            col = max(col - len(_STOP), 1)
        return line, col, first.replace("unexpected token in expression: ''", "the script ends too soon")
    return None  # pragma: no cover - the `throw` always runs when the script compiles


def inline_errors(text: str) -> Iterator[tuple[int, str]]:
    """Each `${…}` of `text` that does not compile: which `${` of the text it is (0 the first), and
    the problem, quoting it."""
    for match in INLINE.finditer(text):
        source = match.group(1)
        if not source.strip():
            continue
        error = syntax_error(source)
        if error is not None:
            lines = source.strip().splitlines()
            shown = lines[0] + (" …" if len(lines) > 1 else "")
            yield text.count("${", 0, match.start()), f"`${{{shown}}}` does not compile: {error[2]}"


def whole_error(source: str, what: str) -> str | None:
    """The problem of a whole script (`evalScript` without `${…}`, a `runScript` text) that does not
    compile, with its line and column; None when it compiles."""
    error = syntax_error(source)
    if error is None:
        return None
    line, col, message = error
    return f"{what} does not compile (its line {line}, column {col}): {message}"


def command_errors(item: Any) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Each script of the Maestro command `item` (nested commands too) that does not compile, with the
    path of its text below the command: a trail's recorded commands, whose `runScript` keeps its file's
    text in `source` (a flow's are checked where the flow is read, at their own lines)."""
    try:
        name, fields = normalize(item)
    except ValueError:
        return
    at: tuple[str | int, ...] = (name,)
    skip = {"commands", "file"} if name in CONTAINERS else {"file", "source"} if name == "runScript" else set()
    for path, text in _yaml.strings(at, {k: v for k, v in fields.items() if k not in skip}):
        for _, message in inline_errors(text):
            yield path, message
    whole = {"evalScript": "script", "runScript": "source"}.get(name)
    source = fields.get(whole) if whole else None
    if isinstance(source, str) and (name == "runScript" or "${" not in source):
        problem = whole_error(source, f"{name} {fields.get('file', '')}".strip())
        if problem is not None:
            yield (*at, str(whole)), problem
    if name in CONTAINERS and isinstance(fields.get("commands"), list):
        for i, sub in enumerate(fields["commands"]):
            yield from (((*at, "commands", i, *p), m) for p, m in command_errors(sub))
