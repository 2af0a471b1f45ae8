"""The commands on runs already made: `report` (the HTML report, merged shards) and `results` (the store)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import click

from trailblaze.cli.options import _EX, _allure_option, _ctrf_option, _debug_option, _echo
from trailblaze.common.run_flags import OPTIONS

if TYPE_CHECKING:
    from pathlib import Path

    from trailblaze.output.runlog import RunRecord, TrailRecord


@click.command(
    "report",
    short_help="Re-render the HTML report (and JUnit XML) of a run directory, or merge shards' runs.",
    epilog=_EX + "  trailblaze report .trailblaze/runs/20250101-120000 -o report.html --junit junit.xml\n"
    + "  trailblaze report --merge shards/1 shards/2 shards/3 --report report.html --junit junit.xml",
)
@click.argument("run_dirs", nargs=-1, required=True, metavar="RUN_DIR...", type=click.Path(path_type=str))
@click.option("--output", "-o", "--report", "output", type=click.Path(dir_okay=False, path_type=str),
              help="HTML file (default RUN_DIR/report.html; with --merge, report.html in the current folder); its "
              "screenshots are files beside it (in NAME_files/ when it is not in the run directory).")
@click.option("--report-single-file", "--single-file", "single_file", is_flag=True,
              help="One self-contained HTML file, screenshots embedded (megabytes per trail).")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False, path_type=str), help="Also write JUnit XML here.")
@_allure_option
@_ctrf_option
@click.option("--merge", is_flag=True,
              help="Merge several run directories (the shards of a CI matrix, or a folder holding them) into one "
              "report and one JUnit file.")
@_debug_option
def report_command(
    run_dirs: tuple[str, ...],
    output: str | None,
    single_file: bool,
    junit_path: str | None,
    allure_dir: str | None,
    ctrf_path: str | None,
    merge: bool,
) -> None:
    """Render the HTML report (and JUnit XML) of a run directory from its run.json.

    The page loads the run's screenshots from files beside it, as a trail is opened; with
    --report-single-file they are embedded in it instead. With --merge: one report and one JUnit file
    for every trail of several run directories, e.g. the `replay --shard I/N` runs of a CI matrix
    downloaded next to each other.
    """
    from pathlib import Path

    from trailblaze.errors import UsageError
    from trailblaze.output.report import write_html_report
    from trailblaze.output.runlog import RUN_FILE, iter_trails, read_head
    from trailblaze.results.history import report_history
    from trailblaze.results.location import resolve_location

    results = _Results(junit_path, allure_dir, ctrf_path)
    if merge:
        _merge_reports(list(run_dirs), output, results, single_file=single_file)
        return
    if len(run_dirs) > 1:
        raise UsageError(
            f"{len(run_dirs)} run directories given: pass one, or add --merge to merge them into one report"
        )
    # `report runs/x/run.json` means the same as `report runs/x`
    directory = Path(run_dirs[0])
    if directory.name == RUN_FILE and directory.is_file():
        directory = directory.parent
    head = read_head(directory)  # the run is read one trail at a time: any size fits in memory
    with report_history(resolve_location(None)) as history:
        html_path = write_html_report(directory, output, single_file=single_file, history=history)
    click.echo(f"report: {html_path} ({html_path.stat().st_size / 1024:.0f} KB){_pictures_note(html_path)}")
    results.write(head, directory, lambda: iter_trails(directory, head))


def _pictures_note(page: Any) -> str:
    """`, screenshots in report_files/` when the page's pictures were put beside it."""
    from trailblaze.output.report import pictures_folder

    folder = pictures_folder(page)
    return f", screenshots in {folder}{os.sep}" if folder is not None else ""


@dataclasses.dataclass(frozen=True)
class _Results:
    """`trailblaze report`'s result files besides the HTML page: JUnit, Allure, CTRF."""

    junit: str | None = None
    allure_dir: str | None = None
    ctrf: str | None = None

    def check(self) -> None:
        from trailblaze.common.files import check_writable

        for path, flag in ((self.junit, "--junit"), (self.ctrf, "--ctrf")):
            if path:
                check_writable(path, flag)

    def write(self, run: RunRecord, run_dir: Path, trails: Callable[[], Iterable[TrailRecord]]) -> None:
        """Writes each file asked for; `trails` gives the run's trails afresh for each."""
        if self.junit:
            from trailblaze.output.junit import write_junit

            click.echo(f"junit:  {write_junit(run, self.junit, run_dir=run_dir, trails=trails())}")
        if self.allure_dir:
            from trailblaze.output.allure import write_allure

            click.echo(f"allure: {write_allure(run, self.allure_dir, run_dir=run_dir, trails=trails())}")
        if self.ctrf:
            from trailblaze.output.ctrf import write_ctrf

            click.echo(f"ctrf:   {write_ctrf(run, self.ctrf, run_dir=run_dir, trails=trails())}")


def _merge_reports(paths: list[str], output: str | None, results: _Results, *, single_file: bool) -> None:
    from trailblaze.common.files import check_writable
    from trailblaze.output.ci_policy import is_flaky
    from trailblaze.output.merge import merge_runs, run_dirs
    from trailblaze.output.report import write_html_report
    from trailblaze.results.history import report_history
    from trailblaze.results.location import resolve_location

    target = output or "report.html"
    check_writable(target, "--report")
    results.check()
    merged = merge_runs(run_dirs(paths))
    for name in merged.duplicates:
        _echo(f"warning: {name} is in more than one of the merged runs (were two shards given the same --shard?)",
              err=True)
    with report_history(resolve_location(None)) as history:  # each trail's outcomes before and in these runs
        html_path = write_html_report(merged.root, target, run=merged.run, single_file=single_file, history=history)
    counts: dict[str, int] = {}
    for trail in merged.run.trails:
        status = "flaky" if is_flaky(trail) else trail.status  # a pass on a retry is named (ADR 0044)
        counts[status] = counts.get(status, 0) + 1
    quarantined = sum(bool(t.quarantine) for t in merged.run.trails)
    summary = ", ".join(f"{n} {status}" for status, n in counts.items()) or "no trails"
    summary += f"; {quarantined} quarantined" if quarantined else ""
    n, runs = len(merged.run.trails), len(merged.sources)
    click.echo(f"merged {runs} run{'s' * (runs != 1)}: {n} trail{'s' * (n != 1)} ({summary})")
    click.echo(f"report: {html_path} ({html_path.stat().st_size / 1024:.0f} KB){_pictures_note(html_path)}")
    results.write(merged.run, merged.root, lambda: merged.run.trails)


@click.group(
    "results", invoke_without_command=True,
    short_help="Trail results over time: flaky trails, failing steps, a CI gate.",
    epilog=_EX + "  trailblaze results\n  trailblaze results --flaky --since 7d\n"
    + "  trailblaze results --gate --max-flake-rate 0.2\n  trailblaze results import shards/",
)  # fmt: skip
@click.option("--results", "location", default=None, metavar="PATH|URL",
              help="The store: a SQLite file or a postgresql:// URL (default: $TRAILBLAZE_RESULTS, else "
              ".trailblaze/results.db).")
@click.option("--since", default=None, metavar="WHEN", help="Only runs since then: 7d, 12h, 30m or a date.")
@click.option("--branch", default=None, help="Only runs of this branch.")
@click.option(OPTIONS["device"].cli, "device_filter", default=None,
              help="Only this device (sim:android, a serial; * matches anything).")
@click.option("--trail", default=None, help="Only this trail (its id or path; * matches anything).")
@click.option("--last", type=click.IntRange(min=1), default=20, show_default=True, metavar="N",
              help="Runs counted per trail and device.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--markdown", is_flag=True, help="Print a Markdown table (for a pull-request comment).")
@click.option("--flaky", is_flag=True, help="List the flaky trails with the evidence.")
@click.option("--suggest-quarantine", is_flag=True, help="Print the config.quarantine lines for the flaky trails.")
@click.option("--gate", is_flag=True,
              help="Exit 1 when a trail's latest result on a device failed, or its flake rate is over --max-flake-rate.")
@click.option("--max-flake-rate", type=click.FloatRange(0, 1), default=None, metavar="RATE",
              help="With --gate: the highest flake rate allowed (0.2 = 20%); default: not checked.")
@_debug_option
@click.pass_context
def results_command(
    ctx: click.Context, location: str | None, since: str | None, branch: str | None, device_filter: str | None,
    trail: str | None, last: int, as_json: bool, markdown: bool, flaky: bool, suggest_quarantine: bool, gate: bool,
    max_flake_rate: float | None,
) -> None:  # fmt: skip
    """The latest status, pass and flake rates, the step that fails most, durations and the last failure
    of every trail on every device, from the results store that replay, record and pytest add to."""
    from trailblaze.cli import results as show
    from trailblaze.errors import UsageError
    from trailblaze.results.location import resolve_location
    from trailblaze.results.query import Filters, gate_failures, summaries
    from trailblaze.results.store import open_store

    ctx.ensure_object(dict)["location"] = location
    if ctx.invoked_subcommand is not None:
        return
    where = resolve_location(location)
    if where is None:
        raise UsageError("the results store is off (TRAILBLAZE_RESULTS=off); pass --results PATH|URL to read one")
    if max_flake_rate is not None and not gate:
        raise UsageError("--max-flake-rate is a --gate threshold: add --gate")
    with open_store(where, create=False) as store:
        found = summaries(store, Filters(last=last, since=since, branch=branch, device=device_filter, trail=trail))
    if as_json:
        click.echo(show.json_text(found))
    elif markdown:
        click.echo(show.markdown(found))
    elif flaky:
        click.echo(show.flaky_text(found))
    elif suggest_quarantine:
        click.echo(show.quarantine_lines(found))
    elif not gate:
        click.echo(show.table(found) if found else "no results match")
    if gate:
        if not found:
            raise UsageError(f"--gate: no results in {where} match; nothing to judge (check --results and the filters)")
        failures = gate_failures(found, max_flake_rate)
        for line in failures:
            _echo(f"gate: {line}", err=True)
        if not failures:
            click.echo(f"gate passed: {len(found)} trail × device pair{'s' * (len(found) != 1)}")
        ctx.exit(1 if failures else 0)


@results_command.command(
    "import", short_help="Add run directories from other machines (CI shards) to the store."
)
@click.argument("run_dirs", nargs=-1, required=True, metavar="RUN_DIR...", type=click.Path(path_type=str))
@click.option("--results", "location", default=None, metavar="PATH|URL", help="The store (as for `trailblaze results`).")
@_debug_option
@click.pass_context
def results_import_command(ctx: click.Context, run_dirs: tuple[str, ...], location: str | None) -> None:
    """Add runs whose artifacts came from elsewhere; a run already in the store is not added twice."""
    from trailblaze.cli.results import import_runs
    from trailblaze.errors import UsageError
    from trailblaze.results.location import resolve_location

    where = resolve_location(location or (ctx.obj or {}).get("location"))
    if where is None:
        raise UsageError("the results store is off (TRAILBLAZE_RESULTS=off); pass --results PATH|URL")
    runs, added = import_runs(run_dirs, where)
    click.echo(f"imported {runs} run{'s' * (runs != 1)}: {added} new trail result{'s' * (added != 1)}")
