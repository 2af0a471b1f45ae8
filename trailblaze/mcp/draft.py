"""The trail an MCP client is authoring: steps opened by `trail_step` / `trail_verify`, each holding
the recorded-form calls of the actions that succeeded while it was open, per platform.

Saving builds a plain `Trail` and writes it with `save_trail` (atomic), so the file is exactly what
`trailblaze record` would have written for the same actions: selectors, never refs, and `{{name}}`
where a secret was typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from trailblaze.trail.model import ToolCall, Trail, TrailConfig, TrailStep, save_trail

__all__ = ["DraftStep", "TrailDraft"]

StepKind = Literal["step", "verify"]


@dataclass
class DraftStep:
    kind: StepKind
    text: str
    tools: dict[str, list[ToolCall]] = field(default_factory=dict)
    """Platform (`android` / `ios`) → the recorded calls, in order."""

    @property
    def empty(self) -> bool:
        return not any(self.tools.values())

    def label(self, number: int) -> str:
        return f"{self.kind} {number} ({self.text!r})"


@dataclass
class TrailDraft:
    """A trail being recorded; nothing touches the disk before `save()`."""

    path: Path
    title: str
    steps: list[DraftStep] = field(default_factory=list)
    saved: bool = False

    @property
    def current(self) -> DraftStep | None:
        return self.steps[-1] if self.steps else None

    @property
    def verifying(self) -> bool:
        return self.current is not None and self.current.kind == "verify"

    def open_step(self, kind: StepKind, text: str) -> str:
        """Open the next step; an empty current step is reused (renamed) rather than left empty."""
        current = self.current
        if current is not None and current.empty:
            old = current.label(len(self.steps))
            current.kind, current.text = kind, text
            return f"{old} had no recorded tools; it is now {current.label(len(self.steps))}"
        self.steps.append(DraftStep(kind, text))
        return f"opened {self.steps[-1].label(len(self.steps))}"

    def add(self, platform: str, calls: list[ToolCall]) -> int:
        """Record calls into the current step; returns its number (1-based)."""
        current = self.current
        assert current is not None, "open a step first"
        current.tools.setdefault(platform, []).extend(calls)
        self.saved = False
        return len(self.steps)

    def to_trail(self) -> Trail:
        """The trail as it would be saved; an empty last step is left out."""
        steps = list(self.steps)
        if steps and steps[-1].empty:
            steps.pop()
        return Trail(
            config=TrailConfig(title=self.title, target=self._target(steps)),
            steps=[
                TrailStep(kind=s.kind, text=s.text, recording={k: list(v) for k, v in s.tools.items() if v})
                for s in steps
            ],
        )

    def save(self) -> Trail:
        """Write the trail atomically to `path`.

        Raises:
            ValueError: no step has a recorded tool yet (pydantic refuses a trail without steps).
            UsageError: the file cannot be written.
        """
        trail = self.to_trail()
        save_trail(trail, self.path)
        self.saved = True
        return trail

    @staticmethod
    def _target(steps: list[DraftStep]) -> str | None:
        """The app under test: the first `launchApp`'s app id."""
        for step in steps:
            for calls in step.tools.values():
                for call in calls:
                    app = call.params.get("appId")
                    if call.name == "launchApp" and isinstance(app, str):
                        return app
        return None
