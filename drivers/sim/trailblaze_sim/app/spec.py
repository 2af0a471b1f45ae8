"""Declarative app specs for the simulated devices: pydantic models and YAML loading.

An app spec is data (`trailblaze_sim/apps/*.yaml`): screens made of elements with platform-neutral
roles, actions (lists of steps) run on taps, and the initial app state. `SimulatedDevice` interprets
it; the format is documented for users in `docs/sim-app-spec.md`.

A spec may `extends:` another one (bundled name or path): its `state`, `data`, `screens` and `roles`
mappings are merged key by key (a screen named in the variant replaces the base screen whole), other
top-level keys replace the base's. Bundled variants are addressed as `demo@v2` (file `demo@v2.yaml`).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from trailblaze.errors import UsageError

__all__ = [
    "ROLES",
    "AppSpec",
    "ClearStep",
    "Condition",
    "DataSource",
    "DialogButtonSpec",
    "DialogSpec",
    "ElementSpec",
    "ListFilter",
    "ScreenSpec",
    "SplitSpec",
    "Step",
    "bundled_apps",
    "load_app_spec",
    "parse_app_spec",
]

APPS_DIR = Path(__file__).parent.parent / "apps"

Role = Literal[
    "screen",
    "container",
    "heading",
    "text",
    "button",
    "icon_button",
    "link",
    "text_field",
    "secure_field",
    "multiline_field",
    "switch",
    "list",
    "row",
    "tab_bar",
    "tab",
    "progress",
    "dialog",
    "snackbar",
    "nav_bar",
    "image",
]
ROLES: tuple[str, ...] = Role.__args__  # type: ignore[attr-defined]

FIELD_ROLES = frozenset({"text_field", "secure_field", "multiline_field"})
PlatformName = Literal["android", "ios"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class Condition(_Strict):
    """A test on a state value. The string shorthand `"screen.error"` means "truthy";
    `"!screen.error"` means "falsy"."""

    var: str
    """Dotted name: `state.X` (app state), `screen.X` (screen locals), `field.X` (a field's value)."""
    equals: str | bool | int | float | None = None
    empty: bool | None = None
    negate: bool = False

    @classmethod
    def parse(cls, value: Any) -> Any:
        if isinstance(value, str):
            negate = value.startswith("!")
            return {"var": value.lstrip("!").strip(), "negate": negate}
        return value


def _condition(value: Any) -> Any:
    return Condition.parse(value)


# --- steps ---------------------------------------------------------------------------------------
# A step is a one-key mapping naming what it does (`go: inbox`), plus that step's options.


def _bare_step(value: Any) -> Any:
    if isinstance(value, str) and value in ("back", "close_dialog", "hide_keyboard"):
        return {value: True}
    return value


def _steps(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, (str, dict)):
        value = [value]
    if isinstance(value, list):
        return [_bare_step(v) for v in value]
    return value


class GoStep(_Strict):
    """Push a new instance of a screen; `params` become its `screen.*` locals."""

    go: str
    params: dict[str, str] = Field(default_factory=dict)


class ResetStep(_Strict):
    """Replace the whole navigation stack with a fresh instance of a screen (tabs, sign in/out)."""

    reset: str
    params: dict[str, str] = Field(default_factory=dict)


class BackStep(_Strict):
    """Pop the top screen (to the app's background when it is the last one)."""

    back: Literal[True]


class SetStep(_Strict):
    """Assign values (templates allowed) to `state.*` or `screen.*` names."""

    set: dict[str, str | bool | int | float]


class ToggleStep(_Strict):
    toggle: str


class RequireStep(_Strict):
    """Stop the action with `message` in `error` when the field is empty."""

    require: str
    message: str
    error: str = "screen.error"


class IfStep(_Strict):
    if_: Condition = Field(alias="if")
    then: list[Step] = Field(default_factory=list)
    else_: list[Step] = Field(default_factory=list, alias="else")

    _parse_if = field_validator("if_", mode="before")(_condition)
    _parse_steps = field_validator("then", "else_", mode="before")(_steps)


class WaitStep(_Strict):
    """Block the UI for `wait` seconds of device time with a progress indicator, then go on."""

    wait: float = Field(ge=0)
    progress: str = ""


class SnackbarStep(_Strict):
    snackbar: str
    seconds: float = Field(default=2.0, gt=0)


class ToastStep(_Strict):
    """Android: a toast (`Toast.makeText(...).show()`), drawn by SystemUI over every app for `seconds`
    (LENGTH_SHORT is 2 s) and what u2's `last_toast` reads. iOS has no toasts: nothing shows."""

    toast: str
    seconds: float = Field(default=2.0, gt=0)


class DialogStep(_Strict):
    """Show one of the current screen's dialogs."""

    dialog: str


class CloseDialogStep(_Strict):
    close_dialog: Literal[True]


class RemoveStep(_Strict):
    """Remove the items of a data source whose `key` equals `value` (a template)."""

    remove: str
    key: str
    value: str


class FocusStep(_Strict):
    focus: str


class HideKeyboardStep(_Strict):
    hide_keyboard: Literal[True]


class ClearStep(_Strict):
    """Empty a field of the current screen (a clear button, a "reset form" action)."""

    clear: str


class LogStep(_Strict):
    """Write a line (a template) to the device log under the app's pid (`adb logcat` shows it)."""

    log: str
    level: Literal["V", "D", "I", "W", "E", "F"] = "I"
    tag: str = ""
    """Default: the app's name without spaces."""


_STEP_TYPES: dict[str, type[_Strict]] = {
    "go": GoStep,
    "reset": ResetStep,
    "back": BackStep,
    "set": SetStep,
    "toggle": ToggleStep,
    "require": RequireStep,
    "if": IfStep,
    "wait": WaitStep,
    "snackbar": SnackbarStep,
    "toast": ToastStep,
    "dialog": DialogStep,
    "close_dialog": CloseDialogStep,
    "remove": RemoveStep,
    "focus": FocusStep,
    "hide_keyboard": HideKeyboardStep,
    "clear": ClearStep,
    "log": LogStep,
}


def _step_kind(value: Any) -> str | None:
    if isinstance(value, str):
        # Bare words for the steps that take no argument: `- back`, `- close_dialog`.
        return value if value in ("back", "close_dialog", "hide_keyboard") else None
    if isinstance(value, dict):
        for key in value:
            if key in _STEP_TYPES:
                return str(key)
        return None
    for kind, cls in _STEP_TYPES.items():
        if isinstance(value, cls):
            return kind
    return None


Step = Annotated[
    Annotated[GoStep, Tag("go")]
    | Annotated[ResetStep, Tag("reset")]
    | Annotated[BackStep, Tag("back")]
    | Annotated[SetStep, Tag("set")]
    | Annotated[ToggleStep, Tag("toggle")]
    | Annotated[RequireStep, Tag("require")]
    | Annotated[IfStep, Tag("if")]
    | Annotated[WaitStep, Tag("wait")]
    | Annotated[SnackbarStep, Tag("snackbar")]
    | Annotated[ToastStep, Tag("toast")]
    | Annotated[DialogStep, Tag("dialog")]
    | Annotated[CloseDialogStep, Tag("close_dialog")]
    | Annotated[RemoveStep, Tag("remove")]
    | Annotated[FocusStep, Tag("focus")]
    | Annotated[HideKeyboardStep, Tag("hide_keyboard")]
    | Annotated[ClearStep, Tag("clear")]
    | Annotated[LogStep, Tag("log")],
    Discriminator(
        _step_kind,
        custom_error_type="unknown_step",
        custom_error_message="a step is a mapping whose first key is one of: " + ", ".join(_STEP_TYPES),
    ),
]


# --- elements ------------------------------------------------------------------------------------


class ListFilter(_Strict):
    """Show only the items whose `key` contains the value of `field` (case-insensitive)."""

    field: str
    key: str = "title"


def _box(value: Any) -> Any:
    """CSS-like shorthand: 8 → all sides; [v, h]; [t, r, b, l]."""
    if isinstance(value, (int, float)):
        return (float(value),) * 4
    if isinstance(value, (list, tuple)):
        if len(value) == 2:
            return (float(value[0]), float(value[1]), float(value[0]), float(value[1]))
        if len(value) == 4:
            return tuple(float(v) for v in value)
        raise ValueError("must be a number, [vertical, horizontal] or [top, right, bottom, left]")
    return value


Box = tuple[float, float, float, float]


class ElementSpec(_Strict):
    """One element of a screen; containers hold `children`, lists hold a `row` template."""

    role: Role
    id: str = ""
    text: str = ""
    """Visible text; a template (`Message {item.n}`, `{clock}`)."""
    label: str = ""
    """Content description / accessibility label, when it differs from the text."""
    hint: str = ""
    platforms: tuple[PlatformName, ...] = ("android", "ios")
    show_if: Condition | None = None
    enabled: bool = True
    opacity: float = Field(default=1.0, ge=0, le=1)
    """0 makes a transparent element: laid out and in the tree, never drawn; iOS reports it not
    visible and not accessible, and touches pass through it (UIKit skips views with alpha < 0.01)."""
    # layout (points)
    height: float | None = Field(default=None, ge=0)
    width: float | None = Field(default=None, ge=0)
    margin: Box | None = None
    padding: Box | None = None
    gap: float = 0.0
    align: Literal["start", "center", "end"] = "start"
    grow: bool = False
    """Take a share of the space left in the parent (height in a vertical stack, width in a row)."""
    dock: Literal["bottom"] | None = None
    """Laid out from the bottom of the parent up (a bottom navigation bar)."""
    direction: Literal["vertical", "horizontal"] | None = None
    # behaviour
    on_tap: list[Step] = Field(default_factory=list)
    on_long_press: list[Step] = Field(default_factory=list)
    on_double_tap: list[Step] = Field(default_factory=list)
    """What a double tap does; without it a double tap is two taps."""
    on_submit: list[Step] = Field(default_factory=list)
    bind: str = ""
    """switch: the state name it shows and toggles (`state.dark_mode`)."""
    selected_if: Condition | None = None
    # lists
    source: str = ""
    filter: ListFilter | None = None
    row: ElementSpec | None = None
    empty_text: str = ""
    children: list[ElementSpec] = Field(default_factory=list)
    # platform overrides
    android_class: str = ""
    ios_type: str = ""

    _parse_conditions = field_validator("show_if", "selected_if", mode="before")(_condition)
    _parse_steps = field_validator(
        "on_tap", "on_long_press", "on_double_tap", "on_submit", mode="before"
    )(_steps)
    _parse_box = field_validator("margin", "padding", mode="before")(_box)

    @field_validator("platforms", mode="before")
    @classmethod
    def _one_platform(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value


def _close_dialog() -> list[Step]:
    return [CloseDialogStep(close_dialog=True)]


class DialogButtonSpec(_Strict):
    text: str
    id: str = ""
    on_tap: list[Step] = Field(default_factory=lambda: _close_dialog())
    """Defaults to closing the dialog."""

    _parse_steps = field_validator("on_tap", mode="before")(_steps)


class DialogSpec(_Strict):
    title: str
    message: str = ""
    id: str = ""
    buttons: list[DialogButtonSpec] = Field(min_length=1)


class SplitSpec(_Strict):
    """A two-pane layout on wide screens (a tablet): this screen beside the one beneath it."""

    primary: str
    """The screen shown in the left pane when it is directly beneath this one on the stack."""
    min_width: float = Field(default=600, gt=0)
    """The screen width (points) from which the panes sit side by side; narrower is one screen."""
    primary_width: float = Field(default=320, gt=0)

    @model_validator(mode="after")
    def _room_for_both(self) -> SplitSpec:
        if self.primary_width >= self.min_width:
            raise ValueError(
                f"primary_width ({self.primary_width:g}) must be less than min_width ({self.min_width:g})"
                " so that the other pane has room"
            )
        return self


class ScreenSpec(_Strict):
    elements: list[ElementSpec]
    back_to: str = ""
    """Where the back key goes when this screen is the only one on the stack (a non-start tab)."""
    dialogs: dict[str, DialogSpec] = Field(default_factory=dict)
    activity: str = ""
    """Android: the activity this screen is (`.AdditionActivity`); default the app's `activity`.
    `am start -n PKG/ACTIVITY` opens it, and `dumpsys activity` names it while it is on top."""
    split: SplitSpec | None = None
    """On a screen at least `split.min_width` wide, show `split.primary` beside this screen."""


class DataSource(_Strict):
    """Items for lists: `count` items generated from the `item` templates ({n} = 1..count), or
    explicit `items`."""

    count: int = Field(default=0, ge=0)
    item: dict[str, str] = Field(default_factory=dict)
    items: list[dict[str, str]] = Field(default_factory=list)

    def generate(self) -> list[dict[str, str]]:
        out = [dict(i) for i in self.items]
        for n in range(1, self.count + 1):
            out.append({"n": str(n), **{k: v.replace("{n}", str(n)) for k, v in self.item.items()}})
        return out


class AppSpec(_Strict):
    """A whole simulated app."""

    app_id: str = Field(pattern=r"^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$")
    name: str
    activity: str = ".MainActivity"
    launch: str
    """The screen the app starts on."""
    state: dict[str, str | bool | int | float] = Field(default_factory=dict)
    """Initial app state (reset by clearing the app's data)."""
    data: dict[str, DataSource] = Field(default_factory=dict)
    screens: dict[str, ScreenSpec] = Field(min_length=1)
    variant: str = ""
    orientations: tuple[Literal["portrait", "landscape"], ...] = ("portrait",)
    """The orientations the app supports; the device refuses to rotate to others."""


IfStep.model_rebuild()
ElementSpec.model_rebuild()


# --- loading -------------------------------------------------------------------------------------


def bundled_apps() -> list[str]:
    """Names of the bundled app specs (`demo`, `demo@restyled`, `demo@v2`, ...)."""
    return sorted(p.stem for p in APPS_DIR.glob("*.yaml"))


def _resolve(name_or_path: str | Path) -> Path:
    path = Path(name_or_path)
    if isinstance(name_or_path, Path) or path.suffix in (".yaml", ".yml") or "/" in str(name_or_path):
        if not path.is_file():
            raise UsageError(
                f"app spec {path}: no such file; pass a bundled app name ({', '.join(bundled_apps())}) or a YAML path"
            )
        return path
    bundled = APPS_DIR / f"{name_or_path}.yaml"
    if not bundled.is_file():
        raise UsageError(
            f"unknown app {str(name_or_path)!r}: bundled apps are {', '.join(bundled_apps())}; or pass a path to a .yaml spec"
        )
    return bundled


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise UsageError(f"app spec {where}: invalid YAML: {exc.problem}") from exc
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(f"app spec {path}: cannot read: {exc}") from exc
    if not isinstance(raw, dict):
        raise UsageError(
            f"app spec {path}: the top level must be a mapping with app_id, name, launch and screens"
        )
    return raw


_MERGED_KEYS = ("state", "data", "screens")


def _load_raw(path: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    if path.resolve() in seen:
        raise UsageError(f"app spec {path}: `extends` forms a cycle ({' -> '.join(str(p) for p in seen)})")
    raw = _read_yaml(path)
    # `x-` keys hold YAML anchors for reuse (`x-parts: {row: &row ...}`); they are not part of the spec.
    raw = {k: v for k, v in raw.items() if not (isinstance(k, str) and k.startswith("x-"))}
    base_name = raw.pop("extends", None)
    if base_name is None:
        return raw
    if not isinstance(base_name, str):
        raise UsageError(f"app spec {path}: `extends` must be an app name or a path, got {base_name!r}")
    base_path = _resolve(base_name) if "/" in base_name or base_name.endswith((".yaml", ".yml")) else None
    if base_path is None:
        candidate = path.parent / f"{base_name}.yaml"
        base_path = candidate if candidate.is_file() else _resolve(base_name)
    merged = _load_raw(base_path, (*seen, path.resolve()))
    patches = raw.pop("patches", None) or []
    for key, value in raw.items():
        if key in _MERGED_KEYS and isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    if not isinstance(patches, list):
        raise UsageError(f"app spec {path}: patches: must be a list of {{screen, id, ...}} mappings")
    for i, patch in enumerate(patches):
        _apply_patch(merged, patch, f"{path}: patches[{i}]")
    return merged


def _find_element(elements: list[Any], element_id: str) -> tuple[list[Any], int] | None:
    """The list holding the element with `element_id` (searching children and row templates) and its index."""
    for i, el in enumerate(elements):
        if not isinstance(el, dict):
            continue
        if el.get("id") == element_id:
            return elements, i
        nested = [el.get("children") or []] + ([[el["row"]]] if isinstance(el.get("row"), dict) else [])
        for group in nested:
            if isinstance(group, list):
                found = _find_element(group, element_id)
                if found is not None:
                    return found
    return None


def _apply_patch(raw: dict[str, Any], patch: Any, where: str) -> None:
    """Edit one element of a base spec in place: `set` keys, `move_to` another parent, `remove` it,
    or `reorder` its children by id. With `dialog:` it edits a dialog or one of its buttons instead."""
    if isinstance(patch, dict) and "dialog" in patch and "screen" in patch:
        _apply_dialog_patch(raw, patch, where)
        return
    if not isinstance(patch, dict) or "screen" not in patch or "id" not in patch:
        raise UsageError(
            f"app spec {where}: a patch needs `screen` and `id` (plus set / move_to / remove / reorder), "
            "or `screen` and `dialog` (plus `id` of a button, and set)"
        )
    unknown = set(patch) - {"screen", "id", "set", "move_to", "index", "remove", "reorder"}
    if unknown:
        raise UsageError(
            f"app spec {where}: unknown patch keys {', '.join(sorted(unknown))}; use set, move_to, index, remove, reorder"
        )
    screen = _own_screen(raw, patch, where)
    elements = screen.setdefault("elements", [])
    found = _find_element(elements, patch["id"])
    if found is None:
        raise UsageError(
            f"app spec {where}: screen {patch['screen']!r} has no element with id {patch['id']!r}"
        )
    holder, index = found
    element = holder[index]
    _set_keys(element, patch)
    if "reorder" in patch:
        order = patch["reorder"]
        children = element.get("children") or []
        by_id = {c.get("id"): c for c in children if isinstance(c, dict)}
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(map(str, by_id)):
            raise UsageError(
                f"app spec {where}: reorder must list exactly the child ids {', '.join(map(str, by_id))}"
            )
        element["children"] = [by_id[k] for k in order]
    if patch.get("remove"):
        holder.pop(index)
    elif "move_to" in patch or "index" in patch:
        target = patch.get("move_to", "screen")
        holder.pop(index)
        if target == "screen":
            dest = elements
        else:
            parent = _find_element(elements, target)
            if parent is None:
                raise UsageError(
                    f"app spec {where}: move_to: screen {patch['screen']!r} has no element with id {target!r}"
                )
            dest = parent[0][parent[1]].setdefault("children", [])
        position = patch.get("index", len(dest))
        dest.insert(position if position >= 0 else len(dest) + 1 + position, element)


def _apply_dialog_patch(raw: dict[str, Any], patch: dict[str, Any], where: str) -> None:
    """`{screen, dialog, set}` edits a dialog's keys; with `id` it edits the button with that id
    (e.g. what a confirm button does)."""
    unknown = set(patch) - {"screen", "dialog", "id", "set"}
    if unknown:
        raise UsageError(
            f"app spec {where}: unknown dialog patch keys {', '.join(sorted(unknown))}; use screen, dialog, id, set"
        )
    screen = _own_screen(raw, patch, where)
    dialogs = screen.get("dialogs") or {}
    target = dialogs.get(patch["dialog"])
    if not isinstance(target, dict):
        known = ", ".join(dialogs) or "none"
        raise UsageError(
            f"app spec {where}: screen {patch['screen']!r} has no dialog {patch['dialog']!r}; its dialogs are {known}"
        )
    if "id" in patch:
        buttons = [b for b in target.get("buttons") or [] if isinstance(b, dict)]
        ids = [str(b.get("id", "")) for b in buttons]
        if patch["id"] not in ids:
            raise UsageError(
                f"app spec {where}: dialog {patch['dialog']!r} has no button with id {patch['id']!r}; "
                f"its buttons are {', '.join(i for i in ids if i) or 'without ids'}"
            )
        target = buttons[ids.index(patch["id"])]
    _set_keys(target, patch)


def _own_screen(raw: dict[str, Any], patch: dict[str, Any], where: str) -> dict[str, Any]:
    """The patched screen of the spec, copied first: a patch must not leak into the base's other
    screens through shared YAML anchors."""
    screens = raw.get("screens") or {}
    screen = screens.get(patch["screen"])
    if not isinstance(screen, dict):
        raise UsageError(
            f"app spec {where}: unknown screen {patch['screen']!r}; screens are {', '.join(screens)}"
        )
    copied: dict[str, Any] = copy.deepcopy(screen)
    screens[patch["screen"]] = copied
    return copied


def _set_keys(target: dict[str, Any], patch: dict[str, Any]) -> None:
    """A patch's `set`: each key replaced, or removed when its value is null."""
    for key, value in (patch.get("set") or {}).items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _STEP_TYPES or part.startswith(("function-", "tagged-union")):
            continue  # discriminator tags add noise to the path
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def parse_app_spec(raw: dict[str, Any], *, source: str = "<spec>") -> AppSpec:
    """Validate a spec mapping (after `extends` merging) and check its cross-references.

    Raises:
        UsageError: listing every problem as `source: path.to.field: message`.
    """
    try:
        spec = AppSpec.model_validate(raw)
    except ValidationError as exc:
        lines = [f"app spec {source}: {_loc(e['loc'])}: {e['msg']}" for e in exc.errors()[:8]]
        if exc.error_count() > 8:
            lines.append(f"app spec {source}: ... and {exc.error_count() - 8} more problems")
        raise UsageError("\n".join(lines)) from None
    problems = _check_references(spec)
    if problems:
        raise UsageError("\n".join(f"app spec {source}: {p}" for p in problems))
    return spec


def load_app_spec(name_or_path: str | Path) -> AppSpec:
    """Load a bundled app (`demo`, `demo@v2`) or a YAML spec file.

    Raises:
        UsageError: unknown app, unreadable file, invalid YAML or an invalid spec (one line per problem).
    """
    path = _resolve(name_or_path)
    raw = _load_raw(path)
    if path.parent == APPS_DIR and "@" in path.stem:
        raw.setdefault("variant", path.stem.split("@", 1)[1])
    return parse_app_spec(raw, source=str(path))


def _walk_steps(steps: list[Any], where: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for i, step in enumerate(steps):
        out.append((f"{where}[{i}]", step))
        if isinstance(step, IfStep):
            out += _walk_steps(step.then, f"{where}[{i}].then")
            out += _walk_steps(step.else_, f"{where}[{i}].else")
    return out


def _check_references(spec: AppSpec) -> list[str]:
    problems: list[str] = []
    if spec.launch not in spec.screens:
        problems.append(f"launch: unknown screen {spec.launch!r}; screens are {', '.join(spec.screens)}")
    for name, screen in spec.screens.items():
        problems += _ScreenChecker(spec, name, screen).run()
    return problems


class _ScreenChecker:
    """Cross-reference checks for one screen: ids, fields, switches, lists and step targets."""

    def __init__(self, spec: AppSpec, name: str, screen: ScreenSpec) -> None:
        self.spec, self.name, self.screen = spec, name, screen
        self.problems: list[str] = []
        self.ids: dict[tuple[str, str], str] = {}
        self.fields: set[str] = set()
        self.actions: list[tuple[str, list[Any]]] = []

    def run(self) -> list[str]:
        name, screen = self.name, self.screen
        if screen.back_to and screen.back_to not in self.spec.screens:
            self.problems.append(f"screens.{name}.back_to: unknown screen {screen.back_to!r}")
        if screen.split is not None:
            if screen.split.primary not in self.spec.screens:
                self.problems.append(
                    f"screens.{name}.split.primary: unknown screen {screen.split.primary!r}; "
                    f"screens are {', '.join(self.spec.screens)}"
                )
            elif screen.split.primary == name:
                self.problems.append(f"screens.{name}.split.primary: a screen cannot be its own primary pane")
        for i, el in enumerate(screen.elements):
            self._visit(el, f"screens.{name}.elements[{i}]", False)
        for dname, dialog in screen.dialogs.items():
            for i, button in enumerate(dialog.buttons):
                self.actions.append((f"screens.{name}.dialogs.{dname}.buttons[{i}].on_tap", button.on_tap))
        for where, steps in self.actions:
            for swhere, step in _walk_steps(steps, where):
                self._check_step(swhere, step)
        return self.problems

    def _visit(self, el: ElementSpec, where: str, in_row: bool) -> None:
        problems = self.problems
        if el.id and not in_row:
            for platform in el.platforms:
                if (platform, el.id) in self.ids:
                    problems.append(
                        f"{where}.id: duplicate id {el.id!r} (also at {self.ids[(platform, el.id)]})"
                    )
                self.ids[(platform, el.id)] = where
        if el.role in FIELD_ROLES:
            if not el.id:
                problems.append(f"{where}: a {el.role} needs an id (its value is stored under it)")
            self.fields.add(el.id)
        if el.role == "switch" and not el.bind:
            problems.append(f"{where}: a switch needs `bind: state.NAME`")
        if el.bind and not el.bind.startswith(("state.", "screen.")):
            problems.append(f"{where}.bind: must name state.X or screen.X, got {el.bind!r}")
        if el.role == "list":
            if not el.source or el.source not in self.spec.data:
                known = ", ".join(self.spec.data) or "none"
                problems.append(
                    f"{where}.source: unknown data source {el.source!r}; data sources are {known}"
                )
            if el.row is None:
                problems.append(f"{where}: a list needs a `row` template")
            else:
                self._visit(el.row, f"{where}.row", True)
        for kind in ("on_tap", "on_long_press", "on_double_tap", "on_submit"):
            self.actions.append((f"{where}.{kind}", getattr(el, kind)))
        for i, child in enumerate(el.children):
            self._visit(child, f"{where}.children[{i}]", in_row)

    def _check_step(self, where: str, step: Any) -> None:
        screens = self.spec.screens
        if isinstance(step, (GoStep, ResetStep)):
            target = step.go if isinstance(step, GoStep) else step.reset
            if target not in screens:
                self.problems.append(f"{where}: unknown screen {target!r}; screens are {', '.join(screens)}")
        elif isinstance(step, DialogStep) and step.dialog not in self.screen.dialogs:
            self.problems.append(f"{where}: screen {self.name!r} has no dialog {step.dialog!r}")
        elif isinstance(step, (RequireStep, FocusStep, ClearStep)):
            if isinstance(step, RequireStep):
                fid = step.require
            else:
                fid = step.focus if isinstance(step, FocusStep) else step.clear
            if fid not in self.fields:
                self.problems.append(f"{where}: screen {self.name!r} has no text field {fid!r}")
        elif isinstance(step, RemoveStep) and step.remove not in self.spec.data:
            self.problems.append(f"{where}: unknown data source {step.remove!r}")
