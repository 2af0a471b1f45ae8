"""A simulated demo phone driven the way a person uses it (find by id or text, tap, type), with no
client in between: the app-model tests and the mutants' fact checks share it."""

from __future__ import annotations

from pathlib import Path

from trailblaze_sim import create_device
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import ManualClock, SimNode


class Phone:
    """Test helper: find nodes by id / text and act on them like a user would."""

    def __init__(self, platform: str, app: str | Path = "demo", conditions: Conditions | None = None) -> None:
        self.clock = ManualClock()
        self.d: SimulatedDevice = create_device(platform, app, clock=self.clock, conditions=conditions)

    def nodes(self) -> list[SimNode]:
        return self.d.tree().walk()

    def find(self, id: str = "", text: str = "", visible: bool = True) -> SimNode:
        hits = self.all(id, text, visible)
        assert len(hits) == 1, f"expected one node id={id!r} text={text!r}, got {len(hits)}"
        return hits[0]

    def all(self, id: str = "", text: str = "", visible: bool = True) -> list[SimNode]:
        return [
            n
            for n in self.nodes()
            if (not id or n.id == id)
            and (not text or n.text == text or n.label == text)
            and (n.visible or not visible)
        ]

    def has(self, id: str = "", text: str = "") -> bool:
        return bool(self.all(id, text))

    def tap(self, id: str = "", text: str = "") -> None:
        self.d.tap(*self.find(id, text).frame.center)

    def type_into(self, id: str, text: str) -> None:
        self.tap(id)
        self.d.type_text(text)

    def sign_in(self, email: str = "me@example.com", password: str = "hunter2") -> None:
        self.type_into("email", email)
        self.type_into("password", password)
        self.tap("sign_in")
        self.clock.advance(1.0)

    def back(self) -> None:
        if self.d.platform == "android":
            self.d.press_key("back")
        else:
            self.tap("back")

    def texts(self) -> list[str]:
        return [n.text for n in self.nodes() if n.visible and n.text]

    def text_of(self, id: str) -> str | None:
        hits = [n.text for n in self.nodes() if n.visible and n.id == id]
        return hits[0] if hits else None

    def open(self, title: str) -> None:
        """Opens the inbox row whose title is `title`."""
        row = next(
            n
            for n in self.nodes()
            if n.visible and n.id == "message_row" and any(c.text == title for c in n.children)
        )
        self.d.tap(*row.frame.center)

    def headings(self) -> list[str]:
        return [n.text for n in self.nodes() if n.visible and n.role == "heading"]

    def row_titles(self) -> list[str]:
        return [n.text for n in self.nodes() if n.visible and n.id == "row_title"]
