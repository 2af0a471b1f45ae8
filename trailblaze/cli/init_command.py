"""`trailblaze init`: scaffold a project."""

from __future__ import annotations

from typing import Any, cast

import click

from trailblaze.cli.options import _EX, _debug_option, _echo


@click.command(
    "init",
    short_help="Scaffold trails/, conftest.py, pytest settings and a CI workflow.",
    epilog=_EX + "  trailblaze init --app-id dev.trailblaze.demo\n"
    + "  trailblaze init my-app --app-id com.example.app --platform ios --shards 4\n"
    + "  trailblaze init --app-id com.example.app --ios --pip-spec git+https://github.com/you/trailblaze@main",
)
@click.argument("folder", default=".", type=click.Path(file_okay=False, path_type=str))
@click.option("--app-id", required=True, metavar="ID", help="The app's Android package name or iOS bundle id.")
@click.option("--platform", type=click.Choice(["android", "ios"]), default="android", show_default=True,
              help="The platform of the example trail's recording and of the CI device.")
@click.option("--shards", type=click.IntRange(1, 256), default=2, show_default=True,
              help="How many machines the CI workflow splits the trails over (per platform).")
@click.option("--ios", is_flag=True,
              help="Also replay on an iOS simulator in CI: a macOS job that builds WebDriverAgent with xcodebuild.")
@click.option("--pip-spec", metavar="SPEC", default=None,
              help="What the CI workflow installs: a version (0.2.0), a wheel or sdist path, or a URL "
              "(git+https://...@main). Default: this trailblaze's version.")
@_debug_option
def init_command(folder: str, app_id: str, platform: str, shards: int, ios: bool, pip_spec: str | None) -> None:
    """Scaffold a project in FOLDER (default: here): trails/ with an example trail for the app, a
    conftest.py, pytest settings in pyproject.toml, .github/workflows/trailblaze.yml and a .gitignore
    for the run directories. Never overwrites a file.

    The workflow boots an Android emulator on ubuntu-latest (with --ios or --platform ios, an iOS
    simulator on macOS), installs the app under test, replays the trails on a sharded job matrix
    and merges the shards into one HTML report and JUnit file. Fill in the lines marked FILL IN
    (how the app is built and where it lands); docs/guides/ci.md explains each step."""
    from pathlib import Path

    from trailblaze.cli.scaffold import GITIGNORE, Platform, pytest_settings, scaffold

    kind = cast(Platform, platform)
    scaffolded = scaffold(Path(folder), app_id, kind, shards, ios=ios, pip_spec=pip_spec)
    for done in scaffolded:
        shown = Path(folder) / done.path
        if done.written:
            _echo(f"created {shown}")
        elif done.path.name == "pyproject.toml":
            _echo(f"skipped {shown} (exists, left as it is): add these pytest settings to it:")
            _echo("\n".join(f"    {line}" for line in pytest_settings(app_id, kind).splitlines()))
        elif done.path.name == ".gitignore" and ".trailblaze" not in _text_of(shown):
            _echo(f"skipped {shown} (exists, left as it is): add these lines to it:")
            _echo("\n".join(f"    {line}" for line in GITIGNORE.splitlines() if not line.startswith("#")))
        else:
            _echo(f"skipped {shown} (exists, left as it is)")
    workflow = Path(folder) / ".github" / "workflows" / "trailblaze.yml"
    if any(done.written and done.path.name == "trailblaze.yml" for done in scaffolded):
        _echo(f"fill in the lines marked FILL IN in {workflow}: how CI builds the app under test and where it lands")
        if pip_spec is None:
            from trailblaze.__about__ import __version__

            _echo(f"note: the workflow installs trailblaze=={__version__} from PyPI; before the first release is there, "
                  "run init again with --pip-spec git+https://github.com/YOU/trailblaze@main (the drivers come from "
                  "the same repository) or a wheel built from a checkout (docs/guides/install.md#before-the-first-release)")
    example = Path(folder) / "trails" / "example.trail.yaml"
    _echo(f"next: trailblaze validate {Path(folder) / 'trails'}; record steps with "
          f"`trailblaze record {example} --device {platform}`")
    if ios and platform != "ios":
        _echo("next for iOS: start WebDriverAgent on a simulator or iPhone and record the same steps there: "
              f"`trailblaze record {example} --device ios` (docs/guides/real-devices.md)")


def _text_of(path: Any) -> str:
    try:
        return str(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return ""
