"""`trailblaze import maestro FLOW…`: each Maestro flow written as a `.trail.yaml` beside it (or in a folder).

Every command becomes one step recording `mobile_maestro` for android and ios, exactly what
`trailblaze replay FLOW.yaml` runs, so the trail replays as the flow did; it can then be re-recorded,
healed or extended with natural-language steps. A command that cannot run here (`evalScript`,
`assertWithAI`, …) becomes a step without a recording (an AI assertion a `- verify:` step) for the
agent to solve, and is listed as not converted. Files are written atomically; an existing file is
left alone unless `force`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from trailblaze.common.files import atomic_write
from trailblaze.common.text_files import read_trail_text
from trailblaze.errors import TrailblazeError, UsageError
from trailblaze.maestro.convert import flow_trail_text
from trailblaze.maestro.flow import read_flow
from trailblaze.maestro.sniff import FLOW_SUFFIXES, flow_file_kind

__all__ = ["Imported", "import_flow", "import_maestro_paths", "trail_path"]


@dataclass
class Imported:
    """What importing one flow did."""

    flow: Path
    trail: Path
    written: bool
    steps: int = 0
    not_converted: list[str] = field(default_factory=list)
    """`file:line:col: problem` of each command left for the agent."""


def trail_path(flow: Path, out: Path | None, base: Path | None = None) -> Path:
    """Where the trail of `flow` goes: `<stem>.trail.yaml` beside the flow, or in `out` under the
    flow's sub-folder of `base` (the folder named on the command line), so two `login.yaml` in two
    folders never write one trail."""
    if out is None:
        return flow.parent / f"{flow.stem}.trail.yaml"
    sub = flow.parent.relative_to(base) if base is not None and flow.is_relative_to(base) else Path()
    return out / sub / f"{flow.stem}.trail.yaml"


def import_flow(
    flow: Path, out: Path | None = None, *, force: bool = False, base: Path | None = None
) -> Imported:
    """Writes the trail of the Maestro flow at `flow`.

    Raises:
        UsageError: the file cannot be read, or the trail cannot be written.
        TrailFileError: the file is not a Maestro flow, or its header is broken.
    """
    target = trail_path(flow, out, base)
    name = os.fspath(flow)
    text = read_trail_text(name)
    parsed = read_flow(text, name, lenient=True, media_base=os.path.abspath(target.parent))
    done = Imported(
        flow,
        target,
        written=False,
        steps=len(parsed.commands),
        not_converted=list(parsed.unconverted.values()),
    )
    if target.is_symlink() and not target.exists() and not force:
        raise UsageError(
            f"{target} is a symlink to {os.readlink(target)}, which does not exist; writing the trail would "
            "create that file: remove the link, or pass --force to write it"
        )
    if target.exists() and not force:
        return done
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, flow_trail_text(parsed).encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    done.written = True
    return done


def import_maestro_paths(
    paths: list[Path], out: Path | None, *, force: bool, echo: Callable[[str], None]
) -> int:
    """The `trailblaze import maestro` command: imports every flow named or found below `paths`,
    printing what it wrote, skipped and could not convert; the exit code (0, or 2 for a path that is
    no flow or a file that could not be read)."""
    flows: list[tuple[Path, Path | None]] = []
    code = 0
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.rglob("*") if p.name.endswith(FLOW_SUFFIXES) and flow_file_kind(p) != "other"
            )
            flows += [
                (p, path)
                for p in found
                if not any(part.startswith(".") for part in p.relative_to(path).parts)
            ]
            if not found:
                echo(f"{path}: no Maestro flow in this folder")
                code = 2
        elif path.exists():
            flows.append((path, None))
        else:
            echo(f"{path}: no such file or directory")
            code = 2
    for flow, base in flows:
        try:
            done = import_flow(flow, out, force=force, base=base)
        except TrailblazeError as exc:
            echo(exc.message)
            code = 2
            continue
        if not done.written:
            echo(f"skipped {done.trail}: it exists (--force overwrites it)")
            continue
        left = len(done.not_converted)
        note = f", {left} left for the agent" if left else ""
        echo(f"wrote {done.trail} ({done.steps} step{'s' * (done.steps != 1)}{note})")
        for problem in done.not_converted:
            echo(f"  not converted: {problem}")
    return code
