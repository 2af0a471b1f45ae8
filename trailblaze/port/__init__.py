"""`trailblaze port`: another platform's (or form factor's) recordings of a trail, with no model.

A step's recording on one platform says what it acts on by what the element means: its id, its text,
its label, its kind. On an app whose ids and labels are shared across platforms (React Native
`testID`, Flutter semantics, Compose Multiplatform, SwiftUI / Compose with shared ids), that is enough to
find the same element on the other platform. `PortSolver` is the model-free solver a record run uses in
place of the agent: it translates each recorded call (`trailblaze.port.meaning`), finds its target on
the live screen, runs it, and records it as record would (a selector generated from the node found, an
assertion pinned on what the device shows). The record pipeline around it proves the new recordings by
a replay before anything is written (docs/adr/0066-every-device.md).
"""

from __future__ import annotations

from trailblaze.port.meaning import Meaning, meaning_of, target_selectors
from trailblaze.port.solver import PortSolver

__all__ = ["Meaning", "PortSolver", "meaning_of", "target_selectors"]
