"""Proof that a recorded assertion can fail: evaluate it on its screen with the asserted fact changed.

An assertion that still passes when the element it names shows another text, has its switch flipped,
or is gone cannot fail on the fact its step states — CI would stay green on a broken app. So after a
proof replay (and in `trailblaze check`), each assertion is evaluated offline against the screen it
passed on, mutated one fact at a time:

- **text**: the element shows another text (its text, label and value replaced);
- **state**: a switch / checkbox flipped; a selected element unselected; a disabled one enabled;
- **removed**: the element and its subtree are gone;
- for an absence check (`assertNotVisibleWithText`): **shown**: an element on screen shows the text.

Every mutation that applies must make the assertion fail. The evaluation runs the real tool handler
(`trailblaze.tools.execute.run_recorded_tool`) on a session whose "device" serves the saved screen, with no
waiting, so "fails" means exactly what it means in a replay; it needs no device, so it holds for real
phones and the web too. Assertions that are not about an element on screen (prefs, queries, logs,
custom tools) are reported as not checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from trailblaze.device.driver import DeviceInfo
from trailblaze.device.session import DeviceSession
from trailblaze.errors import ActionRefused, TrailblazeError
from trailblaze.screen.resolve import resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.assertions import shown_text, text_carrier, text_matches
from trailblaze.tools.execute import TOOL_KINDS, run_recorded_tool
from trailblaze.tools.memory import Memory

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Hierarchy, Node
    from trailblaze.trail.model import ToolCall

__all__ = ["MUTATED_TEXT", "Verdict", "is_assertion", "prove_assertion"]

MUTATED_TEXT = "\u2205 changed by the mutation proof \u2205"
"""The text a mutated element shows: no sane expectation matches it."""

Mutation = Literal["text", "checked", "selected", "enabled", "removed", "shown"]
_ELEMENT_FREE = frozenset({"assertNotVisibleWithText"})


@dataclass(frozen=True)
class Verdict:
    """What the mutation proof found for one assertion."""

    call: ToolCall
    status: Literal["can-fail", "cannot-fail", "not-checked", "does-not-hold"]
    target: str = ""
    """The asserted element, e.g. `TextView 'This is message 3.' (message_body)`."""
    killed: tuple[Mutation, ...] = ()
    survived: tuple[Mutation, ...] = ()
    """The mutations it still passed on (status `cannot-fail`)."""
    note: str = ""

    @property
    def message(self) -> str:
        """One line for a person: what the assertion fails to check."""
        if self.status == "can-fail":
            return f"{self.call.name} fails when {_what(self.killed)} ({self.target})"
        if self.status == "not-checked":
            return f"{self.call.name}: not checked offline ({self.note})"
        if self.status == "does-not-hold":
            return f"{self.call.name} does not pass on its own screen ({self.note})"
        return f"{self.call.name} {_weakness(self.survived, self.target)}"


def is_assertion(call: ToolCall) -> bool:
    return TOOL_KINDS.get(call.name) == "assertion"


def prove_assertion(call: ToolCall, hierarchy: Hierarchy, memory: Memory | None = None) -> Verdict:
    """Evaluates `call` on `hierarchy` and on each one-fact mutation of it (see module docstring).

    `hierarchy` is left as it was. `memory` interpolates `{{templates}}` (a fresh one otherwise)."""
    mem = memory if memory is not None else Memory()
    judge = _Judge(hierarchy, mem)
    try:
        holds = judge.holds(call)
    except _Offline as exc:
        return Verdict(call, "not-checked", note=str(exc))
    if holds is None:
        return Verdict(call, "not-checked", note="not an element on screen")
    if not holds:
        return Verdict(call, "does-not-hold", note=judge.last_message)
    if call.name in _ELEMENT_FREE:
        return _prove_absence(call, judge, hierarchy)
    target = _target(call, judge, hierarchy)
    if target is None:
        return Verdict(call, "not-checked", note="the asserted element could not be found on the screen")
    killed: list[Mutation] = []
    survived: list[Mutation] = []
    for name, mutate in _mutations(target):
        with mutate(hierarchy):
            (survived if judge.holds(call) else killed).append(name)
    status: Literal["can-fail", "cannot-fail"] = "cannot-fail" if survived else "can-fail"
    return Verdict(call, status, _describe(target), tuple(killed), tuple(survived))


# --- evaluating a tool on a saved screen ----------------------------------------------------------


class _Offline(Exception):
    """The tool needs more than a screen (a page, a shell, an LLM)."""


class _ScreenDriver:
    """A "device" that serves one saved screen and refuses every action."""

    def __init__(self, hierarchy: Hierarchy) -> None:
        self.screen = hierarchy
        box = hierarchy.screen
        platform = hierarchy.platform
        self.info = DeviceInfo(
            platform, platform, "saved-screen", "saved screen", int(box.width), int(box.height), 1.0
        )

    def hierarchy(self) -> Hierarchy:
        self.screen.memo.clear()  # a mutation changed nodes: nothing cached on the capture holds
        return self.screen

    def __getattr__(self, name: str) -> Any:
        # AttributeError, so the session's capability checks (`isinstance(d, SupportsIdle)`) say no
        raise AttributeError(f"it needs the device ({name})")


class _Judge:
    def __init__(self, hierarchy: Hierarchy, memory: Memory) -> None:
        self.session = DeviceSession(
            _ScreenDriver(hierarchy),
            settle_timeout=0,
            resolve_timeout=0,
            loading_timeout=0,
            scroll_into_view=False,  # the fact is judged on this screen: nothing off it is known
        )
        self.memory = memory
        self.last_message = ""

    def holds(self, call: ToolCall) -> bool | None:
        if not is_assertion(call):
            return None
        self.session.invalidate()
        try:
            result = run_recorded_tool(self.session, call, self.memory)
        except (ActionRefused, AttributeError, NotImplementedError) as exc:
            raise _Offline(str(exc) or type(exc).__name__) from exc
        except TrailblazeError as exc:
            raise _Offline(exc.message) from exc
        self.last_message = result.message
        if result.status in ("ERROR", "UNSUPPORTED"):  # it could not be judged here, not "it failed"
            raise _Offline(result.message)
        return result.ok


# --- the asserted element and its mutations -------------------------------------------------------


def _target(call: ToolCall, judge: _Judge, hierarchy: Hierarchy) -> Node | None:
    """The element the assertion passed on: the selector's match showing the expected text, else the
    deepest element whose removal makes it fail."""
    params = judge.memory.interpolate(call.params, where=call.name)
    raw = params.get("nodeSelector") if call.name == "assertVisibleBySelector" else None
    if isinstance(raw, dict):
        expected = params.get("expectedText")
        mode = params.get("textMatchMode")
        for node in resolve(NodeSelector.model_validate(raw), hierarchy):
            if expected is None or text_matches(node, str(expected), mode):
                return node
    for node in sorted(hierarchy.visible_nodes(), key=lambda n: -n.depth):
        with _removed(node)(hierarchy):
            if not judge.holds(call):
                return node
    return None


def _mutations(target: Node) -> Iterator[tuple[Mutation, Any]]:
    carrier = text_carrier(target)
    if shown_text(carrier):
        yield "text", _retexted(carrier)
    if target.checkable:
        yield "checked", _flipped(target, "checked")
    if target.selected:
        yield "selected", _flipped(target, "selected")
    if not target.enabled:
        yield "enabled", _flipped(target, "enabled")
    yield "removed", _removed(target)


def _retexted(node: Node) -> Any:
    @contextmanager
    def mutate(hierarchy: Hierarchy) -> Iterator[None]:
        saved = (node.text, node.label, node.value)
        node.text = MUTATED_TEXT if node.text else node.text
        node.label = MUTATED_TEXT if node.label else node.label
        node.value = MUTATED_TEXT if node.value and not node.checkable else node.value
        if not (node.text or node.label):
            node.text = MUTATED_TEXT
        try:
            yield
        finally:
            node.text, node.label, node.value = saved
            hierarchy.memo.clear()

    return mutate


def _flipped(node: Node, attr: str) -> Any:
    @contextmanager
    def mutate(hierarchy: Hierarchy) -> Iterator[None]:
        before = getattr(node, attr)
        value_before = node.value
        setattr(node, attr, not before)
        if attr == "checked" and node.platform == "ios" and node.value in ("0", "1"):
            node.value = "1" if node.checked else "0"
        try:
            yield
        finally:
            setattr(node, attr, before)
            node.value = value_before
            hierarchy.memo.clear()

    return mutate


def _removed(target: Node) -> Any:
    @contextmanager
    def mutate(hierarchy: Hierarchy) -> Iterator[None]:
        saved = [(n, n.visible, n.on_screen) for n in target.walk()]
        for n, _, _ in saved:
            n.visible = n.on_screen = False
        try:
            yield
        finally:
            for n, visible, on_screen in saved:
                n.visible, n.on_screen = visible, on_screen
            hierarchy.memo.clear()

    return mutate


def _prove_absence(call: ToolCall, judge: _Judge, hierarchy: Hierarchy) -> Verdict:
    """`assertNotVisibleWithText` must fail once an element on screen shows the text."""
    text = str(judge.memory.interpolate(call.params, where=call.name).get("text", ""))
    host = next(
        (n for n in hierarchy.visible_nodes() if shown_text(n) and n.covered_by is None and not n.checkable),
        None,
    )
    if host is None:
        return Verdict(call, "not-checked", note="no element on screen to show the text")

    @contextmanager
    def shown(h: Hierarchy) -> Iterator[None]:
        saved = (host.text, host.label)
        host.text = host.label = text
        try:
            yield
        finally:
            host.text, host.label = saved
            h.memo.clear()

    with shown(hierarchy):
        still = judge.holds(call)
    target = f"text {text!r}"
    return Verdict(
        call,
        "cannot-fail" if still else "can-fail",
        target,
        () if still else ("shown",),
        ("shown",) if still else (),
    )


# --- messages -------------------------------------------------------------------------------------


def _describe(node: Node) -> str:
    ident = node.resource_id.rsplit("/", 1)[-1] if node.resource_id else ""
    shown = shown_text(text_carrier(node))
    what = f"{node.short_class} {shown!r}" if shown else node.short_class
    return f"{what} ({ident})" if ident else what


_FACT = {
    "text": "its text changes",
    "checked": "its switch flips",
    "selected": "it is no longer selected",
    "enabled": "it becomes enabled",
    "removed": "it is gone",
    "shown": "the text appears",
}


def _what(mutations: tuple[Mutation, ...]) -> str:
    return ", ".join(_FACT[m] for m in mutations) or "nothing"


def _weakness(survived: tuple[Mutation, ...], target: str) -> str:
    if "removed" in survived:
        return f"cannot fail: it still passes with {target} gone (another element satisfies it)"
    if survived == ("shown",):
        return f"cannot fail: it still passes when {target} is on screen"
    if survived == ("text",):
        return f"checks only that {target} exists, not its text"
    parts = [_FACT[m] for m in survived]
    return f"does not check {target}: it still passes when " + " or ".join(parts)
