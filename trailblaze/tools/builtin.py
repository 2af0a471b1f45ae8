"""Every built-in recorded tool, by name, and the views the trail reader and the engine read before a
run has its `ToolSet`: params by name (the trail reader), kinds (the agent, mutation testing, facts)
and the read-compat names. Looking a tool up by name is the `ToolSet`'s job
(`trailblaze.tools.toolset`).

`_TABLE` names each tool's params model and its definition (a module-level `ToolDef` made by
`defines`) by module and attribute; a module is imported only when a tool it defines is asked for,
so reading a trail builds the params of the tools it names and no more (start-up, issue 39; docs/adr/
0063-start-up.md). Its order is the order `trailblaze schema` and `all_tools()` list them in.
tests/project/test_startup_imports.py checks the table against the definitions of the modules in `_MODULES`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from trailblaze.tools.tooldef import Kind, ToolDef

if TYPE_CHECKING:
    from trailblaze.tools.params import RecordedToolParams

__all__ = [
    "BUILTIN_NAMES",
    "READ_COMPAT_TOOLS",
    "RECORDED_TOOL_PARAMS",
    "TOOL_KINDS",
    "builtin_defs",
    "builtin_tool",
    "unknown_tool_hint",
]

_MODULES: tuple[str, ...] = (
    "core",
    "compat",
    "catalog.handlers",
    "catalog.web_tools",
    "probes.handlers",
    "probes.logs",
    "trailblaze.maestro.handler",
)
"""The modules that define built-in tools, under `trailblaze.tools` unless named in full (`_module`);
a new one goes here too."""

# name, kind (the definition's: the fact check reads it without importing the tool), its params
# model, its definition: "module:attribute", the module as `_MODULES` names it
_TABLE: tuple[tuple[str, Kind, str, str], ...] = (
    ("tapOnElementBySelector", "action", "recorded.selector:TapOnElementBySelector", "core:_tap_on_element"),
    ("tapOnPoint", "action", "recorded.gestures:TapOnPoint", "core:_tap_on_point"),
    ("inputText", "action", "recorded.keyboard:InputText", "core:_input_text"),
    ("eraseText", "action", "recorded.keyboard:EraseText", "core:_erase_text"),
    ("hideKeyboard", "action", "recorded.keyboard:HideKeyboard", "core:_hide_keyboard"),
    ("swipe", "action", "recorded.gestures:Swipe", "core:_swipe"),
    ("scrollUntilTextIsVisible", "action", "recorded.text:ScrollUntilTextIsVisible", "core:_scroll_until_visible"),
    ("launchApp", "action", "recorded.app:LaunchApp", "core:_launch_app"),
    ("pressBack", "action", "recorded.keyboard:PressBack", "core:_press_back"),
    ("pressKey", "action", "recorded.keyboard:PressKey", "core:_press_key"),
    ("assertVisibleBySelector", "assertion", "recorded.selector:AssertVisibleBySelector", "core:_assert_visible_by_selector"),
    ("assertNotVisibleWithText", "assertion", "recorded.text:AssertNotVisibleWithText", "core:_assert_not_visible_with_text"),
    ("rememberTextBySelector", "other", "recorded.selector:RememberTextBySelector", "core:_remember_text"),
    ("wait", "other", "recorded.flow:Wait", "core:_wait"),
    ("runTrail", "other", "recorded.flow:RunTrail", "core:_run_trail"),
    ("tapOnElementWithText", "action", "recorded.compat:TapOnElementWithText", "compat:_tap_with_text"),
    ("tapOnElementWithAccessibilityText", "action", "recorded.compat:TapOnElementWithAccessibilityText", "compat:_tap_with_accessibility_text"),
    ("assertVisibleWithText", "assertion", "recorded.compat:AssertVisibleWithText", "compat:_assert_visible_with_text"),
    ("assertVisibleWithAccessibilityText", "assertion", "recorded.compat:AssertVisibleWithAccessibilityText", "compat:_assert_visible_with_accessibility_text"),
    ("assertVisibleWithResourceId", "assertion", "recorded.compat:AssertVisibleWithResourceId", "compat:_assert_visible_with_resource_id"),
    ("assertNotVisibleBySelector", "assertion", "recorded.compat:AssertNotVisibleBySelector", "compat:_assert_not_visible_by_selector"),
    ("longPressOnElementWithText", "action", "recorded.compat:LongPressOnElementWithText", "compat:_long_press_with_text"),
    ("tap", "action", "catalog.params:Tap", "catalog.handlers:_tap"),
    ("longPress", "action", "catalog.params:LongPress", "catalog.handlers:_long_press"),
    ("assertVisible", "assertion", "catalog.params:AssertVisible", "catalog.handlers:_assert_visible"),
    ("dragTo", "action", "catalog.params:DragTo", "catalog.handlers:_drag_to"),
    ("tapOn", "action", "catalog.params:TapOn", "catalog.handlers:_tap_on"),
    ("dragByPoints", "action", "catalog.params:DragByPoints", "catalog.handlers:_drag_by_points"),
    ("swipeWithRelativeCoordinates", "action", "catalog.params:SwipeWithRelativeCoordinates", "catalog.handlers:_swipe_relative"),
    ("tapOnAccessibilityNode", "action", "catalog.params:TapOnAccessibilityNode", "catalog.handlers:_tap_on_accessibility_node"),
    ("longPressElementWithAccessibilityText", "action", "catalog.params:LongPressElementWithAccessibilityText", "catalog.handlers:_long_press_accessibility_text"),
    ("clearText", "action", "catalog.params:ClearText", "catalog.handlers:_clear_text"),
    ("inputTextRandom", "action", "catalog.params:InputTextRandom", "catalog.handlers:_input_text_random"),
    ("openUrl", "action", "catalog.params:OpenUrl", "catalog.handlers:_open_url"),
    ("stopApp", "action", "catalog.params:StopApp", "catalog.handlers:_stop_app"),
    ("mobile_clearAppData", "action", "catalog.params:ClearAppData", "catalog.handlers:_clear_app_data"),
    ("mobile_setClipboard", "other", "catalog.params:SetClipboard", "catalog.handlers:_set_clipboard"),
    ("mobile_pasteClipboard", "action", "catalog.params:PasteClipboard", "catalog.handlers:_paste_clipboard"),
    ("mobile_listInstalledApps", "other", "catalog.params:ListInstalledApps", "catalog.handlers:_list_apps"),
    ("networkConnection", "action", "catalog.params:NetworkConnection", "catalog.handlers:_network"),
    ("takeSnapshot", "other", "catalog.params:TakeSnapshot", "catalog.handlers:_take_snapshot"),
    ("waitForChange", "other", "catalog.params:WaitForChange", "catalog.handlers:_wait_for_change"),
    ("requestDetailedViewHierarchy", "other", "catalog.params:RequestDetailedViewHierarchy", "catalog.handlers:_detailed_hierarchy"),
    ("assertEquals", "assertion", "catalog.params:AssertEquals", "catalog.handlers:_assert_equals"),
    ("assertNotEquals", "assertion", "catalog.params:AssertNotEquals", "catalog.handlers:_assert_not_equals"),
    ("assertMath", "assertion", "catalog.params:AssertMath", "catalog.handlers:_assert_math"),
    ("dumpMemory", "other", "catalog.params:DumpMemory", "catalog.handlers:_dump_memory"),
    ("rememberText", "other", "catalog.params:RememberText", "catalog.handlers:_remember_text"),
    ("rememberNumber", "other", "catalog.params:RememberNumber", "catalog.handlers:_remember_number"),
    ("rememberWithAi", "other", "catalog.params:RememberWithAi", "catalog.handlers:_remember_with_ai"),
    ("assertWithAi", "assertion", "catalog.params:AssertWithAi", "catalog.handlers:_assert_with_ai"),
    ("assertWaypoint", "assertion", "catalog.params:AssertWaypoint", "catalog.handlers:_waypoint"),
    ("findMatches", "other", "catalog.params:FindMatches", "catalog.handlers:_find_matches"),
    ("waitUntilNotVisible", "other", "catalog.params:WaitUntilNotVisible", "catalog.handlers:_wait_until_not_visible"),
    ("web_navigate", "action", "catalog.web_tools:WebNavigate", "catalog.web_tools:_navigate"),
    ("web_click", "action", "catalog.web_tools:WebClick", "catalog.web_tools:_click"),
    ("web_type", "action", "catalog.web_tools:WebType", "catalog.web_tools:_type"),
    ("web_pressKey", "action", "catalog.web_tools:WebPressKey", "catalog.web_tools:_press_key"),
    ("web_scroll", "action", "catalog.web_tools:WebScroll", "catalog.web_tools:_scroll"),
    ("web_selectOption", "action", "catalog.web_tools:WebSelectOption", "catalog.web_tools:_select_option"),
    ("web_snapshot", "other", "catalog.web_tools:WebSnapshot", "catalog.web_tools:_snapshot"),
    ("web_verifyTextVisible", "assertion", "catalog.web_tools:WebVerifyTextVisible", "catalog.web_tools:_verify_text"),
    ("web_verifyElementVisible", "assertion", "catalog.web_tools:WebVerifyElementVisible", "catalog.web_tools:_verify_element"),
    ("web_verifyValue", "assertion", "catalog.web_tools:WebVerifyValue", "catalog.web_tools:_verify_value"),
    ("readPrefs", "other", "probes.params:ReadPrefs", "probes.handlers:_read_prefs_tool"),
    ("assertPref", "assertion", "probes.params:AssertPref", "probes.handlers:_assert_pref_tool"),
    ("queryDatabase", "other", "probes.params:QueryDatabase", "probes.handlers:_query_database_tool"),
    ("assertQuery", "assertion", "probes.params:AssertQuery", "probes.handlers:_assert_query_tool"),
    ("setNetwork", "action", "probes.params:SetNetwork", "probes.handlers:_set_network_tool"),
    ("readLogs", "other", "probes.params:ReadLogs", "probes.logs:_read_logs_tool"),
    ("assertLogContains", "assertion", "probes.params:AssertLogContains", "probes.logs:_assert_log_contains_tool"),
    ("mobile_maestro", "action", "trailblaze.maestro.params:MobileMaestro", "trailblaze.maestro.handler:mobile_maestro"),
)  # fmt: skip

BUILTIN_NAMES: tuple[str, ...] = tuple(name for name, _, _, _ in _TABLE)
"""Every built-in recorded tool's name, in the order `trailblaze schema` lists them."""

_PARAMS = {name: ref for name, _, ref, _ in _TABLE}
_DEFS = {name: ref for name, _, _, ref in _TABLE}

_V = TypeVar("_V")


def _module(name: str) -> str:
    """The full name of a module of `_MODULES` / `_TABLE`: Maestro's tool lives in its own tier
    (`trailblaze.maestro`, docs/adr/0075-maestro-tier.md), the others under `trailblaze.tools`."""
    return name if name.startswith("trailblaze.") else f"trailblaze.tools.{name}"


def _resolve(ref: str) -> Any:
    module, attribute = ref.split(":")
    return getattr(importlib.import_module(_module(module)), attribute)


class _Lazy(Mapping[str, _V]):
    """A read-only table of the built-in tools by name whose values are made on first use: its keys
    are known without importing anything."""

    def __init__(self, load: Callable[[str], _V]) -> None:
        self._load = load
        self._made: dict[str, _V] = {}

    def __getitem__(self, name: str) -> _V:
        value = self._made.get(name)
        if value is None:
            if name not in _DEFS:
                raise KeyError(name)
            value = self._made[name] = self._load(name)
        return value

    def __contains__(self, name: object) -> bool:
        return name in _DEFS

    def __iter__(self) -> Iterator[str]:
        return iter(BUILTIN_NAMES)

    def __len__(self) -> int:
        return len(BUILTIN_NAMES)

    def __repr__(self) -> str:
        return f"<{len(self)} built-in tools>"


def _params(name: str) -> type[RecordedToolParams]:
    model: type[RecordedToolParams] = _resolve(_PARAMS[name])
    if model.tool_name != name:
        raise RuntimeError(f"trailblaze.tools.builtin: {_PARAMS[name]} is the params of {model.tool_name}")
    return model


def builtin_tool(name: str) -> ToolDef | None:
    """The definition of the built-in tool recorded as `name` (its module imported), None for any
    other name."""
    ref = _DEFS.get(name)
    if ref is None:
        return None
    tool = _resolve(ref)
    if not isinstance(tool, ToolDef) or tool.name != name:
        raise RuntimeError(f"trailblaze.tools.builtin: {ref} is not the definition of {name}")
    return tool


@functools.cache
def builtin_defs() -> tuple[ToolDef, ...]:
    """Every built-in recorded tool (every module that defines one imported), in the order
    `trailblaze schema` lists them."""
    return tuple(t for name in BUILTIN_NAMES if (t := builtin_tool(name)) is not None)


def _collect(modules: Iterable[ModuleType]) -> tuple[ToolDef, ...]:
    """The tools `modules` define, in order (what `_TABLE` must say; a name defined twice is an error)."""
    found: list[ToolDef] = []
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, ToolDef) and value.handler is not None:
                if any(t.name == value.name and t is not value for t in found):
                    raise RuntimeError(f"tool {value.name} is defined twice ({module.__name__})")
                if value not in found:
                    found.append(value)
    return tuple(found)


RECORDED_TOOL_PARAMS: Mapping[str, type[RecordedToolParams]] = _Lazy(_params)
"""Every tool name a trail may record, mapped to the model of its params (imported when asked)."""


TOOL_KINDS: Mapping[str, Kind] = {name: kind for name, kind, _, _ in _TABLE}
"""What each tool counts as for the agent's success validation, mutation testing and the facts."""


def _read_compat() -> frozenset[str]:
    return frozenset(t.name for t in builtin_defs() if t.block_status == "read-only")


if TYPE_CHECKING:
    READ_COMPAT_TOOLS: frozenset[str]
    """Names accepted on read so Trailblaze trails replay, but never written by our recorder."""


def __getattr__(name: str) -> Any:
    if name == "READ_COMPAT_TOOLS":  # every definition has to be imported to know
        return _read_compat()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def unknown_tool_hint(name: str, known: Iterable[str] = BUILTIN_NAMES, *, project: bool = False) -> str:
    """The one-line message for a tool name none of `known` is, with the closest one; `project`:
    the project's tools were looked up too, so say where to define one."""
    import difflib  # for a did-you-mean only: not imported at start-up

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    if close:
        fix = f"did you mean `{close[0]}`?"
    elif project:
        fix = (
            "define it in the tools folder (a Python `@trailblaze.tool` or a `*.tool.yaml`); "
            "`trailblaze schema` lists the built-in tools"
        )
    else:
        fix = "`trailblaze schema` lists the tools it can run"
    return f"unknown tool `{name}`: trailblaze has no implementation for it; {fix}"
