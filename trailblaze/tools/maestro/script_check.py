"""Maestro's JavaScript compiled without running it, so `validate` finds a syntax error before the device.

A script is compiled as the runner evaluates it (a whole script, not an expression: `${a = 1; a}` is
one), behind a `throw` on its first line: QuickJS parses the whole text before it runs any of it, so a
syntax error anywhere is reported and nothing of the script runs. Each check gets a fresh context
(a fraction of a millisecond), so no declaration of one script meets another's.
"""

from __future__ import annotations

import re

__all__ = ["INLINE", "syntax_error"]

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
