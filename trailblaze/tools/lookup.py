"""The one context every tool runs on (`ToolContext`: a built-in tool's handler, a project's Python
tool and the tools the model calls all receive it; docs/adr/0074-one-way-to-call-a-tool.md), and the
lookups every element tool shares, which it offers.

Element tools poll-resolve their selector until exactly one node matches (`DeviceSession.resolve`),
scroll an off-screen target into view when nothing matches on screen (`trailblaze.tools.scroll_into_view`;
never for an assertion of absence), act at the centre of that node's visible part, and settle (every
action goes through `ToolContext.act`).
The read-compat lookups (`CompatQuery`, Maestro's matching for Trailblaze's older tools) are
`trailblaze.tools.compat_lookup`'s, and Maestro's text rule is `trailblaze.screen.maestro_text`'s.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trailblaze.device.noop import act_and_compare
from trailblaze.screen.maestro_text import maestro_text
from trailblaze.screen.resolve import describe_selector, missing_attributes
from trailblaze.screen.selector import NodeSelector
from trailblaze.tools.assertions import TextMode, shown_text, text_matches
from trailblaze.tools.scroll_into_view import MAX_SCROLLS, Scrolled, resolve_in_view
from trailblaze.tools.tooldef import ToolResult

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.device.session import DeviceSession
    from trailblaze.llm.client import LLMClient
    from trailblaze.screen.compact import CompactView
    from trailblaze.screen.hierarchy import Hierarchy, Node
    from trailblaze.tools.call import ToolCall
    from trailblaze.tools.memory import Memory

__all__ = [
    "MAX_SCROLLS",
    "NestedFailed",
    "ToolContext",
    "assert_gone",
    "assert_visible",
    "candidates",
    "closest_nodes",
    "covered_message",
    "describe",
    "find_one",
    "scroll_note",
    "tap_at",
    "tap_selector",
    "text_selector",
]

_LISTED = 5


class NestedFailed(Exception):
    """A tool run by `ToolContext.run` failed: the tool that ran it fails with its status."""

    def __init__(self, call: ToolCall, result: ToolResult) -> None:
        super().__init__(str(result))
        self.call, self.result = call, result


@dataclass
class ToolContext:
    """What every tool receives first: the device, the run's memory and the other tools; and what
    the tool did that its result reports."""

    session: DeviceSession
    memory: Memory
    _: KW_ONLY
    nested: Callable[[ToolCall], ToolResult] | None = None
    """Runs another tool for `run`: the run's tool set, with replay's keyboard retry (a Python
    tool's context; `trailblaze.tools.custom` gives it)."""
    name: str = ""
    """The name of the tool being run (a Python tool's)."""
    llm: Callable[[], LLMClient] | None = None
    """Builds the run's LLM client, for the tools that ask one on every run; None without one."""
    folder: Path | None = None
    """The trail's folder: where relative paths are read from (None: the working directory)."""
    secret_inputs: bool = False
    """A param of this tool was filled from a secret: what it reads back may be derived from it
    (`SELECT hex('{{password}}')`), so probes show no values (the secret's spellings alone are redacted)."""
    call: ToolCall | None = None
    """The call being run, as recorded (its `{{templates}}` unfilled)."""
    run_trail: Callable[[ToolCall], ToolResult] | None = None
    """Runs a `runTrail` call's trail as a step of the calling one: the step engine provides it
    (`trailblaze.engine.steps`); None: the tool runs outside a trail."""
    seen: tuple[CompactView, Hierarchy] | None = None
    """A model tool's: the compact view sent in the request (its refs are the ones the model may
    use) and the capture it was built from."""
    no_change: bool = False
    """The gesture / key press of this tool left the screen as it was."""
    ai: bool = False
    """Set by a tool that asked the LLM (replay reports it as an AI step)."""
    in_trail: bool = False
    """The tool failed on the trail's own code (a Maestro script that threw, a pattern too slow)."""
    asserted: bool = False
    """With `in_trail`: an assertion over the trail's own values was false (Maestro's `assertTrue`):
    its message says it all, with no hint to fix the trail."""
    scrolled: str = ""
    """How the tool's lookup scrolled its target into view (`after scrolling messages 1 swipe into
    view`); the result's message ends with it."""

    @property
    def platform(self) -> str:
        """`android`, `ios` or `web`."""
        return self.session.info.platform

    @property
    def view(self) -> CompactView:
        """The compact view the model saw (a model tool's context only)."""
        if self.seen is None:
            raise RuntimeError(f"tool {self.name or '?'}: no screen seen by the model here")
        return self.seen[0]

    @property
    def hierarchy(self) -> Hierarchy:
        """The capture the model's view was built from (a model tool's context only)."""
        if self.seen is None:
            raise RuntimeError(f"tool {self.name or '?'}: no screen seen by the model here")
        return self.seen[1]

    # --- running other tools, remembering values (a Python tool's) ---

    def run(self, name: str, params: Mapping[str, Any] | None = None, /, **kwargs: Any) -> ToolResult:
        """Run another tool in its recorded form, e.g. `ctx.run("inputText", text=email)`.

        Returns the tool's OK result; a failed tool fails this tool with that tool's status and
        message (no need to check). `{{templates}}` in the params are filled from memory.
        """
        from trailblaze.tools.call import ToolCall

        if self.nested is None:
            raise RuntimeError(f"tool {self.name or '?'}: this context runs no other tools")
        call = ToolCall(name=name, params={**(params or {}), **kwargs})
        result = self.nested(call)
        if not result.ok:
            raise NestedFailed(call, result)
        return result

    def remember(self, name: str, value: str) -> None:
        """Store a value for later `{{name}}` templates."""
        self.memory.remember(name, value)

    # --- acting on the device and finding elements (the built-in tools') ---

    def act(self, action: Callable[[Driver], Any], point: tuple[float, float] | None = None) -> None:
        """Runs a gesture or key press (settling after it) and notes whether it changed the screen."""
        self.no_change = act_and_compare(self.session, action, point=point)

    def find_one(self, selector: NodeSelector) -> tuple[Node | None, ToolResult]:
        return find_one(self, selector)

    def tap_node(self, node: Node, long_press: bool) -> ToolResult:
        return tap_at(self, node, long_press)

    def assert_visible(self, selector: NodeSelector, expected: str | None, timeout_ms: int | None) -> ToolResult:
        return assert_visible(self, selector, expected, timeout_ms)

    def maestro_text(self, text: str, *, ident: str | None = None, index: int | None = None) -> NodeSelector:
        """Maestro's text lookup (text, label or hint; regex or literal; any case)."""
        pattern = maestro_text(text, contains=False)[0]
        return text_selector(self, pattern, ident=ident, index=index)

    def describe(self, node: Node) -> str:
        return describe(node)


def describe(node: Node) -> str:
    label = node.text or node.label or node.hint
    out = node.short_class + (f' "{_clip(label)}"' if label else "")
    if node.short_id:
        out += f" (id {node.short_id})"
    return out


def _clip(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _point(node: Node) -> tuple[float, float]:
    return node.center


def _wanted(selector: NodeSelector) -> list[str]:
    """The literal-ish strings a selector looks for, to rank near misses."""
    out: list[str] = []
    for branch in (selector.androidAccessibility, selector.androidMaestro, selector.iosMaestro):
        if branch is None:
            continue
        for key, value in branch.model_dump(exclude_none=True).items():
            if isinstance(value, str) and key.endswith("Regex") and key != "classNameRegex":
                out.append(value.replace("\\", "").replace(".*", "").rsplit("/", 1)[-1])
    return [w for w in out if w]


def closest_nodes(wanted: list[str], hierarchy: Hierarchy) -> list[Node]:
    """Visible app elements ranked by how much their text / label / hint / id resembles any of the
    lower-cased `wanted` strings; elements with nothing to compare are left out, ties keep screen order."""
    scored: list[tuple[float, int, Node]] = []
    for node in hierarchy.visible_nodes():
        if hierarchy.window_kind(node) != "app":
            continue
        names = [s.lower() for s in (node.text, node.label, node.hint, node.short_id) if s]
        if not names:
            continue
        score = max((difflib.SequenceMatcher(None, w, n).ratio() for w in wanted for n in names), default=0.0)
        scored.append((score, node.order, node))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [node for _, _, node in scored]


def candidates(selector: NodeSelector, hierarchy: Hierarchy, limit: int = 3) -> str:
    missing = missing_attributes(selector, hierarchy)
    if missing:
        return (
            f"this device's dump has no attribute for {', '.join(missing)}, so the selector cannot match "
            "here; select by text, id or class instead"
        )
    nodes = closest_nodes([w.lower() for w in _wanted(selector)], hierarchy)
    if not nodes:
        return "nothing with text or an id is on screen"
    return "closest on screen: " + "; ".join(describe(n) for n in nodes[:limit])


def scroll_note(run: ToolContext, scrolled: Scrolled | None) -> str:
    """Notes on the run a scroll that found the target; for one that did not, how far it looked."""
    if scrolled is None:
        return ""
    if scrolled.found:
        run.scrolled = scrolled.note()
        return ""
    return f" and {scrolled.searched()}"


def find_one(run: ToolContext, selector: NodeSelector) -> tuple[Node | None, ToolResult]:
    res, scrolled = resolve_in_view(run.session, selector, until=lambda nodes: len(nodes) == 1)
    searched = scroll_note(run, scrolled)
    sel = describe_selector(selector)
    if len(res.nodes) == 1:
        return res.nodes[0], ToolResult("OK", "")
    if not res.nodes:
        return None, ToolResult(
            "NOT_FOUND",
            f"no element matches {sel} after {res.waited_s:.1f} s{searched}; "
            f"{candidates(selector, res.hierarchy)}",
        )
    listed = "; ".join(describe(n) for n in res.nodes[:_LISTED])
    more = f" and {len(res.nodes) - _LISTED} more" if len(res.nodes) > _LISTED else ""
    return None, ToolResult(
        "AMBIGUOUS",
        f"{len(res.nodes)} elements match {sel}: {listed}{more}; make the selector more specific or add index",
    )


def tap_selector(run: ToolContext, selector: NodeSelector, long_press: bool) -> ToolResult:
    node, outcome = find_one(run, selector)
    return outcome if node is None else tap_at(run, node, long_press)


def covered_message(node: Node) -> str:
    """Why a tap on a covered node is refused, with what to do instead (`NOT_VISIBLE` follows)."""
    cover = node.covered_by
    assert cover is not None
    x, y = node.center
    if cover.kind == "keyboard":
        hint = "hide the keyboard first (hideKeyboard) or scroll the element into view"
    else:
        hint = "dismiss it first, or act on an element inside it"
    return f"{describe(node)} at ({x:.0f}, {y:.0f}) is covered by {cover.describe()}; {hint}"


def tap_at(run: ToolContext, node: Node, long_press: bool) -> ToolResult:
    if node.covered_by is not None:
        return ToolResult("NOT_VISIBLE", covered_message(node))
    x, y = _point(node)
    if long_press:
        run.act(lambda d: d.long_press(x, y), (x, y))
    else:
        run.act(lambda d: d.tap(x, y), (x, y))
    verb = "long-pressed" if long_press else "tapped"
    return ToolResult("OK", f"{verb} {describe(node)} at ({x:.0f}, {y:.0f})")


def text_selector(
    run: ToolContext,
    text: str | None,
    *,
    ident: str | None = None,
    label: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
    index: int | None = None,
) -> NodeSelector:
    """The platform's selector for the read-compat `…WithText` / `…WithAccessibilityText` tools."""
    if run.platform == "ios":
        ios: dict[str, Any] = {
            "textRegex": text,
            "resourceIdRegex": ident,
            "accessibilityTextRegex": label,
            "enabled": enabled,
            "selected": selected,
        }
        return NodeSelector.model_validate(
            {"iosMaestro": {k: v for k, v in ios.items() if v is not None}, "index": index}
        )
    android: dict[str, Any] = {
        "textRegex": text,
        "idRegex": ident,
        "contentDescriptionRegex": label,
        "enabled": enabled,
        "selected": selected,
    }
    return NodeSelector.model_validate(
        {"androidMaestro": {k: v for k, v in android.items() if v is not None}, "index": index}
    )


# --- assertions ------------------------------------------------------------------------------------


def assert_visible(
    run: ToolContext,
    selector: NodeSelector,
    expected: str | None,
    timeout_ms: int | None,
    mode: TextMode | None = None,
) -> ToolResult:
    def shows(nodes: list[Node]) -> bool:
        if not nodes:
            return False
        return expected is None or any(text_matches(n, expected, mode) for n in nodes)

    timeout = None if timeout_ms is None else timeout_ms / 1000
    res, scrolled = resolve_in_view(run.session, selector, timeout=timeout, until=shows)
    searched = scroll_note(run, scrolled)
    sel = describe_selector(selector)
    if shows(res.nodes):
        node = next(n for n in res.nodes if expected is None or text_matches(n, expected, mode))
        shown = f" showing {shown_text(node)!r}" if expected is not None else ""
        return ToolResult("OK", f"{describe(node)} is visible{shown}")
    if res.nodes:
        how = {"REGEX": "matching", "PREFIX": "starting with"}.get(mode or "", "")
        return ToolResult("NOT_VISIBLE", (
            f"{describe(res.nodes[0])} matches {sel} but shows {shown_text(res.nodes[0])!r}, "
            f"expected {how + ' ' if how else ''}{expected!r} (waited {res.waited_s:.1f} s)"
        ))
    return ToolResult("NOT_VISIBLE", (
        f"no visible element matches {sel} after {res.waited_s:.1f} s{searched}; "
        f"{candidates(selector, res.hierarchy)}"
    ))


def assert_gone(run: ToolContext, selector: NodeSelector, what: str, timeout_ms: int | None) -> ToolResult:
    timeout = None if timeout_ms is None else timeout_ms / 1000
    res = run.session.resolve(selector, timeout=timeout, until=lambda nodes: not nodes)
    if not res.nodes:
        return ToolResult("OK", f"{what} is not visible")
    return ToolResult("TIMEOUT", f"{what} is still visible after {res.waited_s:.1f} s: {describe(res.nodes[0])}")
