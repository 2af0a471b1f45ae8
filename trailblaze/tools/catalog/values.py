"""Trailblaze's catalog tools over values: comparisons, arithmetic, memory and the questions asked of an LLM: each one's params (Trailblaze's names, fields and defaults) and its handler.

Semantics come from block/trailblaze's tool classes (`trailblaze-common/.../toolcalls/commands/`);
docs/trailblaze-catalog.md lists each one and where it differs here. A handler imports what it runs on
when it runs: reading a trail imports this module for the params of the tools it names (start-up).
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import Field

from trailblaze.tools.catalog import catalog_tool
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

__all__: list[str] = []


class AssertEquals(RecordedToolParams):
    """Assert two texts are equal after `{{memory}}` interpolation."""

    tool_name = "assertEquals"
    actual: str
    expected: str


@catalog_tool(AssertEquals, "assertion")
def _assert_equals(run: ToolContext, p: AssertEquals) -> ToolResult:
    if p.actual == p.expected:
        return ToolResult("OK", f"{p.actual!r} equals {p.expected!r}")
    return ToolResult("NOT_VISIBLE", f"expected {p.expected!r} but was {p.actual!r}")


class AssertNotEquals(RecordedToolParams):
    """Assert two texts differ after `{{memory}}` interpolation."""

    tool_name = "assertNotEquals"
    actual: str
    expected: str


@catalog_tool(AssertNotEquals, "assertion")
def _assert_not_equals(run: ToolContext, p: AssertNotEquals) -> ToolResult:
    if p.actual != p.expected:
        return ToolResult("OK", f"{p.actual!r} differs from {p.expected!r}")
    return ToolResult("NOT_VISIBLE", f"expected a value other than {p.expected!r}")


_OPS: dict[type, Callable[..., float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.Mod: operator.mod,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        if isinstance(node.op, ast.Pow) and abs(_evaluate(node.right)) > 64:
            raise ValueError("exponent too large")
        return _OPS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_evaluate(node.operand))
    raise ValueError(f"unsupported part {ast.dump(node)[:40]}")


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


_PROMPT_PART = re.compile(r"\[\[(.+?)\]\]")


class AssertMath(RecordedToolParams):
    """Evaluate an arithmetic `expression` and compare it with `expected` (±0.0001). `[[prompt]]`
    parts ask an LLM for a number on the screen, so they cannot replay without one."""

    tool_name = "assertMath"
    expression: str = Field(min_length=1)
    expected: str


@catalog_tool(AssertMath, "assertion")
def _assert_math(run: ToolContext, p: AssertMath) -> ToolResult:
    expression = p.expression
    if _PROMPT_PART.search(expression):
        if run.llm is None:
            return ToolResult("UNSUPPORTED", (
                "assertMath with [[prompt]] parts asks an LLM for numbers on the screen and this run has none "
                "(or write the numbers with rememberTextBySelector and {{variables}})"
            ))
        from trailblaze.tools.catalog.ask_screen import ask_screen

        run.ai = True
        llm = run.llm()
        for part in _PROMPT_PART.findall(expression):
            answer = ask_screen(llm, run.session, f"{part} (answer with the number only)").value
            found = _NUMBER.search(answer.replace(",", ""))
            if found is None:
                return ToolResult("NOT_FOUND", f"AI answered {answer!r} to {part!r}: no number in it")
            expression = expression.replace(f"[[{part}]]", found.group(), 1)
    text = expression.replace("^", "**").replace(",", "")
    try:
        value = _evaluate(ast.parse(text, mode="eval"))
        expected = float(p.expected.replace(",", ""))
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError) as exc:
        return ToolResult("ERROR", f"bad params for assertMath: cannot evaluate {expression!r} = {p.expected!r}: {exc}")
    if abs(value - expected) <= 1e-4:
        return ToolResult("OK", f"{expression} = {value:g}")
    return ToolResult("NOT_VISIBLE", f"{expression} = {value:g}, expected {expected:g}")


class DumpMemory(RecordedToolParams):
    """Show the run's memory (secrets redacted)."""

    tool_name = "dumpMemory"


@catalog_tool(DumpMemory, "other")
def _dump_memory(run: ToolContext, p: DumpMemory) -> ToolResult:
    lines = run.memory.describe_for_llm()
    return ToolResult("OK", "memory: " + ("; ".join(lines) if lines else "(empty)"))


class _NeedsLlm(RecordedToolParams):
    prompt: str


class RememberText(_NeedsLlm):
    """An LLM reads `prompt`'s answer off the screen into `variable` (needs an LLM even on replay)."""

    tool_name = "rememberText"
    variable: str = Field(min_length=1)


class RememberNumber(_NeedsLlm):
    """`rememberText` that keeps the first number of the answer (needs an LLM even on replay)."""

    tool_name = "rememberNumber"
    variable: str = Field(min_length=1)


class RememberWithAi(_NeedsLlm):
    """A free-form LLM answer about the screen into `variable` (needs an LLM even on replay)."""

    tool_name = "rememberWithAi"
    variable: str = Field(min_length=1)


class AssertWithAi(_NeedsLlm):
    """An LLM judges `prompt` against the screen (needs an LLM even on replay)."""

    tool_name = "assertWithAi"


def _ask(
    run: ToolContext, p: RememberText | RememberNumber | RememberWithAi | AssertWithAi
) -> ToolResult:
    if run.llm is None:
        return ToolResult("UNSUPPORTED", (
            f"{p.tool_name} asks an LLM on every run and this run has none (replay with an LLM configured, "
            "or record the step so its selector-based recording replays with no LLM)"
        ))
    from trailblaze.tools.catalog.ask_screen import ask_screen

    run.ai = True
    # an LLM failure is infrastructure (LLMError, exit 3), as in the agent: it propagates
    answer = ask_screen(run.llm(), run.session, p.prompt, verdict=isinstance(p, AssertWithAi))
    if isinstance(p, AssertWithAi):
        return ToolResult("OK" if answer.passed else "NOT_VISIBLE", f"AI: {answer.explanation or p.prompt}")
    value = answer.value.strip()
    if isinstance(p, RememberNumber):
        found = _NUMBER.search(value.replace(",", ""))
        if found is None:
            return ToolResult("NOT_FOUND", f"AI answered {value!r} to {p.prompt!r}: no number in it")
        value = found.group()
    if not value:
        return ToolResult("NOT_FOUND", f"AI found no answer on screen to {p.prompt!r}")
    run.memory.remember(p.variable, value)
    return ToolResult("OK", f"AI: remembered {p.variable} = {value!r}")


_remember_text = catalog_tool(RememberText, "other")(_ask)


_remember_number = catalog_tool(RememberNumber, "other")(_ask)


_remember_with_ai = catalog_tool(RememberWithAi, "other")(_ask)


_assert_with_ai = catalog_tool(AssertWithAi, "assertion")(_ask)
