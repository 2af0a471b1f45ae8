"""Screenshots of the simulated devices: size, PNG validity, and that screens look different."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from trailblaze_sim import create_device
from trailblaze_sim.device.simulated import SimulatedDevice
from trailblaze_sim.model import ManualClock


def _png(d: SimulatedDevice) -> Image.Image:
    data = d.screenshot_png()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def _tap(d: SimulatedDevice, id: str = "", text: str = "") -> None:
    node = next(
        n for n in d.tree().walk() if n.visible and (not id or n.id == id) and (not text or n.text == text)
    )
    d.tap(*node.frame.center)


def _diff(a: Image.Image, b: Image.Image) -> float:
    """Share of pixels that differ between two screenshots."""
    ha, hb = a.resize((108, 240)).tobytes(), b.resize((108, 240)).tobytes()
    return sum(1 for x, y in zip(ha, hb, strict=True) if abs(x - y) > 8) / len(ha)


@pytest.mark.parametrize(("platform", "size"), [("android", (1080, 2400)), ("ios", (1170, 2532))])
def test_screenshot_is_a_png_at_pixel_size(platform: str, size: tuple[int, int]) -> None:
    d = create_device(platform, clock=ManualClock())
    image = _png(d)
    assert image.size == size
    small = image.resize((54, 120)).tobytes()
    assert len({small[i : i + 3] for i in range(0, len(small), 3)}) > 5  # not a blank canvas


@pytest.mark.slow
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_screens_look_different(platform: str) -> None:
    clock = ManualClock()
    d = create_device(platform, clock=clock)
    login = _png(d)
    _tap(d, "email")
    d.type_text("me@example.com")
    with_keyboard = _png(d)
    assert _diff(login, with_keyboard) > 0.05  # the keyboard takes the bottom of the screen
    _tap(d, "password")
    d.type_text("hunter2")
    _tap(d, "sign_in")
    progress = _png(d)
    assert _diff(with_keyboard, progress) > 0.3  # the dimmed progress overlay
    clock.advance(1)
    inbox = _png(d)
    assert _diff(login, inbox) > 0.05
    _tap(d, "tab_settings")
    settings = _png(d)
    assert _diff(inbox, settings) > 0.03
    _tap(d, "dark_mode")
    dark = _png(d)
    assert _diff(settings, dark) > 0.5  # dark mode repaints everything
    d.go_home()
    home = _png(d)
    assert _diff(dark, home) > 0.5


def test_pixels_follow_the_tree() -> None:
    """A focused field's ring and a switch's state are drawn where the tree says."""
    d = create_device("android", clock=ManualClock())
    email = next(n for n in d.tree().walk() if n.id == "email")
    before = _png(d)
    _tap(d, "email")
    after = _png(d)
    s = d.scale
    box = (
        round(email.frame.x * s),
        round(email.frame.y * s),
        round(email.frame.right * s),
        round(email.frame.bottom * s),
    )
    assert _diff(before.crop(box).resize((108, 24)), after.crop(box).resize((108, 24))) > 0.01


def test_clock_changes_the_screenshot_and_unchanged_screens_are_cached() -> None:
    clock = ManualClock()
    d = create_device("ios", clock=clock)
    first = d.screenshot_png()
    assert d.screenshot_png() is first  # same screen, same bytes (cached)
    clock.advance(60)  # the status bar shows minutes
    assert d.screenshot_png() != first
