"""No-op detection: did a gesture or key press change what the screen shows?

A tap on a static heading answers `OK tapped …` just like a tap on a button; without this check the
agent could "complete" a step with taps that did nothing, and that recording would replay green while
doing nothing. After a tap, long-press, swipe or key press has settled, the settled dump is compared
with the dump the action started from (`trailblaze.device.settle.same_screen`: text, checked / selected /
enabled state, windows and rough geometry; focus and clocks do not count). Tapping a text field is
exempt: focusing it is a real effect that the fingerprint deliberately ignores.

The comparison costs no device round trip: the "before" dump is the session's cached one (the
capture the agent read, or the previous action's settle); when there is none the action is not
judged. See docs/adr/0016-no-op-detection-and-ask-user.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trailblaze.device.settle import same_screen

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.device.session import DeviceSession
    from trailblaze.screen.hierarchy import Hierarchy

__all__ = ["NO_CHANGE", "act_and_compare", "on_text_field"]

NO_CHANGE = "(no visible change)"
"""Appended to an OK tool result whose action left the screen as it was."""


def on_text_field(hierarchy: Hierarchy, x: float, y: float) -> bool:
    """Whether a visible text field lies under the point (a tap there focuses it)."""
    return any(n.editable and n.visible_bounds.contains(x, y) for n in hierarchy.visible_nodes())


def _focused_at(hierarchy: Hierarchy, x: float, y: float) -> bool:
    return any(n.focused and n.editable and n.visible_bounds.contains(x, y) for n in hierarchy.visible_nodes())


def act_and_compare(
    session: DeviceSession, action: Callable[[Driver], Any], *, point: tuple[float, float] | None = None
) -> bool:
    """Runs `action` through `session.act` (settling after it); True when the screen did not change.

    `point` is where a tap lands: a tap on a text field is never judged a no-op.
    """
    before = session.cached_screen()
    if before is not None and point is not None and on_text_field(before, *point):
        # never judged, so nothing looks at the result: the next tool's look is the settle's dump;
        # a tap whose answer was lost landed if the field under it has the focus now
        x, y = point
        session.act(action, observe=False, focus_only=True, took_effect=lambda: _focused_at(session.screen(), x, y))
        return False
    after = session.act(action)
    if before is None or after is None:
        return False
    return same_screen(before, after)
