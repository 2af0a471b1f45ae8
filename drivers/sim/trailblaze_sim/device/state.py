"""The simulated device's working state: the back stack's screens, a pending delayed step, the sync
animation, and what each node of the last built tree does when touched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trailblaze_sim.app.spec import Step
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import SimClock, SimNode

__all__ = ["Animation", "Binding", "Built", "Pending", "ScreenInstance"]


@dataclass
class ScreenInstance:
    name: str
    locals: dict[str, Any]
    fields: dict[str, str] = field(default_factory=dict)
    scroll: dict[str, float] = field(default_factory=dict)
    dialog: str | None = None

    @classmethod
    def new(cls, name: str, params: dict[str, Any]) -> ScreenInstance:
        """A fresh instance of screen `name` opened with `params` (its `screen.*` locals)."""
        return cls(name=name, locals={"name": name, "error": "", **params})


@dataclass
class Pending:
    due: float
    steps: list[Step]
    progress: str
    item: dict[str, str] | None
    screen: ScreenInstance | None = None
    """The pane's screen the steps started in, when it is not the top one (a split's primary)."""


@dataclass
class Binding:
    """What a node of the last tree does when touched."""

    steps: Sequence[Step] = ()
    long_steps: Sequence[Step] = ()
    double_steps: Sequence[Step] = ()
    field_id: str = ""
    bind: str = ""
    item: dict[str, str] | None = None
    list_key: str = ""
    max_scroll: float = 0.0
    launch: str = ""
    dialog_button: bool = False
    screen: ScreenInstance | None = None
    """The screen instance the node belongs to: the top one, or a split's primary pane."""


@dataclass
class Built:
    root: SimNode
    bindings: dict[int, Binding]
    modal: SimNode | None


class Animation:
    """The app's sync indicator, animating for `Conditions.animate_after_action_ms` after each action."""

    def __init__(self, clock: SimClock, conditions: Conditions) -> None:
        self.clock = clock
        self.conditions = conditions
        self.last_action: float | None = None
        self.ticks = 0
        """Trees dumped while animating (the indicator's percentage)."""

    def acted(self) -> None:
        self.last_action = self.clock.now()

    def running(self) -> bool:
        ms = self.conditions.animate_after_action_ms
        return ms > 0 and self.last_action is not None and (self.clock.now() - self.last_action) * 1000 < ms
