"""The trail file: load, validate, edit and save `.trail.yaml` files.

The unified format (a mapping with `config`, `trailhead`, `trail`) is the one we write; the older v1
list format (`- config:`, `- prompts:`, `- tools:`, `- trailhead:`) is read into the same model and
edited in place. Every problem a file has is reported at once as `path:line:col: message`.

Saving keeps the file's own bytes: an unchanged trail saves byte-identical, and `set_recording`
rewrites only the one `recording:` entry it changes. A trail changed in any other way is written fresh
in clean block style (comments are then lost). Writes are atomic.

Saving back to the file a trail was loaded from is safe against other writers (ADR 0019): under an
exclusive lock on the file, the current text is read again; when another process changed it since,
only this trail's own recording edits are spliced into that text, and a step this trail recorded
whose text or position changed meanwhile fails the save with `TrailConflictError`.

This module is the public face; the work is done below it, and none of these import it:
`_trail_parts` (the step, tool, trailhead and config models), `_trail_reader` (text → models, with
positioned problems) and `_trail_writer` (rendering and byte-preserving splices, via `_yaml`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, Field, PrivateAttr

from trailblaze.common import yaml_lines as _yaml
from trailblaze.common.files import atomic_write, locked
from trailblaze.common.text_files import read_trail_text
from trailblaze.common.yaml_lines import Path as YPath
from trailblaze.errors import Problem, TrailConflictError, TrailFileError, UsageError
from trailblaze.maestro.sniff import looks_like_flow
from trailblaze.trail._parts import (
    ANY_CLASSIFIER,
    CLASSIFIER_RE,
    StepKind,
    ToolCall,
    TrailConfig,
    Trailhead,
    TrailStep,
    classifier_lineage,
    closest_classifier,
    form_factor_of,
    static_text,
)
from trailblaze.trail._reader import read_tool, read_trail, step_lines
from trailblaze.trail._writer import render, splice_recording
from trailblaze.trail.discovery import MARKDOWN_SUFFIX, YAML_SUFFIX, is_trail_name, walk_trails

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
    "form_factor_of",
    "load_trail",
    "loads_trail",
    "parse_tool",
    "save_trail",
]


class _Edit(NamedTuple):
    """One recording this trail set since it last matched its file: redone on a newer file."""

    classifier: str
    step: tuple[str, str]
    value: Any


class Trail(BaseModel):
    """A loaded trail file. Equality compares content only, not the text it came from."""

    config: TrailConfig | None = None
    trailhead: Trailhead | None = None
    steps: list[TrailStep] = Field(min_length=1)
    format: Literal["unified", "v1"] = "unified"

    _source: str | None = PrivateAttr(default=None)
    _snapshot: Any = PrivateAttr(default=None)
    _path: str | None = PrivateAttr(default=None)
    # A private attribute's default is copied for each model (an empty list or dict is, cheaply); a
    # `default_factory=list` would cost the first model ~1.5 ms: pydantic reads the factory's signature,
    # and on Python 3.11 `inspect.signature(list)` compiles the tokenizer's patterns (start-up, ADR 0063).
    _step_paths: list[tuple[YPath, StepKind]] = PrivateAttr(default=[])
    _trailhead_path: YPath | None = PrivateAttr(default=None)
    # For saving under concurrent writers: the file's text when this model last matched it (None:
    # not read from disk), the model's shape then, and the recording edits made since.
    _disk_text: str | None = PrivateAttr(default=None)
    _disk_shape: Any = PrivateAttr(default=None)
    _edits: dict[tuple[int, str], _Edit] = PrivateAttr(default={})
    _note: str | None = PrivateAttr(default=None)
    _from_flow: bool = PrivateAttr(default=False)
    """Converted in memory from a Maestro flow (`trailblaze.maestro`): never saved over that flow."""
    _flow_templates: list[tuple[str, str]] | None = PrivateAttr(default=None)
    _flow_notes: list[str] = PrivateAttr(default=[])
    _flow_lines: list[int | None] = PrivateAttr(default=[])
    """A flow's trailhead (none) and each step's line in the flow file (None: onFlowStart / Complete)."""
    _disk_lines: tuple[str, list[int | None]] | None = PrivateAttr(default=None)
    """The trailhead's and each step's line in `_disk_text`, with that text: worked out when first asked."""

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
    def note(self) -> str | None:
        """Something to tell the user about how the file was read (a `.trail.md` whose `.trail.yaml` won)."""
        return self._note

    @property
    def flow_templates(self) -> list[tuple[str, str]] | None:
        """A Maestro flow's `${NAME}` uses that no `env:` around them gives, each with the
        `file:line:col` in the flow or sub-flow that holds it; None for a trail read from trail text."""
        return self._flow_templates

    @property
    def flow_notes(self) -> list[str]:
        """`file:line:col: note: …` for what a Maestro flow writes that trailblaze does not act on."""
        return list(self._flow_notes)

    def step_line(self, index: int) -> int | None:
        """The line step `index` (-1: the trailhead) starts on in the file on disk, for messages that
        say `file:line`; None when unknown (built in code, a `.trail.md`, steps changed since read).

        The file, not the text in memory: a record keeps new recordings in memory until its proof
        replay passes, and a line must point where the reader's editor will find the step."""
        if self._from_flow:
            lines = self._flow_lines
        else:
            text = self._disk_text
            if text is None or self._shape() != self._disk_shape:
                return None
            if self._disk_lines is None or self._disk_lines[0] != text:
                self._disk_lines = (text, step_lines(text))
            lines = self._disk_lines[1]
        at = index + 1
        return lines[at] if 0 <= at < len(lines) else None

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
        self._note_edit(step_index, key, classifier, (step.kind, step.text), list(tools))
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
        self._note_edit(-1, key, classifier, ("trailhead", self.trailhead.text), tool)
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

    def _note_edit(self, index: int, key: str, classifier: str, step: tuple[str, str], value: Any) -> None:
        first = self._edits.get((index, key))
        # the step as it was before this trail's first edit of it is what must still be on disk
        self._edits[(index, key)] = _Edit(classifier, first.step if first else step, value)

    def _shape(self) -> Any:
        """The model without its recordings: what a concurrent writer may not have changed."""
        data = self.model_dump()
        for step in [*data["steps"], data["trailhead"] or {}]:
            step.pop("recording", None)
            if step.get("static"):
                step.pop("text", None)  # a v1 `- tools:` step's text is its recording
        return data

    def _apply_edits(self, other: Trail, path: str) -> None:
        """Redo this trail's recording edits on `other` (the file as another writer left it).

        Raises:
            TrailConflictError: a step this trail recorded changed (text, kind or position), or the
                file changed format.
        """
        name = os.path.basename(path)
        if other.format != self.format:
            raise TrailConflictError(
                f"{path} changed to the {other.format} format while this run was recording it; "
                "its recordings were not saved: run again"
            )
        for (index, _), edit in self._edits.items():
            if index < 0:
                now = ("trailhead", other.trailhead.text) if other.trailhead is not None else None
            else:
                now = (other.steps[index].kind, other.steps[index].text) if index < len(other.steps) else None
            if now != edit.step:
                where = "the trailhead" if index < 0 else f"step {index + 1} ({edit.step[1]!r})"
                raise TrailConflictError(
                    f"{name}: {where} was changed in the file by someone else while this run recorded it; "
                    "the new recording was not saved: run again on the current file"
                )
            if index < 0:
                other.set_trailhead_recording(edit.classifier, edit.value)
            else:
                other.set_recording(index, edit.classifier, edit.value)

    def _synced(self, text: str) -> None:
        """The file now holds `text`; adopt its recordings when it is this trail plus others' recordings."""
        try:
            again = loads_trail(text, self._path or "<string>")
        except (TrailFileError, _yaml.YamlSyntaxError):
            again = None
        if again is None or again._shape() != self._shape():
            self._disk_text = None  # the file differs beyond recordings: merge every later save
            return
        for mine, theirs in zip(self.steps, again.steps, strict=True):
            mine.recording, mine.text = theirs.recording, theirs.text
        if self.trailhead is not None and again.trailhead is not None:
            self.trailhead.recording = again.trailhead.recording
        self._attach(text, self._path, again._step_paths, again._trailhead_path)
        self._disk_text, self._disk_shape = text, self._shape()
        self._edits.clear()

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
    markdown = name.endswith(MARKDOWN_SUFFIX)
    if markdown:
        sibling = name.removesuffix(MARKDOWN_SUFFIX) + YAML_SUFFIX
        if os.path.exists(sibling):  # recorded already: the .yaml wins
            trail = load_trail(sibling)
            trail._note = f"{Path(name).name} is not read: {Path(sibling).name} beside it holds the trail and its recordings"
            return trail
    text = read_trail_text(name)
    if markdown:
        # A Markdown test case: its recordings go to the sibling .trail.yaml, created on first save.
        from trailblaze.trail._markdown import markdown_to_yaml, remap  # a .trail.md only (start-up)

        md = markdown_to_yaml(text, name)
        try:
            return loads_trail(md.text, sibling)
        except TrailFileError as exc:
            raise remap(exc, md, name) from None
    if not is_trail_name(Path(name).name) and looks_like_flow(text):
        return _flow_trail(text, name)
    trail = loads_trail(text, name)
    trail._disk_text, trail._disk_shape = text, trail._shape()
    return trail


def _flow_trail(text: str, name: str) -> Trail:
    """A Maestro flow as the trail `trailblaze import maestro` would write (ADR 0049)."""
    from trailblaze.maestro.convert import flow_trail_source
    from trailblaze.maestro.flow import read_flow

    flow = read_flow(text, name)
    converted, starts = flow_trail_source(flow)
    try:
        trail = loads_trail(converted, name)
    except TrailFileError as exc:
        raise _at_flow_lines(exc, name, starts, flow.lines, bool(flow.on_start)) from None
    trail._from_flow = True
    trail._flow_lines = [None, *([None] if flow.on_start else []), *flow.lines]
    trail._flow_templates = flow.templates
    trail._flow_notes = flow.notes
    if flow.notes:
        trail._note = "; ".join(n.split(": note: ", 1)[-1] for n in flow.notes)
    return trail


def _at_flow_lines(
    exc: TrailFileError, name: str, starts: list[int], lines: list[int], on_start: bool
) -> TrailFileError:
    """`exc`, found in a flow's converted text, told at the flow's own lines: the line of the command
    whose step holds the problem (the header's line 1 for the config and the hooks), never a line of
    text the user does not have."""
    own = [*([1] if on_start else []), *lines]
    problems = []
    for problem in exc.problems:
        step = sum(1 for start in starts if start <= problem.line) - 1
        line = own[step] if 0 <= step < len(own) else 1
        moved = Problem(line, 1, problem.message, file=problem.file)
        if moved not in problems:  # each command is written for android and for ios: said once
            problems.append(moved)
    return TrailFileError(name, problems)


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
    """Whether a file name is a trail's: `*.trail.yaml`, `*.trail.md`, `trail.yaml` or `blaze.yaml`."""
    return is_trail_name(path.name)


def find_trail_files(
    paths: Iterable[str | os.PathLike[str]],
    classifier: str | None = None,
    *,
    passed_over: list[Path] | None = None,
) -> tuple[list[Path], list[str]]:
    """The trail files named by `paths` (folders searched recursively, sorted) and the paths that do not exist.

    A file named explicitly is taken whatever its name. In a folder, hidden and `build/` folders are
    skipped, and a folder holding `trail.yaml`, `blaze.yaml` or `<classifier>.trail.yaml` files is one
    trail: the file for `classifier` (a device classifier or a platform, closest first) is taken, or
    every one of them when `classifier` is None (`validate`). The `.yaml` files in those folders that
    are neither trail nor flow are added to `passed_over` when it is given.
    """
    found: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += walk_trails(path, classifier, passed_over=passed_over)
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

    Saving back to the file the trail was loaded from holds an exclusive lock on it and merges: when
    another process wrote the file since, this trail's recording edits are spliced into the current
    text instead of overwriting it (ADR 0019).

    Raises:
        UsageError: no path was given and the trail was not loaded from a file, or the write failed.
        TrailConflictError: another writer changed a step this trail recorded, or changed the file
            beyond recordings while this trail had other unsaved changes.
    """
    target = os.fspath(path) if path is not None else trail.path
    if target is None:
        raise UsageError("this trail was not loaded from a file; give a path to save it to")
    if (
        trail._from_flow
        and trail._path is not None
        and os.path.abspath(target) == os.path.abspath(trail._path)
    ):
        raise UsageError(
            f"{target} is a Maestro flow, not written by trailblaze; run `trailblaze import maestro {target}` "
            "and record into the trail it writes"
        )
    own_file = (
        trail._disk_shape is not None  # read from disk: another writer may have changed it since
        and trail._path is not None
        and os.path.abspath(target) == os.path.abspath(trail._path)
    )
    try:
        with locked(target):
            text = _text_to_save(trail, target) if own_file else trail.to_yaml()
            atomic_write(target, text.encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    trail._path = target
    trail._synced(text)


def _text_to_save(trail: Trail, target: str) -> str:
    """What to write over `target` (locked): this trail, or its edits on what another writer left."""
    try:
        current: str | None = Path(target).read_bytes().decode("utf-8")
    except FileNotFoundError:
        current = None
    if current is None or current == trail._disk_text:
        return trail.to_yaml()  # nobody wrote it since this trail read it
    if trail._shape() != trail._disk_shape:
        raise TrailConflictError(
            f"{target} was changed by someone else since it was loaded, and this trail has unsaved "
            "changes besides recordings; reload it and apply them again"
        )
    other = loads_trail(current, target)
    trail._apply_edits(other, target)
    return other.to_yaml()
