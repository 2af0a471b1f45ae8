"""Asking the person at the terminal: the `askUser` tool (human in the loop while recording).

With `trailblaze record --ask always` (or `auto`, the default, when stdin is a terminal) the model is
offered `askUser {question}`. The question is printed, the person types a one-line answer, and the
answer is the tool's result — so it goes into the next request as the tool_result, and into the run
directory's transcript, redacted like everything else. `askUser` never touches the device and is never
written into a recording. Without a terminal (`auto` in CI) the tool is not offered at all.
See docs/adr/0016-no-op-detection-and-ask-user.md.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Literal, TextIO

from pydantic import BaseModel, ConfigDict, Field

from trailblaze.tools.llm_tools import offers
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.tooldef import Status, ToolDef, ToolResult

__all__ = ["ASK_TOOL", "AskMode", "AskUser", "ask_user_tool", "terminal_asker", "asker_for"]

ASK_TOOL = "askUser"
AskUser = Callable[[str], str]
"""Gets the model's question, returns the person's answer ("" when there is none)."""
AskMode = Literal["auto", "always", "never"]


class AskUserParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(
        min_length=1,
        description="One short question for the person running the recording, answerable in one line.",
    )
    reasoning: str | None = Field(default=None, description="Brief: why you cannot decide this yourself.")


def _result(status: Status, message: str) -> ToolResult:
    return ToolResult(status, message, "other")


def ask_user_tool(ask: AskUser) -> ToolDef:
    """The `askUser` tool, answering through `ask`: offered to the model on action steps, never recorded."""

    @offers(
        ASK_TOOL,
        AskUserParams,
        "Ask the person running the recording a question (only when the objective is ambiguous or needs "
        "information you cannot see, e.g. which of several accounts to use); the answer comes back as the result.",
    )
    def run(ctx: ToolContext, args: AskUserParams) -> ToolResult:
        answer = " ".join(ask(str(ctx.memory.redact(args.question))).split())
        if not answer:
            return _result("OK", "the person gave no answer; decide on your own")
        return _result("OK", f"the person answered: {answer}")

    return run


def terminal_asker(stdin: TextIO | None = None, stdout: TextIO | None = None) -> AskUser:
    """Prints the question and reads one line from the terminal."""

    def ask(question: str) -> str:
        out = stdout or sys.stdout
        inp = stdin or sys.stdin
        shown = "".join(ch for ch in " ".join(question.split()) if ch.isprintable())  # no terminal escapes
        out.write(f"\n  ? the agent asks: {shown}\n  answer> ")
        out.flush()
        return inp.readline().strip()

    return ask


def asker_for(mode: AskMode, stdin: TextIO | None = None) -> AskUser | None:
    """The asker for `--ask MODE`: `auto` asks only when stdin is a terminal; `never` offers no tool."""
    inp = stdin or sys.stdin
    if mode == "never" or (mode == "auto" and not _is_tty(inp)):
        return None
    return terminal_asker(inp)


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False
