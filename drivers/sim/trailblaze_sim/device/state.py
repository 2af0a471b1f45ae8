"""The simulated device's working state: the back stack's screens, a pending delayed step, and what
each node of the last built tree does when touched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trailblaze_sim.app.spec import Step
from trailblaze_sim.model import SimNode

__all__ = ["Binding", "Built", "Pending", "ScreenInstance"]


@dataclass
class ScreenInstance:
    name: str
    locals: dict[str, Any]
    fields: dict[str, str] = field(default_factory=dict)
    scroll: dict[str, float] = field(default_factory=dict)
    dialog: str | None = None


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
