"""The example commands of README.md, of every page of the docs site and of every
`trailblaze COMMAND --help`, parsed out of them.

The site's pages are every `docs/**/*.md` but the folders of `EXCLUDED_DOCS` (each with its reason);
the reference pages the site generates from the code (docs/_hooks/reference.py) hold the `--help`
examples, which `help_examples` reads from the commands themselves.

An example is a script: the commands of one fenced shell block in order (a heredoc is one command),
one inline code span, or one line of a command's `Examples:` epilog (with its `# then: …` command).
An inline span is an example when it starts with a program (`trailblaze`, `pytest`, `python`, `adb`,
`eval`) and is not a synopsis: no placeholder (`PATH…`, `--device D`, `'<tool>'`, `a\\|b`) and not a
bare command name such as `trailblaze record` or `adb logcat`. A `\\` at a line's end continues it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import click

from tests.support.paths import ROOT

README = ROOT / "README.md"
EXCLUDED_DOCS = {
    "docs/adr/": "decision records: their commands say what was decided and measured then; the guides "
    "hold the commands to run today",
    "docs/_hooks/": "the site's build hook (Python), not a page",
}

PROGRAMS = ("trailblaze", "pytest", "python", "adb", "eval", "pip")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"`([^`]+)`")
_PLACEHOLDER = re.compile(r"…|\\\||<[a-z]+>|(?<![\w-])[A-Z][A-Z_]*(?![\w=])")
_TRAILING_COMMENT = re.compile(r"\s{2,}#.*$")
_ENV_PREFIX = re.compile(r"^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*")


@dataclass(frozen=True)
class Example:
    """Where an example is written, and its commands in the order they run."""

    where: str
    commands: tuple[str, ...]


def doc_files() -> list[Path]:
    """README.md and every page of the docs site, but those `EXCLUDED_DOCS` names."""
    pages = sorted((ROOT / "docs").rglob("*.md"))
    return [README] + [p for p in pages if not _excluded(p)]


def _excluded(page: Path) -> bool:
    return any(page.relative_to(ROOT).as_posix().startswith(folder) for folder in EXCLUDED_DOCS)


def doc_blocks(lang: str) -> list[str]:
    """The bodies of the fenced blocks of this language in README.md and the docs' pages."""
    return [body for page in doc_files() for kind, body in _FENCE.findall(page.read_text(encoding="utf-8"))
            if kind == lang]  # fmt: skip


def doc_section(marker: str) -> str:
    """The text between `<!-- marker -->` and `<!-- /marker -->`, on whichever page holds it (once)."""
    found = [text.split(f"<!-- {marker} -->\n", 1)[1].split(f"<!-- /{marker} -->", 1)[0]
             for page in doc_files() if f"<!-- {marker} -->\n" in (text := page.read_text(encoding="utf-8"))]  # fmt: skip
    assert len(found) == 1, f"<!-- {marker} --> is on {len(found)} pages of the docs, not one"
    return found[0]


def doc_examples() -> list[Example]:
    found: list[Example] = []
    for page in doc_files():
        found += _page_examples(page)
    return found


def _page_examples(page: Path) -> list[Example]:
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(ROOT).as_posix()
    found: list[Example] = []
    for block in _FENCE.finditer(text):
        lang, body = block.group(1), block.group(2)
        where = f"{name}:{text.count(chr(10), 0, block.start()) + 1}"
        commands = _block_commands(lang, body)
        if commands:
            found.append(Example(where, tuple(commands)))
    prose = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # keeps line numbers
    for span in _INLINE.finditer(prose):
        command = " ".join(span.group(1).split())
        if _is_command(command):
            found.append(Example(f"{name}:{prose.count(chr(10), 0, span.start()) + 1}", (command,)))
    return found


def help_examples() -> list[Example]:
    from trailblaze.cli.main import cli

    found: list[Example] = []
    for name, command in cli.commands.items():
        epilog = command.epilog or ""
        if "Examples:" not in epilog:
            continue
        for line in epilog.split("Examples:", 1)[1].splitlines():
            main, _, then = line.strip().partition("  # then: ")
            main = _TRAILING_COMMENT.sub("", main).strip()
            if main:
                commands = [main] + ([then.strip()] if _is_command(then.strip()) else [])
                found.append(Example(f"trailblaze {name} --help", tuple(commands)))
    return found


def _block_commands(lang: str, body: str) -> list[str]:
    lines = body.splitlines()
    if lang == "yaml":  # a CI step: `- run: trailblaze …`
        return [
            m[1] for line in lines if (m := re.match(r"\s*-?\s*run:\s*((?:trailblaze|pytest) .*)$", line))
        ]
    if lang == "":  # a terminal session: `$ command` then its output
        return [line[2:] for line in lines if line.startswith("$ ")]
    if lang != "bash":
        return []
    commands: list[str] = []
    lines = re.sub(r"\\\n\s*", "", "\n".join(lines)).splitlines()  # a `\` continues the line
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        heredoc = re.search(r"<<'?(\w+)'?", line)
        if heredoc:
            end = lines.index(heredoc.group(1), i)
            commands.append("\n".join(lines[i - 1 : end + 1]))
            i = end + 1
            continue
        commands.append(_TRAILING_COMMENT.sub("", line).strip())
    return commands


def _is_command(text: str) -> bool:
    """An inline span (or a `# then:` comment) that is a command to run, not a synopsis or a name."""
    words = _ENV_PREFIX.sub("", text).split()
    if not words or words[0] not in PROGRAMS or _PLACEHOLDER.search(text):
        return False
    if len(words) == 1:
        return False  # `trailblaze`, `pytest`: the program's name
    if len(words) == 2 and words[0] == "adb":
        return False  # `adb forward`: the name of an adb command the simulator answers
    return not (len(words) == 2 and words[0] == "trailblaze" and _needs_arguments(words[1]))


def _needs_arguments(name: str) -> bool:
    from trailblaze.cli.main import cli

    command = cli.commands.get(name)
    return command is not None and any(p.required for p in command.params if isinstance(p, click.Parameter))
