"""The simulated device's display: its size in points as the device is turned, and where the app draws."""

from __future__ import annotations

from trailblaze_sim.device.profile import DeviceProfile
from trailblaze_sim.model import Frame, Platform

__all__ = ["Display"]


class Display:
    """The screen's geometry: `profile`'s size, swapped while the display is turned sideways."""

    def __init__(self, profile: DeviceProfile, platform: Platform) -> None:
        self.profile = profile
        self.platform: Platform = platform
        self.screen_width = profile.width
        self.screen_height = profile.height
        self.rotation = 0
        """In quarter turns (Android `Surface.ROTATION_*`): 0 natural, 1 left, 3 right."""

    @property
    def orientation(self) -> str:
        return "landscape" if self.rotation % 2 else "portrait"

    def turn(self, rotation: int) -> None:
        """Shows the display at `rotation` (already one the app allows)."""
        self.rotation = rotation
        short, long = sorted((self.profile.width, self.profile.height))
        self.screen_width, self.screen_height = (long, short) if rotation % 2 == 1 else (short, long)

    def layout_frame(self) -> Frame:
        """Where the app lays its screens out: below the status bar and above the navigation bar."""
        p = self.profile
        return Frame(0, p.inset_top, self.screen_width, self.screen_height - p.inset_top - p.inset_bottom)

    def content_frame(self) -> Frame:
        """Where the app draws: the layout frame on Android; on iOS the whole screen (the safe areas
        are inside it)."""
        if self.platform == "android":
            return self.layout_frame()
        return Frame(0, 0, self.screen_width, self.screen_height)
