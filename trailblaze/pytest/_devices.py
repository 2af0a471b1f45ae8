"""The devices one pytest process drives, opened on first use and closed at the end of the session.

Without `--trailblaze-each-device` a process drives one device (its xdist worker's share of the
pool); with it, a trail item names its device and the process opens every device its items need,
each once. Sharing one cache keeps the `trailblaze_device` fixture and the matrix items on the same
session (one simulator per spec and process, never two).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from trailblaze.device.session import DeviceSession
    from trailblaze.engine.options import DeviceChoice

__all__ = ["DevicePool"]


class DevicePool:
    """`choose` gives a spec's `DeviceChoice` (the session's settings applied to that device);
    `session_args` go to every `DeviceSession` (the `trailblaze_session_args` fixture)."""

    def __init__(self, choose: Callable[[str], DeviceChoice], session_args: Mapping[str, Any]) -> None:
        self._choose = choose
        self._session_args = dict(session_args)
        self._open: dict[str, DeviceSession] = {}
        self._broken: dict[str, str] = {}

    def get(self, spec: str) -> DeviceSession:
        """The session for `spec`; a device that does not open fails the test with one line (and
        every later test on it, without trying again)."""
        from trailblaze.common.flags import PYTEST
        from trailblaze.device.install import install_apps
        from trailblaze.errors import TrailblazeError

        if spec in self._open:
            return self._open[spec]
        if spec not in self._broken:
            try:
                choice = self._choose(spec)
                session = choice.open(**self._session_args)
                try:
                    install_apps(session, choice.install, reinstall=choice.reinstall, flags=PYTEST)
                except BaseException:
                    session.close()
                    raise
                self._open[spec] = session
                return session
            except TrailblazeError as exc:
                self._broken[spec] = f"{type(exc).__name__}: cannot open {spec}: {exc.message}"
        pytest.fail(self._broken[spec], pytrace=False)

    def close(self) -> None:
        sessions, self._open = list(self._open.values()), {}
        for session in sessions:
            session.close()
