"""The parts of a trail file as pydantic models: recorded tools, steps, the trailhead and `config:`.

`trailblaze.trail` assembles them into a `Trail` and is where they are imported from; they live here
so that the reader and the writer can use them without importing the module that uses the reader
and the writer (the import graph stays acyclic).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Container, Mapping, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from trailblaze import _yaml
from trailblaze.tool_params import RecordedToolParams
from trailblaze.toolset.registry import RECORDED_TOOL_PARAMS

__all__ = [
    "ANY_CLASSIFIER",
    "CLASSIFIER_RE",
    "StepKind",
    "ToolCall",
    "TrailConfig",
    "TrailStep",
    "Trailhead",
    "classifier_lineage",
    "closest_classifier",
    "static_text",
]

ANY_CLASSIFIER = "*"
"""The classifier of v1 recordings: a v1 file is written for one device, so its tools apply to any."""

CLASSIFIER_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

_T = TypeVar("_T")

StepKind = Literal["unified", "v1-prompt", "v1-tools"]
"""How a step is written: a unified `trail:` item, a v1 `- prompts:` item or a v1 `- tools:` block."""


def classifier_lineage(classifier: str) -> list[str]:
    """The classifiers to try for a device, closest first: `android-phone` → `android-phone`, `android`."""
    parts = classifier.split("-")
    return ["-".join(parts[:n]) for n in range(len(parts), 0, -1)]


def closest_classifier(keys: Container[str] | None, classifier: str) -> str | None:
    """The entry of `keys` a device with `classifier` uses: the closest in its lineage, else `*`."""
    if keys is None:
        return None
    for candidate in (*classifier_lineage(classifier), ANY_CLASSIFIER):
        if candidate in keys:
            return candidate
    return None


def _closest(recording: Mapping[str, _T] | None, classifier: str) -> _T | None:
    key = closest_classifier(recording, classifier)
    return None if key is None or recording is None else recording[key]


def static_text(tools: Sequence[ToolCall]) -> str:
    """The step text given to a v1 `- tools:` block, which has no text of its own."""
    return "Run recorded tools: " + (", ".join(t.name for t in tools) or "nothing")


class ToolCall(BaseModel):
    """One recorded tool: `{name: params}` in the file.

    `params` is kept exactly as written (templates such as `{{email}}` included). A built-in tool's
    params are validated once, against its `ToolDef`'s model, when the call is read or made; the
    typed params are kept (`validated_as`), so running the call validates again only when a
    template changed them (docs/adr/0050-one-tool-model.md).
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)
    _validated: RecordedToolParams | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _known_params(self) -> ToolCall:
        known = RECORDED_TOOL_PARAMS.get(self.name)
        if known is not None:
            self._validated = known.model_validate(self.params, strict=True)
        return self

    @classmethod
    def read(cls, name: str, params: dict[str, Any], validated: RecordedToolParams | None) -> ToolCall:
        """A call the trail reader has validated already (`validated`: its typed params, if built in)."""
        call = cls.model_construct(name=name, params=params)
        call._validated = validated
        return call

    def validated_as(self, params: Mapping[str, Any]) -> RecordedToolParams | None:
        """The typed params validated when the call was read or made, if `params` (its params with
        the templates filled in) are still the params as written; else None: validate them."""
        return self._validated if params == self.params else None

    def __eq__(self, other: object) -> bool:
        # two calls are the same when they record the same thing; the kept typed params don't count
        if not isinstance(other, ToolCall):
            return NotImplemented
        return self.name == other.name and self.params == other.params

    __hash__ = None  # type: ignore[assignment]  # params is a dict: a call was never hashable

    @property
    def model(self) -> RecordedToolParams | None:
        """The typed params for a known tool, None for a custom tool."""
        if self._validated is not None:
            return self._validated
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
    tools: list[str] | None = Field(
        default=None,
        description="Custom tools (Python or YAML, from the tools folder) the agent is offered on this trail.",
    )
    memory: dict[str, str] | None = Field(
        default=None, description="Initial memory for `{{name}}` templates."
    )
    args: dict[str, Any] | None = Field(default=None, description="Declared arguments (`{{args.name}}`).")
    skip: bool | str | dict[str, str] | None = Field(
        default=None, description="Skip the trail: true, a reason, or a map classifier → reason."
    )
    quarantine: str | None = Field(
        default=None,
        min_length=1,
        description="Quarantine the trail: the reason. It still runs and reports its result, but a failure "
        "does not fail the build; the run's summary lists it with this reason.",
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
        return _closest(self.recording, classifier)


class Trailhead(BaseModel):
    """The deterministic "step 0": one tool per classifier that brings the app to the start state."""

    text: str = Field(min_length=1)
    recording: dict[str, ToolCall] | None = None

    def recording_for(self, classifier: str) -> ToolCall | None:
        """The trailhead tool for a device classifier, closest first; None when nothing applies."""
        return _closest(self.recording, classifier)
