"""The commands on trail files that need no device: `validate`, `check`, `import`, `schema`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from trailblaze.cli.options import _EX, _debug_option, _echo
from trailblaze.errors import EXIT_USAGE, TrailblazeError

if TYPE_CHECKING:
    from pathlib import Path


@click.command(
    "validate",
    short_help="Check trail files and print file:line:col per problem.",
    epilog=_EX + "  trailblaze validate trails/\n  trailblaze validate trails/login.trail.yaml",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--platform", type=click.Choice(["android", "ios", "web"]), default=None,
              help="Check for this platform only, and that every step has a recording for it.")
@_debug_option
@click.pass_context
def validate_command(ctx: click.Context, paths: tuple[str, ...], platform: str | None) -> None:
    """Check trail files (folders: every *.trail.yaml / trail.yaml below) as replay does before the device.

    The same checks as `replay` / `record` run before they touch a device, for android and ios: the
    file loads, every recorded tool exists, every {{template}} has a value. A value that comes from
    the command line (--secret, --arg, --memory) is printed as a note, not an error. With --platform,
    a step with no recording for that platform is a problem too (replay would need a model for it).
    """
    from pathlib import Path

    from trailblaze.engine.check import fact_warnings
    from trailblaze.engine.preflight import PLATFORMS, recorded_platforms, unrecorded, validate_trails
    from trailblaze.errors import TrailFileError
    from trailblaze.trail.model import Trail, find_trail_files, load_trail

    passed_over: list[Path] = []  # counted and named: a flow the sniffer missed is seen, not skipped
    files, missing = find_trail_files(paths, passed_over=passed_over)
    for path in missing:
        _echo(f"{path}: no such file or directory")
    bad: set[Path] = set()
    problems = 0
    loaded: list[tuple[Path, Trail]] = []
    for file in files:
        try:
            loaded.append((file, load_trail(file)))
        except TrailFileError as exc:
            bad.add(file)
            problems += len(exc.problems)
            for problem in exc.problems:
                _echo(problem.format(str(file)))
        except TrailblazeError as exc:
            bad.add(file)
            problems += 1
            _echo(f"{file}: {exc.message}")
    notes = tool_problems = 0
    platforms = (platform,) if platform else PLATFORMS
    found = validate_trails(loaded, platforms=platforms)  # exactly replay's preflight (engine/preflight.py)
    for finding in [*found, *(unrecorded(loaded, platform) if platform else [])]:
        if finding.needs_value:
            notes += 1
            _echo(f"{finding.where}: note: {finding.message}")
            continue
        problems += 1
        in_trail = {file for file, _ in loaded if finding.where.startswith(f"{file}:")}
        if not in_trail and ".trail." in finding.where:  # a sub-trail (runTrail) the check walked into
            in_trail = {Path(finding.where.split(":", 1)[0])}
        bad.update(in_trail)
        tool_problems += not in_trail
        _echo(str(finding))
    warnings = 0
    for file, trail in loaded:  # weak trails: verify steps whose quoted facts no assertion checks
        for warning in fact_warnings(file, trail):
            warnings += 1
            _echo(warning)
    summary = [f"{len(files)} file{'s' * (len(files) != 1)} checked"]
    if bad or tool_problems:
        summary.append(f"{len(bad)} invalid with {problems} problem{'s' * (problems != 1)}")
        if tool_problems:
            summary.append(f"{tool_problems} in custom tools")
    elif files:
        summary.append("all valid")
    else:
        searched = ", ".join(p for p in paths if p not in missing)
        summary.append(f"no *.trail.yaml, *.trail.md, trail.yaml or blaze.yaml found{f' in {searched}' if searched else ''}")
    summary += [recorded for recorded in [recorded_platforms(loaded)] if recorded]
    if passed_over:
        summary.append(_passed_over_text(passed_over))
    if notes:
        summary.append(f"{notes} note{'s' * (notes != 1)} on values to pass at run time")
    if warnings:
        summary.append(f"{warnings} warning{'s' * (warnings != 1)} on unchecked facts (`trailblaze check` says more)")
    if missing:
        summary.append(f"{len(missing)} path{'s' * (len(missing) != 1)} not found")
    _echo(", ".join(summary))
    ctx.exit(EXIT_USAGE if bad or tool_problems or missing or not files else 0)


def _passed_over_text(paths: list[Any]) -> str:
    names = ", ".join(p.name for p in paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    count = len(paths)
    return f"{count} other YAML file{'s' * (count != 1)} looked at and not a trail or a Maestro flow ({names})"


@click.command(
    "check",
    short_help="Show recorded assertions that cannot fail (no device).",
    epilog=_EX + "  trailblaze check trails/\n  trailblaze check trails/login.trail.yaml --runs .trailblaze/runs",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option(
    "--runs",
    "runs_dir",
    default=".trailblaze/runs",
    show_default=True,
    type=click.Path(file_okay=False, path_type=str),
    help="Where runs are kept; the newest run of each trail is used.",
)
@click.option(
    "--run",
    "run_dir",
    default=None,
    type=click.Path(exists=True, file_okay=False, path_type=str),
    help="Judge on the screens of this run directory instead.",
)
@_debug_option
@click.pass_context
def check_command(ctx: click.Context, paths: tuple[str, ...], runs_dir: str, run_dir: str | None) -> None:
    """Check that every recorded assertion can fail (exit 1 when one cannot; 0 when all can).

    For each verify step: every quoted text and named state ("is on", "disabled") must be checked by a
    recorded assertion; and each assertion is evaluated on the screen a run saved for its step with
    the asserted element changed (text altered, switch flipped, element removed) — an assertion that
    still passes cannot fail, and is printed. Replay the trail first so there is a run to judge on.
    """
    from pathlib import Path

    from trailblaze.engine.check import check_trail
    from trailblaze.errors import TrailFileError
    from trailblaze.trail.model import find_trail_files, load_trail

    files, missing = find_trail_files(paths)
    for path in missing:
        _echo(f"{path}: no such file or directory")
    weak = unjudged = shown = 0
    for file in files:
        try:
            trail = load_trail(file)
        except TrailFileError as exc:
            for problem in exc.problems:
                _echo(problem.format(str(file)))
            ctx.exit(EXIT_USAGE)
        report = check_trail(file, trail, Path(runs_dir), run_dir=Path(run_dir) if run_dir else None)
        lines = [*report.uncovered, *report.weak]
        weak += len(lines)
        shown += report.shown
        unjudged += len(report.unjudged)
        status = "ok" if report.ok else "WEAK"
        where = f" (screens of {report.run_dir})" if report.run_dir else ""
        _echo(f"{status} {file}: {report.shown} assertion{'s' * (report.shown != 1)} shown to fail{where}")
        for line in lines:
            _echo(f"  ✗ {line}")
        for line in report.unjudged:
            _echo(f"  - not judged: {line}")
    _echo(
        f"{len(files)} trail{'s' * (len(files) != 1)} checked: {shown} assertion{'s' * (shown != 1)} shown to "
        f"fail, {weak} cannot fail or are missing, {unjudged} not judged"
    )
    ctx.exit(EXIT_USAGE if missing or not files else 1 if weak else 0)


@click.group("import", short_help="Convert tests of other tools into trails (Maestro flows).")
@_debug_option
def import_group() -> None:
    """Convert tests written for other tools into trails."""


@import_group.command(
    "maestro",
    short_help="Write each Maestro flow as a .trail.yaml that replays it.",
    epilog=_EX + "  trailblaze import maestro flows/login.yaml\n  trailblaze import maestro flows/ --out trails/",
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=str))
@click.option("--out", type=click.Path(file_okay=False, path_type=str), help="Write the trails here (default: beside each flow).")
@click.option("--force", is_flag=True, help="Overwrite trail files that exist.")
@_debug_option
@click.pass_context
def import_maestro_command(ctx: click.Context, paths: tuple[str, ...], out: str | None, force: bool) -> None:
    """Write each Maestro flow in PATHS (folders: every flow below) as <name>.trail.yaml: one step per
    command recording `mobile_maestro`, so the trail replays as the flow does and can then be
    re-recorded, healed or extended. Commands trailblaze cannot run become steps for the agent and
    are printed. docs/guides/maestro.md maps Maestro's commands."""
    from pathlib import Path

    from trailblaze.maestro.importer import import_maestro_paths

    code = import_maestro_paths([Path(p) for p in paths], Path(out) if out else None, force=force, echo=_echo)
    ctx.exit(code)


@click.command("schema", short_help="Print the JSON Schema of trail files.")
@_debug_option
def schema_command() -> None:
    """Print the JSON Schema of trail files (for YAML editors), with the params of the custom tools
    found from the current folder (./trails/tools, [tool.trailblaze] tools, entry points) when a
    trail below it uses one: custom tools are Python code, imported only then."""
    import json

    from trailblaze.tools.discovery import tools_for
    from trailblaze.trail.schema import trail_json_schema

    custom = tools_for(None).tools.custom() if _trails_use_custom_tools() else ()
    click.echo(json.dumps(trail_json_schema(custom), indent=2, ensure_ascii=False))


def _trails_use_custom_tools() -> bool:
    """Whether a trail under ./trails (else the current folder) names a tool that is not built in."""
    from pathlib import Path

    from trailblaze.engine.preflight import uses_custom_tools
    from trailblaze.trail.model import find_trail_files, load_trail

    here = Path("trails") if Path("trails").is_dir() else Path(".")
    for file in find_trail_files([here])[0]:
        try:
            if uses_custom_tools(load_trail(file)):
                return True
        except TrailblazeError:
            continue  # a broken trail: `validate` says why
    return False
