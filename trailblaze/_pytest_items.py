"""Trail files as pytest items: one `TrailItem` per file, replayed through the `trail_runner` fixture.

A `TrailItem` is a `pytest.Function` whose test function asks for `trail_runner`, so trail items get
the same fixtures, `conftest.py` overrides (`llm`, `trailblaze_secrets`, …), markers, `-k` / `-m`
selection, xdist distribution and `--junitxml` entries as Python tests.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from trailblaze._discovery import folder_trail_id
from trailblaze._printable import printable
from trailblaze.errors import TrailblazeError, TrailFileError

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from trailblaze._pytest_runner import TrailRunner
    from trailblaze.trail import Trail

__all__ = ["TrailFailure", "TrailFile", "TrailItem"]


class TrailFailure(AssertionError):
    """A trail item did not pass; the message is the replay diagnostic."""


class TrailFile(pytest.File):
    """A `*.trail.yaml` / `trail.yaml` file collected as a test (see `_collectable` in the plugin)."""

    def collect(self) -> Iterator[pytest.Item]:
        from trailblaze.trail import load_trail

        try:
            trail = load_trail(self.path)
        except TrailFileError as exc:
            raise self.CollectError(printable(exc.message)) from None
        except TrailblazeError as exc:
            raise self.CollectError(printable(f"{self.path}: {exc.message}")) from None
        item = TrailItem.from_parent(self, name=_item_name(trail, self.path), callobj=_trail_test(self.path))
        item.trail = trail
        item.add_marker(pytest.mark.trail)
        for tag in (trail.config.tags if trail.config else None) or []:
            if tag in _RESERVED:
                continue
            _register_marker(self.config, tag)
            item.add_marker(getattr(pytest.mark, tag))
        yield item


class TrailItem(pytest.Function):
    """One trail file, run in replay mode on the worker's device."""

    trail: Trail | None = None

    def reportinfo(self) -> tuple[os.PathLike[str] | str, int | None, str]:
        return self.path, 0, f"trail: {self.name}"

    def repr_failure(  # type: ignore[override]
        self, excinfo: pytest.ExceptionInfo[BaseException]
    ) -> str | TerminalRepr:
        # The diagnostic (or a one-line trailblaze error) is the whole story; a traceback through
        # the replay engine would bury it.
        if isinstance(excinfo.value, TrailFailure):
            return printable(str(excinfo.value))
        if isinstance(excinfo.value, TrailblazeError):
            return printable(f"{type(excinfo.value).__name__}: {excinfo.value.message}")
        return super().repr_failure(excinfo)


def _item_name(trail: Trail, path: Path) -> str:
    if trail.config is not None and trail.config.id:
        return printable(trail.config.id)  # pytest prints node ids as they are
    folder = folder_trail_id(path)  # trail.yaml, android-phone.trail.yaml, …: the folder is the trail
    if folder is not None:
        return printable(folder)
    return path.name.removesuffix(".trail.yaml").removesuffix(".trail.md")


def _trail_test(path: Path) -> Callable[..., None]:
    def trail(trail_runner: TrailRunner) -> None:
        result = trail_runner.replay(path)
        if result.status == "skipped":
            pytest.skip(result.error or "skipped by the trail's config.skip")
        if not result.passed:
            raise TrailFailure(result.diagnostic)

    return trail


def _register_marker(config: pytest.Config, name: str) -> None:
    # Registered as they are met so `--strict-markers` accepts a trail's `config.tags`.
    registered: set[str] = config.stash.setdefault(_TAGS_KEY, set())
    if name not in registered:
        registered.add(name)
        config.addinivalue_line("markers", f"{name}: trail tag")


_TAGS_KEY = pytest.StashKey[set[str]]()
_RESERVED = frozenset({"skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings"})
"""pytest's own markers change how a test runs; a tag with one of these names selects nothing."""
