"""Reading trail files: YAML text into the trail's models, with every problem at its `line:col`.

The reader does not stop at the first problem: it walks the whole document and reports each one
with a fix, and translates pydantic's validation errors into the same one-line messages.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ValidationError

from trailblaze.common import yaml_lines as _yaml
from trailblaze.common.yaml_lines import Path as YPath
from trailblaze.errors import Problem, TrailFileError
from trailblaze.tools.params import WRITTEN
from trailblaze.tools.registry import RECORDED_TOOL_PARAMS
from trailblaze.trail._parts import (
    ANY_CLASSIFIER,
    CLASSIFIER_RE,
    StepKind,
    ToolCall,
    TrailConfig,
    Trailhead,
    TrailStep,
    static_text,
)

__all__ = ["Contents", "read_tool", "read_trail", "step_lines"]

_TOP_KEYS = ("config", "trailhead", "trail")
_STEP_KEYS = ("step", "verify", "recording", "recordable", "maxRetries")
_TRAILHEAD_KEYS = ("step", "recording")
_V1_ITEMS = ("config", "trailhead", "prompts", "tools")


@dataclass(frozen=True)
class Contents:
    """What a valid trail file holds, and where its steps and trailhead are (for splicing edits)."""

    config: TrailConfig | None
    trailhead: Trailhead | None
    steps: list[TrailStep]
    format: Literal["unified", "v1"]
    step_paths: list[tuple[YPath, StepKind]]
    trailhead_path: YPath | None


def read_trail(text: str, path: str) -> Contents:
    """Parse and validate trail text; `path` only names the source in error messages.

    Raises:
        TrailFileError: the text is not a valid trail; lists every problem with its position.
    """
    try:
        doc = _yaml.parse_document(text)
    except _yaml.YamlSyntaxError as exc:
        raise TrailFileError(path, [Problem(p.line, p.column, p.message) for p in exc.problems]) from None
    reader = _Reader(doc)
    contents = reader.read()
    if reader.problems or contents is None:
        # dict.fromkeys, not set: drop repeats but keep the order found, so output is the same every run
        problems = sorted(dict.fromkeys(reader.problems), key=lambda p: (p.line, p.column))
        raise TrailFileError(path, problems or [Problem(1, 1, "not a trail file")])
    return contents


def step_lines(text: str) -> list[int | None]:
    """The line the trailhead (None without one) and each step start on in trail text, from one
    parse; empty when the text is not a valid trail."""
    try:
        doc = _yaml.parse_document(text)
    except _yaml.YamlSyntaxError:
        return []
    reader = _Reader(doc)
    contents = reader.read()
    if reader.problems or contents is None:
        return []
    paths = [contents.trailhead_path, *(path for path, _ in contents.step_paths)]
    return [None if p is None else doc.position(p)[0] for p in paths]


def read_tool(text: str, source: str) -> ToolCall:
    """Parse one tool in its recorded form, e.g. `inputText: {text: hello}` or `pressBack`.

    Raises:
        TrailFileError: the text is not one valid tool.
    """
    try:
        doc = _yaml.parse_document(text)
    except _yaml.YamlSyntaxError as exc:
        raise TrailFileError(source, [Problem(p.line, p.column, p.message) for p in exc.problems]) from None
    reader = _Reader(doc)
    tool = reader.tool((), doc.data)
    if reader.problems or tool is None:
        raise TrailFileError(source, reader.problems or [Problem(1, 1, "not a tool")])
    return tool


class _Reader:
    """Turns a parsed document into the contents of a trail, collecting every problem instead of stopping."""

    def __init__(self, doc: _yaml.YamlDocument) -> None:
        self.doc = doc
        self.problems: list[Problem] = [Problem(p.line, p.column, p.message) for p in doc.problems]
        self.step_paths: list[tuple[YPath, StepKind]] = []
        self.trailhead_path: YPath | None = None

    def problem(self, path: YPath, message: str, *, key: bool = False) -> None:
        line, column = self.doc.position(path, key=key)
        self.problems.append(Problem(line, column, message))

    def unknown_keys(self, path: YPath, data: dict[Any, Any], allowed: Sequence[str], where: str) -> None:
        for key in data:
            if key in allowed:
                continue
            hint = _close(str(key), allowed)
            fix = f"did you mean `{hint[0]}`?" if hint else f"expected {_one_of(allowed)}"
            self.problem((*path, key), f"unknown key `{key}` {where}; {fix}", key=True)

    def read(self) -> Contents | None:
        data = self.doc.data
        if data is None:
            self.problem((), "the file is empty; a trail needs a `trail:` list of `- step:` items")
        elif not _trail_shaped(data):
            # Say no more: its keys or text would be a file's content echoed (`validate /etc/shadow`).
            self.problems = [Problem(1, 1, _NOT_A_TRAIL)]
        elif isinstance(data, dict):
            return self.unified(data)
        else:
            return self.v1(data)
        return None

    # --- unified -------------------------------------------------------------------------------

    def unified(self, data: dict[Any, Any]) -> Contents | None:
        self.unknown_keys((), data, _TOP_KEYS, "at the top level")
        config = self.config(("config",), data["config"]) if "config" in data else None
        trailhead = None
        if "trailhead" in data:
            trailhead = self.trailhead(("trailhead",), data["trailhead"])
            self.trailhead_path = ("trailhead",)
        steps: list[TrailStep] = []
        if "trail" not in data:
            self.problem((), "missing `trail:`; add the list of steps, e.g. `trail:` then `  - step: ...`")
        else:
            value = data["trail"]
            if not isinstance(value, list):
                self.problem(("trail",), f"`trail` must be a list of `- step:` items, found {_kind(value)}")
            elif not value:
                self.problem(("trail",), "`trail` is empty; add at least one `- step:` or `- verify:` item")
            for i, item in enumerate(value if isinstance(value, list) else []):
                step = self.step(("trail", i), item, v1=False)
                if step is not None:
                    steps.append(step)
                    self.step_paths.append((("trail", i), "unified"))
        return self.build(config, trailhead, steps, "unified")

    def build(
        self,
        config: TrailConfig | None,
        trailhead: Trailhead | None,
        steps: list[TrailStep],
        fmt: Literal["unified", "v1"],
    ) -> Contents | None:
        if self.problems or not steps:
            return None
        return Contents(config, trailhead, steps, fmt, self.step_paths, self.trailhead_path)

    def config(self, path: YPath, value: Any) -> TrailConfig | None:
        if value is None:
            return TrailConfig()
        if not isinstance(value, dict):
            self.problem(
                path, f"`config` must be a mapping of settings (id, title, target, ...), found {_kind(value)}"
            )
            return None
        try:
            return TrailConfig.model_validate(value, strict=True)
        except ValidationError as exc:
            self.validation_problems(path, value, exc, TrailConfig, "config")
            return None

    def text(self, path: YPath, value: Any, key: str) -> str | None:
        if value is None or value == "":
            self.problem(path, f"`{key}:` is empty; write in plain words what the step should do")
            return None
        if not isinstance(value, str):
            self.problem(path, f"`{key}:` must be text, found {_kind(value)}; put the text in quotes")
            return None
        return value

    def step(self, path: YPath, item: Any, *, v1: bool) -> TrailStep | None:
        if not isinstance(item, dict):
            example = f"`- step: {item}`" if isinstance(item, str) else "`- step: <what to do>`"
            self.problem(
                path,
                f"a trail item is a mapping with `step:` or `verify:`, found {_kind(item)}; write {example}",
            )
            return None
        self.unknown_keys(path, item, _STEP_KEYS, "in a trail item")
        kind: Literal["step", "verify"] | None = None
        text = None
        if "step" in item and "verify" in item:
            self.problem(
                (*path, "verify"),
                "a trail item takes exactly one of `step:` and `verify:`, found both; split it into two items",
                key=True,
            )
        elif "step" not in item and "verify" not in item:
            self.problem(
                path,
                "trail item has neither `step:` nor `verify:`; add the natural-language text of the step",
            )
        else:
            kind = "step" if "step" in item else "verify"
            text = self.text((*path, kind), item[kind], kind)
        recording = None
        if "recording" in item:
            recording = self.recording((*path, "recording"), item["recording"], v1=v1)
        recordable = item.get("recordable", True)
        if not isinstance(recordable, bool):
            self.problem(
                (*path, "recordable"), f"`recordable` must be true or false, found {_kind(recordable)}"
            )
        retries = item.get("maxRetries")
        if retries is not None and (not isinstance(retries, int) or isinstance(retries, bool) or retries < 0):
            self.problem(
                (*path, "maxRetries"), f"`maxRetries` must be a whole number ≥ 0, found {_kind(retries)}"
            )
        if kind is None or text is None:
            return None
        return TrailStep.model_construct(
            kind=kind,
            text=text,
            recording=recording,
            recordable=recordable is not False,
            max_retries=retries if isinstance(retries, int) and not isinstance(retries, bool) else None,
            static=False,
        )

    def recording(self, path: YPath, value: Any, *, v1: bool) -> dict[str, list[ToolCall]] | None:
        if value is None:
            return None
        if v1:
            if not isinstance(value, dict) or set(value) != {"tools"}:
                self.problem(
                    path,
                    "in a v1 (list) trail a recording is `recording:` then `tools:` with a list of tools",
                )
                return None
            tools = self.tool_list((*path, "tools"), value["tools"], "tools")
            return None if tools is None else {ANY_CLASSIFIER: tools}
        if not isinstance(value, dict):
            self.problem(
                path,
                f"`recording` must map a device classifier to a list of tools, e.g. `recording: {{android: [...]}}`, found {_kind(value)}",
            )
            return None
        out: dict[str, list[ToolCall]] = {}
        for classifier, tools_value in value.items():
            if not self.classifier((*path, classifier), classifier):
                continue
            tools = self.tool_list((*path, classifier), tools_value, classifier)
            if tools is not None:
                out[classifier] = tools
        return out

    def classifier(self, path: YPath, classifier: Any) -> bool:
        if classifier == "tools":
            self.problem(
                path,
                "`recording: tools:` is the v1 format; in this file put the tools under a device classifier, "
                "e.g. `recording:` then `  android:`",
                key=True,
            )
            return False
        if not isinstance(classifier, str) or not CLASSIFIER_RE.match(classifier):
            self.problem(
                path,
                f"`{classifier}` is not a device classifier; use lower-case words joined by '-', "
                "e.g. android, android-phone, ios-iphone",
                key=True,
            )
            return False
        return True

    def tool_list(self, path: YPath, value: Any, key: str) -> list[ToolCall] | None:
        if value is None:
            self.problem(
                path, f"`{key}:` has no tools; write `{key}: []` for a deliberate no-op or list the tools"
            )
            return None
        if not isinstance(value, list):
            self.problem(
                path, f"`{key}:` must be a list of tools (`- toolName: {{params}}`), found {_kind(value)}"
            )
            return None
        tools = [self.tool((*path, i), item) for i, item in enumerate(value)]
        return [t for t in tools if t is not None]

    def tool(self, path: YPath, item: Any) -> ToolCall | None:
        params: Any
        if isinstance(item, str) and item:
            name, params = item, {}
        elif isinstance(item, dict) and len(item) == 1:
            name, params = next(iter(item.items()))
            if not isinstance(name, str) or not name:
                self.problem(path, f"a tool name must be text, found {_kind(name)}")
                return None
            if params is None:
                params = {}
            elif not isinstance(params, dict):
                self.problem(
                    (*path, name),
                    f"the params of `{name}` must be a mapping, e.g. `{name}: {{key: value}}`, found {_kind(params)}",
                )
                return None
        elif isinstance(item, dict) and item:
            keys = ", ".join(str(k) for k in item)
            self.problem(
                path,
                f"a tool is a single-key map `- toolName: {{params}}`, found {len(item)} keys ({keys}); "
                "indent the params under the tool name",
            )
            return None
        else:
            self.problem(path, f"a tool is a single-key map `- toolName: {{params}}`, found {_kind(item)}")
            return None
        known = RECORDED_TOOL_PARAMS.get(name)
        validated = None
        if known is not None:
            try:
                validated = known.model_validate(params, strict=True, context={WRITTEN: True})
            except ValidationError as exc:
                self.validation_problems((*path, name), params, exc, known, f"`{name}`")
                return None
        return ToolCall.read(name, params, validated)

    def trailhead(self, path: YPath, value: Any, *, v1: bool = False) -> Trailhead | None:
        if not isinstance(value, dict):
            self.problem(
                path, f"`trailhead` must be a mapping with `step:` and `recording:`, found {_kind(value)}"
            )
            return None
        self.unknown_keys(path, value, _TRAILHEAD_KEYS, "in the trailhead")
        if "step" not in value:
            self.problem(path, "the trailhead has no `step:`; add the natural-language text of the set-up")
            return None
        text = self.text((*path, "step"), value["step"], "step")
        recording: dict[str, ToolCall] | None = None
        raw = value.get("recording")
        rpath = (*path, "recording")
        if raw is not None and v1:
            tools = self.recording(rpath, raw, v1=True)
            if tools is not None:
                if len(tools[ANY_CLASSIFIER]) != 1:
                    self.problem(rpath, "a trailhead records exactly one tool; keep one under `tools:`")
                else:
                    recording = {ANY_CLASSIFIER: tools[ANY_CLASSIFIER][0]}
        elif raw is not None:
            if not isinstance(raw, dict):
                self.problem(
                    rpath,
                    f"the trailhead `recording` maps a classifier to ONE tool, e.g. `android: {{launchApp: ...}}`, found {_kind(raw)}",
                )
            else:
                recording = {}
                for classifier, tool_value in raw.items():
                    cpath = (*rpath, classifier)
                    if not self.classifier(cpath, classifier):
                        continue
                    if isinstance(tool_value, list):
                        self.problem(
                            cpath,
                            "a trailhead records ONE tool per classifier as a map, not a list; remove the `- `",
                        )
                        continue
                    tool = self.tool(cpath, tool_value)
                    if tool is not None:
                        recording[classifier] = tool
        if text is None:
            return None
        return Trailhead.model_construct(text=text, recording=recording)

    # --- v1 ------------------------------------------------------------------------------------

    def v1(self, data: list[Any]) -> Contents | None:
        config: TrailConfig | None = None
        trailhead: Trailhead | None = None
        steps: list[TrailStep] = []
        for i, item in enumerate(data):
            if not isinstance(item, dict) or len(item) != 1:
                self.problem(
                    (i,),
                    "a v1 trail item is a single-key map: `- config:`, `- prompts:`, `- tools:` or `- trailhead:`",
                )
                continue
            key, value = next(iter(item.items()))
            path = (i, key)
            if key == "config":
                config = self.config(path, value)
            elif key == "trailhead":
                trailhead = self.trailhead(path, value, v1=True)
                self.trailhead_path = path
            elif key == "prompts":
                if not isinstance(value, list) or not value:
                    self.problem(path, "`prompts` must be a non-empty list of `- step:` / `- verify:` items")
                    continue
                for j, prompt in enumerate(value):
                    step = self.step((*path, j), prompt, v1=True)
                    if step is not None:
                        steps.append(step)
                        self.step_paths.append(((*path, j), "v1-prompt"))
            elif key == "tools":
                tools = self.tool_list(path, value, "tools")
                if tools is not None:
                    steps.append(
                        TrailStep.model_construct(
                            kind="step",
                            text=static_text(tools),
                            recording={ANY_CLASSIFIER: tools},
                            recordable=True,
                            max_retries=None,
                            static=True,
                        )
                    )
                    self.step_paths.append(((i,), "v1-tools"))
            elif key == "maestro":
                self.problem(
                    path,
                    "the deprecated `- maestro:` block is not supported; rewrite its commands as `- tools:`",
                    key=True,
                )
            else:
                self.problem(path, f"unknown v1 trail item `{key}`; expected {_one_of(_V1_ITEMS)}", key=True)
        if not steps and not self.problems:
            self.problem((), "the trail has no steps; add a `- prompts:` item with at least one `- step:`")
        return self.build(config, trailhead, steps, "v1")

    # --- pydantic errors -----------------------------------------------------------------------

    def validation_problems(
        self, base: YPath, data: Any, exc: ValidationError, model: type[BaseModel], owner: str
    ) -> None:
        for error in exc.errors(include_url=False):
            path, names = _locate(base, data, error["loc"])
            is_key = error["type"] == "extra_forbidden"
            self.problem(path, _describe(error, names, model, owner), key=is_key)


def _locate(base: YPath, data: Any, loc: Iterable[int | str]) -> tuple[YPath, list[str | int]]:
    """Map a pydantic error location onto the YAML path, skipping union tags and missing names."""
    path = list(base)
    names: list[str | int] = []
    current = data
    for part in loc:
        if isinstance(current, dict) and part in current:
            path.append(part)
            names.append(part)
            current = current[part]
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            path.append(part)
            names.append(part)
            current = current[part]
        elif isinstance(part, str) and not any(c in part for c in "[]( ,"):
            names.append(part)  # a field that is missing from the data
            current = None
    return tuple(path), names


def _field_models(model: type[BaseModel], names: Sequence[str | int]) -> type[BaseModel] | None:
    """The nested model reached by following field names (list indexes skipped)."""
    current: type[BaseModel] | None = model
    for name in names:
        if isinstance(name, int) or current is None:
            continue
        field = current.model_fields.get(name)
        current = _model_in(field.annotation) if field is not None else None
    return current


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if get_origin(annotation) is not None or get_args(annotation):
        for arg in get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None


_TYPE_WORDS = {
    "string_type": "text",
    "int_type": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
}


def _describe(error: Any, names: list[str | int], model: type[BaseModel], owner: str) -> str:
    kind = error["type"]
    where = ".".join(str(n) for n in names)
    field = f"`{where}`" if where else owner
    found = error.get("input")
    context = error.get("ctx") or {}
    if kind == "missing":
        return f"{owner} is missing `{where}`; add it"
    if kind == "extra_forbidden":
        parent = _field_models(model, names[:-1])
        allowed = list(parent.model_fields) if parent is not None else []
        key = str(names[-1]) if names else "?"
        hint = _close(key, allowed)
        fix = f"did you mean `{hint[0]}`?" if hint else f"expected {_one_of(allowed)}"
        inner = ".".join(str(n) for n in names[:-1])
        scope = f"`{inner}` of {owner}" if inner else owner
        return f"unknown key `{key}` in {scope}; {fix}"
    if kind == "literal_error":
        expected = str(context.get("expected", "")).replace("'", "")
        return f"{field} in {owner} must be one of {expected}, found {found!r}"
    if kind in _TYPE_WORDS:
        quote = "; put it in quotes" if kind == "string_type" and not isinstance(found, dict | list) else ""
        return f"{field} in {owner} must be {_TYPE_WORDS[kind]}, found {_kind(found)}{quote}"
    if kind == "greater_than_equal":
        return f"{field} in {owner} must be ≥ {context.get('ge')}, found {found!r}"
    if kind == "less_than_equal":
        return f"{field} in {owner} must be ≤ {context.get('le')}, found {found!r}"
    if kind == "string_too_short":
        return f"{field} in {owner} must not be empty"
    if kind == "value_error":
        message = str(error["msg"]).removeprefix("Value error, ")
        return f"{field} in {owner}: {message}" if where else f"{owner}: {message}"
    return f"{field} in {owner}: {error['msg']}"


_NOT_A_TRAIL = (
    "not a trail file: a trail file is a mapping with `config`, `trailhead` and `trail` "
    "(or a v1 list of `- config:` / `- prompts:` / `- tools:` / `- trailhead:` items)"
)
_V1_KEYS = ("config", "prompts", "tools", "trailhead")


def _trail_shaped(data: Any) -> bool:
    """Whether the document looks like a trail at all: a top-level key of one (or a near miss, so a
    typo still gets its did-you-mean), or a v1 list with such an item. Anything else is some other
    file, and its problems are not listed."""
    if isinstance(data, dict):
        return _names_some(data, _TOP_KEYS)
    if isinstance(data, list):
        return any(isinstance(item, dict) and _names_some(item, _V1_KEYS) for item in data)
    return False


def _names_some(data: dict[Any, Any], names: Sequence[str]) -> bool:
    return any(key in names or _close(str(key), names, cutoff=0.75) for key in data)


def _close(word: str, names: Sequence[str], cutoff: float = 0.6) -> list[str]:
    """The one name of `names` closest to `word`, if any is close enough (a did-you-mean)."""
    import difflib  # for a did-you-mean only: not imported at start-up

    return difflib.get_close_matches(word, names, n=1, cutoff=cutoff)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int | float):
        return f"the number {value}"
    text = str(value)
    return f"the text {text[:40]!r}" if len(text) <= 40 else f"the text {text[:37]!r}..."


def _one_of(names: Sequence[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]
