"""What replay tells a person (or the agent) when a recorded step stops working.

- `closest_candidates`: the elements on the current screen that look most like what a failing tool
  looked for (by label / id similarity), for the error message and the report.
- `seed_text`: the note a self-healing agent gets with its objective: what already succeeded in the
  step and which recorded tool failed, so it continues from there instead of starting over.
- `ambiguity`: a healed recording the agent produced must identify its targets by selector; a tap
  that needed `tapOnPoint` or an `index` (several equally good candidates) is refused, not guessed.
- `trail_diff`: the readable unified diff of a trail file that a run rewrote.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from trailblaze.tools.execute import closest_nodes

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Hierarchy, Node
    from trailblaze.tools.execute import ToolResult
    from trailblaze.trail.model import ToolCall

__all__ = ["HEAL_HEADER", "ambiguity", "closest_candidates", "seed_text", "selector_of", "trail_diff"]

HEAL_HEADER = "## SELF-HEAL"
_SELECTOR_BRANCHES = ("androidAccessibility", "androidMaestro", "iosMaestro")
_TEXT_PARAMS = ("text", "id", "accessibilityText", "resourceId")


def selector_of(call: ToolCall) -> Any:
    """The `NodeSelector` a recorded tool targets, or None (typing, keys, read-compat text tools)."""
    from trailblaze.screen.selector import NodeSelector

    raw = call.params.get("nodeSelector")
    if not isinstance(raw, dict):
        return None
    try:
        return NodeSelector.model_validate(raw)
    except ValueError:
        return None


def _wanted(call: ToolCall) -> list[str]:
    """The literal-ish strings a tool looks for, lower-cased, to rank near misses."""
    out: list[str] = []

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key.endswith("Regex") and key != "classNameRegex":
            out.append(value.replace("\\", "").replace(".*", "").rsplit("/", 1)[-1])

    walk(call.params.get("nodeSelector"))
    out += [str(call.params[k]) for k in _TEXT_PARAMS if isinstance(call.params.get(k), str)]
    return [w.lower() for w in out if w.strip()]


def describe_node(node: Node) -> str:
    """`Button "Log in" (id log_in) at (540, 1210)`."""
    label = " ".join((node.text or node.label or node.hint).split())
    if len(label) > 40:
        label = label[:39] + "…"
    out = node.short_class + (f' "{label}"' if label else "")
    if node.short_id:
        out += f" (id {node.short_id})"
    x, y = node.center
    return f"{out} at ({x:.0f}, {y:.0f})"


def closest_candidates(call: ToolCall, hierarchy: Hierarchy, limit: int = 5) -> list[str]:
    """Visible app elements ranked by how much their text / label / hint / id resembles the target.

    Elements without any text or id are left out (nothing to compare); ties keep screen order.
    """
    return [describe_node(node) for node in closest_nodes(_wanted(call), hierarchy)[:limit]]


def _short(call: ToolCall) -> str:
    from trailblaze.screen.resolve import describe_selector

    selector = selector_of(call)
    params = {k: v for k, v in call.params.items() if k not in ("reason", "nodeSelector")}
    inner = " ".join(f"{k}={v}" for k, v in params.items())
    if selector is not None:
        inner = f"{describe_selector(selector)} {inner}".strip()
    return f"{call.name} {inner}".strip()


def seed_text(done: Sequence[tuple[ToolCall, ToolResult]], failed: ToolCall, result: ToolResult) -> str:
    """The note appended to a healing step's objective (templates kept, messages already redacted)."""
    lines = [
        HEAL_HEADER,
        "This step has a recording that stopped working; you take over from where it failed.",
    ]
    if done:
        lines.append("Already done in this step (do not repeat these):")
        lines += [f"{i}. {_short(call)} -> {res}" for i, (call, res) in enumerate(done, 1)]
    else:
        lines.append("Nothing of this step has run yet.")
    lines.append(f"Then this recorded tool failed: {_short(failed)} -> {result}")
    lines.append("Look at the current screen and finish the objective.")
    return "\n".join(lines)


def _has_index(value: Any) -> bool:
    if isinstance(value, dict):
        return "index" in value or any(_has_index(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_index(v) for v in value)
    return False


def ambiguity(tools: Iterable[ToolCall]) -> str | None:
    """Why a healed recording cannot be trusted, or None when every target has a unique selector."""
    for call in tools:
        if call.name == "tapOnPoint":
            return (
                f"the element the agent tapped at ({call.params.get('x')}, {call.params.get('y')}) has no "
                "selector that identifies it (it would be recorded as a bare coordinate)"
            )
        selector = call.params.get("nodeSelector")
        if _has_index(selector):
            return (
                f"{_short(call)} needs `index`: several equally good candidates match the agent's target"
            )
    return None


def trail_diff(before: str, after: str, name: str) -> str:
    """A unified diff of a trail file's text (empty when nothing changed)."""
    if before == after:
        return ""
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )

