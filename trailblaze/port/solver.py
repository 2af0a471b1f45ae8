"""`PortSolver`: solves a step with no model, from the step's recording on another platform or form factor.

Each recorded call of the source recording is ported in order, on the live screen:

- a selector tool (`tapOnElementBySelector`, `assertVisibleBySelector`, `rememberTextBySelector`, a
  `swipe` on an element): its target is found by what it means (`trailblaze.port.meaning`), strictest
  wording first, then by a quoted text of the step's own words; exactly one element must match. The
  call is then written as record writes it: a tap's selector generated from the element found, an
  assertion pinned on what the device shows, which must agree with what the source asserted;
- `assertNotVisibleBySelector`: the meaning's selector itself (there is no element to pin);
- `tapOnPoint`: never ported (a point on one screen is not the same point on another);
- every other call (typing, keys, launching, `runTrail`, text-based and project tools) is
  platform-neutral and runs as it is.

Each ported call runs on the device before the next is ported. The first call that cannot be ported
ends the step FAILED with the reason; a record run then keeps what was ported in its draft, and
`record --resume` (with a model) solves only what is left.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from trailblaze.llm.client import ToolUseBlock
from trailblaze.output.step_result import StepResult, ToolRun
from trailblaze.port.meaning import Meaning, meaning_of, role_of_class, target_selectors
from trailblaze.screen.resolve import describe_selector, resolve
from trailblaze.screen.selector import NodeSelector
from trailblaze.screen.selector_gen import generate_selector, literal, selector_for
from trailblaze.tools.assertions import pin_assertion
from trailblaze.tools.call import ToolCall
from trailblaze.tools.execute import ToolResult
from trailblaze.trail.model import TrailStep, closest_classifier

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.screen.hierarchy import Hierarchy, Node

__all__ = ["PortSolver", "RunCall"]

RunCall = Callable[[ToolCall], ToolResult]
"""Runs one recorded-form call on the device (a `runTrail` through the step engine)."""

_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_FOUND_BY = ("tapOnElementBySelector", "assertVisibleBySelector", "rememberTextBySelector", "swipe")


class _Unported(Exception):
    """A call that cannot be ported, with why."""


class PortSolver:
    """The model-free solver of a record run that ports recordings (`trailblaze port`).

    Args:
        source: The classifier whose recordings are ported (`android`, `ios`, `android-phone`).
    """

    def __init__(self, source: str) -> None:
        self.source = source
        self.ported = 0
        """Steps ported so far (a run's count, for its summary)."""

    def __call__(
        self, step: TrailStep, session: DeviceSession, run: RunCall, *, start: int = 0
    ) -> StepResult:
        """Ports the step's source recording from its call `start` on (the calls before it ran here as
        they are), running each ported call through `run`."""
        key = closest_classifier(step.recording, self.source)
        calls = step.recording.get(key) if step.recording is not None and key is not None else None
        if not calls:
            why = "an empty recording" if calls == [] else "no recording"
            return StepResult("FAILED", f"left for record: the step has {why} for {self.source} to port")
        runs: list[ToolRun] = []
        for n, call in enumerate(calls, 1):
            if n <= start:
                continue
            started = time.monotonic()
            try:
                ported = self._port(call, step, session)
            except _Unported as exc:
                return StepResult("FAILED", f"left for record: {call.name} ({n} of {len(calls)}) {exc}", runs)
            result = run(ported)
            use = ToolUseBlock(id=f"port-{n}", name=ported.name, input=dict(ported.params))
            runs.append(ToolRun(use, replace(result, recorded=(ported,)), (time.monotonic() - started) * 1000))
            if not result.ok:
                return StepResult(
                    "FAILED",
                    f"left for record: ported {ported.name} ({n} of {len(calls)}) failed: {result}",
                    runs,
                )
        self.ported += 1
        return StepResult("COMPLETED", f"ported {len(calls)} call{'s' * (len(calls) != 1)} from {key}", runs)

    # --- one call ----------------------------------------------------------------------------------
    def _port(self, call: ToolCall, step: TrailStep, session: DeviceSession) -> ToolCall:
        params = dict(call.params)
        raw = params.get("nodeSelector")
        if call.name == "tapOnPoint":
            raise _Unported("taps a point of the source screen, which is another point here")
        if raw is None or not isinstance(raw, dict):
            return call  # platform-neutral: typing, keys, launching, runTrail, text-based tools
        source = NodeSelector.model_validate(raw)
        if source.web is not None:
            raise _Unported("selects a web element, which a phone does not have")
        meaning = meaning_of(source)
        platform = session.info.platform
        if call.name == "assertNotVisibleBySelector":
            candidates = target_selectors(meaning, platform)
            if not candidates:
                raise _Unported(f"has a selector with nothing to port ({describe_selector(source)})")
            return ToolCall(name=call.name, params={**params, "nodeSelector": candidates[-1].to_yaml_dict()})
        if call.name not in _FOUND_BY:
            raise _Unported("has a selector this port does not know how to find")
        node, hierarchy = self._find(meaning, step, session, platform)
        if call.name == "tapOnElementBySelector":
            selector = generate_selector(node, hierarchy)
        elif call.name == "assertVisibleBySelector":
            return ToolCall(name=call.name, params=_pinned(node, hierarchy, params, meaning))
        else:
            selector = selector_for(node, hierarchy)
        if selector is None:
            raise _Unported("found its element, but nothing on this platform identifies it")
        return ToolCall(name=call.name, params={**params, "nodeSelector": selector.to_yaml_dict()})

    def _find(
        self, meaning: Meaning, step: TrailStep, session: DeviceSession, platform: str
    ) -> tuple[Node, Hierarchy]:
        """The one element the meaning names on the settled screen (waiting for it as a replay would)."""
        candidates = target_selectors(meaning, platform)
        # the step's quoted words name the element only when the recording named it by id alone (ids
        # differ across platforms more often than texts); with a text of its own they would name another
        words = [] if meaning.text or meaning.label else [literal(a or b) for a, b in _QUOTED.findall(step.text)]
        by_words = [NodeSelector.model_validate({_BRANCH[platform]: {"textRegex": w}}) for w in words]
        hierarchy = session.screen()
        found = _unique(candidates + by_words, hierarchy, meaning)
        if found is None and candidates:  # not on screen yet (a screen still loading): wait as replay does
            hierarchy = session.resolve(candidates[-1], until=lambda nodes: bool(nodes)).hierarchy
            found = _unique(candidates + by_words, hierarchy, meaning)
        if found is None:
            named = describe_selector(candidates[0]) if candidates else "its selector"
            raise _Unported(f"matches no single element here ({named}, nor the step's quoted words)")
        return found, hierarchy


_BRANCH = {"android": "androidMaestro", "ios": "iosMaestro"}


def _unique(selectors: list[NodeSelector], hierarchy: Hierarchy, meaning: Meaning) -> Node | None:
    """The first selector's one match; several matches are narrowed by what the branch could not say
    (takes taps or not, the kind of element)."""
    clickable = meaning.clickable if meaning.clickable is not None else _TAKES_TAPS.get(meaning.role or "")
    for selector in selectors:
        nodes = resolve(selector, hierarchy)
        if clickable is not None:
            nodes = _narrowed(nodes, lambda n: n.clickable == clickable)
        if meaning.role is not None:
            nodes = _narrowed(nodes, lambda n: role_of_class(n.class_name) == meaning.role)
        if len(nodes) == 1:
            return nodes[0]
    return None


_TAKES_TAPS = {"button": True, "cell": True, "switch": True, "checkbox": True, "radio": True, "text": False}
"""Whether an element of a kind takes taps, to tell apart two elements of one text (a heading and the
tab of its name) when the source did not say: a static text does not, a button does."""


def _narrowed(nodes: list[Node], keep: Callable[[Node], bool]) -> list[Node]:
    """The matches `keep` holds for, when there are several and it leaves some; else the matches."""
    if len(nodes) < 2:
        return nodes
    kept = [n for n in nodes if keep(n)]
    return kept or nodes


def _pinned(node: Node, hierarchy: Hierarchy, params: dict[str, Any], meaning: Meaning) -> dict[str, Any]:
    """The ported assertion's params: pinned on what `node` shows, which must be what the source asserted."""
    expected = params.get("expectedText")
    regex = params.get("textMatchMode") == "REGEX"
    state = {k: v for k, v in meaning.state if k in ("checked", "selected") or (k == "enabled" and not v)}
    pinned = pin_assertion(
        node,
        hierarchy,
        expected_text=None if regex else expected,
        text_pattern=expected if regex else None,
        state=state or None,
    )
    if pinned.params is None:
        raise _Unported(f"found its element, but {pinned.problem}")
    kept = {k: v for k, v in params.items() if k not in ("nodeSelector", "expectedText", "textMatchMode")}
    return {**pinned.params, **kept}
