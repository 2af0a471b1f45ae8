"""What a failed record paid for, kept in a draft beside the trail, and `record --resume` from it.

A record that stops at step N (the agent gave up, the model endpoint kept failing, Ctrl-C) has solved
steps 1..N-1 with the model; the trail file is not changed, because nothing is written before the
proof replay (ADR 0015). Those recordings go to `FILE.draft` beside the trail's recordings file: the
trail as it would have been written, the new recordings in place, under a comment saying what it is.
`record --resume` puts the draft's recordings for the device's platform back into the loaded trail, as
far as the trail's steps still read as they did (a step whose text changed, and every step after it,
are solved again), so those steps replay with no model call; the whole trail is still proven before
it is written, and a written trail's draft is removed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.common.files import atomic_write_text
from trailblaze.common.flags import CLI, Flags
from trailblaze.errors import TrailblazeError, UsageError
from trailblaze.trail.discovery import recordings_file
from trailblaze.trail.model import loads_trail

if TYPE_CHECKING:
    from trailblaze.output.runlog import TrailRecord
    from trailblaze.trail.model import Trail

__all__ = [
    "DRAFT_SUFFIX",
    "draft_path",
    "drop_draft",
    "keep_draft",
    "not_changed_text",
    "nothing_to_record",
    "resume_draft",
    "resumed_text",
    "steps_text",
]

DRAFT_SUFFIX = ".draft"
"""`login.trail.yaml.draft`: no trail, flow or `*.yaml` pattern picks it up."""


def draft_path(trail_path: str | os.PathLike[str]) -> Path:
    return Path(f"{recordings_file(trail_path)}{DRAFT_SUFFIX}")


def keep_draft(trail: Trail, record: TrailRecord, resumed: list[int]) -> Path | None:
    """Writes the in-memory trail to its draft when this run (or the draft it resumed) holds recordings
    the file does not; sets `record.draft`. None when there is nothing the model paid for."""
    made = sorted({s.index for s in record.steps if s.recording_written} | set(resumed))
    if not made or trail.path is None:
        return None
    target = draft_path(trail.path)
    name = recordings_file(trail.path).name
    header = (
        f"# trailblaze record draft of {name}: the trail with the recordings a record made before it stopped\n"
        f"# ({steps_text(made)}). `trailblaze record {name} --resume` (on the same --device) continues from\n"
        "# here with no model calls for them; delete this file to record from the start.\n"
    )
    atomic_write_text(target, header + trail.to_yaml())
    record.draft = str(target)
    return target


def drop_draft(trail_path: str | os.PathLike[str]) -> None:
    """The trail was written: its draft is spent."""
    draft_path(trail_path).unlink(missing_ok=True)


def resume_draft(trail: Trail, platform: str, *, required: bool = True) -> list[int]:
    """Puts the draft's `platform` recordings into `trail` (in memory), step by step for as long as the
    steps read as they did; returns the steps (0-based; -1 the trailhead) given a recording.

    Raises:
        UsageError: `required` and the trail has no draft, or the draft does not load.
    """
    if trail.path is None:
        return []
    source = draft_path(trail.path)
    if not source.is_file():
        if required:
            raise UsageError(
                f"no draft of {recordings_file(trail.path).name} to resume ({source} does not exist): a record "
                "that stops part-way keeps one; drop --resume to record from the start"
            )
        return []
    try:
        draft = loads_trail(source.read_text(encoding="utf-8"), str(source))
    except (OSError, TrailblazeError) as exc:
        raise UsageError(
            f"the draft {source} does not load ({getattr(exc, 'message', exc)}); delete it and record "
            "without --resume"
        ) from None
    applied: list[int] = []
    if (trail.trailhead is None) != (draft.trailhead is None):
        return applied
    if trail.trailhead is not None and draft.trailhead is not None:
        if trail.trailhead.text != draft.trailhead.text:
            return applied
        for key, tool in (draft.trailhead.recording or {}).items():
            if _family(key) == platform and (trail.trailhead.recording or {}).get(key) != tool:
                trail.set_trailhead_recording(key, tool)
                applied.append(-1)
    for i, (step, was) in enumerate(zip(trail.steps, draft.steps, strict=False)):
        if (step.kind, step.text) != (was.kind, was.text):
            break  # this step, and so every step after it (it starts from another screen), is solved again
        if step.static or not step.recordable:
            continue
        for key, tools in (was.recording or {}).items():
            if _family(key) == platform and (step.recording or {}).get(key) != tools:
                trail.set_recording(i, key, tools)
                applied.append(i)
    return sorted(set(applied))


def steps_text(indexes: list[int]) -> str:
    """`the trailhead and steps 1-3, 5`, as replay numbers them."""
    numbers = [i + 1 for i in sorted(set(indexes)) if i >= 0]
    runs: list[str] = []
    for n in numbers:
        if runs and runs[-1].split("-")[-1] == str(n - 1):
            runs[-1] = f"{runs[-1].split('-')[0]}-{n}"
        else:
            runs.append(str(n))
    steps = f"step{'s' * (len(numbers) != 1)} {', '.join(runs)}" if numbers else ""
    head = "the trailhead" if -1 in indexes else ""
    return " and ".join(p for p in (head, steps) if p)


def nothing_to_record(file: Path, platform: str, spec: str, flags: Flags = CLI) -> str:
    """Said instead of recording a trail every step of which has a recording for the device."""
    return (
        f"{file}: nothing to record: every step has an {platform} recording; replay it with "
        f"`{flags.replay_trail(str(file), spec)}`, or solve steps again with --step N or --rerecord"
    )


def resumed_text(file: Path, indexes: list[int]) -> str:
    return (
        f"resuming from {draft_path(file).name}: {steps_text(indexes)} replay what an earlier record "
        "solved (no model calls)"
    )


def not_changed_text(file: Path, record: TrailRecord, spec: str, flags: Flags = CLI) -> str:
    """`login.trail.yaml not changed; steps 1-3 are kept in … --resume`: what a refused record left
    (the command carries the run's options, `flags.carried`, so it runs as pasted)."""
    name = recordings_file(file)
    if record.draft is None:
        return f"{name} not changed"
    return (
        f"{name} not changed; the steps the model solved are kept in {record.draft}: "
        f"`{flags.record_trail(str(file), spec, '--resume')}` replays them with no model calls and records the rest"
    )


def _family(key: str) -> str:
    return key.split("-")[0]
