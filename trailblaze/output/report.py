"""The HTML report, rendered from a run directory's `run.json` one trail at a time.

The page has its CSS and a few lines of optional JavaScript inline. Its pictures (the run's stored
screenshots and storyboards, `trailblaze.output.report_images`) are files beside it by default, loaded
lazily as a trail or step is opened, so a page of a thousand trails is a few megabytes of HTML that
paints at once; `single_file` embeds them instead (downscaled to `THUMBNAIL_WIDTH` pixels), for a
report that is one file (docs/adr/0058-report-beside-its-pictures.md). The page reads fine with
JavaScript off: failing trails and steps are open `<details>`, passing ones are closed (but when
every trail passed, the first one and its steps are open, so the page never opens on closed boxes), and the
"failed only" filter is a CSS checkbox; the script only adds the "expand all / collapse all" buttons.
Raw artifacts that are not shown (hierarchy dumps, LLM transcripts) are linked by relative
path, so the links work when the report sits in the run directory (the default) or next to it.

The run is read from run.json three times (the totals of the header, the index, the trails) and the
page is written as it is made: neither the run nor the page is ever whole in memory.

Everything from the run log is user data (step text, params, model output) and is HTML-escaped.
"""

from __future__ import annotations

import functools
import io
import os
import shlex
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from trailblaze.common.files import atomic_stream
from trailblaze.device.logs import TAIL_LINES
from trailblaze.output._html import (
    esc,
    format_cost,
    format_count,
    format_duration,
    format_usage_cost,
    step_label,
)
from trailblaze.output.ci_policy import is_blocking, is_flaky
from trailblaze.output.report_grid import last_screen, matrix
from trailblaze.output.report_images import (
    THUMBNAIL_WIDTH,
    EmbeddedPictures,
    LinkedPictures,
    Picture,
    Pictures,
    artifact_path,
    drop_files_folder,
    pictures_folder,
)
from trailblaze.output.runlog import (
    LLMCallRecord,
    RunRecord,
    StepRecord,
    ToolRecord,
    TrailRecord,
    UsageTotals,
    iter_trails,
    model_label,
    read_head,
)

__all__ = [
    "REPORT_FILE",
    "HistoryLookup",
    "TrailHistory",
    "THUMBNAIL_WIDTH",
    "artifact_path",
    "pictures_folder",
    "render_html",
    "write_html_report",
]

REPORT_FILE = "report.html"

_FAILING = frozenset({"failed", "error", "interrupted"})
_STATUS_HELP = {
    "passed": "Replayed from the recording",
    "passed-with-self-heal": "The recording failed and the agent repaired the step",
    "passed-ai": "Run by the AI agent (no recording for this device, or not recordable)",
    "failed": "Did not pass",
    "error": "Infrastructure error (device or LLM), not a trail failure",
    "skipped": "Skipped",
    "not-run": "Not run because an earlier step failed",
    "running": "Still running when this report was made",
    "interrupted": "The run was stopped (Ctrl-C) or its process died before this trail finished",
    "flaky": "Failed, then passed on a retry (--retries): its earlier attempts are below it",
    "quarantined": "Quarantined (config.quarantine): it ran and is reported, but its failure does not fail the build",
}
_TRAIL_ORDER = (
    "passed", "passed-with-self-heal", "passed-ai", "failed", "error", "interrupted", "running", "skipped"
)
_STEP_ORDER = ("passed", "passed-with-self-heal", "passed-ai", "failed", "skipped", "not-run")


def write_html_report(
    run_dir: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    run: RunRecord | None = None,
    single_file: bool = False,
    history: HistoryLookup | None = None,
) -> Path:
    """Renders the run directory's `run.json` into an HTML page and returns its path.

    The run is read and the page written one trail at a time. Its pictures are the run's own files:
    linked where they are when the page is in the run directory, else put in the folder
    `<page name>_files/` beside it (`trailblaze.output.report_images`).

    Args:
        run_dir: A run directory written by `record` / `replay` (holds `run.json`).
        output: Where to write; default `<run_dir>/report.html`. The file is replaced atomically.
        run: The run to render instead of `run_dir`'s `run.json` (a merged run, whose artifact
            paths are relative to `run_dir`).
        single_file: One self-contained file: the pictures embedded (screenshots downscaled), no
            folder beside it.
        history: Each trail's earlier outcomes on its device (the results store, `trailblaze.results`),
            asked one trail at a time; None: the page shows no history.

    Raises:
        UsageError: `run_dir` holds no readable `run.json`, or `output` cannot be written.
    """
    from trailblaze.errors import UsageError

    folder = Path(run_dir)
    head = read_head(folder) if run is None else run
    trails: Callable[[], Iterable[TrailRecord]] = (
        (lambda: iter_trails(folder, head)) if run is None else (lambda: run.trails)
    )
    target = Path(output) if output is not None else folder / REPORT_FILE
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if single_file:
            drop_files_folder(target)
        pictures: Pictures = EmbeddedPictures(folder) if single_file else LinkedPictures.beside(folder, target)
        page = _Page(head, trails, folder, target.parent, pictures)
        page.history = history
        with atomic_stream(target) as handle:  # every value went through `esc`, which redacts
            out = io.TextIOWrapper(handle, encoding="utf-8", newline="")
            try:
                out.writelines(page.render())
            finally:
                out.flush()
                out.detach()  # atomic_stream closes the file and renames it into place
    except OSError as exc:
        raise UsageError(
            f"{target}: cannot write the report ({exc.strerror or exc}); pick another --output"
        ) from None
    return target


def render_html(
    run: RunRecord,
    run_dir: str | os.PathLike[str],
    *,
    link_from: str | os.PathLike[str] | None = None,
    single_file: bool = True,
) -> str:
    """The report page for `run` as one HTML document.

    Args:
        run: The run log.
        run_dir: The run directory its artifact paths are relative to (screenshots are read from it).
        link_from: The folder the page will be saved in, for relative links to transcripts and
            hierarchy dumps; default `run_dir`.
        single_file: The pictures embedded, so the document needs nothing else; False: linked where
            they are in the run directory (nothing is copied).
    """
    folder = Path(run_dir)
    base = Path(link_from) if link_from is not None else folder
    pictures: Pictures = EmbeddedPictures(folder) if single_file else LinkedPictures(folder, base)
    return "".join(_Page(run, lambda: run.trails, folder, base, pictures).render())


# --------------------------------------------------------------------------------------------------
# Rendering


def _all_trails(trails: Iterable[TrailRecord]) -> Iterator[TrailRecord]:
    """Every trail, with the proof replays and `runTrail` sub-trails inside them."""
    for trail in trails:
        yield trail
        yield from _all_trails(trail.attempts)
        if trail.proof is not None:
            yield from _all_trails([trail.proof])
        for step in trail.steps:
            yield from _all_trails(step.subtrails)


def _log_lines(path: Path | None) -> list[str]:
    """The lines of a step's app log file (none when it is missing or unreadable)."""
    if path is None:
        return []
    try:
        return path.read_text("utf-8", "replace").splitlines()
    except OSError:
        return []


def device_log_tail(step: StepRecord, run_dir: Path) -> list[str]:
    """The failure text's lines about the step's app log: its last `TAIL_LINES` lines, or why none."""
    path = artifact_path(run_dir, step.device_log) if step.device_log else None
    log = _log_lines(path)
    if not log:
        return [f"    device log: {step.device_log_note}"] if step.device_log_note else []
    shown = log[-TAIL_LINES:]
    head = f"    app log ({'last ' if len(shown) < len(log) else ''}{len(shown)} lines, {path}):"
    return [head, *(f"      {line}" for line in shown)]


def _badge(status: str, *, big: bool = False) -> str:
    help_text = _STATUS_HELP.get(status, status)
    size = " badge-big" if big else ""
    return f'<span class="badge s-{esc(status)}{size}" title="{esc(help_text)}">{esc(status)}</span>'


def _ci_badges(trail: TrailRecord) -> str:
    """`flaky` (passed on a retry) and `quarantined`, beside the trail's status."""
    badges = [
        name for name, on in (("flaky", is_flaky(trail)), ("quarantined", bool(trail.quarantine))) if on
    ]
    return "".join(" " + _badge(name) for name in badges)


def _tool_status(status: str) -> str:
    kind = "ok" if status == "OK" else "bad"
    return f'<span class="rs rs-{kind}">{esc(status)}</span>'


def _params_text(params: dict[str, Any]) -> str:
    """Params as block YAML, the way they read in a trail file."""
    if not params:
        return ""
    import yaml

    try:
        text: str = yaml.safe_dump(
            params, sort_keys=False, allow_unicode=True, default_flow_style=False, width=88
        )
    except yaml.YAMLError:
        text = repr(params)
    return text.rstrip("\n")


def _iso(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def _when(value: str) -> str:
    parsed = _iso(value)
    return parsed.strftime("%Y-%m-%d %H:%M:%S") if parsed is not None else value


def _tokens(usage: UsageTotals | LLMCallRecord) -> str:
    text = f"{format_count(usage.input_tokens)} in / {format_count(usage.output_tokens)} out"
    cached = []
    if usage.cache_read_input_tokens:
        cached.append(f"{format_count(usage.cache_read_input_tokens)} cache read")
    if usage.cache_creation_input_tokens:
        cached.append(f"{format_count(usage.cache_creation_input_tokens)} cache write")
    return text + (f" ({', '.join(cached)})" if cached else "")


def _models_text(usage: UsageTotals) -> str:
    """` · model anthropic:claude-sonnet-5`, and how many answers were text instead of a tool call."""
    text = f" · model{'s' * (len(usage.models) != 1)} {esc(', '.join(usage.models))}" if usage.models else ""
    if usage.text_answers:
        text += f" · {usage.text_answers} text answer{'s' * (usage.text_answers != 1)} without a tool call"
    return text


def _counts(counter: Counter[str], order: tuple[str, ...]) -> list[tuple[str, int]]:
    known = [(s, counter[s]) for s in order if counter[s]]
    return known + [(s, n) for s, n in counter.items() if s not in order]


def _dur(ms: float, status: str) -> str:
    return "—" if not ms and status in ("skipped", "not-run") else format_duration(ms)


def _trail_name(trail: TrailRecord) -> str:
    return trail.title or trail.id or Path(trail.path).name or trail.path


def _step_failing(step: StepRecord) -> bool:
    return step.status in _FAILING or (step.error is not None and not step.status.startswith("passed"))


@dataclass
class _Totals:
    """What the page's header says about all the trails, counted in one pass before it is written."""

    trails: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    flaky: int = 0
    quarantined: int = 0
    blocking: int = 0
    steps: Counter[str] = field(default_factory=Counter)
    paid_steps: int = 0
    usage: UsageTotals = field(default_factory=UsageTotals)
    devices: set[str] = field(default_factory=set)
    """Every trail's device, "" included (a handful, whatever the number of trails)."""
    duration_ms: float = 0.0
    shots: int = 0
    first_failing: int | None = None

    def add(self, number: int, trail: TrailRecord) -> None:
        self.trails += 1
        self.statuses[trail.status] += 1
        self.flaky += is_flaky(trail)
        self.quarantined += bool(trail.quarantine)
        self.blocking += is_blocking(trail)
        self.steps.update(s.status for s in trail.steps)
        self.paid_steps += sum(1 for s in trail.steps if s.llm_calls or s.usage.llm_calls)
        self.usage.add(trail.usage)
        self.devices.add(trail.device)
        self.duration_ms += trail.duration_ms
        # distinct files within the trail (a step's "before" is the last one's "after"); trails never share one
        self.shots += len(
            {
                shot
                for each in _all_trails([trail])
                for step in each.steps
                for shot in (step.screenshot_before, step.screenshot_after)
                if shot
            }
        )
        if self.first_failing is None and trail.status in _FAILING:
            self.first_failing = number


@dataclass(frozen=True)
class TrailHistory:
    """A trail's earlier outcomes on its device, from the results store."""

    outcomes: list[tuple[str, str]]
    """(status, what the cell's tooltip says: run, commit), oldest first, this run's included."""
    steps: dict[int, str] = field(default_factory=dict)
    """Step index → `failed in 3 of the last 20 runs, first at <commit>`."""


HistoryLookup = Callable[[TrailRecord], "TrailHistory | None"]


class _Page:
    def __init__(
        self,
        run: RunRecord,
        trails: Callable[[], Iterable[TrailRecord]],
        run_dir: Path,
        link_from: Path,
        pictures: Pictures,
    ) -> None:
        self.run = run
        """The run's own fields; its trails come from `trails` (run.json read again for each pass)."""
        self.trails = trails
        self.run_dir = run_dir
        self.link_from = link_from
        self.pictures = pictures
        self.trail_dir = ""
        self.totals = _Totals()
        self.first_open = 1
        """The trail the page opens on: the first failing one, else the first (a page of closed
        boxes hides what the report is for); every failing trail is open too."""
        self.open_steps = False
        """Open every step of the trail being rendered: the first trail when all passed."""
        self.history: HistoryLookup | None = None
        self._past: TrailHistory | None = None
        """The history of the trail being rendered."""

    # --- links ----------------------------------------------------------------------------------
    def _locate(self, rel: str) -> str:
        """The artifact's path relative to the run directory. The contract says paths are relative
        to it; a path relative to the trail's own folder is accepted too, so a report still finds it."""
        if not (self.run_dir / rel).exists() and self.trail_dir:
            nested = f"{self.trail_dir.rstrip('/')}/{rel}"
            if (self.run_dir / nested).exists():
                return nested
        return rel

    def _href(self, rel: str) -> str:
        target = self.run_dir / rel
        try:
            link = os.path.relpath(target, self.link_from)
        except ValueError:  # another drive on Windows
            link = str(target.resolve())
        # percent-encoded, so no part of a file name can read as a scheme (`javascript:`) or a query
        return esc(quote(Path(link).as_posix(), safe="/"))

    def _file_link(self, rel: str | None, label: str) -> str:
        if not rel:
            return ""
        rel = self._locate(rel)
        if artifact_path(self.run_dir, rel) is None:  # a hand-edited run.json: no link out of the run
            return f'{esc(label)} <span class="muted">(not a file in the run directory)</span>'
        missing = "" if (self.run_dir / rel).exists() else ' <span class="muted">(missing)</span>'
        copied = self.pictures.file(rel)
        href = esc(copied) if copied is not None else self._href(rel)
        return f'<a class="file" href="{href}">{esc(label)}</a>{missing}'

    # --- page -----------------------------------------------------------------------------------
    def render(self) -> Iterator[str]:
        run, totals = self.run, self.totals
        for number, trail in enumerate(self.trails(), 1):
            totals.add(number, trail)
        self.first_open = totals.first_failing or 1
        overall = "failed" if totals.blocking else "passed"
        if not totals.trails:
            overall = "skipped"
        yield '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        yield '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        yield f"<title>{esc(overall.upper())} · trailblaze run {esc(run.run_id)}</title>\n"
        yield f"<style>{_asset('report.css')}</style>\n<script>{_asset('report.js')}</script>\n</head>\n<body>\n"
        yield from self._header(overall)
        yield '<input type="checkbox" id="only-failed" class="filter-box">\n'
        yield '<div class="toolbar"><label for="only-failed" class="filter-label">Show failed trails only</label>'
        yield '<span class="js-only" hidden><button type="button" data-open="1">Expand all</button>'
        yield '<button type="button" data-open="0">Collapse all</button></span></div>\n'
        yield from self._grid()
        yield from self._index()
        yield "<main>\n"
        for number, trail in enumerate(self.trails(), 1):
            yield from self._trail(number, trail)
            self.pictures.next_trail()
        if not totals.trails:
            yield '<p class="empty">No trails ran.</p>\n'
        yield "</main>\n"
        pictures = (
            f"screenshots downscaled to {THUMBNAIL_WIDTH} px; full-size files are in the run directory"
            if isinstance(self.pictures, EmbeddedPictures)
            else "screenshots are the run's own files, loaded as a trail or step is opened"
        )
        yield f"<footer>Generated by trailblaze from <code>run.json</code> · {pictures}.</footer>\n"
        yield "</body>\n</html>\n"

    def _duration_ms(self) -> float:
        start, end = _iso(self.run.started_at), _iso(self.run.finished_at)
        if start is not None and end is not None and end >= start:
            return (end - start).total_seconds() * 1000
        return self.totals.duration_ms

    def _header(self, overall: str) -> Iterator[str]:
        run, totals = self.run, self.totals
        devices = sorted(d for d in totals.devices if d)
        device = run.device or ", ".join(devices) or "—"
        usage = run.usage if run.usage.llm_calls or not totals.usage.llm_calls else totals.usage
        steps = sum(totals.steps.values())
        yield f'<header class="top o-{esc(overall)}">\n'
        yield f'<div class="headline">{_badge(overall, big=True)}<h1>trailblaze run <code>{esc(run.run_id)}</code></h1></div>\n'
        yield '<dl class="facts">'
        yield f"<div><dt>Started</dt><dd>{esc(_when(run.started_at))}</dd></div>"
        yield f"<div><dt>Total time</dt><dd>{esc(format_duration(self._duration_ms()))}</dd></div>"
        yield f"<div><dt>Device</dt><dd>{esc(device)}</dd></div>"
        if run.shard:
            yield f"<div><dt>Shards</dt><dd>{esc(run.shard)}</dd></div>"
        if run.screenshots is not None:
            yield f"<div><dt>Screenshots</dt><dd>{esc(self._captured())}</dd></div>"
        if run.command:
            yield f'<div class="wide"><dt>Command</dt><dd><code>{esc(shlex.join(run.command))}</code></dd></div>'
        yield "</dl>\n"
        yield '<div class="cards">'
        yield f'<div class="card"><div class="num">{totals.trails}</div><div class="lbl">trails</div></div>'
        for status, n in _counts(totals.statuses, _TRAIL_ORDER):
            yield f'<div class="card c-{esc(status)}"><div class="num">{n}</div><div class="lbl">{esc(status)}</div></div>'
        for kind, n in (("flaky", totals.flaky), ("quarantined", totals.quarantined)):
            if n:
                yield f'<div class="card c-{kind}"><div class="num">{n}</div><div class="lbl">{kind}</div></div>'
        yield "</div>\n"
        step_counts = ", ".join(f"{n} {esc(s)}" for s, n in _counts(totals.steps, _STEP_ORDER))
        yield f'<p class="stepline">{steps} step{"s" * (steps != 1)}'
        yield f"{': ' + step_counts if step_counts else ''}</p>\n"
        if usage.llm_calls:
            yield (
                f'<p class="llm"><strong>LLM:</strong> {format_count(usage.llm_calls)} call'
                f"{'s' * (usage.llm_calls != 1)} · {esc(_tokens(usage))} tokens · "
                f"<strong>{esc(format_usage_cost(usage))}</strong> · {totals.paid_steps} of {steps} steps used the model"
                f"{_models_text(usage)}</p>\n"
            )
        else:
            yield '<p class="llm"><strong>LLM:</strong> no calls — every step replayed from its recording.</p>\n'
        yield "</header>\n"

    def _captured(self) -> str:
        """What the run photographed: its screenshot mode and how many pictures it kept."""
        mode = self.run.screenshots
        if mode == "off":
            return "off — none taken (hierarchy dumps only)"
        what = "after every step" if mode == "steps" else "failing steps only"
        return f"{what} — {self.totals.shots} captured"

    def _index(self) -> Iterator[str]:
        if not self.totals.trails:
            return
        yield '<nav class="index" aria-label="Trails"><table><thead><tr><th>Status</th><th>Trail</th>'
        yield '<th>Steps</th><th class="num">Time</th><th class="num">LLM cost</th></tr></thead><tbody>\n'
        for number, trail in enumerate(self.trails(), 1):
            cls = "is-failing" if trail.status in _FAILING else "is-ok"
            cost = format_usage_cost(trail.usage) if trail.usage.llm_calls else "—"
            yield (
                f'<tr class="{cls}"><td>{_badge(trail.status)}{_ci_badges(trail)}</td>'
                f'<td><a href="#trail-{number}">{esc(_trail_name(trail))}</a>'
                f'<div class="muted small">{esc(trail.path)}</div></td>'
                f"<td>{self._step_strip(number, trail)}</td>"
                f'<td class="num">{esc(_dur(trail.duration_ms, trail.status))}</td><td class="num">{esc(cost)}</td></tr>\n'
            )
        yield "</tbody></table></nav>\n"

    def _grid(self) -> Iterator[str]:
        """Trails × devices when the run drove several: each cell the last screen, linked to the storyboard."""
        if len({d for d in self.totals.devices if d}) < 2:
            return
        grid = matrix(self.trails())
        yield '<section class="grid" aria-label="Trails on each device"><table><thead><tr><th>Trail</th>'
        yield "".join(f'<th scope="col">{esc(d or "—")}</th>' for d in grid.devices) + "</tr></thead><tbody>\n"
        for row in grid.rows:
            yield f'<tr><th scope="row">{esc(row)}</th>'
            for device in grid.devices:
                cell = grid.cells.get((row, device))
                yield "<td></td>" if cell is None else self._grid_cell(*cell)
            yield "</tr>\n"
        yield "</tbody></table></section>\n"
        self.trail_dir = ""

    def _grid_cell(self, number: int, trail: TrailRecord) -> str:
        self.trail_dir = trail.directory
        status = f'<a href="#trail-{number}">{_badge(trail.status)}</a>'
        shot = last_screen(trail)
        picture = self.pictures.screenshot(self._locate(shot)) if shot else None
        if picture is None:
            return f'<td class="g-{esc(trail.status)}">{status}</td>'
        image = (
            f'<img src="{esc(picture.src)}" width="{picture.width}" height="{picture.height}" loading="lazy" '
            f'decoding="async" alt="{esc(_trail_name(trail))} on {esc(trail.device)}: the last screen">'
        )
        board = self._locate(trail.storyboard) if trail.storyboard else None
        shown = self.pictures.storyboard(board) if board else None
        href = (shown.href if shown is not None and shown.href else self._href(board)) if board else f"#trail-{number}"
        return f'<td class="g-{esc(trail.status)}"><a class="thumb" href="{href}">{image}</a>{status}</td>'

    def _step_strip(self, number: int, trail: TrailRecord) -> str:
        cells = "".join(
            f'<a class="cell s-{esc(s.status)}" href="#trail-{number}-step-{i}" '
            f'title="{esc(step_label(s.index))}: {esc(s.status)} — {esc(s.text[:120])}"></a>'
            for i, s in enumerate(trail.steps)
        )
        n = len(trail.steps)
        return f'<span class="strip" aria-hidden="true">{cells}</span> <span class="small muted">{n} step{"s" * (n != 1)}</span>'

    # --- trail ----------------------------------------------------------------------------------
    def _where(self, trail: TrailRecord) -> str:
        """The trail's path, and its device when the run drove several (a matrix or merged shards)."""
        several = len(self.totals.devices) > 1
        return f"{trail.path} on {trail.device}" if several and trail.device else trail.path

    def _trail(self, number: int, trail: TrailRecord) -> Iterator[str]:
        self.trail_dir = trail.directory
        failing = trail.status in _FAILING
        cls = "is-failing" if failing else "is-ok"
        opened = failing or number == self.first_open
        self.open_steps = opened and not failing  # all passed: this trail's steps and screenshots
        yield f'<details class="trail {cls} t-{esc(trail.status)}" id="trail-{number}"{" open" if opened else ""}>\n'
        yield (
            f'<summary><span class="chev" aria-hidden="true"></span>{_badge(trail.status)}{_ci_badges(trail)}'
            f'<h2>{esc(_trail_name(trail))}</h2><span class="path">{esc(self._where(trail))}</span>'
            f'<span class="spacer"></span>{self._step_strip(number, trail)}'
            f'<span class="dur">{esc(_dur(trail.duration_ms, trail.status))}</span></summary>\n'
        )
        yield '<div class="trail-body">\n'
        yield from self._storyboard(trail)
        yield '<dl class="facts small">'
        facts: list[tuple[str, str]] = [
            ("Path", trail.path),
            ("Id", trail.id or "—"),
            ("Title", trail.title or "—"),
            ("Mode", trail.mode),
            ("Device", trail.device or "—"),
            ("Platform", trail.platform or "—"),
            ("Classifier", trail.classifier or "—"),
            ("Started", _when(trail.started_at) if trail.started_at else "—"),
            ("Duration", format_duration(trail.duration_ms)),
        ]
        if trail.usage.llm_calls:
            facts.append(
                (
                    "LLM",
                    f"{trail.usage.llm_calls} call{'s' * (trail.usage.llm_calls != 1)} · {_tokens(trail.usage)} · {format_usage_cost(trail.usage)}{_models_text(trail.usage)}",
                )
            )
        if trail.attempts:
            n = len(trail.attempts) + 1
            verdict = "flaky: passed on the last" if is_flaky(trail) else "failed every one"
            facts.append(("Attempts", f"{n} — {verdict}; the earlier attempts are below the steps"))
        if trail.quarantine:
            facts.append(("Quarantine", f"{trail.quarantine} — a failure here does not fail the build"))
        if trail.verification:
            facts.append(("Verification", f"{trail.verification} — {trail.verification_note or ''}".rstrip(" —")))
        if trail.hiccups:
            facts.append(("Hiccups", f"device hiccups: {trail.hiccups} retried"))
        if trail.scrolls_into_view:
            n = trail.scrolls_into_view
            facts.append(("Scrolled", f"{n} element{'s' * (n != 1)} scrolled into view"))
        for name, value in facts:
            yield f"<div><dt>{esc(name)}</dt><dd>{esc(value)}</dd></div>"
        self._past = self.history(trail) if self.history is not None else None
        if self._past is not None and self._past.outcomes:
            yield f"<div><dt>History</dt><dd>{self._history_strip(self._past)}</dd></div>"
        if trail.directory:
            yield f"<div><dt>Artifacts</dt><dd>{self._file_link(trail.directory, trail.directory)}</dd></div>"
        if trail.session_url and trail.session_url.startswith("https://"):
            url = esc(trail.session_url)
            yield (
                f'<div><dt>Farm session</dt><dd><a href="{url}" rel="noopener noreferrer" target="_blank">'
                f"{url}</a> (video and device logs on the farm)</dd></div>"
            )
        yield "</dl>\n"
        if trail.error and trail.status == "skipped":
            yield f'<div class="note-box"><strong>Skipped:</strong> {esc(trail.error)}</div>\n'
        elif trail.error:
            yield f'<div class="error-box" role="alert"><strong>Trail error</strong><pre>{esc(trail.error)}</pre></div>\n'
        if trail.heal_diff:
            if trail.mode != "record":
                title = "Trail file changes (self-heal)"
            elif trail.verification == "failed":
                title = "Recording NOT written (the proof replay failed)"
            else:
                title = "Trail file changes (record)"
            yield from self._diff(trail.heal_diff, title)
        yield '<div class="steps">\n'
        for i, step in enumerate(trail.steps):
            yield from self._step(number, i, step, trail)
        if not trail.steps:
            yield '<p class="muted">No steps recorded.</p>\n'
        yield "</div>\n"
        for k, attempt in enumerate(trail.attempts, 1):
            yield from self._attempt(number, k, trail, attempt)
        if trail.proof is not None:
            yield from self._proof(number, trail, trail.proof)
        yield "</div>\n</details>\n"

    def _history_strip(self, past: TrailHistory) -> str:
        """The trail's last outcomes on this device, oldest first: one small cell each (≈ 60 bytes)."""
        cells = "".join(f'<i class="cell s-{esc(status)}" title="{esc(label)}"></i>' for status, label in past.outcomes)
        n = len(past.outcomes)
        return f'<span class="strip">{cells}</span> <span class="small muted">last {n} run{"s" * (n != 1)} on this device</span>'

    def _attempt(self, number: int, k: int, trail: TrailRecord, attempt: TrailRecord) -> Iterator[str]:
        """An earlier, failed attempt of a retried trail (`--retries`): its own steps and screens."""
        self.trail_dir = attempt.directory
        yield (
            f'<section class="attempt" id="trail-{number}-attempt-{k}"><h3>Attempt {k} of {len(trail.attempts) + 1} '
            f'{_badge(attempt.status)} <span class="dur">{esc(_dur(attempt.duration_ms, attempt.status))}</span></h3>\n'
        )
        if attempt.directory:
            yield f'<p class="muted small">Artifacts: {self._file_link(attempt.directory, attempt.directory)}</p>\n'
        if attempt.error:
            yield f'<div class="error-box" role="alert"><strong>Attempt {k} error</strong><pre>{esc(attempt.error)}</pre></div>\n'
        yield '<div class="steps">\n'
        for i, step in enumerate(attempt.steps):
            yield from self._step(number, i, step, attempt, prefix=f"attempt-{k}-")
        yield "</div>\n</section>\n"
        self.trail_dir = trail.directory

    def _proof(self, number: int, trail: TrailRecord, proof: TrailRecord) -> Iterator[str]:
        """The proof replay of a record run: the relaunched trail replayed from the new recordings."""
        self.trail_dir = proof.directory
        yield (
            f'<section class="proof" id="trail-{number}-proof"><h3>Proof replay {_badge(proof.status)} '
            f'<span class="dur">{esc(_dur(proof.duration_ms, proof.status))}</span></h3>\n'
            '<p class="muted small">The app relaunched the way the trail starts and the whole trail replayed '
            "from the new recordings, with no LLM, before anything was written.</p>\n"
        )
        if trail.verification_note:
            yield f'<p class="small"><strong>{esc(trail.verification_note)}</strong></p>\n'
        yield '<div class="steps">\n'
        for i, step in enumerate(proof.steps):
            yield from self._step(number, i, step, proof, prefix="proof-")
        yield "</div>\n</section>\n"
        self.trail_dir = trail.directory

    def _diff(self, diff: str, title: str) -> Iterator[str]:
        yield f'<details class="diff-box" open><summary>{esc(title)}</summary><pre class="diff">'
        for line in diff.splitlines():
            if line.startswith(("+++", "---")):
                cls = "d-file"
            elif line.startswith("@@"):
                cls = "d-hunk"
            elif line.startswith("+"):
                cls = "d-add"
            elif line.startswith("-"):
                cls = "d-del"
            else:
                cls = "d-ctx"
            yield f'<span class="{cls}">{esc(line) or " "}</span>'
        yield "</pre></details>\n"

    # --- step -----------------------------------------------------------------------------------
    def _step(self, number: int, i: int, step: StepRecord, trail: TrailRecord, prefix: str = "") -> Iterator[str]:
        failing = _step_failing(step)
        kind = f'<span class="kind">{esc(step.kind)}</span>' if step.kind != "step" else ""
        ran = step.status not in ("not-run", "skipped")
        mode = f'<span class="mode m-{esc(step.mode)}">{esc(step.mode)}</span>' if ran else ""
        yield (
            f'<details class="step st-{esc(step.status)}" id="trail-{number}-{prefix}step-{i}"'
            f'{" open" if failing or self.open_steps else ""}>'
            f'<summary><span class="chev" aria-hidden="true"></span><span class="stepno">{esc(step_label(step.index))}</span>'
            f"{_badge(step.status)}{kind}{mode}"
            f'<span class="text">{esc(step.text)}</span><span class="dur">{esc(_dur(step.duration_ms, step.status))}</span>'
            '</summary>\n<div class="step-body">\n'
        )
        note = self._past.steps.get(step.index) if self._past is not None and failing and not prefix else None
        if note:
            yield f'<p class="small muted history-note">{esc(note)}</p>'
        if step.error:
            yield f'<div class="error-box" role="alert"><strong>Error</strong><pre>{esc(step.error)}</pre>'
            if step.candidates:
                yield '<div class="cands"><strong>Closest elements on screen</strong><ol>'
                for cand in step.candidates:
                    yield f"<li><code>{esc(cand)}</code></li>"
                yield "</ol></div>"
            yield "</div>\n"
        elif step.candidates:
            yield '<div class="cands"><strong>Closest elements on screen</strong><ol>'
            yield "".join(f"<li><code>{esc(c)}</code></li>" for c in step.candidates)
            yield "</ol></div>\n"
        if not ran and not step.tools and not step.screenshot_before:
            why = (
                "Skipped."
                if step.status == "skipped"
                else "Not run: an earlier step failed or the run stopped."
            )
            yield f'<p class="muted">{why}</p>\n'
        # screenshots on the left, what happened on the right (stacked on narrow screens)
        yield '<div class="step-grid">'
        yield from self._shots(step)
        yield '<div class="info">'
        if step.tools:
            yield from self._tools(step.tools)
        if step.llm_calls:
            yield from self._llm_calls(step)
        if failing:
            yield from self._screen_text(step, trail)
        yield from self._device_log(step, failing)
        links = [
            self._file_link(step.hierarchy_before, "hierarchy before"),
            self._file_link(step.hierarchy_after, "hierarchy after"),
        ]
        links = [link for link in links if link]
        if step.recording_written:
            links.append('<span class="tag">recording saved to the trail</span>')
        if links:
            yield f'<p class="links">{" · ".join(links)}</p>\n'
        yield "</div></div>\n"
        for k, sub in enumerate(step.subtrails):
            yield from self._subtrail(number, f"{prefix}step-{i}-sub-{k}-", sub, trail)
        yield "</div></details>\n"

    def _subtrail(self, number: int, prefix: str, sub: TrailRecord, caller: TrailRecord) -> Iterator[str]:
        """A `runTrail`'s trail, its steps nested under the calling step (ADR 0021)."""
        self.trail_dir = sub.directory
        yield (
            f'<section class="subtrail"><h4>runTrail {esc(Path(sub.path).name)} {_badge(sub.status)} '
            f'<span class="dur">{esc(_dur(sub.duration_ms, sub.status))}</span></h4>\n<div class="steps">\n'
        )
        for j, step in enumerate(sub.steps):
            yield from self._step(number, j, step, sub, prefix=prefix)
        yield "</div>\n</section>\n"
        self.trail_dir = caller.directory

    def _storyboard(self, trail: TrailRecord) -> Iterator[str]:
        """The trail's animated storyboard (trailblaze.output.storyboard), shown like the screenshots."""
        if not trail.storyboard:
            return
        rel = self._locate(trail.storyboard)
        picture = self.pictures.storyboard(rel)
        link = self._picture_link(rel, picture, "file")
        if picture is None:
            yield f'<p class="storyboard muted">Storyboard: {link}</p>\n'
            return
        yield (
            f'<figure class="storyboard"><img src="{esc(picture.src)}" width="{picture.width}" '
            f'height="{picture.height}" loading="lazy" decoding="async" alt="Storyboard of '
            f"{esc(_trail_name(trail))}: every step's screenshot and status\">"
            f"<figcaption>Storyboard · {link}</figcaption></figure>\n"
        )

    def _picture_link(self, rel: str, picture: Picture | None, label: str) -> str:
        """A link to the full-size file: the page's own copy beside it, else the run directory's."""
        if picture is not None and picture.href is not None:
            return f'<a class="file" href="{esc(picture.href)}">{esc(label)}</a>'
        return self._file_link(rel, label)

    def _shots(self, step: StepRecord) -> Iterator[str]:
        shots = [("Before", step.screenshot_before), ("After", step.screenshot_after)]
        if not any(path for _, path in shots):
            return
        yield '<div class="shots">'
        for label, rel in shots:
            caption = label if label == "Before" or not _step_failing(step) else "After (at failure)"
            if not rel:
                why = "no screenshot" if self.run.screenshots != "failures" else "not taken (screenshots: failures only)"
                yield f'<figure class="shot none"><div class="noimg">{esc(why)}</div><figcaption>{esc(caption)}</figcaption></figure>'
                continue
            rel = self._locate(rel)
            picture = self.pictures.screenshot(rel)
            if picture is None:
                yield (
                    f'<figure class="shot none"><div class="noimg">screenshot unreadable or missing<br>'
                    f"<code>{esc(rel)}</code></div><figcaption>{esc(caption)}</figcaption></figure>"
                )
                continue
            yield (
                f'<figure class="shot"><img src="{esc(picture.src)}" width="{picture.width}" height="{picture.height}" '
                f'loading="lazy" decoding="async" alt="{esc(caption)} screenshot of: {esc(step.text[:100])}">'
                f"<figcaption>{esc(caption)} · {self._picture_link(rel, picture, 'full size')}</figcaption></figure>"
            )
        yield "</div>\n"

    def _tools(self, tools: list[ToolRecord]) -> Iterator[str]:
        yield '<table class="tools"><caption>Tools</caption><thead><tr><th>#</th><th>Tool</th><th>Result</th>'
        yield '<th class="num">Time</th></tr></thead><tbody>\n'
        for n, tool in enumerate(tools, 1):
            params = _params_text(tool.params)
            why = ' title="added by the replayer, not in the recording"' if tool.source == "auto" else ""
            origin = [f'<span class="src src-{esc(tool.source)}"{why}>{esc(tool.source)}</span>']
            if tool.llm_tool:
                origin.append(f'<span class="muted small">from <code>{esc(tool.llm_tool)}</code></span>')
            if tool.recorded:
                origin.append('<span class="tag">recorded</span>')
            if tool.no_change:
                origin.append('<span class="tag nochange" title="the screen looked the same after it">no-op</span>')
            if tool.ai:
                origin.append('<span class="tag src-agent" title="asked the LLM when it ran">AI</span>')
            shot = self._file_link(tool.screenshot_after, "screenshot") if tool.screenshot_after else ""
            yield (
                f'<tr><td class="muted">{n}</td><td><code class="tname">{esc(tool.name)}</code> {" ".join(origin)}'
                f"{f'<pre class=params>{esc(params)}</pre>' if params else ''}</td>"
                f"<td>{_tool_status(tool.status)}"
                f"{f'<div class=msg>{esc(tool.message)}</div>' if tool.message else ''}{f'<div>{shot}</div>' if shot else ''}</td>"
                f'<td class="num">{esc(format_duration(tool.duration_ms))}</td></tr>\n'
            )
        yield "</tbody></table>\n"

    def _llm_calls(self, step: StepRecord) -> Iterator[str]:
        total = step.usage
        yield (
            f'<table class="llm-calls"><caption>LLM calls · {len(step.llm_calls)} · {esc(_tokens(total))} tokens · '
            f"{esc(format_usage_cost(total))}</caption><thead><tr><th>#</th><th>Model asked for</th>"
            '<th>Tokens</th><th class="num">Cost</th><th class="num">Time</th><th>Transcript</th></tr></thead><tbody>\n'
        )
        for call in step.llm_calls:
            asked = "".join(f"<li><code>{esc(c)}</code></li>" for c in call.tool_calls)
            body = f"<ul class=asked>{asked}</ul>" if asked else '<span class="muted">no tool call</span>'
            if call.text:
                text = call.text if len(call.text) <= 400 else call.text[:400] + "…"
                body += f'<div class="said">{esc(text)}</div>'
            if call.error:
                body += f'<div class="rs rs-bad">{esc(call.error)}</div>'
            label = model_label(call.provider, call.model)
            model = f'<div class="muted small">{esc(label)}</div>' if call.model else ""
            link = self._file_link(call.transcript, "transcript") or '<span class="muted">—</span>'
            yield (
                f'<tr><td class="muted">{call.index}</td><td>{body}{model}</td><td class="small">{esc(_tokens(call))}</td>'
                f'<td class="num">{esc(format_cost(call.cost_usd))}</td>'
                f'<td class="num">{esc(format_duration(call.duration_ms))}</td><td>{link}</td></tr>\n'
            )
        yield "</tbody></table>\n"

    def _screen_text(self, step: StepRecord, trail: TrailRecord) -> Iterator[str]:
        """The compact view of the screen the step failed on: what was there instead."""
        rel = step.hierarchy_after or step.hierarchy_before
        if not rel:
            return
        from trailblaze.errors import TrailblazeError
        from trailblaze.screen.saved_screen import parse_saved_screen

        path = artifact_path(self.run_dir, self._locate(rel))
        if path is None:
            return
        try:
            hierarchy = parse_saved_screen(path.read_bytes())
            from trailblaze.screen.compact import compact_view

            text = compact_view(hierarchy).text
        except (OSError, TrailblazeError, ValueError):
            return
        yield (
            '<details class="screen" open><summary>Screen at failure (compact view)</summary>'
            f'<pre class="compact">{esc(text)}</pre></details>\n'
        )

    def _device_log(self, step: StepRecord, failing: bool) -> Iterator[str]:
        """The app's log lines of the step (`--device-logs`), or why there are none."""
        path = artifact_path(self.run_dir, self._locate(step.device_log)) if step.device_log else None
        lines = _log_lines(path)
        if not lines:
            if step.device_log_note:
                yield f'<p class="muted small device-log-note">Device log: {esc(step.device_log_note)}</p>\n'
            return
        shown = lines[-_LOG_LINES:]
        more = f" (last {len(shown)} of {len(lines)})" if len(shown) < len(lines) else ""
        link = self._file_link(step.device_log, "whole log") if more else ""
        yield (
            f'<details class="screen device-log"{" open" if failing else ""}><summary>App log{esc(more)}'
            f"</summary><pre>{esc(chr(10).join(shown))}</pre>{link}</details>\n"
        )


_LOG_LINES = 200
"""App log lines shown in the report per step (the file keeps them all)."""


@functools.cache
def _asset(name: str) -> str:
    """A file the page embeds, shipped beside this module as package data.

    report.css: `.trail` has content-visibility, so a trail off screen is neither laid out nor painted
    until it is scrolled to, and a page of a thousand trails paints about as soon as one of ten.
    report.js: optional; with JavaScript off the page is complete. It reveals and wires the two
    buttons and says what is wrong when a picture is not beside the page (a CI artifact that kept
    report.html alone). It goes in the head, so the listener is there before the first picture can fail.
    """
    return resources.files(__package__).joinpath(name).read_text("utf-8")

