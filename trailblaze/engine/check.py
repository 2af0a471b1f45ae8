"""`trailblaze check` and the fact warnings of `trailblaze validate`: how strong a trail's assertions are.

Two questions, asked of every `verify:` step and every recorded platform, with no device:

1. Does a recorded assertion check every fact the step states (`trailblaze.mutation.facts`)? Asked of the
   file alone; `validate` prints the answer as warnings at `file:line:col`.
2. Can each recorded assertion fail (`trailblaze.mutation.mutants`)? Asked of the screens a run saved: the
   newest run directory under `.trailblaze/runs/` that replayed (or recorded) the trail and kept the
   step's hierarchy, or the one given with `--run`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from trailblaze.common import yaml_lines as _yaml
from trailblaze.errors import TrailblazeError
from trailblaze.mutation.facts import stated_facts, uncovered

if TYPE_CHECKING:
    from trailblaze.mutation.mutants import Verdict
    from trailblaze.output.runlog import RunRecord, TrailRecord
    from trailblaze.screen.hierarchy import Hierarchy
    from trailblaze.trail.model import Trail

__all__ = ["CheckReport", "check_trail", "fact_warnings", "find_runs"]


def fact_warnings(file: Path | str, trail: Trail) -> list[str]:
    """`file:line:col: warning: …` for each fact a verify step states that no recorded assertion of a
    platform checks (steps without a recording for a platform are not judged for it)."""
    out: list[str] = []
    doc: _yaml.YamlDocument | None = None  # parsed for the first warning only: most trails have none
    for i, step in enumerate(trail.steps):
        if step.kind != "verify" or not step.recording or not stated_facts(step.text):
            continue
        facts = [(p, fact) for p, calls in sorted(step.recording.items()) for fact in uncovered(step.text, calls)]
        if not facts:
            continue
        if doc is None and trail.source_text is not None:
            doc = _yaml.parse_document(trail.source_text)
        line, col = doc.position(("trail", i, "verify")) if doc is not None else (1, 1)
        for platform, fact in facts:
            where = f"{file}:{line}:{col + _quote_shift(doc, i, fact.offset)}"
            out.append(
                f"{where}: warning: step {i + 1} ({platform}) states {fact.describe()} but no recorded "
                f"assertion checks it; re-record the step (`trailblaze record --step {i + 1}`)"
            )
    return out


def _quote_shift(doc: _yaml.YamlDocument | None, index: int, offset: int) -> int:
    """The column offset of a fact inside a one-line plain or quoted scalar (0 when folded)."""
    node = doc.node(("trail", index, "verify")) if doc is not None else None
    if node is None or node.start_mark.line != node.end_mark.line:
        return 0
    return offset + (1 if getattr(node, "style", None) in ("'", '"') else 0)


@dataclass
class CheckReport:
    """What `check_trail` found for one trail."""

    path: str
    uncovered: list[str] = field(default_factory=list)
    """`step N (platform): "text" …` per fact no assertion checks."""
    verdicts: list[tuple[int, str, Verdict]] = field(default_factory=list)
    """(0-based step, platform, verdict) per recorded assertion judged on a saved screen."""
    unjudged: list[str] = field(default_factory=list)
    """Steps whose assertions could not be judged, and why (no run, no saved screen)."""
    run_dir: str | None = None

    @property
    def weak(self) -> list[str]:
        return [f"step {i + 1} ({p}): {v.message}" for i, p, v in self.verdicts if v.status == "cannot-fail"]

    @property
    def shown(self) -> int:
        return sum(v.status == "can-fail" for _, _, v in self.verdicts)

    @property
    def ok(self) -> bool:
        return not self.uncovered and not self.weak


def check_trail(file: Path, trail: Trail, runs: Path, *, run_dir: Path | None = None) -> CheckReport:
    """Items 1 and 2 of the module docstring for `trail` (loaded from `file`)."""
    report = CheckReport(str(file))
    for i, step in enumerate(trail.steps):
        if step.kind != "verify" or not step.recording:
            continue
        for platform, calls in sorted(step.recording.items()):
            for fact in uncovered(step.text, calls):
                report.uncovered.append(f"step {i + 1} ({platform}): {fact.describe()} is not checked")
    found = find_runs(file, runs, run_dir)
    if not found:
        where = run_dir or runs
        report.unjudged.append(f"no run of this trail under {where} kept its screens; replay it first")
        return report
    # the device stack (sessions, tools) only here: `validate`'s fact warnings above never load it
    from trailblaze.mutation.mutants import is_assertion, prove_assertion
    from trailblaze.tools.memory import Memory

    report.run_dir = ", ".join(sorted({str(folder) for folder, _ in found.values()}))
    memory = Memory()
    for platform, (folder, record) in sorted(found.items()):
        for rec in record.steps:
            if not 0 <= rec.index < len(trail.steps):
                continue
            step = trail.steps[rec.index]
            calls = [c for c in step.recording_for(record.classifier or platform) or [] if is_assertion(c)]
            if not calls:
                continue
            screen = _saved_screen(folder, rec.hierarchy_after or rec.hierarchy_before)
            if screen is None or rec.status != "passed":
                why = "did not pass in that run" if rec.status != "passed" else "has no saved screen"
                report.unjudged.append(f"step {rec.index + 1} ({platform}) {why}")
                continue
            for call in calls:
                report.verdicts.append((rec.index, platform, prove_assertion(call, screen, memory)))
    return report


def find_runs(file: Path, runs: Path, run_dir: Path | None = None) -> dict[str, tuple[Path, TrailRecord]]:
    """Per platform, the newest run (or `run_dir`) with a trail record of `file`: its folder and that
    record (the proof replay's, for a record run)."""
    candidates = [run_dir] if run_dir is not None else sorted(runs.glob("*"), reverse=True)
    want = file.resolve()
    found: dict[str, tuple[Path, TrailRecord]] = {}
    for folder in candidates:
        run = _load_run(folder)
        if run is None:
            continue
        for record in run.trails:
            chosen = record.proof or record
            platform = chosen.platform or record.platform
            if Path(record.path).resolve() == want and chosen.steps and platform not in found:
                found[platform] = (folder, chosen)
    return found


def _load_run(folder: Path) -> RunRecord | None:
    from trailblaze.output.runlog import load_run

    try:
        return load_run(folder)
    except TrailblazeError:
        return None


def _saved_screen(folder: Path, rel: str | None) -> Hierarchy | None:
    from trailblaze.output.report import artifact_path
    from trailblaze.screen.saved_screen import parse_saved_screen

    path = artifact_path(folder, rel) if rel else None
    if path is None or not path.is_file():
        return None
    try:
        return parse_saved_screen(path.read_bytes())
    except (OSError, TrailblazeError, ValueError):
        return None
