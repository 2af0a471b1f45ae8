"""The trail file: load, validate, edit and save `.trail.yaml` files (DESIGN §3).

The unified format (a mapping with `config`, `trailhead`, `trail`) is the one we write; the older v1
list format (`- config:`, `- prompts:`, `- tools:`, `- trailhead:`) is read into the same model and
edited in place. Every problem a file has is reported at once as `path:line:col: message`.

Saving keeps the file's own bytes: an unchanged trail saves byte-identical, and `set_recording`
rewrites only the one `recording:` entry it changes. A trail changed in any other way is written fresh
in clean block style (comments are then lost). Writes are atomic.

This module is the public face; the work is done below it, and none of these import it:
`_trail_parts` (the step, tool, trailhead and config models), `_trail_reader` (text → models, with
positioned problems) and `_trail_writer` (rendering and byte-preserving splices, via `_yaml`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr

from trailblaze import _yaml
from trailblaze._files import atomic_write
from trailblaze._trail_file import read_trail_bytes
from trailblaze._trail_parts import (
    ANY_CLASSIFIER,
    CLASSIFIER_RE,
    StepKind,
    ToolCall,
    TrailConfig,
    Trailhead,
    TrailStep,
    classifier_lineage,
    closest_classifier,
    static_text,
)
from trailblaze._trail_reader import read_tool, read_trail
from trailblaze._trail_writer import render, splice_recording
from trailblaze._yaml import Path as YPath
from trailblaze.errors import Problem, TrailFileError, UsageError

__all__ = [
    "ANY_CLASSIFIER",
    "ToolCall",
    "Trail",
    "TrailConfig",
    "TrailStep",
    "Trailhead",
    "classifier_lineage",
    "closest_classifier",
    "find_trail_files",
    "load_trail",
    "loads_trail",
    "parse_tool",
    "save_trail",
]


class Trail(BaseModel):
    """A loaded trail file. Equality compares content only, not the text it came from."""

    config: TrailConfig | None = None
    trailhead: Trailhead | None = None
    steps: list[TrailStep] = Field(min_length=1)
    format: Literal["unified", "v1"] = "unified"

    _source: str | None = PrivateAttr(default=None)
    _snapshot: Any = PrivateAttr(default=None)
    _path: str | None = PrivateAttr(default=None)
    _step_paths: list[tuple[YPath, StepKind]] = PrivateAttr(default_factory=list)
    _trailhead_path: YPath | None = PrivateAttr(default=None)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trail):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    @property
    def path(self) -> str | None:
        """The file this trail was loaded from or last saved to."""
        return self._path

    @property
    def source_text(self) -> str | None:
        """The text of the file as loaded (after splices), None for a trail built in code."""
        return self._source

    def to_yaml(self) -> str:
        """The file text: the original bytes when unchanged, else a fresh block-style rendering."""
        if self._source is not None and self._snapshot == self.model_dump():
            return self._source
        return render(self.format, self.config, self.trailhead, self.steps)

    def save(self, path: str | os.PathLike[str] | None = None) -> None:
        """Write the trail atomically (to `path`, or back to the file it came from)."""
        save_trail(self, path)

    def set_recording(self, step_index: int, classifier: str, tools: Sequence[ToolCall]) -> None:
        """Record `tools` for one classifier of one step; the file text changes only there.

        In a v1 file (one file per device) the classifier is not written: the step's
        `recording: tools:` is replaced.

        Raises:
            IndexError: no such step.
            UsageError: the classifier is not a valid name.
        """
        step = self.steps[step_index]
        key = self._recording_key(classifier)
        in_sync = self._in_sync()
        recording = dict(step.recording or {})
        recording[key] = list(tools)
        step.recording = recording
        if step.static:
            step.text = static_text(tools)
        if in_sync:
            path, kind = self._step_paths[step_index]
            data = [tool.to_data() for tool in tools]
            self._splice(lambda text: splice_recording(text, path, kind, key, data))

    def set_trailhead_recording(self, classifier: str, tool: ToolCall) -> None:
        """Record the trailhead tool for one classifier; the file text changes only there.

        Raises:
            UsageError: the trail has no trailhead, or the classifier is not a valid name.
        """
        if self.trailhead is None:
            raise UsageError("this trail has no `trailhead:`; add one before recording it")
        key = self._recording_key(classifier)
        in_sync = self._in_sync()
        recording = dict(self.trailhead.recording or {})
        recording[key] = tool
        self.trailhead.recording = recording
        if in_sync and self._trailhead_path is not None:
            path = self._trailhead_path
            if self.format == "v1":
                data: Any = [tool.to_data()]
                self._splice(lambda text: splice_recording(text, path, "v1-prompt", "tools", data))
            else:
                data = tool.to_data()
                self._splice(lambda text: splice_recording(text, path, "unified", key, data))

    # --- private -------------------------------------------------------------------------------

    def _recording_key(self, classifier: str) -> str:
        if self.format == "v1":
            return ANY_CLASSIFIER
        if not CLASSIFIER_RE.match(classifier):
            raise UsageError(
                f"'{classifier}' is not a device classifier; use lower-case words joined by '-', e.g. android-phone"
            )
        return classifier

    def _in_sync(self) -> bool:
        return self._source is not None and self._snapshot == self.model_dump()

    def _attach(
        self,
        text: str,
        path: str | None,
        step_paths: list[tuple[YPath, StepKind]],
        trailhead_path: YPath | None,
    ) -> None:
        self._source = text
        self._snapshot = self.model_dump()
        self._path = path
        self._step_paths = step_paths
        self._trailhead_path = trailhead_path

    def _splice(self, edit: Callable[[str], str]) -> None:
        """Apply a text edit; keep it only if the edited text loads back as exactly this trail."""
        assert self._source is not None
        try:
            text = edit(self._source)
            again = loads_trail(text, self._path or "<string>")
        except (TrailFileError, _yaml.YamlSyntaxError):
            again = None
        if again is not None and again == self:
            self._attach(text, self._path, again._step_paths, again._trailhead_path)
        else:  # the edit could not be expressed in place (e.g. flow style); render the file fresh
            self._source = None
            self._snapshot = None


def load_trail(path: str | os.PathLike[str]) -> Trail:
    """Load and validate a trail file.

    Raises:
        UsageError: the file cannot be read.
        TrailFileError: the file is not a valid trail; lists every problem with its position.
    """
    name = os.fspath(path)
    raw = read_trail_bytes(name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrailFileError(
            name, [Problem(1, 1, f"not UTF-8 text ({exc.reason}); save the file as UTF-8")]
        ) from None
    return loads_trail(text, name)


def loads_trail(text: str, path: str = "<string>") -> Trail:
    """Parse and validate trail text; `path` only names the source in error messages.

    Raises:
        TrailFileError: the text is not a valid trail; lists every problem with its position.
    """
    contents = read_trail(text, path)
    trail = Trail.model_construct(
        config=contents.config, trailhead=contents.trailhead, steps=contents.steps, format=contents.format
    )
    trail._attach(text, None if path == "<string>" else path, contents.step_paths, contents.trailhead_path)
    return trail


def is_trail_file(path: Path) -> bool:
    """Whether a file name is a trail's: `*.trail.yaml` or `trail.yaml`."""
    return path.name == "trail.yaml" or path.name.endswith(".trail.yaml")


def find_trail_files(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[str]]:
    """The trail files named by `paths` (folders searched recursively, sorted) and the paths that do not exist.

    A file named explicitly is taken whatever its name; hidden folders are skipped.
    """
    found: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for candidate in sorted(path.rglob("*.yaml")):
                hidden = any(part.startswith(".") for part in candidate.relative_to(path).parts[:-1])
                if not candidate.is_dir() and is_trail_file(candidate) and not hidden:
                    found.append(candidate)
        elif path.is_file() or os.path.lexists(path):  # a FIFO or a symlink loop: load_trail says which
            found.append(path)
        else:
            missing.append(os.fspath(raw))
    unique = list(dict.fromkeys(found))
    return unique, missing


def parse_tool(text: str, source: str = "<tool>") -> ToolCall:
    """Parse one tool in its recorded form, e.g. `inputText: {text: hello}` or `pressBack`.

    Raises:
        TrailFileError: the text is not one valid tool.
    """
    return read_tool(text, source)


def save_trail(trail: Trail, path: str | os.PathLike[str] | None = None) -> None:
    """Write `trail` atomically: a temp file in the same directory, fsync, then rename over the target.

    Raises:
        UsageError: no path was given and the trail was not loaded from a file, or the write failed.
    """
    target = os.fspath(path) if path is not None else trail.path
    if target is None:
        raise UsageError("this trail was not loaded from a file; give a path to save it to")
    text = trail.to_yaml()
    try:
        atomic_write(target, text.encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    trail._path = target
