"""Scroll into view: an element lookup whose target is off screen scrolls its container to it.

A trail recorded on one screen replays on a smaller one (or with a larger font) where the recorded
target of a tap or an assertion sits below the fold of a list. When the selector has no visible match
on a settled screen and the app has a scrollable container, the lookup scrolls:

- **Fast path**: the dump often holds the target already, off screen (a RecyclerView lays out a row
  beyond each edge, iOS lists every cell of a table, a ScrollView all its children). A match among
  every node (`trailblaze.screen.resolve.resolve_anywhere`) inside an on-screen scrollable container
  and beyond its visible bounds ends the selector's polling at once, and that container is swiped
  toward it until it shows.
- **Search**: otherwise, once a settled screen with a scrollable container lacks the target (an Android
  dump leaves out the rows a list has not laid out; `SEARCH_AFTER`), the biggest
  scrollable container is swiped forward (content up) until the target shows or the screen stops
  changing, then back the other way; a target the search did not find is still waited for until the
  lookup's bound.

Both are bounded by `MAX_SCROLLS` swipes in all, each across the middle half of the container (half
its height: never more than a small container shows); the search also by the lookup's timeout (the
element timeout), so a trail run with `--element-timeout 0.5` fails as fast as it asked to. A selector with `index` never scrolls (its
index counts the matches on screen, which scrolling changes), nor does a web page (the browser
scrolls to what it acts on). `SessionStats.scrolls_into_view` counts the lookups that scrolled a
target into view; the run log and the report carry it per trail.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from trailblaze.device.session import Resolution
from trailblaze.device.settle import same_screen
from trailblaze.screen.resolve import resolve, resolve_anywhere
from trailblaze.tools.gestures import FINGER, FingerPath, biggest_scrollable, swipe_path, swiper

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.screen.hierarchy import Hierarchy, Node, Rect
    from trailblaze.screen.selector import NodeSelector

__all__ = [
    "MAX_SCROLLS",
    "Scrolled",
    "beyond",
    "resolve_in_view",
]

MAX_SCROLLS = 20
"""Swipes one lookup (or `scrollUntilTextIsVisible`) makes at the most."""
SEARCH_AFTER = 0.0
"""Seconds a settled, scrollable screen is polled for a missing target before the search swipes for it:
none, since the screen is settled after the last action (a half-second grace cost each scrolled lookup
a third of a replay's time on the small phone, benchmarks/device_matrix.py), and what the search does
not find is still waited for until the lookup's bound."""

_ORDER = ("DOWN", "UP", "RIGHT", "LEFT")
_END_NAMES = {"DOWN": "the bottom", "UP": "the top", "RIGHT": "the right end", "LEFT": "the left end"}


# --- where an off-screen target lies ---------------------------------------------------------------


def beyond(selector: NodeSelector, hierarchy: Hierarchy) -> tuple[Node, str] | None:
    """The scrollable container an off-screen match of `selector` lies in, and the way to scroll it
    (`DOWN`: the match is below its visible part; `UP`, `RIGHT`, `LEFT` likewise); None without one.

    A match counts when it is a descendant of an on-screen scrollable container of the app (or lies in
    the container's whole bounds, for dumps that flatten the tree) and its centre lies outside the
    container's visible part: a node flagged invisible in the middle of a list (iOS's decorative
    chevrons) is not something scrolling shows.
    """
    for node in resolve_anywhere(selector, hierarchy):
        if node.on_screen:
            continue
        for container in _containers(node, hierarchy):
            direction = _direction(node, container.visible_bounds)
            if direction is not None:
                return container, direction
    return None


def _containers(node: Node, hierarchy: Hierarchy) -> list[Node]:
    """The on-screen scrollable app containers that hold `node`, innermost first."""
    ancestors = [a for a in node.ancestors() if a.scrollable and a.on_screen]
    held = {id(a) for a in ancestors}
    b = node.bounds
    around = [
        n
        for n in hierarchy.visible_nodes()
        if n.scrollable
        and id(n) not in held
        and n.bounds.left <= b.left
        and n.bounds.top <= b.top
        and b.right <= n.bounds.right
        and b.bottom <= n.bounds.bottom
    ]
    return [c for c in (*ancestors, *around) if hierarchy.window_kind(c) == "app"]


def _direction(node: Node, view: Rect) -> str | None:
    """Which way to scroll `view` to bring `node`'s centre into it; None when it is inside already."""
    x, y = node.bounds.center
    if y >= view.bottom:
        return "DOWN"
    if y < view.top:
        return "UP"
    if x >= view.right:
        return "RIGHT"
    if x < view.left:
        return "LEFT"
    return None


# --- the lookup ------------------------------------------------------------------------------------


@dataclass
class Scrolled:
    """The swipes one lookup made to bring its target into view."""

    container: str = ""
    """The container swiped last (its id, else its class), for messages."""
    swipes: Counter[str] = field(default_factory=Counter)
    """Swipes by the direction they scrolled (`DOWN`: content further down came into view)."""
    ends: set[str] = field(default_factory=set)
    """Directions in which a swipe left the screen as it was: that end was reached."""
    found: bool = False
    timed_out: bool = False
    """The search stopped when the lookup's bound (the element timeout) had passed."""

    @property
    def total(self) -> int:
        return sum(self.swipes.values())

    def note(self) -> str:
        """`after scrolling messages 1 swipe into view`: what an OK result adds."""
        n = self.total
        return f"after scrolling {self.container} {n} swipe{'s' * (n != 1)} into view"

    def searched(self) -> str:
        """`7 swipes down and 7 up in messages, reached both ends`: how far a failed lookup looked."""
        made = [(self.swipes[d], d.lower()) for d in _ORDER if self.swipes[d]]
        first, way = made[0]
        parts = [f"{first} swipe{'s' * (first != 1)} {way}", *(f"{n} {w}" for n, w in made[1:])]
        if {"DOWN", "UP"} <= self.ends or {"LEFT", "RIGHT"} <= self.ends:
            ends = "reached both ends"
        elif self.timed_out:
            ends = "stopped at the element timeout"
        elif self.ends:
            ends = "reached " + " and ".join(_END_NAMES[d] for d in _ORDER if d in self.ends)
        else:
            ends = f"stopped after {MAX_SCROLLS} swipes"
        return f"{' and '.join(parts)} in {self.container}, {ends}"


def resolve_in_view(
    session: DeviceSession,
    selector: NodeSelector,
    *,
    until: Callable[[list[Node]], bool],
    timeout: float | None = None,
) -> tuple[Resolution, Scrolled | None]:
    """`DeviceSession.resolve`, scrolling an off-screen target into view when nothing matches on screen.

    Returns:
        The resolution (after scrolling, the matches on the last screen), and the swipes made (None
        when it did not scroll: a visible match, no scrollable container, a web page, an `index`).
    """
    if not session.scroll_into_view or session.info.platform == "web" or selector.index is not None:
        return session.resolve(selector, timeout=timeout, until=until), None
    hinted = False
    started = time.monotonic()

    def give_up(nodes: list[Node], hierarchy: Hierarchy) -> bool:
        nonlocal hinted
        if nodes:
            return False
        hinted = beyond(selector, hierarchy) is not None
        # A settled screen that can scroll and still lacks the target after the grace: most likely it
        # lies below the fold (an Android dump leaves out the rows a list has not laid out), so search
        # now; what the search does not find is still waited for afterwards.
        return hinted or (
            time.monotonic() - started >= SEARCH_AFTER and biggest_scrollable(hierarchy) is not None
        )

    res = session.resolve(selector, timeout=timeout, until=until, give_up=give_up)
    if res.nodes:
        return res, None
    hierarchy = session.settle()  # free when the poll's last dump was settled already
    nodes = resolve(selector, hierarchy)
    if not nodes and hinted and beyond(selector, hierarchy) is None:
        # The screen moved on while settling: the target may yet appear by itself.
        left = (session.resolve_timeout if timeout is None else timeout) - res.waited_s
        res = session.resolve(selector, timeout=max(0.0, left), until=until)
        if res.nodes:
            return res, None
        hierarchy, nodes = res.hierarchy, res.nodes
    if nodes:
        return Resolution(nodes, hierarchy, res.waited_s), None
    bound = session.resolve_timeout if timeout is None else timeout
    scrolled, hierarchy = _scroll_to(session, selector, hierarchy, deadline=started + bound)
    if scrolled.total == 0:
        return Resolution([], hierarchy, res.waited_s), None
    if scrolled.found:
        session.stats.scrolls_into_view += 1
        return Resolution(resolve(selector, hierarchy), hierarchy, res.waited_s), scrolled
    # searched before the bound was spent: the target may yet appear by itself (a list still loading)
    left = (session.resolve_timeout if timeout is None else timeout) - (time.monotonic() - started)
    if left > 0:
        late = session.resolve(selector, timeout=left, until=until)
        if late.nodes:
            return Resolution(late.nodes, late.hierarchy, time.monotonic() - started), None
        hierarchy = late.hierarchy
    return Resolution([], hierarchy, time.monotonic() - started), scrolled


def _scroll_to(
    session: DeviceSession, selector: NodeSelector, hierarchy: Hierarchy, *, deadline: float
) -> tuple[Scrolled, Hierarchy]:
    """Swipes until `selector` has a visible match, both ends are reached or `MAX_SCROLLS` is spent; a
    search (no target in the dump to swipe toward) also ends once the lookup's bound (`deadline`) has
    passed, so `--element-timeout` bounds a lookup that scrolls too."""
    scrolled = Scrolled()
    guided = True  # off by the first guided swipe that moves nothing: the dump's target is unreachable
    search = "DOWN"
    while scrolled.total < MAX_SCROLLS:
        target = beyond(selector, hierarchy) if guided else None
        if target is not None:
            container, direction = target
        else:
            if time.monotonic() >= deadline:
                scrolled.timed_out = True
                break
            if search in scrolled.ends:
                if search == "UP" or "UP" in scrolled.ends:
                    break
                search = "UP"
            found = biggest_scrollable(hierarchy)
            if found is None:
                break
            container, direction = found, search
        scrolled.container = container.short_id or container.short_class
        path = swipe_path(container.visible_bounds, FINGER[direction])
        after = _swipe(session, path, scrolled, direction)
        shown = resolve(selector, after)
        if shown:
            scrolled.found = True
            if not any(_clear(n) for n in shown) and scrolled.total < MAX_SCROLLS:
                # A sliver at the container's edge is a poor place to tap: one more swipe brings it clear.
                again = _swipe(session, path, scrolled, direction)
                after = again if resolve(selector, again) else after
            return scrolled, after
        if same_screen(hierarchy, after):
            scrolled.ends.add(direction)
            guided = guided and target is None
        hierarchy = after
    return scrolled, hierarchy


def _swipe(session: DeviceSession, path: FingerPath, scrolled: Scrolled, direction: str) -> Hierarchy:
    after = session.act(swiper(path))
    assert after is not None  # act settles by default
    scrolled.swipes[direction] += 1
    return after


def _clear(node: Node) -> bool:
    """At least half of the node shows (its container clips the rest)."""
    whole = node.bounds.area
    return whole <= 0 or node.visible_bounds.area >= whole / 2
