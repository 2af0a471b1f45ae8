"""Running one recorded-form tool on a device session (replay, `trailblaze tool`, the agent's delegate).

Element tools poll-resolve their selector until exactly one node matches (`DeviceSession.resolve`),
act at the centre of that node's visible part, and settle (every action goes through
`DeviceSession.act`). Results start with a status word the model and the report can act on:

- `OK` — done; a tap, long-press, swipe or key press that left the screen as it was says so
  (`OK tapped … (no visible change)`, `ToolResult.no_change`, see `trailblaze.noop`);
- `NOT_FOUND` — nothing matched before the timeout (names the selector and the 3 closest candidates);
- `AMBIGUOUS` — several nodes matched and the selector has no `index` (lists them);
- `NOT_VISIBLE` — an assertion's element did not show (or showed other text), or a tap's target is
  covered by a dialog or the keyboard (docs/adr/0014-occlusion.md);
- `TIMEOUT` — something that should go away did not;
- `ERROR` — the tool itself cannot run (unknown tool, bad params), or the app's state refuses it
  (typing with nothing focused: `ActionRefused` from the driver);
- `UNSUPPORTED` — a Trailblaze tool this platform or this library cannot run (says why);
- `NOT_INSTALLED` — `launchApp` named an app the device does not have (lists near-matching ids).

Trail-level failures are results, never exceptions. A broken device raises `DeviceError`; an unknown
`{{variable}}` raises `UsageError` (the trail or the command line is wrong, not the app).
"""

from __future__ import annotations

import difflib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import ValidationError

from trailblaze import recorded_tools as rt
from trailblaze.assertions import TextMode, shown_text, text_matches
from trailblaze.catalog.handlers import CATALOG_HANDLERS
from trailblaze.catalog.params import CATALOG_KINDS
from trailblaze.driver import SupportsShellStatus
from trailblaze.errors import ActionRefused, AppNotInstalledError
from trailblaze.maestro.handler import MAESTRO_HANDLERS
from trailblaze.maestro.params import MAESTRO_KINDS
from trailblaze.memory import TEMPLATE_RE
from trailblaze.noop import NO_CHANGE, act_and_compare
from trailblaze.patterns import PatternTooSlow, full_match
from trailblaze.permissions import PermissionRefused, set_permissions
from trailblaze.probes.handlers import PROBE_HANDLERS
from trailblaze.probes.params import PROBE_KINDS
from trailblaze.resolve import describe_selector, missing_attributes
from trailblaze.selector import NodeSelector
from trailblaze.settle import same_screen

if TYPE_CHECKING:
    from trailblaze.driver import Driver
    from trailblaze.hierarchy import Hierarchy, Node, Rect
    from trailblaze.llm import LLMClient
    from trailblaze.memory import Memory
    from trailblaze.session import DeviceSession
    from trailblaze.trail import ToolCall

__all__ = ["TOOL_KINDS", "CustomTools", "Status", "ToolResult", "covered_message", "run_recorded_tool"]

Status = Literal[
    "OK", "NOT_FOUND", "AMBIGUOUS", "NOT_VISIBLE", "ERROR", "TIMEOUT", "UNSUPPORTED", "NOT_INSTALLED"
]
Kind = Literal["action", "assertion", "other"]

TOOL_KINDS: dict[str, Kind] = {
    "tapOnElementBySelector": "action",
    "tapOnPoint": "action",
    "inputText": "action",
    "eraseText": "action",
    "hideKeyboard": "action",
    "swipe": "action",
    "scrollUntilTextIsVisible": "action",
    "launchApp": "action",
    "pressBack": "action",
    "pressKey": "action",
    "tapOnElementWithText": "action",
    "tapOnElementWithAccessibilityText": "action",
    "longPressOnElementWithText": "action",
    "assertVisibleBySelector": "assertion",
    "assertNotVisibleWithText": "assertion",
    "assertVisibleWithText": "assertion",
    "assertVisibleWithAccessibilityText": "assertion",
    "assertVisibleWithResourceId": "assertion",
    "assertNotVisibleBySelector": "assertion",
    "rememberTextBySelector": "other",
    "wait": "other",
    **CATALOG_KINDS,
    **PROBE_KINDS,
    **MAESTRO_KINDS,
    "runTrail": "other",
}
"""What each tool counts as for the agent's success validation."""

_MAX_SCROLLS = 20
_LISTED = 5


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool: a status word plus a short explanation."""

    status: Status
    message: str
    kind: Kind
    no_change: bool = False
    """An OK gesture or key press after which the settled screen was the same as before it."""
    ai: bool = False
    """The tool asked the LLM (`rememberText`, `assertWithAi`, …): an AI step even on replay."""

    @property
    def ok(self) -> bool:
        return self.status == "OK"

    def __str__(self) -> str:
        return f"{self.status} {self.message}"


class _CustomTool(Protocol):
    def run(self, session: DeviceSession, call: ToolCall, memory: Memory, tools: Any) -> ToolResult: ...


class CustomTools(Protocol):
    """The custom tools of a run by name (`trailblaze.custom_tools.ToolBox`)."""

    def get(self, name: str) -> _CustomTool | None: ...

    def unknown_hint(self, name: str) -> str | None: ...


def run_recorded_tool(
    session: DeviceSession,
    call: ToolCall,
    memory: Memory,
    tools: CustomTools | None = None,
    *,
    llm: Callable[[], LLMClient] | None = None,
    folder: Path | None = None,
) -> ToolResult:
    """Runs one recorded-form tool against `session` and reports how it went.

    Args:
        session: The device session (settle + cache discipline).
        call: The tool as recorded; its `{{templates}}` are interpolated from `memory` here and the
            call itself is left untouched.
        memory: Variables, args and secrets; `rememberTextBySelector` writes into it.
        tools: The run's custom tools (Python and YAML, docs/adr/0020-custom-tools.md), looked up
            by name when `call` is not a built-in tool.
        llm: Builds an LLM client for the catalog tools that ask one on every run (`rememberText`,
            `assertWithAi`, …); without it they answer `UNSUPPORTED`.
        folder: The folder of the trail the tool belongs to: relative paths in it (`web_navigate`'s
            file URL) are read from there, as `runTrail` paths are; None: the working directory.

    Returns:
        A `ToolResult`; trail-level failures are non-OK results.

    Raises:
        DeviceError: The device failed (unreachable, protocol error).
        UsageError: A template names an unknown variable.
    """
    kind = TOOL_KINDS.get(call.name, "other")
    model = rt.RECORDED_TOOL_PARAMS.get(call.name)
    if model is None:
        custom = tools.get(call.name) if tools is not None else None
        if custom is not None:
            return custom.run(session, call, memory, tools)
        hint = tools.unknown_hint(call.name) if tools is not None else rt.unknown_tool_hint(call.name)
        return ToolResult("ERROR", hint or f"unknown tool {call.name!r}", kind)
    own = getattr(model, "templates_at_run", False)  # e.g. mobile_maestro: per command, in its own scope
    params = call.params if own else memory.interpolate(call.params, where=f"{call.name} params")
    try:
        typed = model.model_validate(params, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or call.name
        return ToolResult("ERROR", f"bad params for {call.name}: {where}: {first['msg']}", kind)
    handler = _HANDLERS[type(typed)]
    run = _Run(session, memory, llm, secret_inputs=_uses_secret(call.params, memory), folder=folder)
    try:
        status, message = handler(run, typed)
    except PatternTooSlow as exc:  # the trail's regex is the cause, not the app: this tool fails
        status, message = "ERROR", exc.message
    except ActionRefused as exc:  # e.g. no on-screen keyboard: this tool fails, the device is fine
        status, message = "ERROR", exc.message
    no_change = status == "OK" and run.no_change
    if no_change:
        message = f"{message} {NO_CHANGE}"
    return ToolResult(status, memory.redact(message), kind, no_change, ai=run.ai)


def _uses_secret(params: Any, memory: Memory) -> bool:
    """Whether any `{{template}}` in the params as written names a secret."""
    if isinstance(params, str):
        return any(memory.is_secret(m.group(2) or m.group(3)) for m in TEMPLATE_RE.finditer(params))
    if isinstance(params, dict):
        return any(_uses_secret(v, memory) for v in params.values())
    if isinstance(params, (list, tuple)):
        return any(_uses_secret(v, memory) for v in params)
    return False


# --------------------------------------------------------------------------------------------------


@dataclass
class _Run:
    session: DeviceSession
    memory: Memory
    llm: Callable[[], LLMClient] | None = None
    no_change: bool = False
    """The gesture / key press of this tool left the screen as it was."""
    ai: bool = False
    secret_inputs: bool = False
    """A param of this tool was filled from a secret: what it reads back may be derived from it
    (`SELECT hex('{{password}}')`), so probes show no values (the secret's spellings alone are redacted)."""
    folder: Path | None = None
    """The trail's folder: where relative paths are read from (None: the working directory)."""

    def act(self, action: Callable[[Driver], Any], point: tuple[float, float] | None = None) -> None:
        """Runs a gesture or key press (settling after it) and notes whether it changed the screen."""
        self.no_change = act_and_compare(self.session, action, point=point)

    @property
    def platform(self) -> str:
        return self.session.info.platform

    # --- what catalog handlers use (trailblaze.catalog.handlers.RunContext) ---
    def find_one(self, selector: NodeSelector) -> tuple[Node | None, Outcome]:
        return _find_one(self, selector)

    def tap_node(self, node: Node, long_press: bool) -> Outcome:
        return _tap_at(self, node, long_press)

    def assert_visible(self, selector: NodeSelector, expected: str | None, timeout_ms: int | None) -> Outcome:
        return _assert_visible(self, selector, expected, timeout_ms)

    def maestro_text(self, text: str, *, ident: str | None = None, index: int | None = None) -> NodeSelector:
        """Maestro's text lookup (text, label or hint; regex or literal; any case)."""
        pattern = _maestro_text(text, contains=False)[0]
        return _text_selector(self, pattern, ident=ident, index=index)

    def describe(self, node: Node) -> str:
        return _describe(node)


Outcome = tuple[Status, str]


def _describe(node: Node) -> str:
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


def _candidates(selector: NodeSelector, hierarchy: Hierarchy, limit: int = 3) -> str:
    missing = missing_attributes(selector, hierarchy)
    if missing:
        return (
            f"this device's dump has no attribute for {', '.join(missing)}, so the selector cannot match "
            "here; select by text, id or class instead"
        )
    nodes = closest_nodes([w.lower() for w in _wanted(selector)], hierarchy)
    if not nodes:
        return "nothing with text or an id is on screen"
    return "closest on screen: " + "; ".join(_describe(n) for n in nodes[:limit])


def _find_one(run: _Run, selector: NodeSelector) -> tuple[Node | None, Outcome]:
    res = run.session.resolve(selector)
    sel = describe_selector(selector)
    if len(res.nodes) == 1:
        return res.nodes[0], ("OK", "")
    if not res.nodes:
        return None, (
            "NOT_FOUND",
            f"no element matches {sel} after {res.waited_s:.1f} s; {_candidates(selector, res.hierarchy)}",
        )
    listed = "; ".join(_describe(n) for n in res.nodes[:_LISTED])
    more = f" and {len(res.nodes) - _LISTED} more" if len(res.nodes) > _LISTED else ""
    return None, (
        "AMBIGUOUS",
        f"{len(res.nodes)} elements match {sel}: {listed}{more}; make the selector more specific or add index",
    )


def _tap_node(run: _Run, selector: NodeSelector, long_press: bool) -> Outcome:
    node, outcome = _find_one(run, selector)
    return outcome if node is None else _tap_at(run, node, long_press)


def covered_message(node: Node) -> str:
    """Why a tap on a covered node is refused, with what to do instead (`NOT_VISIBLE` follows)."""
    cover = node.covered_by
    assert cover is not None
    x, y = node.center
    if cover.kind == "keyboard":
        hint = "hide the keyboard first (hideKeyboard) or scroll the element into view"
    else:
        hint = "dismiss it first, or act on an element inside it"
    return f"{_describe(node)} at ({x:.0f}, {y:.0f}) is covered by {cover.describe()}; {hint}"


def _tap_at(run: _Run, node: Node, long_press: bool) -> Outcome:
    if node.covered_by is not None:
        return "NOT_VISIBLE", covered_message(node)
    x, y = _point(node)
    if long_press:
        run.act(lambda d: d.long_press(x, y), (x, y))
    else:
        run.act(lambda d: d.tap(x, y), (x, y))
    verb = "long-pressed" if long_press else "tapped"
    return "OK", f"{verb} {_describe(node)} at ({x:.0f}, {y:.0f})"


def _text_selector(
    run: _Run,
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


def _assert_visible(
    run: _Run,
    selector: NodeSelector,
    expected: str | None,
    timeout_ms: int | None,
    mode: TextMode | None = None,
) -> Outcome:
    def shows(nodes: list[Node]) -> bool:
        if not nodes:
            return False
        return expected is None or any(text_matches(n, expected, mode) for n in nodes)

    timeout = None if timeout_ms is None else timeout_ms / 1000
    res = run.session.resolve(selector, timeout=timeout, until=shows)
    sel = describe_selector(selector)
    if shows(res.nodes):
        node = next(n for n in res.nodes if expected is None or text_matches(n, expected, mode))
        shown = f" showing {shown_text(node)!r}" if expected is not None else ""
        return "OK", f"{_describe(node)} is visible{shown}"
    if res.nodes:
        how = {"REGEX": "matching", "PREFIX": "starting with"}.get(mode or "", "")
        return "NOT_VISIBLE", (
            f"{_describe(res.nodes[0])} matches {sel} but shows {shown_text(res.nodes[0])!r}, "
            f"expected {how + ' ' if how else ''}{expected!r} (waited {res.waited_s:.1f} s)"
        )
    return "NOT_VISIBLE", (
        f"no visible element matches {sel} after {res.waited_s:.1f} s; {_candidates(selector, res.hierarchy)}"
    )


def _assert_gone(run: _Run, selector: NodeSelector, what: str, timeout_ms: int | None) -> Outcome:
    timeout = None if timeout_ms is None else timeout_ms / 1000
    res = run.session.resolve(selector, timeout=timeout, until=lambda nodes: not nodes)
    if not res.nodes:
        return "OK", f"{what} is not visible"
    return "TIMEOUT", f"{what} is still visible after {res.waited_s:.1f} s: {_describe(res.nodes[0])}"


# --- gestures --------------------------------------------------------------------------------------


def _swipe_path(area: Rect, direction: str) -> tuple[float, float, float, float]:
    """Finger path across the middle 50% of `area` in `direction`."""
    cx, cy = area.center
    dx, dy = area.width * 0.25, area.height * 0.25
    if direction == "UP":
        return cx, cy + dy, cx, cy - dy
    if direction == "DOWN":
        return cx, cy - dy, cx, cy + dy
    if direction == "LEFT":
        return cx + dx, cy, cx - dx, cy
    return cx - dx, cy, cx + dx, cy


def _app_area(hierarchy: Hierarchy) -> Rect:
    from trailblaze.hierarchy import Rect

    roots = [r for r in hierarchy.roots if hierarchy.window_kind(r) == "app" and r.visible_bounds.area > 0]
    if not roots:
        return hierarchy.screen
    biggest = max(roots, key=lambda r: r.visible_bounds.area)
    vb = biggest.visible_bounds
    return Rect(vb.left, vb.top, vb.right, vb.bottom)


def _scroll_area(hierarchy: Hierarchy) -> Rect:
    scrollables = [n for n in hierarchy.visible_nodes() if n.scrollable and hierarchy.window_kind(n) == "app"]
    if not scrollables:
        return _app_area(hierarchy)
    return max(scrollables, key=lambda n: n.visible_bounds.area).visible_bounds


# --- handlers --------------------------------------------------------------------------------------


def _tap_on_element(run: _Run, p: rt.TapOnElementBySelector) -> Outcome:
    return _tap_node(run, p.nodeSelector, p.longPress)


def _tap_on_point(run: _Run, p: rt.TapOnPoint) -> Outcome:
    if p.longPress:
        run.act(lambda d: d.long_press(p.x, p.y), (p.x, p.y))
    else:
        run.act(lambda d: d.tap(p.x, p.y), (p.x, p.y))
    return "OK", f"{'long-pressed' if p.longPress else 'tapped'} ({p.x}, {p.y})"


def _input_text(run: _Run, p: rt.InputText) -> Outcome:
    run.session.act(lambda d: d.input_text(p.text), observe=False)  # the next tool's look settles it
    if p.hideKeyboardAfter and run.session.screen().keyboard_shown:
        run.session.act(lambda d: d.hide_keyboard())
        return "OK", f"typed {p.text!r} and hid the keyboard"
    return "OK", f"typed {p.text!r}"


def _erase_text(run: _Run, p: rt.EraseText) -> Outcome:
    n = p.charactersToErase
    run.session.act(lambda d: d.erase_text(n))
    return "OK", "erased the field" if n is None else f"erased {n} characters"


def _hide_keyboard(run: _Run, p: rt.HideKeyboard) -> Outcome:
    if not run.session.screen().keyboard_shown:
        return "OK", "the keyboard was not shown"
    run.session.act(lambda d: d.hide_keyboard())
    return "OK", "hid the keyboard"


def _swipe(run: _Run, p: rt.Swipe) -> Outcome:
    where = "the screen"
    target = p.nodeSelector
    if target is None and p.swipeOnElementText is not None:
        target = _compat(run, p.swipeOnElementText).selector
    if target is not None:
        node, outcome = _find_one(run, target)
        if node is None:
            return outcome
        area = node.visible_bounds
        where = _describe(node)
    else:
        area = _app_area(run.session.screen())
    path = _swipe_path(area, p.direction)
    run.act(lambda d: d.swipe(*path))
    return "OK", f"swiped {p.direction} on {where}"


def _scroll_until_visible(run: _Run, p: rt.ScrollUntilTextIsVisible) -> Outcome:
    pattern = p.textRegex if p.textRegex is not None else (p.text or None)
    selector = _text_selector(run, pattern, ident=p.id, index=p.index)
    what = f"text {pattern!r}" if pattern is not None else f"id {p.id!r}"
    need = (p.visibilityPercentage if p.visibilityPercentage is not None else 100) / 100
    from trailblaze.resolve import resolve

    def shown(h: Hierarchy) -> Node | None:
        for node in resolve(selector, h):
            area = node.bounds.area
            if area <= 0 or node.visible_bounds.area / area >= need - 1e-6:
                return node
        return None

    hierarchy = run.session.settle()
    finger = {"DOWN": "UP", "UP": "DOWN", "LEFT": "RIGHT", "RIGHT": "LEFT"}[p.direction]
    for swipes in range(_MAX_SCROLLS + 1):
        node = shown(hierarchy)
        if node is not None:
            return "OK", f"{_describe(node)} is visible after {swipes} swipe{'s' * (swipes != 1)}"
        if swipes == _MAX_SCROLLS:
            break
        before = hierarchy
        path = _swipe_path(_scroll_area(hierarchy), finger)
        after = run.session.act(_swiper(path))
        assert after is not None
        hierarchy = after
        if same_screen(hierarchy, before):
            return "NOT_FOUND", (
                f"no element with {what} after {swipes + 1} swipes {p.direction}: reached the end; "
                f"{_candidates(selector, hierarchy)}"
            )
    return "NOT_FOUND", f"no element with {what} after {_MAX_SCROLLS} swipes {p.direction}"


def _swiper(path: tuple[float, float, float, float]) -> Callable[[Driver], None]:
    return lambda d: d.swipe(*path)


def _launch_app(run: _Run, p: rt.LaunchApp) -> Outcome:
    mode, granted = p.launchMode, ""
    try:
        if p.permissions:
            driver = run.session.driver
            if run.platform == "ios" or not isinstance(driver, SupportsShellStatus):
                return "UNSUPPORTED", (
                    f"launchApp permissions: this {run.platform} driver cannot change an app's permissions"
                    + (
                        " (WebDriverAgent has no access; a Simulator needs `xcrun simctl privacy`)"
                        if run.platform == "ios"
                        else ""
                    )
                )
            # Android resets runtime permissions when it clears the data, and kills an app whose
            # permission is revoked: clear / stop first, set them, then start the app.
            if mode == "CLEAR_STATE":
                driver.clear_app(p.appId)
            elif mode == "FORCE_RESTART":
                driver.stop_app(p.appId)
            try:
                changes = set_permissions(driver, p.appId, p.permissions)
            except PermissionRefused as exc:
                if "Unknown package" not in str(exc):
                    return "ERROR", str(exc)
                changes = []  # the launch below says NOT_INSTALLED, listing what is installed
            granted = f"; permissions: {', '.join(changes) or 'none changed'}"
            mode = "RESUME"
        run.session.act(lambda d: d.launch_app(p.appId, mode))
    except AppNotInstalledError as exc:  # the trail (or the device set-up) is wrong, not the device link
        run.session.invalidate()
        return "NOT_INSTALLED", exc.message
    run.session.app_logs.app_id = p.appId
    return "OK", f"launched {p.appId} ({p.launchMode}){granted}"


def _press(key: Any) -> Callable[[Driver], None]:
    return lambda d: d.press_key(key)


def _press_back(run: _Run, p: rt.PressBack) -> Outcome:
    run.act(_press("BACK"))
    return "OK", "pressed BACK"


def _press_key(run: _Run, p: rt.PressKey) -> Outcome:
    run.act(_press(p.keyCode))
    return "OK", f"pressed {p.keyCode}"


def _assert_visible_by_selector(run: _Run, p: rt.AssertVisibleBySelector) -> Outcome:
    return _assert_visible(run, p.nodeSelector, p.expectedText, p.timeoutMs, p.textMatchMode)


def _assert_not_visible_with_text(run: _Run, p: rt.AssertNotVisibleWithText) -> Outcome:
    selector = _text_selector(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _assert_gone(run, selector, f"text {p.text!r}", None)


def _remember_text(run: _Run, p: rt.RememberTextBySelector) -> Outcome:
    node, outcome = _find_one(run, p.nodeSelector)
    if node is None:
        return outcome
    value = node.text or node.label or node.value
    run.memory.remember(p.variable, value)
    return "OK", f"remembered {p.variable} = {value!r}"


def _wait(run: _Run, p: rt.Wait) -> Outcome:
    time.sleep(p.timeToWaitInSeconds)
    run.session.invalidate()
    run.session.settle()
    return "OK", f"waited {p.timeToWaitInSeconds:g} s"


# --- read-compat: Trailblaze's Maestro-lowered tools (docs/adr/0012-read-compat-tools.md) ------------


@dataclass(frozen=True)
class _Compat:
    """One read-compat lookup: Maestro's matching and picking on top of a Maestro-shaped selector."""

    selector: NodeSelector
    """The match set: text / label / hint (case-insensitive, regex or literal), id and state flags."""
    shown: NodeSelector
    """The same lookup with the raw values, for messages and near-miss ranking."""
    index: int | None
    exact: Callable[[Node], bool]

    def pick(self, nodes: list[Node]) -> Node | None:
        """The node Trailblaze would act on: the deepest matches, then the `index`-th of them
        (top-to-bottom), or else the first preferring exact-case full matches, then clickable ones."""
        inner = {id(a) for n in nodes for a in n.ancestors()}
        deepest = [n for n in nodes if id(n) not in inner]
        if self.index:
            return deepest[self.index] if self.index < len(deepest) else None
        ranked = sorted(deepest, key=lambda n: (not self.exact(n), not n.clickable))
        return ranked[0] if ranked else None

    def describe(self) -> str:
        sel = describe_selector(self.shown)
        return f"{sel} index={self.index}" if self.index else sel


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _maestro_text(text: str, *, contains: bool) -> tuple[str, Callable[[Node], bool]]:
    """Maestro's text pattern for `text` and the exact-match test used to prefer among matches.

    Maestro matches a value when the regex matches it whole or the value equals the pattern
    literally, ignoring case; Trailblaze's `tapOnElementWithText` also accepts the literal text
    anywhere inside a longer one.
    """
    literal = re.escape(text)
    alts = [text, literal] if _compiles(text) and text != literal else [literal]
    exact = "|".join(f"(?:{a})" for a in alts)
    if contains:
        alts.append(f".*{literal}.*")
    pattern = "(?i:" + "|".join(f"(?:{a})" for a in alts) + ")"

    def is_exact(node: Node) -> bool:
        return any(full_match(exact, v, "text") for v in (node.text, node.label, node.hint) if v)

    return pattern, is_exact


def _compat(
    run: _Run,
    text: str | None,
    *,
    ident: str | None = None,
    enabled: bool | None = None,
    selected: bool | None = None,
    index: int | None = None,
    contains: bool = False,
) -> _Compat:
    pattern, exact = _maestro_text(text, contains=contains) if text is not None else (None, lambda n: True)
    return _Compat(
        selector=_text_selector(run, pattern, ident=ident, enabled=enabled, selected=selected),
        shown=_text_selector(run, text, ident=ident, enabled=enabled, selected=selected),
        index=index,
        exact=exact,
    )


def _find_compat(run: _Run, q: _Compat) -> tuple[Node | None, Outcome]:
    res = run.session.resolve(q.selector, until=lambda nodes: q.pick(nodes) is not None)
    node = q.pick(res.nodes)
    if node is not None:
        return node, ("OK", "")
    found = f"{len(res.nodes)} match but there is no index {q.index}" if res.nodes else "nothing matches"
    return None, (
        "NOT_FOUND",
        f"no element matches {q.describe()} after {res.waited_s:.1f} s ({found}); "
        f"{_candidates(q.shown, res.hierarchy)}",
    )


def _tap_compat(run: _Run, q: _Compat, long_press: bool) -> Outcome:
    node, outcome = _find_compat(run, q)
    return outcome if node is None else _tap_at(run, node, long_press)


def _assert_visible_compat(run: _Run, q: _Compat) -> Outcome:
    node, outcome = _find_compat(run, q)
    if node is None:
        return "NOT_VISIBLE", outcome[1]
    return "OK", f"{_describe(node)} is visible"


def _legacy_selector(run: _Run, sel: rt.LegacyElementSelector, *, shown: bool = False) -> NodeSelector:
    """Trailblaze's older Maestro-shaped `selector` as a `nodeSelector` for this platform (with the
    raw `textRegex` values when `shown`, for messages)."""
    if run.platform == "ios" and sel.checked is not None:
        raise ValueError("`checked` in a legacy selector is not supported on iOS")
    pattern = sel.textRegex
    if pattern is not None and not shown:
        pattern = _maestro_text(pattern, contains=False)[0]
    branch = _text_selector(run, pattern, ident=sel.idRegex, enabled=sel.enabled, selected=sel.selected)
    out = branch.model_dump(exclude_none=True)
    key = "iosMaestro" if run.platform == "ios" else "androidMaestro"
    out.setdefault(key, {})
    out[key].update({k: v for k, v in (("checked", sel.checked), ("focused", sel.focused)) if v is not None})
    if not out[key]:
        del out[key]
    for rel in ("below", "above", "leftOf", "rightOf", "childOf", "containsChild"):
        sub = getattr(sel, rel)
        if sub is not None:
            out[rel] = _legacy_selector(run, sub, shown=shown).model_dump(exclude_none=True)
    if sel.containsDescendants:
        out["containsDescendants"] = [
            _legacy_selector(run, s, shown=shown).model_dump(exclude_none=True)
            for s in sel.containsDescendants
        ]
    if sel.index is not None:
        out["index"] = sel.index
    return NodeSelector.model_validate(out)


def _tap_with_text(run: _Run, p: rt.TapOnElementWithText) -> Outcome:
    q = _compat(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index, contains=True)
    return _tap_compat(run, q, False)


def _long_press_with_text(run: _Run, p: rt.LongPressOnElementWithText) -> Outcome:
    q = _compat(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _tap_compat(run, q, True)


def _tap_with_accessibility_text(run: _Run, p: rt.TapOnElementWithAccessibilityText) -> Outcome:
    q = _compat(run, p.accessibilityText, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _tap_compat(run, q, False)


def _assert_visible_with_text(run: _Run, p: rt.AssertVisibleWithText) -> Outcome:
    q = _compat(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _assert_visible_compat(run, q)


def _assert_visible_with_accessibility_text(run: _Run, p: rt.AssertVisibleWithAccessibilityText) -> Outcome:
    q = _compat(run, p.accessibilityText, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return _assert_visible_compat(run, q)


def _assert_visible_with_resource_id(run: _Run, p: rt.AssertVisibleWithResourceId) -> Outcome:
    q = _compat(
        run, p.accessibilityText, ident=p.resourceId, enabled=p.enabled, selected=p.selected, index=p.index
    )
    return _assert_visible_compat(run, q)


def _assert_not_visible_by_selector(run: _Run, p: rt.AssertNotVisibleBySelector) -> Outcome:
    if p.nodeSelector is not None:
        return _assert_gone(run, p.nodeSelector, describe_selector(p.nodeSelector), p.timeoutMs)
    assert p.selector is not None  # the model requires one of the two
    try:
        selector = _legacy_selector(run, p.selector)
        shown = describe_selector(_legacy_selector(run, p.selector, shown=True))
    except ValueError as exc:
        return "ERROR", f"bad params for assertNotVisibleBySelector: selector: {exc}"
    return _assert_gone(run, selector, shown, p.timeoutMs)


def _run_trail(run: _Run, p: rt.RunTrail) -> Outcome:
    # the step engine runs sub-trails (trailblaze.replay); a lone tool call has no calling trail
    return "ERROR", f"runTrail {p.path}: a sub-trail runs only as a step of a trail (record or replay it)"


_HANDLERS: dict[type[rt.RecordedToolParams], Callable[[_Run, Any], Outcome]] = {
    rt.TapOnElementBySelector: _tap_on_element,
    rt.TapOnPoint: _tap_on_point,
    rt.InputText: _input_text,
    rt.EraseText: _erase_text,
    rt.HideKeyboard: _hide_keyboard,
    rt.Swipe: _swipe,
    rt.ScrollUntilTextIsVisible: _scroll_until_visible,
    rt.LaunchApp: _launch_app,
    rt.PressBack: _press_back,
    rt.PressKey: _press_key,
    rt.AssertVisibleBySelector: _assert_visible_by_selector,
    rt.AssertNotVisibleWithText: _assert_not_visible_with_text,
    rt.RememberTextBySelector: _remember_text,
    rt.Wait: _wait,
    rt.RunTrail: _run_trail,
    rt.TapOnElementWithText: _tap_with_text,
    rt.LongPressOnElementWithText: _long_press_with_text,
    rt.TapOnElementWithAccessibilityText: _tap_with_accessibility_text,
    rt.AssertVisibleWithText: _assert_visible_with_text,
    rt.AssertVisibleWithAccessibilityText: _assert_visible_with_accessibility_text,
    rt.AssertVisibleWithResourceId: _assert_visible_with_resource_id,
    rt.AssertNotVisibleBySelector: _assert_not_visible_by_selector,
    **CATALOG_HANDLERS,
    **PROBE_HANDLERS,
    **MAESTRO_HANDLERS,
}
