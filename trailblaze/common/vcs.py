"""The commit and branch a run tested, for the results store (`trailblaze.results`).

A CI job is asked first (its checkout is often a detached HEAD, so git alone would say `HEAD`), then
git itself, with a short timeout. Outside a repository, or with no git, both are None: a run never
fails for want of them.
"""

from __future__ import annotations

import functools
import os
import subprocess
from collections.abc import Mapping

__all__ = ["GIT_TIMEOUT_S", "Revision", "process_revision", "revision"]

GIT_TIMEOUT_S = 2.0

# (commit variable, branch variables in order of preference) of the CI services that set them
_CI: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("GITHUB_SHA", ("GITHUB_HEAD_REF", "GITHUB_REF_NAME")),
    ("CI_COMMIT_SHA", ("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "CI_COMMIT_REF_NAME")),
    ("BUILDKITE_COMMIT", ("BUILDKITE_BRANCH",)),
    ("CIRCLE_SHA1", ("CIRCLE_BRANCH",)),
    ("BITBUCKET_COMMIT", ("BITBUCKET_BRANCH",)),
    ("GIT_COMMIT", ("GIT_BRANCH",)),  # Jenkins
    ("TRAVIS_COMMIT", ("TRAVIS_PULL_REQUEST_BRANCH", "TRAVIS_BRANCH")),
)


class Revision(tuple[str | None, str | None]):
    """(commit, branch); either may be None when not known."""

    @property
    def commit(self) -> str | None:
        return self[0]

    @property
    def branch(self) -> str | None:
        return self[1]


def revision(env: Mapping[str, str] | None = None, cwd: str | None = None) -> Revision:
    """The commit and branch under test: from the CI's variables, else `git rev-parse`."""
    env = os.environ if env is None else env
    for commit_var, branch_vars in _CI:
        commit = env.get(commit_var, "").strip()
        if commit:
            branch = next((env[v].strip() for v in branch_vars if env.get(v, "").strip()), None)
            return Revision((commit, branch or _git("rev-parse", "--abbrev-ref", "HEAD", cwd=cwd)))
    head = _git("rev-parse", "HEAD", cwd=cwd)
    if head is None:
        return Revision((None, None))
    branch = _git("rev-parse", "--abbrev-ref", "HEAD", cwd=cwd)
    return Revision((head, None if branch == "HEAD" else branch))


def _git(*args: str, cwd: str | None) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError):  # no git, or it hung: the run goes on without
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


@functools.cache
def process_revision() -> Revision:
    """`revision()` of this process's environment and folder, asked once (a pytest session opens a run
    directory per test)."""
    return revision()
