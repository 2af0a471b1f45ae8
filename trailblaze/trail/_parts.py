"""The parts of a trail file as pydantic models: recorded tools, steps, the trailhead and `config:`.

`trailblaze.trail.model` assembles them into a `Trail` and is where they are imported from; they live here
so that the reader and the writer can use them without importing the module that uses the reader
and the writer (the import graph stays acyclic).
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from trailblaze.tools.call import ToolCall

__all__ = [
    "ANY_CLASSIFIER",
    "CLASSIFIER_RE",
    "FORM_FACTORS",
    "StepKind",
    "ToolCall",  # defined with the tool set (trailblaze.tools.call); a trail is made of them
    "TrailConfig",
    "TrailStep",
    "Trailhead",
    "classifier_lineage",
    "closest_classifier",
    "form_factor_of",
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


FORM_FACTORS: dict[str, str] = {"android-tablet": "android", "ios-ipad": "ios"}
"""The classifiers of a form factor of their own (docs/adr/0066-every-device.md), each with its platform:
a step whose platform recording fails there gets a recording under the form factor's own key when recorded
on it. Phones (`android-phone`, `ios-iphone`) share the platform's recording; a small or large phone
scrolls its way to what a recording names instead."""


def form_factor_of(classifier: str) -> str | None:
    """The form factor's classifier when `classifier` is one of its own (a tablet, an iPad), else None."""
    for key in FORM_FACTORS:
        if classifier == key or classifier.startswith(key + "-"):
            return key
    return None


def _closest(recording: Mapping[str, _T] | None, classifier: str) -> _T | None:
    key = closest_classifier(recording, classifier)
    return None if key is None or recording is None else recording[key]


def static_text(tools: Sequence[ToolCall]) -> str:
    """The step text given to a v1 `- tools:` block, which has no text of its own."""
    return "Run recorded tools: " + (", ".join(t.name for t in tools) or "nothing")


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
    timeout: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="Wall-clock seconds this trail may run before it fails where it got to; it can lower "
        "the run's `--trail-timeout` (default 1800), never raise it.",
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
