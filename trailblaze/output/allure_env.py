"""Allure's run-wide files beside the results: `environment.properties` (the report's Environment
widget: trailblaze's version, the platforms and devices, the branch and commit) and `executor.json`
(who ran it: the CI service, its build's name and link), as Allure 2 and 3 read them.

Several runs or shards may write into one folder: the environment keeps every value each of them
wrote, and the executor is the CI build they share. Nothing secret goes in: the values are scrubbed of
registered secrets, a URL's user and password are dropped, and the executor is written only from the
CI's own build variables.
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterable, Mapping
from pathlib import Path

from trailblaze.__about__ import __version__
from trailblaze.common.files import atomic_write
from trailblaze.common.redact import scrub
from trailblaze.output.runlog import RunRecord

__all__ = ["ENVIRONMENT_FILE", "EXECUTOR_FILE", "executor", "write_environment", "write_executor"]

ENVIRONMENT_FILE = "environment.properties"
EXECUTOR_FILE = "executor.json"

# (the variable that says the CI is this one, Allure's `name`, `type`, `buildName`, `buildUrl`, `url`,
# `buildOrder`): templates over the CI's variables; a field whose variables are not all set is left out
_EXECUTORS: tuple[tuple[str, str, str, str, str, str, str], ...] = (
    (
        "GITHUB_ACTIONS", "GitHub Actions", "github", "{GITHUB_WORKFLOW} #{GITHUB_RUN_NUMBER}",
        "{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}/actions/runs/{GITHUB_RUN_ID}",
        "{GITHUB_SERVER_URL}/{GITHUB_REPOSITORY}", "{GITHUB_RUN_NUMBER}",
    ),
    ("GITLAB_CI", "GitLab CI", "gitlab", "{CI_JOB_NAME} #{CI_JOB_ID}", "{CI_JOB_URL}", "{CI_PROJECT_URL}", "{CI_PIPELINE_IID}"),
    ("JENKINS_URL", "Jenkins", "jenkins", "{JOB_NAME} #{BUILD_NUMBER}", "{BUILD_URL}", "{JENKINS_URL}", "{BUILD_NUMBER}"),
    (
        "BUILDKITE", "Buildkite", "buildkite", "{BUILDKITE_PIPELINE_SLUG} #{BUILDKITE_BUILD_NUMBER}",
        "{BUILDKITE_BUILD_URL}", "", "{BUILDKITE_BUILD_NUMBER}",
    ),
    ("CIRCLECI", "CircleCI", "circleci", "{CIRCLE_JOB} #{CIRCLE_BUILD_NUM}", "{CIRCLE_BUILD_URL}", "", "{CIRCLE_BUILD_NUM}"),
)  # fmt: skip
_USERINFO = re.compile(r"(://)[^/@\s]+@")


def write_environment(target: Path, run: RunRecord, devices: Iterable[tuple[str, str]]) -> Path:
    """Writes (or adds to) `target/environment.properties` for `run`, whose trails ran on `devices`
    (platform, device spec)."""
    values: dict[str, list[str]] = {"trailblaze": [__version__]}
    for platform, device in devices:
        for key, value in (("platform", platform), ("device", device)):
            if value and value not in values.setdefault(key, []):
                values[key].append(value)
    for key, known in (("branch", run.branch), ("commit", run.commit)):
        if known:
            values[key] = [known]
    path = target / ENVIRONMENT_FILE
    merged = _read_properties(path)
    for key, found in values.items():
        kept = merged.setdefault(key, [])
        kept += [v for v in (_clean(v) for v in found) if v not in kept]
    lines = [f"{_escape(key, True)}={_escape(', '.join(found), False)}" for key, found in merged.items()]
    atomic_write(path, ("\n".join(lines) + "\n").encode("utf-8"))
    return path


def executor(env: Mapping[str, str]) -> dict[str, str | int] | None:
    """Allure's executor of the CI build this process runs in (None outside a known CI)."""
    for marker, name, kind, build_name, build_url, url, order in _EXECUTORS:
        if not env.get(marker):
            continue
        found: dict[str, str | int] = {"name": name, "type": kind}
        for field, template in (("buildName", build_name), ("buildUrl", build_url), ("url", url)):
            value = _fill(template, env)
            if value:
                found[field] = _clean(value)
        number = _fill(order, env)
        if number and number.isdigit():
            found["buildOrder"] = int(number)
        if "buildUrl" in found:
            found["reportName"] = "trailblaze"
        return found
    return None


def write_executor(target: Path, env: Mapping[str, str]) -> Path | None:
    """Writes `target/executor.json` when this process runs in a known CI; returns it, else None."""
    found = executor(env)
    if found is None:
        return None
    path = target / EXECUTOR_FILE
    atomic_write(path, (json.dumps(found, indent=2) + "\n").encode("utf-8"))
    return path


def _fill(template: str, env: Mapping[str, str]) -> str | None:
    names = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    if not template or not all(env.get(name) for name in names):
        return None
    return template.format_map({name: env[name] for name in names})


def _clean(value: str) -> str:
    return scrub(_USERINFO.sub(r"\1", value.strip()))


def _read_properties(path: Path) -> dict[str, list[str]]:
    """What an earlier run wrote into the folder's environment (this writer's own simple form)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.lstrip().startswith(("#", "!")):
            found[_unescape(key.strip())] = [v for v in _unescape(value).split(", ") if v]
    return found


def _escape(text: str, key: bool) -> str:
    """Java properties' escapes: a backslash, a line break, and in a key `=`, `:` and spaces."""
    out = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    if key:
        out = out.replace("=", "\\=").replace(":", "\\:").replace(" ", "\\ ")
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), text)
