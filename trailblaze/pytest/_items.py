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

from trailblaze.common.printable import printable
from trailblaze.errors import TrailblazeError, TrailFileError
from trailblaze.trail.discovery import folder_trail_id

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from trailblaze.pytest._runner import TrailRunner
    from trailblaze.trail.model import Trail

__all__ = ["TrailFailure", "TrailFile", "TrailItem"]


class TrailFailure(AssertionError):
    """A trail item did not pass; the message is the replay diagnostic."""


class TrailFile(pytest.File):
    """A `*.trail.yaml` / `trail.yaml` file collected as a test (see `_collectable` in the plugin)."""

    matrix: list[tuple[str, str | None]] | None = None
    """With `--trailblaze-each-device`: the devices to run on, each with why it is skipped there (or
    None); one item per device, named `<trail>[<spec>]`. None: one item on the worker's device."""

    def collect(self) -> Iterator[pytest.Item]:
        from trailblaze.trail.model import load_trail

        try:
            trail = load_trail(self.path)
        except TrailFileError as exc:
            raise self.CollectError(printable(exc.message)) from None
        except TrailblazeError as exc:
            raise self.CollectError(printable(f"{self.path}: {exc.message}")) from None
        name = _item_name(trail, self.path)
        if self.matrix is None:
            yield self._item(trail, name, None)
            return
        for spec, skip in self.matrix:
            item = self._item(trail, f"{name}[{printable(spec)}]", spec)
            reason = skip or _unrecorded_platform(trail, spec)
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"{reason}; not run on {spec}"))
            if not spec.startswith("sim:"):  # a phone takes one worker's items only (--dist loadgroup)
                item.add_marker(pytest.mark.xdist_group(name=spec))
            yield item

    def _item(self, trail: Trail, name: str, spec: str | None) -> TrailItem:
        item: TrailItem = TrailItem.from_parent(self, name=name, callobj=_trail_test(self.path))
        item.trail = trail
        item.device_spec = spec
        if spec is not None:
            item.user_properties.append(("trailblaze_device", spec))  # a <property> in --junitxml
        item.add_marker(pytest.mark.trail)
        if trail.config is not None and trail.config.quarantine:  # its failure is reported, not fatal
            item.add_marker(pytest.mark.trailblaze_quarantine(trail.config.quarantine))
        for tag in (trail.config.tags if trail.config else None) or []:
            if tag in _RESERVED:
                continue
            _register_marker(self.config, tag)
            item.add_marker(getattr(pytest.mark, tag))
        return item


def _unrecorded_platform(trail: Trail, spec: str) -> str | None:
    """Why a recorded trail does not run on `spec`'s platform: it has recordings, none for that one.

    Such a trail would need the agent (an LLM) on every step there; in a matrix run that is a platform
    the trail was never made for, so it is skipped rather than solved.
    """
    from trailblaze.device.devices import parse_device_spec

    platform = parse_device_spec(spec).platform
    recorded = [step for step in trail.steps if step.recording]
    if not recorded or any(step.recording_for(platform) is not None for step in trail.steps):
        return None
    others = sorted({key.split("-")[0] for step in recorded for key in step.recording or {}})
    return f"the trail has recordings for {', '.join(others)} only, none for {platform}"


class TrailItem(pytest.Function):
    """One trail file, run in replay mode on the worker's device."""

    trail: Trail | None = None
    device_spec: str | None = None
    """The device of a matrix item (`--trailblaze-each-device`); None: the worker's device."""

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
        if result.record.attempts and trail_runner.fail_on_flaky:
            from trailblaze.pytest._runner import failure_text

            n = len(result.record.attempts) + 1
            raise TrailFailure(
                f"flaky: passed on attempt {n} of {n} (--trailblaze-fail-on-flaky); attempt 1 failed:\n"
                + failure_text(result.record.attempts[0], result.run_dir)
            )

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
