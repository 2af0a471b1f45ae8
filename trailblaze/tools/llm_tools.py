"""The tool registry: the tools the model may call, and what each one records.

An LLM-facing tool is a pydantic params model (its JSON schema, with field descriptions, is what the
model sees) plus a `run` function. Every tool that touches the device delegates to a recorded-form
`ToolCall` (`tapOnElementBySelector`, `inputText`, ...) run through `trailblaze.tools.execute.run_recorded_tool`
— the same function replay uses, so record and replay cannot drift apart. `run` returns a `ToolOutcome`:
the result the model sees and the recorded-form calls to write into the trail when it succeeded.

Refs (`[k4f]` in the compact view) live only inside one capture: `tap(ref)` turns the ref into a
selector generated from the hit-tested node, and only that selector is recorded — never the ref.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.json_schema import SkipJsonSchema

from trailblaze.errors import UsageError
from trailblaze.llm.client import ToolSpec
from trailblaze.screen.selector_gen import generate_selector, selector_for
from trailblaze.tools.assertions import pin_assertion
from trailblaze.tools.call import ToolCall
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.recorded import Direction, KeyCode, LaunchMode
from trailblaze.tools.registry import BUILTIN, RECORDED_TOOL_PARAMS
from trailblaze.tools.tooldef import Kind

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.screen.compact import CompactView
    from trailblaze.screen.hierarchy import Hierarchy, Node
    from trailblaze.tools.execute import ToolResult
    from trailblaze.tools.memory import Memory

__all__ = [
    "DEFAULT_TOOLS",
    "LLMTool",
    "ObjectiveStatus",
    "CallContext",
    "ToolContext",
    "ToolOutcome",
    "ToolRegistry",
    "Tool",
    "FAIL_AT",
    "WARN_AT",
    "argument_problems",
    "default_registry",
    "detect_cycle",
    "fingerprint",
    "params_schema",
]


@dataclass
class CallContext:
    """What a model-facing tool needs at call time: the device, the run's memory and the screen the
    model saw (its refs). The recorded tool it runs gets its own run context
    (`trailblaze.tools.toolset.RunContext`); a Python tool gets `trailblaze.ToolContext`."""

    session: DeviceSession
    memory: Memory
    view: CompactView
    """The compact view sent in the request; its refs are the ones the model may use."""
    hierarchy: Hierarchy
    """The capture `view` was built from."""


ToolContext = CallContext
"""The former name of `CallContext` (a Python tool's context is `trailblaze.ToolContext`)."""


@dataclass
class ToolOutcome:
    """The result of one LLM-facing call."""

    result: ToolResult
    recorded: list[ToolCall] = field(default_factory=list)
    """Recorded-form calls that ran (written to the trail only when `result.ok`)."""
    status: Literal["IN_PROGRESS", "COMPLETED", "FAILED"] | None = None
    """Set by `objectiveStatus` only."""
    ref_not_found: bool = False
    """The model named a ref that is not on the current screen."""

    @property
    def ok(self) -> bool:
        return self.result.ok


@runtime_checkable
class LLMTool(Protocol):
    """One tool the model can call."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def params(self) -> type[BaseModel]:
        """The arguments' model; its JSON schema (with field descriptions) is what the model sees."""
        ...

    @property
    def verification(self) -> bool:
        """Offered on `verify:` steps (the assertion-only tool set)."""
        ...

    def run(self, args: Any, ctx: CallContext) -> ToolOutcome:
        """Run the tool with validated `args` (an instance of `params`)."""
        ...


@dataclass(frozen=True)
class Tool:
    """A plain `LLMTool`: a params model, a description and a function.

    A built-in one is an adapter over recorded tools (`trailblaze.tools.toolset`): it turns the model's ref
    into a selector and runs the recorded call; `records` names the recorded tools it may write, so
    a model-facing name always maps to the `ToolDef`s the trail will hold (docs/adr/0050-one-tool-model.md).
    """

    name: str
    description: str
    params: type[BaseModel]
    fn: Callable[[Any, CallContext], ToolOutcome]
    verification: bool = False
    records: tuple[str, ...] = ()
    """The recorded tools a call writes into the trail (none: the call is never recorded)."""

    def run(self, args: Any, ctx: CallContext) -> ToolOutcome:
        return self.fn(args, ctx)


# --- params models (their JSON schemas are what the model reads) ---------------------------------


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use: start-up

    reasoning: str | None = Field(
        default=None, description="Brief: what you see, what is done, why this call is next."
    )


class TapParams(_Params):
    ref: str = Field(description="Ref of the element from the view hierarchy, e.g. `k4f` (without brackets).")
    longPress: bool = Field(default=False, description="Long-press instead of tapping.")


class InputTextParams(_Params):
    text: str = Field(description="Text to type into the focused field; write secrets as `{{name}}`.")


class EraseTextParams(_Params):
    charactersToErase: int | None = Field(
        default=None, ge=0, description="How many characters to delete; omit to clear the field."
    )


class NoParams(_Params):
    pass


class SwipeParams(_Params):
    direction: Direction = Field(description="Finger direction; UP scrolls content further down into view.")
    ref: str | None = Field(default=None, description="Ref of the element to swipe on; omit for mid-screen.")


class ScrollParams(_Params):
    text: str = Field(description="Text to bring into view.")
    direction: Direction = Field(default="DOWN", description="DOWN reveals content further down.")


class LaunchAppParams(_Params):
    appId: str = Field(description="Package name / bundle id.")
    launchMode: LaunchMode = Field(
        default="CLEAR_STATE",
        description="CLEAR_STATE (default: wipe the app's data, as replay does), FORCE_RESTART (keep data) or RESUME.",
    )


class PressKeyParams(_Params):
    keyCode: KeyCode


class AssertVisibleParams(_Params):
    ref: str = Field(description="Ref of the element that must be visible.")
    expectedText: str | None = Field(
        default=None,
        description="The text the element must show, as the step states it. Whatever you pass, the text the "
        "element shows now is recorded exactly; a mismatch is an error.",
    )
    textPattern: str | None = Field(
        default=None,
        description="Only for text that legitimately varies (a time, a count): a regex the whole text must "
        "match, e.g. `\\d+ unread`. Recorded as such.",
    )


class AssertStateParams(_Params):
    ref: str = Field(description="Ref of the switch, checkbox, tab or button.")
    checked: bool | None = Field(default=None, description="true: on / checked; false: off / unchecked.")
    selected: bool | None = Field(default=None, description="true: selected (e.g. the current tab).")
    enabled: bool | None = Field(default=None, description="false: disabled (greyed out).")
    focused: bool | None = Field(default=None, description="true: has input focus.")


class AssertNotVisibleParams(_Params):
    text: str = Field(description="Text that must not be visible anywhere on screen.")


class RememberTextParams(_Params):
    ref: str = Field(description="Ref of the element whose text to remember.")
    variable: str = Field(min_length=1, description="Name to store it under; use later as `{{name}}`.")


class WaitParams(_Params):
    timeToWaitInSeconds: float = Field(default=2, ge=0, le=30)


class ObjectiveStatus(_Params):
    status: Literal["IN_PROGRESS", "COMPLETED", "FAILED"]
    explanation: str = Field(description="One sentence: what you checked or why it cannot be done.")


# --- implementations ------------------------------------------------------------------------------


def _result(status: str, message: str, kind: Kind = "other") -> ToolResult:
    from trailblaze.tools.execute import ToolResult

    return ToolResult(status, message, kind)  # type: ignore[arg-type]


def _reason(args: _Params | RecordedToolParams, ctx: CallContext) -> dict[str, Any]:
    if not args.reasoning:
        return {}
    reason = " ".join(str(ctx.memory.redact(args.reasoning)).split())
    return {"reason": reason[:300]}


def _run(call: ToolCall, ctx: CallContext) -> ToolOutcome:
    from trailblaze.tools.execute import run_recorded_tool

    try:
        result = run_recorded_tool(ctx.session, call, ctx.memory)
    except UsageError as exc:  # e.g. `{{name}}` the run does not know: the model can fix it
        return ToolOutcome(_result("ERROR", exc.message))
    return ToolOutcome(result, [call])


def _node(ref: str, ctx: CallContext) -> Node | None:
    return ctx.view.refs.get(ref.strip().strip("[]"))


def _covered(ref: str, ctx: CallContext) -> ToolOutcome | None:
    """A tap on an element the view left out because a dialog or the keyboard covers it: refused
    with the reason, nothing recorded (docs/adr/0014-occlusion.md)."""
    node = ctx.view.covered.get(ref.strip().strip("[]"))
    return None if node is None else _refused(node)


def _refused(node: Node) -> ToolOutcome:
    from trailblaze.tools.execute import covered_message

    return ToolOutcome(_result("NOT_VISIBLE", covered_message(node), "action"))


def _no_ref(ref: str) -> ToolOutcome:
    return ToolOutcome(
        _result(
            "NOT_FOUND", f"ref `{ref}` is not on the current screen; use a ref from the latest view hierarchy"
        ),
        ref_not_found=True,
    )


def _tap(args: TapParams, ctx: CallContext) -> ToolOutcome:
    node = _node(args.ref, ctx)
    if node is None:
        return _covered(args.ref, ctx) or _no_ref(args.ref)
    if node.covered_by is not None:  # a view built before `covers` ran; never record a covered tap
        return _refused(node)
    selector = generate_selector(node, ctx.hierarchy)
    extra: dict[str, Any] = {"longPress": True} if args.longPress else {}
    if selector is None:
        x, y = node.center
        call = ToolCall(
            name="tapOnPoint", params={"x": round(x), "y": round(y), **extra, **_reason(args, ctx)}
        )
    else:
        params = {"nodeSelector": selector.to_yaml_dict(), **extra, **_reason(args, ctx)}
        call = ToolCall(name="tapOnElementBySelector", params=params)
    return _run(call, ctx)


def _input_text(args: InputTextParams, ctx: CallContext) -> ToolOutcome:
    # The recording keeps the template; a literal secret value typed by the model becomes one too.
    text = str(ctx.memory.redact(args.text))
    return _run(ToolCall(name="inputText", params={"text": text, **_reason(args, ctx)}), ctx)


def _erase_text(args: EraseTextParams, ctx: CallContext) -> ToolOutcome:
    params: dict[str, Any] = {}
    if args.charactersToErase is not None:
        params["charactersToErase"] = args.charactersToErase
    return _run(ToolCall(name="eraseText", params={**params, **_reason(args, ctx)}), ctx)


def _simple(name: str) -> Callable[[NoParams, CallContext], ToolOutcome]:
    def run(args: NoParams, ctx: CallContext) -> ToolOutcome:
        return _run(ToolCall(name=name, params=_reason(args, ctx)), ctx)

    return run


def _swipe(args: SwipeParams, ctx: CallContext) -> ToolOutcome:
    params: dict[str, Any] = {"direction": args.direction}
    if args.ref is not None:
        node = _node(args.ref, ctx)
        if node is None:
            return _covered(args.ref, ctx) or _no_ref(args.ref)
        selector = selector_for(node, ctx.hierarchy)
        if selector is not None:
            params["nodeSelector"] = selector.to_yaml_dict()
    return _run(ToolCall(name="swipe", params={**params, **_reason(args, ctx)}), ctx)


def _scroll(args: ScrollParams, ctx: CallContext) -> ToolOutcome:
    params = {"text": args.text, "direction": args.direction, **_reason(args, ctx)}
    return _run(ToolCall(name="scrollUntilTextIsVisible", params=params), ctx)


def _launch_app(args: LaunchAppParams, ctx: CallContext) -> ToolOutcome:
    # always written: a recorded launchApp without launchMode means CLEAR_STATE (Trailblaze's default)
    params: dict[str, Any] = {"appId": args.appId, "launchMode": args.launchMode}
    return _run(ToolCall(name="launchApp", params={**params, **_reason(args, ctx)}), ctx)


def _press_key(args: PressKeyParams, ctx: CallContext) -> ToolOutcome:
    return _run(ToolCall(name="pressKey", params={"keyCode": args.keyCode, **_reason(args, ctx)}), ctx)


def _pinned(ref: str, ctx: CallContext, args: _Params, **pin: Any) -> ToolOutcome:
    node = _node(ref, ctx)
    if node is None:
        return _no_ref(ref)
    pinned = pin_assertion(node, ctx.hierarchy, **pin)
    if pinned.params is None:
        return ToolOutcome(_result("ERROR", f"`{ref}`: {pinned.problem}", "assertion"))
    params = ctx.memory.redact(pinned.params)
    return _run(ToolCall(name="assertVisibleBySelector", params={**params, **_reason(args, ctx)}), ctx)


def _assert_visible(args: AssertVisibleParams, ctx: CallContext) -> ToolOutcome:
    return _pinned(args.ref, ctx, args, expected_text=args.expectedText, text_pattern=args.textPattern)


def _assert_state(args: AssertStateParams, ctx: CallContext) -> ToolOutcome:
    state = {
        k: v
        for k, v in (
            ("checked", args.checked),
            ("selected", args.selected),
            ("enabled", args.enabled),
            ("focused", args.focused),
        )
        if v is not None
    }
    if not state:
        return ToolOutcome(_result("ERROR", "give the state to check: checked, selected, enabled or focused"))
    return _pinned(args.ref, ctx, args, state=state)


def _assert_not_visible(args: AssertNotVisibleParams, ctx: CallContext) -> ToolOutcome:
    params = {"text": str(ctx.memory.redact(args.text)), **_reason(args, ctx)}
    return _run(ToolCall(name="assertNotVisibleWithText", params=params), ctx)


def _remember_text(args: RememberTextParams, ctx: CallContext) -> ToolOutcome:
    node = _node(args.ref, ctx)
    if node is None:
        return _no_ref(args.ref)
    selector = selector_for(node, ctx.hierarchy)
    if selector is None:
        return ToolOutcome(_result("ERROR", f"`{args.ref}` cannot be identified by a selector"))
    params = {"nodeSelector": selector.to_yaml_dict(), "variable": args.variable, **_reason(args, ctx)}
    return _run(ToolCall(name="rememberTextBySelector", params=params), ctx)


def _wait(args: WaitParams, ctx: CallContext) -> ToolOutcome:
    params = {"timeToWaitInSeconds": args.timeToWaitInSeconds, **_reason(args, ctx)}
    return _run(ToolCall(name="wait", params=params), ctx)


def _objective_status(args: ObjectiveStatus, ctx: CallContext) -> ToolOutcome:
    return ToolOutcome(_result("OK", f"status {args.status} noted"), status=args.status)


def _as_is(model: type[RecordedToolParams], *, verification: bool) -> Tool:
    """A recorded tool offered to the model with its own params (no refs to turn into selectors):
    what the model passes is what the trail records (secret values as their `{{name}}`)."""
    offered = create_model(
        f"{model.__name__}Call",
        __base__=model,
        reason=(SkipJsonSchema[str | None], None),  # type: ignore[misc]
        reasoning=(str | None, _Params.model_fields["reasoning"]),
    )

    def run(args: RecordedToolParams, ctx: CallContext) -> ToolOutcome:
        params = {k: v for k, v in args.to_params().items() if k not in ("reason", "reasoning")}
        return _run(
            ToolCall(name=model.tool_name, params={**ctx.memory.redact(params), **_reason(args, ctx)}), ctx
        )

    description = " ".join((model.__doc__ or model.tool_name).split())
    return Tool(model.tool_name, description, offered, run, verification, records=(model.tool_name,))


DEFAULT_TOOLS: tuple[Tool, ...] = (
    Tool(
        "tap",
        "Tap (or long-press) an element by its ref.",
        TapParams,
        _tap,
        records=("tapOnElementBySelector", "tapOnPoint"),
    ),
    Tool(
        "inputText",
        "Type text into the focused field (tap the field first).",
        InputTextParams,
        _input_text,
        records=("inputText",),
    ),
    Tool(
        "eraseText",
        "Delete characters from the focused field.",
        EraseTextParams,
        _erase_text,
        records=("eraseText",),
    ),
    Tool(
        "hideKeyboard",
        "Dismiss the on-screen keyboard.",
        NoParams,
        _simple("hideKeyboard"),
        records=("hideKeyboard",),
    ),
    Tool(
        "swipe",
        "Swipe the finger in a direction, on an element or mid-screen.",
        SwipeParams,
        _swipe,
        records=("swipe",),
    ),
    Tool(
        "scrollUntilTextIsVisible",
        "Scroll until an element with the text is visible.",
        ScrollParams,
        _scroll,
        records=("scrollUntilTextIsVisible",),
    ),
    Tool(
        "launchApp",
        "Launch (or restart) an app from a clean state (CLEAR_STATE) unless launchMode says otherwise.",
        LaunchAppParams,
        _launch_app,
        records=("launchApp",),
    ),
    Tool(
        "pressBack", "Press the system back button.", NoParams, _simple("pressBack"), records=("pressBack",)
    ),
    Tool("pressKey", "Press a key.", PressKeyParams, _press_key, records=("pressKey",)),
    Tool(
        "assertVisible",
        "Assert an element is visible now, with the text it shows (recorded exactly). Pass expectedText: the "
        "text the step states.",
        AssertVisibleParams,
        _assert_visible,
        True,
        records=("assertVisibleBySelector",),
    ),
    Tool(
        "assertState",
        "Assert a switch / checkbox is on or off (checked), a tab is selected, a button is enabled or disabled.",
        AssertStateParams,
        _assert_state,
        True,
        records=("assertVisibleBySelector",),
    ),
    Tool(
        "assertNotVisibleWithText",
        "Assert no element shows the text.",
        AssertNotVisibleParams,
        _assert_not_visible,
        True,
        records=("assertNotVisibleWithText",),
    ),
    Tool(
        "rememberElementText",
        "Store an element's text in memory.",
        RememberTextParams,
        _remember_text,
        records=("rememberTextBySelector",),
    ),
    Tool("wait", "Wait for the app, e.g. while something loads.", WaitParams, _wait, records=("wait",)),
    *(
        _as_is(RECORDED_TOOL_PARAMS[t.name], verification="verify" in t.offered_to)
        for t in BUILTIN.values()
        if "model" in t.offered_to
    ),
    Tool(
        "objectiveStatus",
        "Report the objective's status: COMPLETED when done, FAILED when it cannot be done.",
        ObjectiveStatus,
        _objective_status,
        True,
    ),
)


def params_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The params' JSON schema without pydantic's `title` noise (fewer tokens, same meaning)."""
    schema = _strip_titles(model.model_json_schema())
    assert isinstance(schema, dict)
    schema.pop("description", None)
    schema.setdefault("properties", {})
    return schema


def _strip_titles(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _strip_titles(v)
            for k, v in value.items()
            if not (k == "title" and isinstance(v, str)) and not (k == "default" and v is None)
        }
    if isinstance(value, list):
        return [_strip_titles(v) for v in value]
    return value


class ToolRegistry:
    """The tools offered to the model, by name; the agent's only way to reach the device."""

    def __init__(self, tools: Iterable[LLMTool] = DEFAULT_TOOLS) -> None:
        self._tools: dict[str, LLMTool] = {}
        self._specs: dict[bool, tuple[ToolSpec, ...]] = {}
        """`specs()` by `verify`: pydantic builds a JSON schema in ~1 ms a tool, and the agent asks
        for the same definitions at every step."""
        for tool in tools:
            self.register(tool)

    def register(self, tool: LLMTool) -> None:
        """Add (or replace) a tool."""
        self._tools[tool.name] = tool
        self._specs.clear()

    def names(self, *, verify: bool = False) -> list[str]:
        """Tool names offered on an action step, or on a `verify:` step (assertions only)."""
        return [n for n, t in self._tools.items() if t.verification or not verify]

    def specs(self, *, verify: bool = False) -> tuple[ToolSpec, ...]:
        """The tool definitions sent to the model (built once per registry and `verify`)."""
        specs = self._specs.get(verify)
        if specs is None:
            specs = self._specs[verify] = tuple(
                ToolSpec(name=t.name, description=t.description, input_schema=params_schema(t.params))
                for t in self._tools.values()
                if t.verification or not verify
            )
        return specs

    def call(
        self, name: str, raw: Mapping[str, Any], ctx: CallContext, *, verify: bool = False
    ) -> ToolOutcome:
        """Validate the model's arguments and run the tool; bad input comes back as an ERROR outcome."""
        tool = self._tools.get(name)
        if tool is None or name not in self.names(verify=verify):
            offered = ", ".join(self.names(verify=verify))
            return ToolOutcome(_result("ERROR", f"no tool `{name}` here; call one of: {offered}"))
        try:
            args = tool.params.model_validate(dict(raw))
        except ValidationError as exc:
            return ToolOutcome(_result("ERROR", f"invalid arguments for `{name}`: {argument_problems(exc)}"))
        return tool.run(args, ctx)


def argument_problems(exc: ValidationError) -> str:
    """A params validation error on one line, `field: problem; …`, for the model to fix its call."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}" for e in exc.errors(include_url=False)
    )


def default_registry() -> ToolRegistry:
    """A registry with the built-in tools."""
    return ToolRegistry(DEFAULT_TOOLS)


def fingerprint(name: str, args: Mapping[str, Any]) -> str:
    """Tool + arguments with `reasoning` stripped: what loop detection compares."""
    kept = {k: v for k, v in args.items() if k != "reasoning"}
    return f"{name}:{json.dumps(kept, sort_keys=True, default=str)}"


WARN_AT = {1: 3, 2: 2, 3: 2}
"""Repeats of a call cycle of length 1 / 2 / 3 after which the agent injects a stuck warning."""
FAIL_AT = {1: 6, 2: 4, 3: 3}
"""Repeats after which the agent fails the step as stuck."""


def detect_cycle(fingerprints: Sequence[str]) -> tuple[list[str], int]:
    """The cycle (length 1–3) repeating at the end of `fingerprints` and how many times it repeats.

    When several lengths repeat, the one closest to its failure threshold wins; `([], 0)` when the
    last calls do not repeat at all.
    """
    best: tuple[list[str], int] = ([], 0)
    for length in (1, 2, 3):
        cycle = list(fingerprints[-length:])
        if len(cycle) < length or (length > 1 and len(set(cycle)) == 1):
            continue  # all-equal calls are a cycle of length 1
        repeats = 1
        end = len(fingerprints)
        while (repeats + 1) * length <= end and fingerprints[
            end - (repeats + 1) * length : end - repeats * length
        ] == cycle:
            repeats += 1
        severity = repeats / FAIL_AT[length]
        if repeats > 1 and (not best[0] or severity > best[1] / FAIL_AT[len(best[0])]):
            best = (cycle, repeats)
    return best
