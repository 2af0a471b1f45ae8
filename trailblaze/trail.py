"""The trail file: load, validate, edit and save `.trail.yaml` files (DESIGN §3).

The unified format (a mapping with `config`, `trailhead`, `trail`) is the one we write; the older v1
list format (`- config:`, `- prompts:`, `- tools:`, `- trailhead:`) is read into the same model and
edited in place. Every problem a file has is reported at once as `path:line:col: message`.

Saving keeps the file's own bytes: an unchanged trail saves byte-identical, and `set_recording`
rewrites only the one `recording:` entry it changes (see `trailblaze._yaml`). A trail changed in any
other way is written fresh in clean block style (comments are then lost). Writes are atomic.
"""

from __future__ import annotations

import copy
import difflib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator
from yaml.nodes import MappingNode, SequenceNode

from trailblaze import _yaml
from trailblaze._files import atomic_write
from trailblaze.errors import Problem, TrailFileError, UsageError
from trailblaze.recorded_tools import RECORDED_TOOL_PARAMS, RecordedToolParams

__all__ = [
    "ANY_CLASSIFIER",
    "ToolCall",
    "Trail",
    "TrailConfig",
    "TrailStep",
    "Trailhead",
    "classifier_lineage",
    "find_trail_files",
    "load_trail",
    "loads_trail",
    "parse_tool",
    "save_trail",
]

ANY_CLASSIFIER = "*"
"""The classifier of v1 recordings: a v1 file is written for one device, so its tools apply to any."""

_LONE_LF = re.compile(r"(?<!\r)\n")
_CLASSIFIER_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_TOP_KEYS = ("config", "trailhead", "trail")
_STEP_KEYS = ("step", "verify", "recording", "recordable", "maxRetries")
_TRAILHEAD_KEYS = ("step", "recording")
_V1_ITEMS = ("config", "trailhead", "prompts", "tools")

_YPath = tuple[str | int, ...]
_StepKind = Literal["unified", "v1-prompt", "v1-tools"]


def classifier_lineage(classifier: str) -> list[str]:
    """The classifiers to try for a device, closest first: `android-phone` → `android-phone`, `android`."""
    parts = classifier.split("-")
    return ["-".join(parts[:n]) for n in range(len(parts), 0, -1)]


# --- model ----------------------------------------------------------------------------------------


class ToolCall(BaseModel):
    """One recorded tool: `{name: params}` in the file.

    `params` is kept exactly as written (templates such as `{{email}}` included); known tools are
    validated against `trailblaze.recorded_tools.RECORDED_TOOL_PARAMS` on construction.
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_params(self) -> ToolCall:
        known = RECORDED_TOOL_PARAMS.get(self.name)
        if known is not None:
            known.model_validate(self.params, strict=True)
        return self

    @property
    def model(self) -> RecordedToolParams | None:
        """The typed params for a known tool, None for a custom tool."""
        known = RECORDED_TOOL_PARAMS.get(self.name)
        return None if known is None else known.model_validate(self.params, strict=True)

    @classmethod
    def from_params(cls, params: RecordedToolParams) -> ToolCall:
        """The call for typed params, written without defaults (what the recorder stores)."""
        return cls(name=params.tool_name, params=params.to_params())

    def to_data(self) -> dict[str, Any]:
        """The single-key map written into a recording."""
        return {self.name: copy.deepcopy(self.params)}

    def to_yaml(self) -> str:
        """The tool as block YAML (`name:` then its params), e.g. for logs or `trailblaze tool`."""
        return _yaml.dump_block(self.to_data())

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params.items() if k != "reason")
        return f"{self.name}({inner})"


class TrailConfig(BaseModel):
    """The optional `config:` section; every field may be omitted."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(default=None, description="Stable identifier of the trail, e.g. `demo/login`.")
    title: str | None = Field(default=None, description="Human-readable title.")
    description: str | None = Field(default=None, description="What the trail checks.")
    target: str | None = Field(
        default=None, description="App id / bundle id (or Trailblaze target) under test."
    )
    tags: list[str] | None = Field(default=None, description="Tags used to select trails.")
    context: str | None = Field(default=None, description="Free text appended to the agent's system prompt.")
    memory: dict[str, str] | None = Field(
        default=None, description="Initial memory for `{{name}}` templates."
    )
    args: dict[str, Any] | None = Field(default=None, description="Declared arguments (`{{args.name}}`).")
    skip: bool | str | dict[str, str] | None = Field(
        default=None, description="Skip the trail: true, a reason, or a map classifier → reason."
    )
    priority: str | int | None = Field(default=None, description="Informational priority.")
    devices: dict[str, str] | None = Field(default=None, description="Map classifier → driver (Trailblaze).")
    metadata: dict[str, Any] | None = Field(default=None, description="Informational only.")
    platform: str | None = Field(default=None, description="v1 field, tolerated.")
    driver: str | None = Field(default=None, description="v1 field, tolerated.")
    source: Any = Field(default=None, description="v1 field, tolerated.")


class TrailStep(BaseModel):
    """One `- step:` / `- verify:` item and its per-classifier recordings.

    `recording` has three states: None (never recorded: the agent solves the step), a classifier
    mapped to `[]` (a deliberate no-op) and a non-empty list (replayed in order).
    """

    kind: Literal["step", "verify"] = "step"
    text: str = Field(min_length=1)
    recording: dict[str, list[ToolCall]] | None = None
    recordable: bool = True
    max_retries: int | None = Field(default=None, ge=0)
    static: bool = False
    """A v1 `- tools:` block: no NL of its own, its tools (under `*`) apply to every device."""

    def recording_for(self, classifier: str) -> list[ToolCall] | None:
        """The tools recorded for a device classifier, closest first (`android-phone`, `android`, `*`).

        Returns None when nothing applies (the agent solves the step); `[]` is a deliberate no-op.
        """
        if self.recording is None:
            return None
        for candidate in (*classifier_lineage(classifier), ANY_CLASSIFIER):
            if candidate in self.recording:
                return self.recording[candidate]
        return None


class Trailhead(BaseModel):
    """The deterministic "step 0": one tool per classifier that brings the app to the start state."""

    text: str = Field(min_length=1)
    recording: dict[str, ToolCall] | None = None

    def recording_for(self, classifier: str) -> ToolCall | None:
        """The trailhead tool for a device classifier, closest first; None when nothing applies."""
        if self.recording is None:
            return None
        for candidate in (*classifier_lineage(classifier), ANY_CLASSIFIER):
            if candidate in self.recording:
                return self.recording[candidate]
        return None


class Trail(BaseModel):
    """A loaded trail file. Equality compares content only, not the text it came from."""

    config: TrailConfig | None = None
    trailhead: Trailhead | None = None
    steps: list[TrailStep] = Field(min_length=1)
    format: Literal["unified", "v1"] = "unified"

    _source: str | None = PrivateAttr(default=None)
    _snapshot: Any = PrivateAttr(default=None)
    _path: str | None = PrivateAttr(default=None)
    _step_paths: list[tuple[_YPath, _StepKind]] = PrivateAttr(default_factory=list)
    _trailhead_path: _YPath | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trail):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    @property
    def path(self) -> str | None:
        """The file this trail was loaded from or last saved to."""
        return self._path

    @property
    def source_text(self) -> str | None:
        """The text of the file as loaded (after splices), None for a trail built in code."""
        return self._source

    def to_yaml(self) -> str:
        """The file text: the original bytes when unchanged, else a fresh block-style rendering."""
        if self._source is not None and self._snapshot == self.model_dump():
            return self._source
        return _render(self)

    def save(self, path: str | os.PathLike[str] | None = None) -> None:
        """Write the trail atomically (to `path`, or back to the file it came from)."""
        save_trail(self, path)

    def set_recording(self, step_index: int, classifier: str, tools: Sequence[ToolCall]) -> None:
        """Record `tools` for one classifier of one step; the file text changes only there.

        In a v1 file (one file per device) the classifier is not written: the step's
        `recording: tools:` is replaced.

        Raises:
            IndexError: no such step.
            UsageError: the classifier is not a valid name.
        """
        step = self.steps[step_index]
        key = self._recording_key(classifier)
        in_sync = self._in_sync()
        recording = dict(step.recording or {})
        recording[key] = list(tools)
        step.recording = recording
        if step.static:
            step.text = _static_text(tools)
        if in_sync:
            path, kind = self._step_paths[step_index]
            data = [tool.to_data() for tool in tools]
            self._splice(lambda doc: _splice_recording(doc, path, kind, key, data))

    def set_trailhead_recording(self, classifier: str, tool: ToolCall) -> None:
        """Record the trailhead tool for one classifier; the file text changes only there.

        Raises:
            UsageError: the trail has no trailhead, or the classifier is not a valid name.
        """
        if self.trailhead is None:
            raise UsageError("this trail has no `trailhead:`; add one before recording it")
        key = self._recording_key(classifier)
        in_sync = self._in_sync()
        recording = dict(self.trailhead.recording or {})
        recording[key] = tool
        self.trailhead.recording = recording
        if in_sync and self._trailhead_path is not None:
            path = self._trailhead_path
            if self.format == "v1":
                data: Any = [tool.to_data()]
                self._splice(lambda doc: _splice_recording(doc, path, "v1-prompt", "tools", data))
            else:
                data = tool.to_data()
                self._splice(lambda doc: _splice_recording(doc, path, "unified", key, data))

    # --- private -------------------------------------------------------------------------------

    def _recording_key(self, classifier: str) -> str:
        if self.format == "v1":
            return ANY_CLASSIFIER
        if not _CLASSIFIER_RE.match(classifier):
            raise UsageError(
                f"'{classifier}' is not a device classifier; use lower-case words joined by '-', e.g. android-phone"
            )
        return classifier

    def _in_sync(self) -> bool:
        return self._source is not None and self._snapshot == self.model_dump()

    def _attach(
        self,
        text: str,
        path: str | None,
        step_paths: list[tuple[_YPath, _StepKind]],
        trailhead_path: _YPath | None,
    ) -> None:
        self._source = text
        self._snapshot = self.model_dump()
        self._path = path
        self._step_paths = step_paths
        self._trailhead_path = trailhead_path

    def _splice(self, edit: Callable[[_yaml.YamlDocument], str]) -> None:
        """Apply a text edit; keep it only if the edited text loads back as exactly this trail."""
        assert self._source is not None
        try:
            text = edit(_yaml.parse_document(self._source))
            if "\r\n" in self._source and not _LONE_LF.search(self._source):
                text = _LONE_LF.sub("\r\n", text)  # keep a Windows file's line endings
            again = loads_trail(text, self._path or "<string>")
        except (TrailFileError, _yaml.YamlSyntaxError):
            again = None
        if again is not None and again == self:
            self._attach(text, self._path, again._step_paths, again._trailhead_path)
        else:  # the edit could not be expressed in place (e.g. flow style); render the file fresh
            self._source = None
            self._snapshot = None


def _static_text(tools: Sequence[ToolCall]) -> str:
    return "Run recorded tools: " + (", ".join(t.name for t in tools) or "nothing")


def _splice_recording(
    doc: _yaml.YamlDocument, step_path: _YPath, kind: _StepKind, key: str, value: Any
) -> str:
    if kind == "v1-tools":
        return _set_entry(doc, step_path, "tools", value)
    if kind == "v1-prompt":
        key = "tools"
    recording_path = (*step_path, "recording")
    recording = doc.node(recording_path)
    if isinstance(recording, MappingNode):
        return _set_entry(doc, recording_path, key, value)
    return _set_entry(doc, step_path, "recording", {key: value})


def _set_entry(doc: _yaml.YamlDocument, map_path: _YPath, key: str, value: Any) -> str:
    """Set `key` in the mapping at `map_path`, touching no other bytes when it is in block style."""
    text = doc.text
    mapping = doc.node(map_path)
    if isinstance(mapping, MappingNode) and not mapping.flow_style and mapping.value:
        key_node = doc.key_node((*map_path, key))
        value_node = doc.node((*map_path, key))
        if key_node is not None and value_node is not None:
            return _yaml.replace_entry(text, key_node, value_node, key, value)
        return _yaml.insert_entry(text, mapping, key, value)
    # A flow collection cannot hold block text: rewrite its outermost flow ancestor in block style.
    top = map_path
    while top and _is_flow(doc.node(top[:-1])):
        top = top[:-1]
    merged = copy.deepcopy(_data_at(doc.data, top))
    inner = _data_at(merged, map_path[len(top) :]) if map_path[len(top) :] else merged
    if not isinstance(inner, dict):  # `recording:` written as null
        inner = {}
        if top == map_path:
            merged = inner
        else:
            _data_at(merged, map_path[len(top) : -1])[map_path[-1]] = inner
    inner[key] = value
    node = doc.node(top)
    parent_key = doc.key_node(top)
    assert node is not None
    if parent_key is not None:
        return _yaml.replace_entry(text, parent_key, node, str(top[-1]), merged)
    return _yaml.replace_node(text, node, merged)


def _is_flow(node: Any) -> bool:
    return isinstance(node, MappingNode | SequenceNode) and bool(node.flow_style)


def _data_at(data: Any, path: _YPath) -> Any:
    for part in path:
        data = data[part]
    return data


# --- rendering ------------------------------------------------------------------------------------


def _step_data(step: TrailStep, v1: bool) -> dict[str, Any]:
    data: dict[str, Any] = {step.kind: step.text}
    if step.recording is not None:
        if v1:
            data["recording"] = {"tools": [t.to_data() for t in _v1_tools(step.recording)]}
        else:
            data["recording"] = {c: [t.to_data() for t in tools] for c, tools in step.recording.items()}
    if not step.recordable:
        data["recordable"] = False
    if step.max_retries is not None:
        data["maxRetries"] = step.max_retries
    return data


def _v1_tools(recording: dict[str, Any]) -> Any:
    if ANY_CLASSIFIER in recording:
        return recording[ANY_CLASSIFIER]
    if len(recording) == 1:
        return next(iter(recording.values()))
    raise UsageError(
        "a v1 trail holds one recording per step, this step has several classifiers; "
        "set `trail.format = 'unified'` before saving"
    )


def _trailhead_data(trailhead: Trailhead, v1: bool) -> dict[str, Any]:
    data: dict[str, Any] = {"step": trailhead.text}
    if trailhead.recording is not None:
        if v1:
            data["recording"] = {"tools": [_v1_tools(trailhead.recording).to_data()]}
        else:
            data["recording"] = {c: t.to_data() for c, t in trailhead.recording.items()}
    return data


def _config_data(config: TrailConfig) -> dict[str, Any]:
    return {k: v for k, v in config.model_dump().items() if v is not None}


def _render(trail: Trail) -> str:
    if trail.format == "v1":
        return _render_v1(trail)
    for step in trail.steps:
        if step.static or (step.recording and ANY_CLASSIFIER in step.recording):
            raise UsageError(
                "a v1 `- tools:` step has no place in a unified trail; give it a `step:` text first"
            )
    parts = []
    if trail.config is not None:
        parts.append(_yaml.dump_block({"config": _config_data(trail.config)}))
    if trail.trailhead is not None:
        parts.append(_yaml.dump_block({"trailhead": _trailhead_data(trail.trailhead, v1=False)}))
    items = [_yaml.dump_block([_step_data(step, v1=False)], 2) for step in trail.steps]
    parts.append("trail:\n" + "\n".join(items))
    return "\n".join(parts)


def _render_v1(trail: Trail) -> str:
    items: list[dict[str, Any]] = []
    if trail.config is not None:
        items.append({"config": _config_data(trail.config)})
    if trail.trailhead is not None:
        items.append({"trailhead": _trailhead_data(trail.trailhead, v1=True)})
    prompts: list[dict[str, Any]] | None = None
    for step in trail.steps:
        if step.static:
            items.append({"tools": [t.to_data() for t in _v1_tools(step.recording or {})]})
            prompts = None
            continue
        if prompts is None:
            prompts = []
            items.append({"prompts": prompts})
        prompts.append(_step_data(step, v1=True))
    return _yaml.dump_block(items)


# --- loading --------------------------------------------------------------------------------------


def load_trail(path: str | os.PathLike[str]) -> Trail:
    """Load and validate a trail file.

    Raises:
        UsageError: the file cannot be read.
        TrailFileError: the file is not a valid trail; lists every problem with its position.
    """
    name = os.fspath(path)
    try:
        raw = Path(name).read_bytes()
    except FileNotFoundError:
        raise UsageError(f"no such trail file: {name}") from None
    except OSError as exc:
        raise UsageError(f"cannot read trail file {name}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrailFileError(
            name, [Problem(1, 1, f"not UTF-8 text ({exc.reason}); save the file as UTF-8")]
        ) from None
    return loads_trail(text, name)


def loads_trail(text: str, path: str = "<string>") -> Trail:
    """Parse and validate trail text; `path` only names the source in error messages.

    Raises:
        TrailFileError: the text is not a valid trail; lists every problem with its position.
    """
    try:
        doc = _yaml.parse_document(text)
    except _yaml.YamlSyntaxError as exc:
        raise TrailFileError(path, [Problem(p.line, p.column, p.message) for p in exc.problems]) from None
    reader = _Reader(doc)
    trail = reader.read()
    if reader.problems or trail is None:
        problems = sorted(set(reader.problems), key=lambda p: (p.line, p.column))
        raise TrailFileError(path, problems or [Problem(1, 1, "not a trail file")])
    trail._attach(text, None if path == "<string>" else path, reader.step_paths, reader.trailhead_path)
    return trail


def is_trail_file(path: Path) -> bool:
    """Whether a file name is a trail's: `*.trail.yaml` or `trail.yaml`."""
    return path.name == "trail.yaml" or path.name.endswith(".trail.yaml")


def find_trail_files(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[str]]:
    """The trail files named by `paths` (folders searched recursively, sorted) and the paths that do not exist.

    A file named explicitly is taken whatever its name; hidden folders are skipped.
    """
    found: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for candidate in sorted(path.rglob("*.yaml")):
                hidden = any(part.startswith(".") for part in candidate.relative_to(path).parts[:-1])
                if candidate.is_file() and is_trail_file(candidate) and not hidden:
                    found.append(candidate)
        elif path.is_file():
            found.append(path)
        else:
            missing.append(os.fspath(raw))
    unique = list(dict.fromkeys(found))
    return unique, missing


def parse_tool(text: str, source: str = "<tool>") -> ToolCall:
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


def save_trail(trail: Trail, path: str | os.PathLike[str] | None = None) -> None:
    """Write `trail` atomically: a temp file in the same directory, fsync, then rename over the target.

    Raises:
        UsageError: no path was given and the trail was not loaded from a file, or the write failed.
    """
    target = os.fspath(path) if path is not None else trail.path
    if target is None:
        raise UsageError("this trail was not loaded from a file; give a path to save it to")
    text = trail.to_yaml()
    _atomic_write(target, text.encode("utf-8"))
    trail._path = target


def _atomic_write(target: str, data: bytes) -> None:
    try:
        atomic_write(target, data)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None


class _Reader:
    """Turns a parsed document into a `Trail`, collecting every problem instead of stopping."""

    def __init__(self, doc: _yaml.YamlDocument) -> None:
        self.doc = doc
        self.problems: list[Problem] = [Problem(p.line, p.column, p.message) for p in doc.problems]
        self.step_paths: list[tuple[_YPath, _StepKind]] = []
        self.trailhead_path: _YPath | None = None

    def problem(self, path: _YPath, message: str, *, key: bool = False) -> None:
        line, column = self.doc.position(path, key=key)
        self.problems.append(Problem(line, column, message))

    def unknown_keys(self, path: _YPath, data: dict[Any, Any], allowed: Sequence[str], where: str) -> None:
        for key in data:
            if key in allowed:
                continue
            hint = difflib.get_close_matches(str(key), allowed, n=1)
            fix = f"did you mean `{hint[0]}`?" if hint else f"expected {_one_of(allowed)}"
            self.problem((*path, key), f"unknown key `{key}` {where}; {fix}", key=True)

    def read(self) -> Trail | None:
        data = self.doc.data
        if isinstance(data, dict):
            return self.unified(data)
        if isinstance(data, list):
            return self.v1(data)
        if data is None:
            self.problem((), "the file is empty; a trail needs a `trail:` list of `- step:` items")
        else:
            self.problem(
                (), f"a trail file is a mapping with `config`, `trailhead` and `trail`, found {_kind(data)}"
            )
        return None

    # --- unified -------------------------------------------------------------------------------

    def unified(self, data: dict[Any, Any]) -> Trail | None:
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
    ) -> Trail | None:
        if self.problems or not steps:
            return None
        return Trail.model_construct(config=config, trailhead=trailhead, steps=steps, format=fmt)

    def config(self, path: _YPath, value: Any) -> TrailConfig | None:
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

    def text(self, path: _YPath, value: Any, key: str) -> str | None:
        if value is None or value == "":
            self.problem(path, f"`{key}:` is empty; write in plain words what the step should do")
            return None
        if not isinstance(value, str):
            self.problem(path, f"`{key}:` must be text, found {_kind(value)}; put the text in quotes")
            return None
        return value

    def step(self, path: _YPath, item: Any, *, v1: bool) -> TrailStep | None:
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

    def recording(self, path: _YPath, value: Any, *, v1: bool) -> dict[str, list[ToolCall]] | None:
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

    def classifier(self, path: _YPath, classifier: Any) -> bool:
        if classifier == "tools":
            self.problem(
                path,
                "`recording: tools:` is the v1 format; in this file put the tools under a device classifier, "
                "e.g. `recording:` then `  android:`",
                key=True,
            )
            return False
        if not isinstance(classifier, str) or not _CLASSIFIER_RE.match(classifier):
            self.problem(
                path,
                f"`{classifier}` is not a device classifier; use lower-case words joined by '-', "
                "e.g. android, android-phone, ios-iphone",
                key=True,
            )
            return False
        return True

    def tool_list(self, path: _YPath, value: Any, key: str) -> list[ToolCall] | None:
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

    def tool(self, path: _YPath, item: Any) -> ToolCall | None:
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
        if known is not None:
            try:
                known.model_validate(params, strict=True)
            except ValidationError as exc:
                self.validation_problems((*path, name), params, exc, known, f"`{name}`")
                return None
        return ToolCall.model_construct(name=name, params=params)

    def trailhead(self, path: _YPath, value: Any, *, v1: bool = False) -> Trailhead | None:
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

    def v1(self, data: list[Any]) -> Trail | None:
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
                            text=_static_text(tools),
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
        self, base: _YPath, data: Any, exc: ValidationError, model: type[BaseModel], owner: str
    ) -> None:
        for error in exc.errors(include_url=False):
            path, names = _locate(base, data, error["loc"])
            is_key = error["type"] == "extra_forbidden"
            self.problem(path, _describe(error, names, model, owner), key=is_key)


def _locate(base: _YPath, data: Any, loc: Iterable[int | str]) -> tuple[_YPath, list[str | int]]:
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
        hint = difflib.get_close_matches(key, allowed, n=1)
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
        return f"{field} in {owner}: {message}"
    return f"{field} in {owner}: {error['msg']}"


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
