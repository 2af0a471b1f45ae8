"""The engine's own recorded tools, each one definition: its params model (in `trailblaze.tools.recorded`)
and its handler, made a `ToolDef` by `@_core(params, kind)`.

A handler gets the run context and the validated params and answers `(status, message)`; see
`trailblaze.tools.execute` for the status words. To add a tool, write its params model and one decorated
handler here (docs/contributing-tools.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trailblaze.device.driver import SupportsShellStatus
from trailblaze.device.permissions import PermissionRefused, set_permissions
from trailblaze.errors import AppNotInstalledError
from trailblaze.tools.gestures import app_area, scroll_until, swipe_path
from trailblaze.tools.lookup import (
    MAX_SCROLLS,
    ToolContext,
    assert_gone,
    assert_visible,
    candidates,
    compat_query,
    describe,
    find_one,
    tap_selector,
    text_selector,
)
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.recorded.app import LaunchApp
from trailblaze.tools.recorded.flow import RunTrail, Wait
from trailblaze.tools.recorded.gestures import Swipe, TapOnPoint
from trailblaze.tools.recorded.keyboard import EraseText, HideKeyboard, InputText, PressBack, PressKey
from trailblaze.tools.recorded.selector import (
    AssertVisibleBySelector,
    RememberTextBySelector,
    TapOnElementBySelector,
)
from trailblaze.tools.recorded.text import AssertNotVisibleWithText, ScrollUntilTextIsVisible
from trailblaze.tools.tooldef import Kind, ToolDef, ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.device.driver import Driver
    from trailblaze.screen.hierarchy import Hierarchy, Node

__all__: list[str] = []


def _core(params: type[RecordedToolParams], kind: Kind) -> Callable[[Callable[..., ToolResult]], ToolDef]:
    return defines(params, kind, source="core")


@_core(TapOnElementBySelector, "action")
def _tap_on_element(run: ToolContext, p: TapOnElementBySelector) -> ToolResult:
    return tap_selector(run, p.nodeSelector, p.longPress)


@_core(TapOnPoint, "action")
def _tap_on_point(run: ToolContext, p: TapOnPoint) -> ToolResult:
    if p.longPress:
        run.act(lambda d: d.long_press(p.x, p.y), (p.x, p.y))
    else:
        run.act(lambda d: d.tap(p.x, p.y), (p.x, p.y))
    return ToolResult("OK", f"{'long-pressed' if p.longPress else 'tapped'} ({p.x}, {p.y})")


@_core(InputText, "action")
def _input_text(run: ToolContext, p: InputText) -> ToolResult:
    run.session.act(lambda d: d.input_text(p.text), observe=False)  # the next tool's look settles it
    if p.hideKeyboardAfter and run.session.screen().keyboard_shown:
        run.session.act(lambda d: d.hide_keyboard())
        return ToolResult("OK", f"typed {p.text!r} and hid the keyboard")
    return ToolResult("OK", f"typed {p.text!r}")


@_core(EraseText, "action")
def _erase_text(run: ToolContext, p: EraseText) -> ToolResult:
    n = p.charactersToErase
    run.session.act(lambda d: d.erase_text(n))
    return ToolResult("OK", "erased the field" if n is None else f"erased {n} characters")


@_core(HideKeyboard, "action")
def _hide_keyboard(run: ToolContext, p: HideKeyboard) -> ToolResult:
    if not run.session.screen().keyboard_shown:
        return ToolResult("OK", "the keyboard was not shown")
    run.session.act(lambda d: d.hide_keyboard())
    return ToolResult("OK", "hid the keyboard")


@_core(Swipe, "action")
def _swipe(run: ToolContext, p: Swipe) -> ToolResult:
    where = "the screen"
    target = p.nodeSelector
    if target is None and p.swipeOnElementText is not None:
        target = compat_query(run, p.swipeOnElementText).selector
    if target is not None:
        node, outcome = find_one(run, target)
        if node is None:
            return outcome
        area = node.visible_bounds
        where = describe(node)
    else:
        area = app_area(run.session.screen())
    path = swipe_path(area, p.direction)
    run.act(lambda d: d.swipe(*path))
    return ToolResult("OK", f"swiped {p.direction} on {where}")


@_core(ScrollUntilTextIsVisible, "action")
def _scroll_until_visible(run: ToolContext, p: ScrollUntilTextIsVisible) -> ToolResult:
    pattern = p.textRegex if p.textRegex is not None else (p.text or None)
    selector = text_selector(run, pattern, ident=p.id, index=p.index)
    what = f"text {pattern!r}" if pattern is not None else f"id {p.id!r}"
    need = (p.visibilityPercentage if p.visibilityPercentage is not None else 100) / 100
    from trailblaze.screen.resolve import resolve

    def shown(h: Hierarchy) -> Node | None:
        for node in resolve(selector, h):
            area = node.bounds.area
            if area <= 0 or node.visible_bounds.area / area >= need - 1e-6:
                return node
        return None

    scrolled = scroll_until(run.session, shown, p.direction, max_swipes=MAX_SCROLLS)
    if scrolled.node is not None:
        swipes = scrolled.swipes
        return ToolResult("OK", f"{describe(scrolled.node)} is visible after {swipes} swipe{'s' * (swipes != 1)}")
    if scrolled.reached_end:
        return ToolResult("NOT_FOUND", (
            f"no element with {what} after {scrolled.swipes} swipes {p.direction}: reached the end; "
            f"{candidates(selector, scrolled.hierarchy)}"
        ))
    return ToolResult("NOT_FOUND", f"no element with {what} after {MAX_SCROLLS} swipes {p.direction}")


@_core(LaunchApp, "action")
def _launch_app(run: ToolContext, p: LaunchApp) -> ToolResult:
    mode, granted = p.launchMode, ""
    try:
        if p.permissions:
            driver = run.session.driver
            if run.platform == "ios" or not isinstance(driver, SupportsShellStatus):
                return ToolResult("UNSUPPORTED", (
                    f"launchApp permissions: this {run.platform} driver cannot change an app's permissions"
                    + (
                        " (WebDriverAgent has no access; a Simulator needs `xcrun simctl privacy`)"
                        if run.platform == "ios"
                        else ""
                    )
                ))
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
                    return ToolResult("ERROR", str(exc))
                changes = []  # the launch below says NOT_INSTALLED, listing what is installed
            granted = f"; permissions: {', '.join(changes) or 'none changed'}"
            mode = "RESUME"
        # a launch is several requests (stop, launch): whether it happened is its app in the foreground
        run.session.act(
            lambda d: d.launch_app(p.appId, mode), took_effect=lambda: run.session.current_app() == p.appId
        )
    except AppNotInstalledError as exc:  # the trail (or the device set-up) is wrong, not the device link
        run.session.invalidate()
        return ToolResult("NOT_INSTALLED", exc.message)
    run.session.app_logs.app_id = p.appId
    return ToolResult("OK", f"launched {p.appId} ({p.launchMode}){granted}")


def _press(key: Any) -> Callable[[Driver], None]:
    return lambda d: d.press_key(key)


@_core(PressBack, "action")
def _press_back(run: ToolContext, p: PressBack) -> ToolResult:
    run.act(_press("BACK"))
    return ToolResult("OK", "pressed BACK")


@_core(PressKey, "action")
def _press_key(run: ToolContext, p: PressKey) -> ToolResult:
    run.act(_press(p.keyCode))
    return ToolResult("OK", f"pressed {p.keyCode}")


@_core(AssertVisibleBySelector, "assertion")
def _assert_visible_by_selector(run: ToolContext, p: AssertVisibleBySelector) -> ToolResult:
    return assert_visible(run, p.nodeSelector, p.expectedText, p.timeoutMs, p.textMatchMode)


@_core(AssertNotVisibleWithText, "assertion")
def _assert_not_visible_with_text(run: ToolContext, p: AssertNotVisibleWithText) -> ToolResult:
    selector = text_selector(run, p.text, ident=p.id, enabled=p.enabled, selected=p.selected, index=p.index)
    return assert_gone(run, selector, f"text {p.text!r}", None)


@_core(RememberTextBySelector, "other")
def _remember_text(run: ToolContext, p: RememberTextBySelector) -> ToolResult:
    node, outcome = find_one(run, p.nodeSelector)
    if node is None:
        return outcome
    value = node.text or node.label or node.value
    run.memory.remember(p.variable, value)
    return ToolResult("OK", f"remembered {p.variable} = {value!r}")


@_core(Wait, "other")
def _wait(run: ToolContext, p: Wait) -> ToolResult:
    time.sleep(p.timeToWaitInSeconds)
    run.session.invalidate()
    run.session.settle()
    return ToolResult("OK", f"waited {p.timeToWaitInSeconds:g} s")


@_core(RunTrail, "other")
def _run_trail(run: ToolContext, p: RunTrail) -> ToolResult:
    if run.run_trail is None or run.call is None:  # a lone tool call has no calling trail
        return ToolResult("ERROR", f"runTrail {p.path}: a sub-trail runs only as a step of a trail (record or replay it)")
    result = run.run_trail(run.call)  # the step engine runs it (trailblaze.engine.steps)
    return ToolResult(result.status, result.message)
