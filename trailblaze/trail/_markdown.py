"""Markdown test cases: a `*.trail.md` read as a unified trail (ADR 0021).

```markdown
---
id: demo/login-md
title: Sign in
---
# Sign in with a valid account

- Launch the demo app with a clean state
- Type user@example.com into the Email field
- Verify the Inbox screen is shown
```

The YAML front matter (between `---` lines, at the top) is the trail's `config`; every item of a
top-level Markdown list (`-`, `*`, `+` or `1.`) is a step, and an item starting with "Verify" (any
case) is a `verify` step; an indented line under an item continues its text. Everything else
(headings, prose) is kept as a YAML comment. The text is turned into the unified YAML the recorder
writes to the sibling `.trail.yaml`; each line of it remembers the Markdown line it came from, so a
problem is reported at the `.md`'s own `file:line:col`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from trailblaze.errors import Problem, TrailFileError

__all__ = ["MarkdownTrail", "markdown_to_yaml", "remap"]

_ITEM = re.compile(r"^(?P<indent> {0,3})(?:[-*+]|\d{1,9}[.)])(?:\s+(?P<text>.*?))?\s*$")
_VERIFY = re.compile(r"verify\b", re.IGNORECASE)
_FENCE = "---"


@dataclass(frozen=True)
class MarkdownTrail:
    """The unified YAML for a `.trail.md`, and where each of its lines came from."""

    text: str
    origin: list[tuple[int, int]]
    """Per YAML line (0-based): the Markdown line (1-based) and how many columns the YAML shifted it."""


def markdown_to_yaml(text: str, path: str) -> MarkdownTrail:
    """The `.trail.md` text as unified trail YAML.

    Raises:
        TrailFileError: unclosed front matter, or an empty list item.
    """
    lines = text.splitlines()
    out: list[str] = []
    origin: list[tuple[int, int]] = []

    def emit(line: str, md_line: int, shift: int = 0) -> None:
        out.append(line)
        origin.append((md_line, shift))

    body = 0
    if lines and lines[0].strip() == _FENCE:
        close = next((i for i in range(1, len(lines)) if lines[i].strip() == _FENCE), None)
        if close is None:
            raise TrailFileError(path, [Problem(1, 1, "the front matter `---` is never closed; end it with a `---` line")])
        front = lines[1:close]
        has_config = any(line.strip() and not line.lstrip().startswith("#") for line in front)
        emit("config:" if has_config else "#", 1)
        for i, line in enumerate(front, start=2):
            emit(f"  {line}" if line.strip() else "", i, 2)
        emit("trail:", close + 1)
        body = close + 1
    else:
        emit("trail:", 1)
    problems: list[Problem] = []
    item: tuple[int, str, str, int] | None = None  # (output index, kind, text, md column)

    def finish() -> None:
        if item is not None:
            index, kind, step_text, column = item
            prefix = f"  - {kind}: "
            out[index] = prefix + json.dumps(step_text, ensure_ascii=False)
            origin[index] = (origin[index][0], len(prefix) + 1 - column)

    for number, line in enumerate(lines[body:], start=body + 1):
        match = _ITEM.match(line)
        if match:
            finish()
            step_text = (match["text"] or "").strip()
            column = len(line) - len(line.lstrip()) + 1
            if not step_text:
                item = None
                problems.append(Problem(number, column, "an empty list item: write the step's text after the marker"))
                emit("", number)
                continue
            kind = "verify" if _VERIFY.match(step_text) else "step"
            item = (len(out), kind, step_text, line.index(step_text) + 1)
            emit("", number)
        elif item is not None and line.strip() and line[:1] in (" ", "\t"):
            index, kind, step_text, column = item
            item = (index, kind, f"{step_text} {line.strip()}", column)
            emit("", number)
        else:
            finish()
            item = None
            prose = line.strip()
            emit(prose if prose.startswith("#") or not prose else f"# {prose}", number)
    finish()
    if problems:
        raise TrailFileError(path, problems)
    if not any(line.startswith("  - ") for line in out):
        where = origin[next(i for i, line in enumerate(out) if line == "trail:")][0]
        raise TrailFileError(
            path, [Problem(where, 1, "no steps: list them as a Markdown list (`- Open the app`, `- Verify …`)")]
        )
    return MarkdownTrail("\n".join(out) + "\n", origin)


def remap(error: TrailFileError, md: MarkdownTrail, path: str) -> TrailFileError:
    """The problems of the generated YAML, at their places in the `.trail.md`."""
    problems = []
    for problem in error.problems:
        md_line, shift = md.origin[min(max(problem.line, 1), len(md.origin)) - 1]
        problems.append(Problem(md_line, max(problem.column - shift, 1), problem.message))
    return TrailFileError(path, problems)
