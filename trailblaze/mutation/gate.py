"""The check a `verify:` step's COMPLETED must pass while recording: every stated fact is asserted,
and every assertion can fail.

When the model reports COMPLETED on a verify step, its recorded assertions are weighed before the
step ends: a quoted text or a named state the step states that no assertion checks
(`trailblaze.mutation.facts.uncovered`), or an assertion the mutation proof shows cannot fail on the screen it
passed on (`trailblaze.mutation.mutants.prove_assertion`), refuses the COMPLETED with a message that names
each one, so the model asserts the fact and tries again. An assertion that cannot fail is also taken
out of the step's recording: kept, it would make the trail green on a broken app.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from dataclasses import replace
from typing import TYPE_CHECKING

from trailblaze.mutation.facts import uncovered
from trailblaze.mutation.mutants import is_assertion, prove_assertion

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Hierarchy
    from trailblaze.tools.call import ToolCall
    from trailblaze.tools.memory import Memory
    from trailblaze.tools.tooldef import ToolResult

__all__ = ["completion_refusal"]


def completion_refusal(
    objective: str, outcomes: MutableSequence[ToolResult], screen: Hierarchy, memory: Memory
) -> str | None:
    """Why COMPLETED on verify step `objective` is refused, or None. Drops weak assertions from
    `outcomes`' recordings (they are this step's successful calls, oldest first): each such outcome
    is replaced in `outcomes` by one without them."""
    weak: list[str] = []
    for i, outcome in enumerate(outcomes):
        if not outcome.ok:
            continue
        kept: list[ToolCall] = []
        for call in outcome.recorded:
            verdict = prove_assertion(call, screen, memory) if is_assertion(call) else None
            if verdict is not None and verdict.status == "cannot-fail":
                weak.append(verdict.message)
            else:
                kept.append(call)
        if len(kept) != len(outcome.recorded):
            outcomes[i] = replace(outcome, recorded=tuple(kept))
    calls = [c for o in outcomes if o.ok for c in o.recorded]
    missing = uncovered(objective, calls)
    if not weak and not missing:
        return None
    parts = ["ERROR COMPLETED refused:"]
    if missing:
        facts = "; ".join(f.describe() for f in missing)
        parts.append(
            f"the objective states facts no assertion checks: {facts}. Assert each one: assertVisible with "
            "expectedText for a quoted text, assertState for on/off (checked), selected or disabled, "
            "assertNotVisibleWithText for a text that must be gone."
        )
    if weak:
        parts.append(
            "these assertions cannot fail and were removed from the recording: " + "; ".join(weak) + ". "
            "Assert the fact the objective states about the element (its text or state)."
        )
    parts.append("Report FAILED if the screen contradicts the objective.")
    return " ".join(parts)
