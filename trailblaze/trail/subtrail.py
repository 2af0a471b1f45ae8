"""`runTrail {path, args}`: a trail running another trail's steps as one of its tools (ADR 0021).

The step engine (`trailblaze.engine.replay`) runs the sub-trail; this module finds it and builds its
variables. `path` is written literally (no templates, so preflight can follow it before the device)
and is relative to the calling trail's folder. The sub-trail gets its own `config.memory` and
`config.args`, with `args` given here on top; their values may use the caller's `{{templates}}`, and an
arg whose value came from a secret stays a secret. The run's secrets carry over; values the caller
remembered do not (pass them as args).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from trailblaze.common.limits import MAX_RUNTRAIL_DEPTH
from trailblaze.common.project import project_of
from trailblaze.errors import UsageError
from trailblaze.tools.memory import TEMPLATE_RE, Memory
from trailblaze.trail.model import ToolCall, Trail, load_trail
from trailblaze.trail.variables import declared_values

__all__ = [
    "SubTrail",
    "SubTrails",
    "cycle_text",
    "open_subtrail",
    "outside_project",
    "project_of",
    "resolve_subtrail_path",
    "trail_key",
]

SubTrails = dict[str, tuple[Trail, str | None]]
"""The sub-trails one run loaded, by `trail_key`, with their text as loaded: record's proof replay
and its final write see the recordings record made in them (in memory until then)."""


class SubTrail(NamedTuple):
    """A loaded sub-trail and its variables."""

    path: Path
    trail: Trail
    memory: Memory


def resolve_subtrail_path(caller_path: str | os.PathLike[str] | None, path: str) -> Path:
    """`path` as written in a `runTrail` of the trail at `caller_path` (relative: from its folder)."""
    target = Path(path)
    if target.is_absolute() or caller_path is None:
        return target
    return Path(caller_path).parent / target


def outside_project(top: str | os.PathLike[str], written: str, target: Path) -> str | None:
    """Why `runTrail {written}` may not run `target`, or None: a sub-trail stays inside the project of
    the outermost trail (`top`), symlinks resolved. A trail from a pull request must not run, or load
    the custom tools beside, a file elsewhere on the machine (`/etc/…`, `../../`)."""
    root = project_of(top)
    if Path(os.path.realpath(target)).is_relative_to(root):
        return None
    return (
        f"runTrail {written}: outside this trail's project {root}; a sub-trail must live in the same project "
        "(the folder of the nearest pyproject.toml or .git)"
    )


def trail_key(path: str | os.PathLike[str]) -> str:
    """The identity of a trail file for cycle checks (symlinks and `..` resolved)."""
    return os.path.realpath(path)


def cycle_text(chain: Sequence[str], again: str) -> str:
    """`a.trail.yaml → b.trail.yaml → a.trail.yaml`, from the chain of keys and the repeated one."""
    start = list(chain).index(again)
    return " → ".join(Path(p).name for p in [*chain[start:], again])


def open_subtrail(
    caller: Trail, call: ToolCall, memory: Memory, chain: Sequence[str], loaded: SubTrails | None = None
) -> SubTrail:
    """Load the trail a `runTrail` call names and build its variables from the caller's `memory`.

    Args:
        caller: The calling trail (its path anchors a relative `path`).
        call: The `runTrail` call as recorded.
        memory: The caller's variables: the `args` templates are filled from it, its secrets carry over.
        chain: Keys (`trail_key`) of the trails running now, outermost first, including the caller.
        loaded: The run's sub-trails so far: a file loaded before is that same `Trail` again.

    Raises:
        UsageError: a cycle, nesting deeper than `MAX_RUNTRAIL_DEPTH`, a file that does not load, or
            a required sub-trail arg not given.
        TrailFileError: the sub-trail file is not a valid trail.
    """
    written = str(call.params.get("path", ""))
    path = resolve_subtrail_path(caller.path, written)
    if not path.is_file():
        raise UsageError(
            f"runTrail {written}: no trail file at {path}; the path is relative to the calling trail's folder"
        )
    refused = outside_project(chain[0] if chain else path, written, path)
    if refused is not None:
        raise UsageError(refused)
    key = trail_key(path)
    if key in chain:
        raise UsageError(f"runTrail {written}: a cycle ({cycle_text(chain, key)}); a trail cannot run itself")
    if len(chain) >= MAX_RUNTRAIL_DEPTH:  # preflight refuses this first; a file changed since is caught here
        raise UsageError(
            f"runTrail {written}: trails nested more than {MAX_RUNTRAIL_DEPTH} deep; run fewer trails inside each other"
        )
    if loaded is not None and key in loaded:
        sub = loaded[key][0]
    else:
        sub = load_trail(path)
        if loaded is not None:
            loaded[key] = (sub, sub.to_yaml() if sub.source_text is not None else None)
    raw: Mapping[str, Any] = call.params.get("args") or {}
    given: dict[str, str] = {}
    secret_args: dict[str, str] = {}
    for name, value in raw.items():
        if isinstance(value, str):
            given[name] = memory.interpolate(value, where=f"runTrail args.{name}")
            if any(memory.is_secret(m.group(2) or m.group(3)) for m in TEMPLATE_RE.finditer(value)):
                secret_args[name] = given[name]
        else:
            given[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    base_memory, base_args = declared_values(sub, given)
    return SubTrail(path, sub, memory.for_subtrail(base_memory, {**base_args, **given}, secret_args))
