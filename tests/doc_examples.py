"""The example commands of README.md and of every `trailblaze COMMAND --help`, parsed out of them.

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

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

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


def readme_blocks(lang: str) -> list[str]:
    """The bodies of README.md's fenced blocks of this language."""
    return [body for kind, body in _FENCE.findall(README.read_text(encoding="utf-8")) if kind == lang]


def readme_examples() -> list[Example]:
    text = README.read_text(encoding="utf-8")
    found: list[Example] = []
    for block in _FENCE.finditer(text):
        lang, body = block.group(1), block.group(2)
        where = f"README.md:{text.count(chr(10), 0, block.start()) + 1}"
        commands = _block_commands(lang, body)
        if commands:
            found.append(Example(where, tuple(commands)))
    prose = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)  # keeps line numbers
    for span in _INLINE.finditer(prose):
        command = " ".join(span.group(1).split())
        if _is_command(command):
            found.append(Example(f"README.md:{prose.count(chr(10), 0, span.start()) + 1}", (command,)))
    return found


def help_examples() -> list[Example]:
    from trailblaze.cli import cli

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
    from trailblaze.cli import cli

    command = cli.commands.get(name)
    return command is not None and any(p.required for p in command.params if isinstance(p, click.Parameter))
