"""The text the agent sends: system prompt, objective, reminder and screen headers.

Kept as plain strings so a person can read exactly what the model is told. `trailblaze.agent.loop`
assembles them into a request; nothing here talks to a model or a device.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "OBJECTIVE_HEADER",
    "SCREEN_HEADER",
    "STALE_REF_HINT",
    "SYSTEM_PROMPT",
    "TEXT_ONLY_HINT",
    "loop_warning",
    "objective_text",
    "rejected_completion",
    "reminder_text",
    "screen_text",
    "system_prompt",
]

SYSTEM_PROMPT = """\
You operate a mobile app on a {device} to reach one objective at a time, by calling tools.

How you work:
- Every answer is tool calls, never plain text. On a step (an action objective) call ONE device \
tool per answer; you see its result and the new screen in the next request.
- Always fill `reasoning` briefly: what the screen shows, what is done, why this call is next.
- Elements are named by refs in square brackets in the view hierarchy, e.g. `[k4f] Button "Sign in"`. \
Use the ref without brackets. Refs come from the CURRENT hierarchy only; the screenshot shows the same \
refs as labelled boxes. Annotations after an element: [tap] a tappable text or image, [long-press], \
[focused], [checked] / [unchecked], [selected], [disabled], [password], [scrollable]; \
`… N more below` means a list continues off screen (swipe or scrollUntilTextIsVisible); `hint="Email"` names a filled text field. `(N elements behind the dialog "…" are hidden)` means an open dialog takes every tap outside it: act inside it or dismiss it (under the keyboard: hideKeyboard).
- To type, tap the field first, then call inputText. Secrets are typed as their template, e.g. \
`{{password}}`; you never see their values.
- Finish with objectiveStatus: COMPLETED once the objective's actions succeeded (a single-action \
objective may send the action and objectiveStatus COMPLETED in the same answer; the completion \
counts only if the action succeeds), FAILED when it cannot be done (explain why). COMPLETED is \
refused until at least one device action (on a verify objective: one assertion) succeeded in this \
objective. A result ending in `(no visible change)` means the action did nothing on screen; it does \
not count as progress.
- A verify objective only checks the current screen: use assertVisible / assertNotVisibleWithText \
(several per answer are fine) and then objectiveStatus in the same answer. Never change the app \
while verifying; if what must be seen is not there, report FAILED.
- While the app shows a loading indicator, call wait. Dismiss unexpected dialogs only if they block \
the objective. Prefer in-app navigation over the system back button.
- If a call fails, read the status word (NOT_FOUND, AMBIGUOUS, NOT_VISIBLE, ERROR, TIMEOUT) and \
try something different; repeating the same call will not help.
- Use launchApp only when the objective asks to launch or restart the app.
"""

OBJECTIVE_HEADER = "**Objective**"
SCREEN_HEADER = "Here is the view hierarchy of the user interface at this moment:"


def system_prompt(device: str, context: str | None = None) -> str:
    """The system prompt for a device description such as `android-phone (android) 1080x2400`."""
    text = SYSTEM_PROMPT.replace("{device}", device)
    if context and context.strip():
        text += "\nContext for this trail:\n" + context.strip() + "\n"
    return text


def objective_text(text: str, *, verify: bool) -> str:
    """The objective message, kept on its own so the task stays prominent."""
    kind = "Verify (assertions only, then objectiveStatus)" if verify else "Do"
    return f"{OBJECTIVE_HEADER}\n\n{kind}: {text}"


def reminder_text(
    *,
    previous: str | None,
    earlier_steps: int,
    variables: Sequence[str],
    hints: Sequence[str],
    verify: bool,
) -> str:
    """The reminder: prior step, remembered variables (secret values never), and any hints."""
    parts: list[str] = []
    if previous:
        more = f" ({earlier_steps} earlier steps also done)" if earlier_steps else ""
        parts.append(f"## PRIOR OBJECTIVE (COMPLETED){more}\n{previous}")
    if variables:
        parts.append("## REMEMBERED VALUES (use as templates in tool params)\n" + "\n".join(variables))
    for hint in hints:
        parts.append(hint)
    if verify:
        parts.append(
            "## NOTE\nOnly confirm what is visible now; do not tap or type. Send the assertions and "
            "objectiveStatus together."
        )
    return "\n\n".join(parts)


def screen_text(compact: str) -> str:
    """The current-screen message body (the screenshot, if any, follows as an image block)."""
    body = compact if compact.strip() else "(no elements on screen)"
    return f"{SCREEN_HEADER}\n{body}"


# --- hints injected by the loop ----------------------------------------------------------------

TEXT_ONLY_HINT = (
    "## REMINDER\nYour last answer had no tool call. Answer only with tool calls; when the objective "
    "is done call objectiveStatus."
)
STALE_REF_HINT = (
    "## STALE REFS\nThe last three calls named refs that are not on screen. Read the CURRENT view "
    "hierarchy below again and pick a ref from it (refs change when the screen changes)."
)


def loop_warning(cycle: Sequence[str], repeats: int) -> str:
    """The warning injected when the same call(s) keep repeating."""
    calls = " -> ".join(c.split(":", 1)[0] for c in cycle)
    return (
        f"## STUCK-DETECTION WARNING\nYou repeated the same {len(cycle)} call(s) ({calls}) {repeats} times "
        "without finishing. The app is not progressing this way: try a different approach, or report "
        "objectiveStatus FAILED if the objective cannot be reached."
    )


def rejected_completion(verify: bool, *, no_ops: int = 0) -> str:
    """Tool-result text when COMPLETED is claimed before anything was achieved (success validation);
    `no_ops`: successful actions of this step that changed nothing on screen."""
    if no_ops and not verify:
        return (
            f"ERROR COMPLETED refused: {'the action' if no_ops == 1 else f'all {no_ops} actions'} of this "
            "objective made no visible change on the screen; find the element that actually does what the "
            "objective asks (the target may be a different element, covered, or disabled), or report FAILED"
        )
    if verify:
        return (
            "ERROR COMPLETED refused: no assertion has succeeded in this verify objective (or one in the same "
            "answer failed); assert what the objective requires first"
        )
    return (
        "ERROR COMPLETED refused: no device action has succeeded in this objective yet; perform the action "
        "first (or report FAILED if it cannot be done)"
    )
