"""The tools the model calls: what it is offered, and what each call records.

A model tool is a `ToolDef` (source `model`) made by `offers` on a function next to its params
model: the params' JSON schema, with field descriptions, is what the model sees; the function runs
on a `ToolContext` and delegates to recorded-form `ToolCall`s (`tapOnElementBySelector`,
`inputText`, ...) run through the run's `ToolSet.run` (`ctx.nested`) — the same door
replay uses, so record and replay cannot drift apart. It returns a `ToolResult` like every tool: what
the model sees, with the recorded-form calls to write into the trail when it succeeded (`recorded`). `records`
names the recorded tools a call may write (docs/adr/0059-one-tool-set-per-run.md).

Refs (`[k4f]` in the compact view) live only inside one capture: `tap(ref)` turns the ref into a
selector generated from the hit-tested node, and only that selector is recorded — never the ref.
`trailblaze.tools.toolset.ToolSet` offers these tools, with the project's, and calls them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.json_schema import SkipJsonSchema

from trailblaze.errors import UsageError
from trailblaze.screen.selector_gen import generate_selector, selector_for
from trailblaze.tools.assertions import pin_assertion
from trailblaze.tools.builtin import builtin_defs
from trailblaze.tools.call import ToolCall
from trailblaze.tools.lookup import ToolContext
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.recorded.app import LaunchMode
from trailblaze.tools.recorded.gestures import Direction
from trailblaze.tools.recorded.keyboard import KeyCode
from trailblaze.tools.registry import RECORDED_TOOL_PARAMS, TOOL_KINDS
from trailblaze.tools.tooldef import Handler, Kind, Offer, Status, ToolDef, ToolResult

if TYPE_CHECKING:
    from trailblaze.screen.hierarchy import Node

__all__ = [
    "FAIL_AT",
    "MODEL_TOOLS",
    "WARN_AT",
    "ObjectiveStatus",
    "argument_problems",
    "detect_cycle",
    "fingerprint",
    "offers",
    "params_schema",
]


def _answer(
    result: ToolResult,
    recorded: Iterable[ToolCall] = (),
    *,
    status: Literal["IN_PROGRESS", "COMPLETED", "FAILED"] | None = None,
    ref_not_found: bool = False,
) -> ToolResult:
    """What a model tool answers, a `ToolResult` like every tool's: `result` with the recorded-form
    calls that ran (written to the trail only when it is OK), `objectiveStatus`'s status, and whether
    the model named a ref that is not on the current screen."""
    return replace(result, recorded=tuple(recorded), objective=status, ref_not_found=ref_not_found)


def offers(
    name: str,
    params: type[BaseModel],
    description: str,
    *,
    records: tuple[str, ...] = (),
    verify: bool = False,
) -> Callable[[Handler], ToolDef]:
    """Decorate a function to make it the tool the model calls as `name` with `params`, writing the
    recorded tools `records`; `verify`: offered on `verify:` steps too. Its kind is the first
    recorded tool's."""
    offered: frozenset[Offer] = frozenset(("model", "verify")) if verify else frozenset(("model",))
    kind: Kind = TOOL_KINDS[records[0]] if records else "other"

    def wrap(handler: Handler) -> ToolDef:
        return ToolDef(
            name=name,
            params=params,
            kind=kind,
            description=description,
            source="model",
            handler=handler,
            offered_to=offered,
            block_status="extension",
            records=records,
        )

    return wrap


# --- the model's tools: each a params model (its JSON schema is what the model reads) and the
# --- function that runs it, in the order the model is offered them


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use: start-up

    reasoning: str | None = Field(
        default=None, description="Brief: what you see, what is done, why this call is next."
    )


class NoParams(_Params):
    pass


def _result(status: Status, message: str, kind: Kind = "other") -> ToolResult:
    return ToolResult(status, message, kind)


def _reason(args: _Params | RecordedToolParams, ctx: ToolContext) -> dict[str, Any]:
    if not args.reasoning:
        return {}
    reason = " ".join(str(ctx.memory.redact(args.reasoning)).split())
    return {"reason": reason[:300]}


def _run(call: ToolCall, ctx: ToolContext) -> ToolResult:
    assert ctx.nested is not None  # `ToolSet.call_for_model` gives it: the run's `ToolSet.run`
    try:
        result = ctx.nested(call)
    except UsageError as exc:  # e.g. `{{name}}` the run does not know: the model can fix it
        return _result("ERROR", exc.message)
    return _answer(result, [call])


def _node(ref: str, ctx: ToolContext) -> Node | None:
    return ctx.view.refs.get(ref.strip().strip("[]"))


def _covered(ref: str, ctx: ToolContext) -> ToolResult | None:
    """A tap on an element the view left out because a dialog or the keyboard covers it: refused
    with the reason, nothing recorded (docs/adr/0014-occlusion.md)."""
    node = ctx.view.covered.get(ref.strip().strip("[]"))
    return None if node is None else _refused(node)


def _refused(node: Node) -> ToolResult:
    from trailblaze.tools.lookup import covered_message

    return _result("NOT_VISIBLE", covered_message(node), "action")


def _no_ref(ref: str) -> ToolResult:
    return _answer(
        _result(
            "NOT_FOUND", f"ref `{ref}` is not on the current screen; use a ref from the latest view hierarchy"
        ),
        ref_not_found=True,
    )


def _pinned(ref: str, ctx: ToolContext, args: _Params, **pin: Any) -> ToolResult:
    node = _node(ref, ctx)
    if node is None:
        return _no_ref(ref)
    pinned = pin_assertion(node, ctx.hierarchy, **pin)
    if pinned.params is None:
        return _result("ERROR", f"`{ref}`: {pinned.problem}", "assertion")
    params = ctx.memory.redact(pinned.params)
    return _run(ToolCall(name="assertVisibleBySelector", params={**params, **_reason(args, ctx)}), ctx)


class TapParams(_Params):
    ref: str = Field(description="Ref of the element from the view hierarchy, e.g. `k4f` (without brackets).")
    longPress: bool = Field(default=False, description="Long-press instead of tapping.")


@offers(
    "tap",
    TapParams,
    "Tap (or long-press) an element by its ref.",
    records=("tapOnElementBySelector", "tapOnPoint"),
)
def _tap(ctx: ToolContext, args: TapParams) -> ToolResult:
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


class InputTextParams(_Params):
    text: str = Field(description="Text to type into the focused field; write secrets as `{{name}}`.")


@offers(
    "inputText",
    InputTextParams,
    "Type text into the focused field (tap the field first).",
    records=("inputText",),
)
def _input_text(ctx: ToolContext, args: InputTextParams) -> ToolResult:
    # The recording keeps the template; a literal secret value typed by the model becomes one too.
    text = str(ctx.memory.redact(args.text))
    return _run(ToolCall(name="inputText", params={"text": text, **_reason(args, ctx)}), ctx)


class EraseTextParams(_Params):
    charactersToErase: int | None = Field(
        default=None, ge=0, description="How many characters to delete; omit to clear the field."
    )


@offers("eraseText", EraseTextParams, "Delete characters from the focused field.", records=("eraseText",))
def _erase_text(ctx: ToolContext, args: EraseTextParams) -> ToolResult:
    params: dict[str, Any] = {}
    if args.charactersToErase is not None:
        params["charactersToErase"] = args.charactersToErase
    return _run(ToolCall(name="eraseText", params={**params, **_reason(args, ctx)}), ctx)


@offers("hideKeyboard", NoParams, "Dismiss the on-screen keyboard.", records=("hideKeyboard",))
def _hide_keyboard(ctx: ToolContext, args: NoParams) -> ToolResult:
    return _run(ToolCall(name="hideKeyboard", params=_reason(args, ctx)), ctx)


class SwipeParams(_Params):
    direction: Direction = Field(description="Finger direction; UP scrolls content further down into view.")
    ref: str | None = Field(default=None, description="Ref of the element to swipe on; omit for mid-screen.")


@offers("swipe", SwipeParams, "Swipe the finger in a direction, on an element or mid-screen.", records=("swipe",))
def _swipe(ctx: ToolContext, args: SwipeParams) -> ToolResult:
    params: dict[str, Any] = {"direction": args.direction}
    if args.ref is not None:
        node = _node(args.ref, ctx)
        if node is None:
            return _covered(args.ref, ctx) or _no_ref(args.ref)
        selector = selector_for(node, ctx.hierarchy)
        if selector is not None:
            params["nodeSelector"] = selector.to_yaml_dict()
    return _run(ToolCall(name="swipe", params={**params, **_reason(args, ctx)}), ctx)


class ScrollParams(_Params):
    text: str = Field(description="Text to bring into view.")
    direction: Direction = Field(default="DOWN", description="DOWN reveals content further down.")


@offers(
    "scrollUntilTextIsVisible",
    ScrollParams,
    "Scroll until an element with the text is visible.",
    records=("scrollUntilTextIsVisible",),
)
def _scroll(ctx: ToolContext, args: ScrollParams) -> ToolResult:
    params = {"text": args.text, "direction": args.direction, **_reason(args, ctx)}
    return _run(ToolCall(name="scrollUntilTextIsVisible", params=params), ctx)


class LaunchAppParams(_Params):
    appId: str = Field(description="Package name / bundle id.")
    launchMode: LaunchMode = Field(
        default="CLEAR_STATE",
        description="CLEAR_STATE (default: wipe the app's data, as replay does), FORCE_RESTART (keep data) or RESUME.",
    )


@offers(
    "launchApp",
    LaunchAppParams,
    "Launch (or restart) an app from a clean state (CLEAR_STATE) unless launchMode says otherwise.",
    records=("launchApp",),
)
def _launch_app(ctx: ToolContext, args: LaunchAppParams) -> ToolResult:
    # always written: a recorded launchApp without launchMode means CLEAR_STATE (Trailblaze's default)
    params: dict[str, Any] = {"appId": args.appId, "launchMode": args.launchMode}
    return _run(ToolCall(name="launchApp", params={**params, **_reason(args, ctx)}), ctx)


@offers("pressBack", NoParams, "Press the system back button.", records=("pressBack",))
def _press_back(ctx: ToolContext, args: NoParams) -> ToolResult:
    return _run(ToolCall(name="pressBack", params=_reason(args, ctx)), ctx)


class PressKeyParams(_Params):
    keyCode: KeyCode


@offers("pressKey", PressKeyParams, "Press a key.", records=("pressKey",))
def _press_key(ctx: ToolContext, args: PressKeyParams) -> ToolResult:
    return _run(ToolCall(name="pressKey", params={"keyCode": args.keyCode, **_reason(args, ctx)}), ctx)


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


@offers(
    "assertVisible",
    AssertVisibleParams,
    "Assert an element is visible now, with the text it shows (recorded exactly). Pass expectedText: the "
    "text the step states.",
    records=("assertVisibleBySelector",),
    verify=True,
)
def _assert_visible(ctx: ToolContext, args: AssertVisibleParams) -> ToolResult:
    return _pinned(args.ref, ctx, args, expected_text=args.expectedText, text_pattern=args.textPattern)


class AssertStateParams(_Params):
    ref: str = Field(description="Ref of the switch, checkbox, tab or button.")
    checked: bool | None = Field(default=None, description="true: on / checked; false: off / unchecked.")
    selected: bool | None = Field(default=None, description="true: selected (e.g. the current tab).")
    enabled: bool | None = Field(default=None, description="false: disabled (greyed out).")
    focused: bool | None = Field(default=None, description="true: has input focus.")


@offers(
    "assertState",
    AssertStateParams,
    "Assert a switch / checkbox is on or off (checked), a tab is selected, a button is enabled or disabled.",
    records=("assertVisibleBySelector",),
    verify=True,
)
def _assert_state(ctx: ToolContext, args: AssertStateParams) -> ToolResult:
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
        return _result("ERROR", "give the state to check: checked, selected, enabled or focused")
    return _pinned(args.ref, ctx, args, state=state)


class AssertNotVisibleParams(_Params):
    text: str = Field(description="Text that must not be visible anywhere on screen.")


@offers(
    "assertNotVisibleWithText",
    AssertNotVisibleParams,
    "Assert no element shows the text.",
    records=("assertNotVisibleWithText",),
    verify=True,
)
def _assert_not_visible(ctx: ToolContext, args: AssertNotVisibleParams) -> ToolResult:
    params = {"text": str(ctx.memory.redact(args.text)), **_reason(args, ctx)}
    return _run(ToolCall(name="assertNotVisibleWithText", params=params), ctx)


class RememberTextParams(_Params):
    ref: str = Field(description="Ref of the element whose text to remember.")
    variable: str = Field(min_length=1, description="Name to store it under; use later as `{{name}}`.")


@offers(
    "rememberElementText",
    RememberTextParams,
    "Store an element's text in memory.",
    records=("rememberTextBySelector",),
)
def _remember_text(ctx: ToolContext, args: RememberTextParams) -> ToolResult:
    node = _node(args.ref, ctx)
    if node is None:
        return _no_ref(args.ref)
    selector = selector_for(node, ctx.hierarchy)
    if selector is None:
        return _result("ERROR", f"`{args.ref}` cannot be identified by a selector")
    params = {"nodeSelector": selector.to_yaml_dict(), "variable": args.variable, **_reason(args, ctx)}
    return _run(ToolCall(name="rememberTextBySelector", params=params), ctx)


class WaitParams(_Params):
    timeToWaitInSeconds: float = Field(default=2, ge=0, le=30)


@offers("wait", WaitParams, "Wait for the app, e.g. while something loads.", records=("wait",))
def _wait(ctx: ToolContext, args: WaitParams) -> ToolResult:
    params = {"timeToWaitInSeconds": args.timeToWaitInSeconds, **_reason(args, ctx)}
    return _run(ToolCall(name="wait", params=params), ctx)


class ObjectiveStatus(_Params):
    status: Literal["IN_PROGRESS", "COMPLETED", "FAILED"]
    explanation: str = Field(description="One sentence: what you checked or why it cannot be done.")


@offers(
    "objectiveStatus",
    ObjectiveStatus,
    "Report the objective's status: COMPLETED when done, FAILED when it cannot be done.",
    verify=True,
)
def _objective_status(ctx: ToolContext, args: ObjectiveStatus) -> ToolResult:
    return _answer(_result("OK", f"status {args.status} noted"), status=args.status)


def _as_is(tool: ToolDef) -> ToolDef:
    """A recorded tool offered to the model with its own params (no refs to turn into selectors):
    what the model passes is what the trail records (secret values as their `{{name}}`)."""
    model = RECORDED_TOOL_PARAMS[tool.name]
    offered = create_model(
        f"{model.__name__}Call",
        __base__=model,
        reason=(SkipJsonSchema[str | None], None),  # type: ignore[misc]
        reasoning=(str | None, _Params.model_fields["reasoning"]),
    )

    def run(ctx: ToolContext, args: RecordedToolParams) -> ToolResult:
        params = {k: v for k, v in args.to_params().items() if k not in ("reason", "reasoning")}
        return _run(
            ToolCall(name=model.tool_name, params={**ctx.memory.redact(params), **_reason(args, ctx)}), ctx
        )

    description = " ".join((model.__doc__ or model.tool_name).split())
    verify = "verify" in tool.offered_to
    return offers(model.tool_name, offered, description, records=(model.tool_name,), verify=verify)(run)


def _offered_in_order() -> tuple[ToolDef, ...]:
    ours = [v for v in globals().values() if isinstance(v, ToolDef) and v.source == "model"]
    last = [t for t in ours if t.name == "objectiveStatus"]
    as_is = [_as_is(t) for t in builtin_defs() if "model" in t.offered_to]
    return (*[t for t in ours if t not in last], *as_is, *last)


MODEL_TOOLS: tuple[ToolDef, ...] = _offered_in_order()
"""What the model is offered, in order: the tools above (ref tools first), the recorded tools
offered as they are, then `objectiveStatus`; a run's `ToolSet` adds the project's and `askUser`."""


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


def argument_problems(exc: ValidationError) -> str:
    """A params validation error on one line, `field: problem; …`, for the model to fix its call."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'input'}: {e['msg']}" for e in exc.errors(include_url=False)
    )


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
