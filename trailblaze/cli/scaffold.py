"""`trailblaze init`: the files a project needs to run trails in pytest and in CI.

Scaffolds `trails/` with one example trail for the app, a `conftest.py`, the pytest settings in
`pyproject.toml`, a GitHub Actions workflow that boots an emulator (and with `ios` a simulator),
replays the trails on a sharded job matrix and merges the shards' reports (`trailblaze.cli.ci_workflow`),
and a `.gitignore` for the run directories every replay leaves. An existing file is never
overwritten, not even partly: it is skipped and named, and for an existing `pyproject.toml` the
settings to add are printed instead.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from trailblaze.cli.ci_workflow import Platform, github_workflow
from trailblaze.errors import UsageError

__all__ = ["GITIGNORE", "Platform", "Scaffolded", "pytest_settings", "scaffold"]

# A package name / bundle id: dotted words. Anything else could break out of the YAML / TOML it lands in.
_APP_ID = re.compile(r"[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+")


@dataclass(frozen=True)
class Scaffolded:
    """One file `scaffold` wanted to write: `written` is False when it already existed."""

    path: Path
    written: bool


def scaffold(
    folder: Path,
    app_id: str,
    platform: Platform = "android",
    shards: int = 2,
    *,
    ios: bool = False,
    pip_spec: str | None = None,
) -> list[Scaffolded]:
    """Writes the project files under `folder` (created if missing), skipping every file that exists.

    The workflow replays on `platform`'s device, and with `ios` on an iOS simulator too (the example
    trail then launches the app on both); it installs `pip_spec` (`ci_workflow.pip_requirement`).

    Raises:
        UsageError: `app_id` is not an app id, `shards` is not 1..256, `pip_spec` cannot go into the
            workflow, or `folder` cannot be written.
    """
    if not _APP_ID.fullmatch(app_id):
        raise UsageError(
            f"--app-id {app_id!r} is not an app id: use the Android package name or the iOS bundle id, "
            "e.g. com.example.app"
        )
    if not 1 <= shards <= 256:
        raise UsageError(f"--shards {shards}: use 1 to 256 shards")
    platforms: list[Platform] = list(dict.fromkeys([platform, "ios"] if ios else [platform]))
    workflow = github_workflow(platforms, shards, pip_spec)  # refuses a bad spec before any file is written
    files = {
        Path("trails") / "example.trail.yaml": _trail(app_id, platforms),
        Path("conftest.py"): _CONFTEST,
        Path("pyproject.toml"): pytest_settings(app_id, platform),
        Path(".github") / "workflows" / "trailblaze.yml": workflow,
        Path(".gitignore"): GITIGNORE,
    }
    done: list[Scaffolded] = []
    for relative, text in files.items():
        target = folder / relative
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            done.append(Scaffolded(relative, _create(target, text)))
        except OSError as exc:
            raise UsageError(f"{target}: cannot write ({exc.strerror or exc})") from None
    return done


GITIGNORE = """\
# trailblaze: every run keeps screenshots and logs here (about 2 MB a replay)
.trailblaze/
# pytest's per-test artifacts (trailblaze_output)
test-results/
"""
"""What a project keeps out of git: the run directories replay and record leave behind."""


def pytest_settings(app_id: str, platform: Platform) -> str:
    """The `pyproject.toml` section that makes `pytest` run the trails on the project's device."""
    return f"""\
[tool.pytest.ini_options]
testpaths = ["trails"]
trailblaze_trail_paths = ["trails"]
# The app the `driver` fixture of Python tests relaunches with a clean state.
trailblaze_app = "{app_id}"
# The device pool when --device is not given: {_DEVICE_HELP[platform]}
trailblaze_devices = ["{platform}"]
"""


_DEVICE_HELP = {
    "android": "android[:SERIAL] is a phone or emulator that adb sees",
    "ios": "ios[:WDA_URL] is a phone or simulator running WebDriverAgent",
}


def _create(target: Path, text: str) -> bool:
    """Writes `text` to `target` atomically unless `target` exists; True when it was written.

    The file is written beside the target and hard-linked into place: a link never replaces an
    existing file (unlike a rename), so a file that appears meanwhile is kept too.
    """
    if os.path.lexists(target):
        return False
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.link(temp, target)
    except FileExistsError:
        return False
    finally:
        os.unlink(temp)
    return True


def _trail(app_id: str, platforms: list[Platform]) -> str:
    platform = platforms[0]
    launch = "".join(
        f"      {p}:\n        - launchApp:\n            appId: {app_id}\n            launchMode: CLEAR_STATE\n"
        for p in platforms
    )
    return f"""\
# An example trail, made by `trailblaze init`. Add steps in plain language, then let the agent
# record them on a device:
#   trailblaze record trails/example.trail.yaml --device {platform}
# and replay the recordings in CI with no LLM:
#   trailblaze replay trails/ --device {platform}
config:
  id: example/launch
  title: The app starts with a clean state
  target: {app_id}
trail:
  - step: Launch the app with a clean state
    recording:
{launch}  # - step: Type user@example.com into the Email field
  # - verify: The home screen is shown
"""


_CONFTEST = '''\
"""pytest settings for the trails (`pytest trails/`), made by `trailblaze init`.

Trail files under `trails/` are tests; fixtures here apply to them and to Python tests alike.
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def trailblaze_secrets(trailblaze_secrets: dict[str, str]) -> dict[str, str]:
    """Secrets for `{{name}}` templates: every TRAILBLAZE_SECRET_<NAME> variable of the environment
    (how CI passes them), then --trailblaze-secret. Never write a secret's value in a file."""
    prefix = "TRAILBLAZE_SECRET_"
    from_env = {k[len(prefix):].lower(): v for k, v in os.environ.items() if k.startswith(prefix) and v}
    return {**from_env, **trailblaze_secrets}
'''
