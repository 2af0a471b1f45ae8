"""Running Trailblaze's catalog tools (params in `trailblaze.tools.catalog.params`).

Each tool is one `ToolDef`: its params model there and its handler here, decorated with
`@_catalog(params, kind)`. A handler gets the run context (`trailblaze.tools.tooldef.ToolContext`) and
answers `(status, message)` like the core handlers. A tool this platform or this library cannot run
answers `UNSUPPORTED` with the reason.
"""

from __future__ import annotations

import ast
import json
import operator
import random
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from trailblaze.device.driver import SupportsAppList, SupportsClipboard, SupportsOpenUrl
from trailblaze.device.settle import backoff, same_screen
from trailblaze.screen.compact import compact_view
from trailblaze.tools.catalog import params as cp
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import (
    ALL_PLATFORMS,
    Kind,
    Platform,
    ToolDef,
    ToolResult,
    defines,
)

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Node, Rect

__all__ = ["ToolContext"]

_ANDROID: frozenset[Platform] = frozenset(("android",))


def _catalog(
    params: type[RecordedToolParams], kind: Kind, *, platforms: frozenset[Platform] = ALL_PLATFORMS
) -> Callable[[Callable[..., ToolResult]], ToolDef]:
    return defines(params, kind, source="catalog", platforms=platforms)


def _ref_node(run: ToolContext, ref: str) -> tuple[Node | None, ToolResult]:
    view = compact_view(run.session.settle())
    key = ref.strip().strip("[]")
    node = view.refs.get(key) or view.covered.get(key)
    if node is None:
        return None, ToolResult("NOT_FOUND", f"Element ref '{key}' not found on current screen")
    return node, ToolResult("OK", "")


@_catalog(cp.Tap, "action")
def _tap(run: ToolContext, p: cp.Tap) -> ToolResult:
    node, outcome = _ref_node(run, p.ref)
    return outcome if node is None else run.tap_node(node, p.longPress)


@_catalog(cp.LongPress, "action")
def _long_press(run: ToolContext, p: cp.LongPress) -> ToolResult:
    node, outcome = _ref_node(run, p.ref)
    return outcome if node is None else run.tap_node(node, True)


@_catalog(cp.AssertVisible, "assertion")
def _assert_visible(run: ToolContext, p: cp.AssertVisible) -> ToolResult:
    node, outcome = _ref_node(run, p.ref)
    if node is None:
        return ToolResult("NOT_VISIBLE", outcome.message)
    if p.expectedText is not None and p.expectedText not in (node.text, node.label, node.value):
        shown = node.text or node.label or node.value
        return ToolResult("NOT_VISIBLE", f"{run.describe(node)} shows {shown!r}, expected {p.expectedText!r}")
    return ToolResult("OK", f"{run.describe(node)} is visible")


def _drag(run: ToolContext, start: tuple[float, float], end: tuple[float, float], ms: int) -> None:
    run.act(lambda d: d.swipe(start[0], start[1], end[0], end[1], ms / 1000), start)


@_catalog(cp.DragTo, "action")
def _drag_to(run: ToolContext, p: cp.DragTo) -> ToolResult:
    node, outcome = _ref_node(run, p.ref)
    if node is None:
        return outcome
    if p.toRef is not None:
        target, outcome = _ref_node(run, p.toRef)
        if target is None:
            return outcome
        end = target.center
    else:
        assert p.toX is not None and p.toY is not None
        end = (float(p.toX), float(p.toY))
    start = node.center
    _drag(run, start, end, p.durationMs)
    return ToolResult(
        "OK",
        f"dragged {run.describe(node)} from ({start[0]:.0f}, {start[1]:.0f}) to ({end[0]:.0f}, {end[1]:.0f})",
    )


def _relative(spec: str, area: Rect) -> tuple[float, float]:
    x_raw, y_raw = (part.strip().rstrip("%") for part in spec.split(","))
    fx = min(100.0, max(0.0, float(x_raw))) / 100
    fy = min(100.0, max(0.0, float(y_raw))) / 100
    return area.left + area.width * fx, area.top + area.height * fy


@_catalog(cp.TapOn, "action")
def _tap_on(run: ToolContext, p: cp.TapOn) -> ToolResult:
    node, outcome = run.find_one(p.selector)
    if node is None:
        return outcome
    if p.relativePoint is None:
        return run.tap_node(node, p.longPress)
    x, y = _relative(p.relativePoint, node.bounds)
    if p.longPress:
        run.act(lambda d: d.long_press(x, y), (x, y))
    else:
        run.act(lambda d: d.tap(x, y), (x, y))
    verb = "long-pressed" if p.longPress else "tapped"
    return ToolResult("OK", f"{verb} ({x:.0f}, {y:.0f}) within {run.describe(node)}")


@_catalog(cp.DragByPoints, "action")
def _drag_by_points(run: ToolContext, p: cp.DragByPoints) -> ToolResult:
    _drag(run, (p.startX, p.startY), (p.endX, p.endY), p.durationMs)
    return ToolResult("OK", f"dragged ({p.startX}, {p.startY}) to ({p.endX}, {p.endY})")


@_catalog(cp.SwipeWithRelativeCoordinates, "action")
def _swipe_relative(run: ToolContext, p: cp.SwipeWithRelativeCoordinates) -> ToolResult:
    area = run.session.screen().screen
    where = "the screen"
    if p.swipeOnElementText is not None:
        node, outcome = run.find_one(run.maestro_text(p.swipeOnElementText))
        if node is None:
            return outcome
        area, where = node.visible_bounds, run.describe(node)
    start, end = _relative(p.startRelative, area), _relative(p.endRelative, area)
    seconds = 0.3 if p.durationMs is None else p.durationMs / 1000
    run.act(lambda d: d.swipe(start[0], start[1], end[0], end[1], seconds), start)
    return ToolResult("OK", f"swiped {p.startRelative} → {p.endRelative} on {where}")


@_catalog(cp.TapOnAccessibilityNode, "action", platforms=_ANDROID)
def _tap_on_accessibility_node(run: ToolContext, p: cp.TapOnAccessibilityNode) -> ToolResult:
    if run.platform != "android":
        return ToolResult(
            "UNSUPPORTED",
            "tapOnAccessibilityNode runs on Android only (Trailblaze's accessibility driver)",
        )
    from trailblaze.screen.selector import NodeSelector

    fields = {
        "contentDescriptionRegex": p.contentDescriptionRegex,
        "textRegex": p.textRegex,
        "classNameRegex": p.classNameRegex,
        "resourceIdRegex": p.resourceIdRegex,
    }
    selector = NodeSelector.model_validate(
        {"androidAccessibility": {k: v for k, v in fields.items() if v is not None}, "index": 0}
    )
    node, outcome = run.find_one(selector)  # several matches: the first, as Trailblaze does
    return outcome if node is None else run.tap_node(node, p.longPress)


@_catalog(cp.LongPressElementWithAccessibilityText, "action")
def _long_press_accessibility_text(run: ToolContext, p: cp.LongPressElementWithAccessibilityText) -> ToolResult:
    selector = run.maestro_text(p.accessibilityText, ident=p.id, index=p.index or 0)
    node, outcome = run.find_one(selector)
    return outcome if node is None else run.tap_node(node, True)


@_catalog(cp.ClearText, "action")
def _clear_text(run: ToolContext, p: cp.ClearText) -> ToolResult:
    focused = [n for n in run.session.settle().nodes if n.focused and n.text and n.text != n.hint]
    if not focused and not any(n.focused for n in run.session.screen().nodes):
        # no focused field in the dump: the driver clears whatever field has the keyboard, if any
        run.session.act(lambda d: d.erase_text(None))
        return ToolResult("OK", "cleared the focused field")
    count = len(focused[-1].text) if focused else 0
    if count:
        run.session.act(lambda d: d.erase_text(count))
    return ToolResult("OK", f"cleared the field ({count} characters)")


@_catalog(cp.InputTextRandom, "action")
def _input_text_random(run: ToolContext, p: cp.InputTextRandom) -> ToolResult:
    digits = "".join(random.choice("0123456789") for _ in range(p.digitCount))
    value = p.prefix + digits
    run.session.act(lambda d: d.input_text(value))
    if p.hideKeyboardAfter and run.session.screen().keyboard_shown:
        run.session.act(lambda d: d.hide_keyboard())
    run.memory.remember(p.variable, value)
    return ToolResult("OK", f"typed {value!r} and remembered it as {p.variable}")


@_catalog(cp.OpenUrl, "action")
def _open_url(run: ToolContext, p: cp.OpenUrl) -> ToolResult:
    driver = run.session.driver
    if not isinstance(driver, SupportsOpenUrl):
        return ToolResult("UNSUPPORTED", f"this {run.platform} driver cannot open URLs")
    opened: list[bool] = []
    run.session.act(lambda d: opened.append(driver.open_url(p.url)))
    if not opened or not opened[0]:
        return ToolResult("NOT_FOUND", f"no app on the device handles {p.url}")
    return ToolResult("OK", f"opened {p.url}")


@_catalog(cp.StopApp, "action")
def _stop_app(run: ToolContext, p: cp.StopApp) -> ToolResult:
    run.session.act(lambda d: d.stop_app(p.appId))
    return ToolResult("OK", f"stopped {p.appId}")


@_catalog(cp.ClearAppData, "action")
def _clear_app_data(run: ToolContext, p: cp.ClearAppData) -> ToolResult:
    run.session.act(lambda d: d.clear_app(p.appId))
    return ToolResult("OK", f"cleared the data of {p.appId}")


@_catalog(cp.SetClipboard, "other")
def _set_clipboard(run: ToolContext, p: cp.SetClipboard) -> ToolResult:
    driver = run.session.driver
    if not isinstance(driver, SupportsClipboard):
        return ToolResult("UNSUPPORTED", f"this {run.platform} driver has no clipboard access")
    driver.set_clipboard(p.text)
    return ToolResult("OK", f"set the clipboard to {p.text!r}")


@_catalog(cp.PasteClipboard, "action")
def _paste_clipboard(run: ToolContext, p: cp.PasteClipboard) -> ToolResult:
    driver = run.session.driver
    if not isinstance(driver, SupportsClipboard):
        return ToolResult("UNSUPPORTED", f"this {run.platform} driver has no clipboard access")
    text = driver.get_clipboard()
    if not text:
        return ToolResult("ERROR", "mobile_pasteClipboard: device clipboard is empty. Call mobile_setClipboard first")
    run.session.act(lambda d: d.input_text(text))
    return ToolResult("OK", f"pasted {text!r}")


@_catalog(cp.ListInstalledApps, "other", platforms=_ANDROID)
def _list_apps(run: ToolContext, p: cp.ListInstalledApps) -> ToolResult:
    driver = run.session.driver
    if not isinstance(driver, SupportsAppList):
        return ToolResult("UNSUPPORTED", (
            f"this {run.platform} driver cannot list installed apps (WebDriverAgent has no such call)"
        ))
    apps = sorted(driver.list_apps())
    return ToolResult("OK", '{"appIds": [' + ", ".join(f'"{a}"' for a in apps) + "]}")


@_catalog(cp.NetworkConnection, "action", platforms=frozenset())
def _network(run: ToolContext, p: cp.NetworkConnection) -> ToolResult:
    return ToolResult(
        "UNSUPPORTED",
        "networkConnection (airplane mode) is not supported by the uiautomator2 / WDA drivers",
    )


@_catalog(cp.TakeSnapshot, "other")
def _take_snapshot(run: ToolContext, p: cp.TakeSnapshot) -> ToolResult:
    shot = run.session.screenshot()
    note = f" - {p.description}" if p.description else ""
    return ToolResult("OK", f"snapshot '{p.screenName}'{note} captured ({len(shot)} bytes)")


@_catalog(cp.WaitForChange, "other")
def _wait_for_change(run: ToolContext, p: cp.WaitForChange) -> ToolResult:
    before = run.session.screen()
    deadline = time.monotonic() + p.timeoutMs / 1000
    changed_at: float | None = None
    current = before
    pauses = backoff(0.025, 0.2)
    while time.monotonic() < deadline:
        run.session.invalidate()
        latest = run.session.screen()
        now = time.monotonic()
        if not same_screen(latest, current):
            changed_at, current = now, latest
        elif changed_at is not None and now - changed_at >= p.quietWindowMs / 1000:
            return ToolResult("OK", "the screen changed and settled")
        time.sleep(min(next(pauses), max(0.0, deadline - time.monotonic())))
    if changed_at is not None:
        return ToolResult("OK", "the screen changed (still changing at the timeout)")
    if p.requireChange:
        return ToolResult("TIMEOUT", f"the screen did not change within {p.timeoutMs} ms")
    return ToolResult("OK", f"no change within {p.timeoutMs} ms")


@_catalog(cp.RequestDetailedViewHierarchy, "other")
def _detailed_hierarchy(run: ToolContext, p: cp.RequestDetailedViewHierarchy) -> ToolResult:
    view = compact_view(run.session.settle())
    return ToolResult("OK", view.text)


@_catalog(cp.AssertEquals, "assertion")
def _assert_equals(run: ToolContext, p: cp.AssertEquals) -> ToolResult:
    if p.actual == p.expected:
        return ToolResult("OK", f"{p.actual!r} equals {p.expected!r}")
    return ToolResult("NOT_VISIBLE", f"expected {p.expected!r} but was {p.actual!r}")


@_catalog(cp.AssertNotEquals, "assertion")
def _assert_not_equals(run: ToolContext, p: cp.AssertNotEquals) -> ToolResult:
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


@_catalog(cp.AssertMath, "assertion")
def _assert_math(run: ToolContext, p: cp.AssertMath) -> ToolResult:
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


@_catalog(cp.DumpMemory, "other")
def _dump_memory(run: ToolContext, p: cp.DumpMemory) -> ToolResult:
    lines = run.memory.describe_for_llm()
    return ToolResult("OK", "memory: " + ("; ".join(lines) if lines else "(empty)"))


def _ask(
    run: ToolContext, p: cp.RememberText | cp.RememberNumber | cp.RememberWithAi | cp.AssertWithAi
) -> ToolResult:
    if run.llm is None:
        return ToolResult("UNSUPPORTED", (
            f"{p.tool_name} asks an LLM on every run and this run has none (replay with an LLM configured, "
            "or record the step so its selector-based recording replays with no LLM)"
        ))
    from trailblaze.tools.catalog.ask_screen import ask_screen

    run.ai = True
    # an LLM failure is infrastructure (LLMError, exit 3), as in the agent: it propagates
    answer = ask_screen(run.llm(), run.session, p.prompt, verdict=isinstance(p, cp.AssertWithAi))
    if isinstance(p, cp.AssertWithAi):
        return ToolResult("OK" if answer.passed else "NOT_VISIBLE", f"AI: {answer.explanation or p.prompt}")
    value = answer.value.strip()
    if isinstance(p, cp.RememberNumber):
        found = _NUMBER.search(value.replace(",", ""))
        if found is None:
            return ToolResult("NOT_FOUND", f"AI answered {value!r} to {p.prompt!r}: no number in it")
        value = found.group()
    if not value:
        return ToolResult("NOT_FOUND", f"AI found no answer on screen to {p.prompt!r}")
    run.memory.remember(p.variable, value)
    return ToolResult("OK", f"AI: remembered {p.variable} = {value!r}")


_remember_text = _catalog(cp.RememberText, "other")(_ask)
_remember_number = _catalog(cp.RememberNumber, "other")(_ask)
_remember_with_ai = _catalog(cp.RememberWithAi, "other")(_ask)
_assert_with_ai = _catalog(cp.AssertWithAi, "assertion")(_ask)


@_catalog(cp.AssertWaypoint, "assertion", platforms=frozenset())
def _waypoint(run: ToolContext, p: cp.AssertWaypoint) -> ToolResult:
    return ToolResult("UNSUPPORTED", "assertWaypoint needs Trailblaze waypoint files, which trailblaze does not read")


@_catalog(cp.FindMatches, "other")
def _find_matches(run: ToolContext, p: cp.FindMatches) -> ToolResult:
    timeout = 0.0 if p.timeoutMs is None else max(0, p.timeoutMs) / 1000
    nodes = run.session.resolve(p.selector, timeout=timeout, until=bool).nodes
    found = [
        {
            "text": n.text or n.label or n.hint,
            "resourceId": n.resource_id,
            "className": n.class_name,
            "bounds": [round(v) for v in n.bounds],
        }
        for n in nodes
    ]
    return ToolResult("OK", f"findMatches: {len(nodes)} match{'es' * (len(nodes) != 1)} {json.dumps(found)}")


@_catalog(cp.WaitUntilNotVisible, "other")
def _wait_until_not_visible(run: ToolContext, p: cp.WaitUntilNotVisible) -> ToolResult:
    timeout = None if p.timeoutMs is None else p.timeoutMs / 1000
    res = run.session.resolve(p.nodeSelector, timeout=timeout, until=lambda nodes: not nodes)
    return ToolResult("OK", "true" if not res.nodes else "false")
