"""One report from many runs: the run directories of a CI matrix's shards (`trailblaze report --merge`).

Each shard job uploads its run directory; a last job downloads them next to each other and merges
them into one HTML report and one JUnit file. The shards' files are not touched or copied: the
merged run's artifact paths point into them, relative to the folder that holds them all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from trailblaze.errors import UsageError
from trailblaze.output.runlog import RUN_FILE, RunRecord, TrailRecord, load_run

__all__ = ["MergedRun", "merge_runs", "rebase_trail", "run_dirs"]


@dataclass
class MergedRun:
    run: RunRecord
    root: Path
    """The folder holding every merged run directory; the run's artifact paths are relative to it."""
    sources: list[Path] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    """Trails (id or path, with the device) that ran in more than one of the merged runs."""


def run_dirs(paths: list[str]) -> list[Path]:
    """The run directories named: each path is a run directory (or its run.json), or a folder whose
    sub-folders are run directories (a CI job's downloaded artifacts)."""
    found: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.name == RUN_FILE and path.is_file():
            path = path.parent
        if (path / RUN_FILE).is_file():
            found.append(path)
            continue
        nested = sorted(p.parent for p in path.glob(f"*/{RUN_FILE}")) if path.is_dir() else []
        if not nested:
            raise UsageError(
                f"{given}: no run.json in it or in its sub-folders; pass the run directories the shards "
                "wrote (replay --run-dir DIR) or the folder holding them"
            )
        found.extend(nested)
    unique: list[Path] = []
    for path in found:
        if path.resolve() not in {p.resolve() for p in unique}:
            unique.append(path)
    return unique


def merge_runs(dirs: list[Path]) -> MergedRun:
    """The runs as one: every trail of every run, in the order given, artifact paths rebased."""
    from trailblaze.output.rundir import now_iso

    root = Path(os.path.commonpath([d.resolve() for d in dirs]))
    runs = [(d, load_run(d)) for d in dirs]
    finished = [run.finished_at for _, run in runs if run.finished_at]
    shards = [run.shard for _, run in runs if run.shard]
    merged = RunRecord(
        run_id=f"merged {len(runs)} run{'s' * (len(runs) != 1)}",
        started_at=min(run.started_at for _, run in runs),
        finished_at=max(finished) if len(finished) == len(runs) else now_iso(),
        command=["trailblaze", "report", "--merge", *(str(d) for d in dirs)],
        device=", ".join(sorted({run.device for _, run in runs if run.device})),
        status="interrupted" if any(run.status == "interrupted" for _, run in runs) else "finished",
        shard=", ".join(sorted(shards, key=_shard_order)) or None,
    )
    seen: dict[str, int] = {}
    for directory, run in runs:
        sub = directory.resolve().relative_to(root).as_posix()
        for trail in run.trails:
            merged.trails.append(rebase_trail(trail, sub, confine=directory))
            merged.usage.add(trail.usage)
            name = f"{trail.id or trail.path} on {trail.device or '?'}"
            seen[name] = seen.get(name, 0) + 1
    duplicates = [name for name, count in seen.items() if count > 1]
    return MergedRun(merged, root, list(dirs), duplicates)


def _shard_order(text: str) -> tuple[int, int]:
    index, _, total = text.partition("/")
    return (int(total), int(index)) if index.isdigit() and total.isdigit() else (0, 0)


def rebase_trail(trail: TrailRecord, sub: str, *, confine: Path | None = None) -> TrailRecord:
    """The trail (a copy) with every artifact path, sub-trails', proof's and earlier attempts' too, prefixed by `sub`: made
    relative to the folder that holds `sub`.

    Args:
        confine: The run directory the trail comes from: a path that leads out of it (`../`, absolute,
            a symlink out) is dropped, so one shard's run.json cannot show another's files, or any
            file under the folder that holds them all.
    """
    if sub in ("", ".") and confine is None:
        return trail.model_copy(deep=True)

    def join(rel: str | None) -> str | None:
        if not rel:
            return rel
        if confine is not None and not _inside(confine, rel):
            return None
        return rel if sub in ("", ".") else f"{sub}/{rel}"

    trail = trail.model_copy(deep=True)
    trail.directory = join(trail.directory) or ("" if sub in ("", ".") else sub)
    trail.storyboard = join(trail.storyboard)
    for step in trail.steps:
        step.screenshot_before = join(step.screenshot_before)
        step.screenshot_after = join(step.screenshot_after)
        step.hierarchy_before = join(step.hierarchy_before)
        step.hierarchy_after = join(step.hierarchy_after)
        for tool in step.tools:
            tool.screenshot_after = join(tool.screenshot_after)
        for call in step.llm_calls:
            call.transcript = join(call.transcript)
        if confine is not None and step.device_log and not _inside(confine, step.device_log):
            step.device_log = None  # kept as written otherwise: the report finds it from the trail's folder
        step.subtrails = [rebase_trail(s, sub, confine=confine) for s in step.subtrails]
    if trail.proof is not None:
        trail.proof = rebase_trail(trail.proof, sub, confine=confine)
    trail.attempts = [rebase_trail(a, sub, confine=confine) for a in trail.attempts]  # --retries
    return trail


def _inside(directory: Path, rel: str) -> bool:
    """Whether the artifact path `rel` of a run.json names a file inside its run `directory`."""
    from trailblaze.output.report import artifact_path

    return ".." not in Path(rel).parts and artifact_path(directory, rel) is not None
