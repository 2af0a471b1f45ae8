"""The report's device matrix: a run that drove several devices (pytest's `--trailblaze-each-device`,
merged shards of a farm) opens on a grid of trails × devices, each cell the trail's last screen on that
device, coloured by its result and linked to its storyboard (docs/guides/every-device.md)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from trailblaze.output.runlog import TrailRecord

__all__ = ["Matrix", "last_screen", "matrix"]


@dataclass
class Matrix:
    """Rows (trails, by id or path) and columns (devices) in the order the run met them; each cell the
    trail's number in the page (1-based) and its record."""

    rows: list[str] = field(default_factory=list)
    devices: list[str] = field(default_factory=list)
    cells: dict[tuple[str, str], tuple[int, TrailRecord]] = field(default_factory=dict)


def matrix(trails: Iterable[TrailRecord]) -> Matrix:
    """The grid of a run's trails; a trail run twice on one device (a retry) keeps its last record."""
    grid = Matrix()
    for number, trail in enumerate(trails, 1):
        row = trail.id or trail.path
        if row not in grid.rows:
            grid.rows.append(row)
        if trail.device not in grid.devices:
            grid.devices.append(trail.device)
        grid.cells[(row, trail.device)] = (number, trail)
    return grid


def last_screen(trail: TrailRecord) -> str | None:
    """The last screenshot the trail kept (its last step's after, else its before), or None."""
    for step in reversed(trail.steps):
        for shot in (step.screenshot_after, step.screenshot_before):
            if shot:
                return shot
    return None
