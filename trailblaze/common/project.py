"""The project a trail or flow file belongs to: files it names (sub-trails, sub-flows, custom tools)
must stay inside it."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["inside_project", "project_of"]


def project_of(path: str | os.PathLike[str]) -> Path:
    """The project a trail belongs to: the folder of the nearest `pyproject.toml` or `.git` at or above
    it (as custom tools find theirs), else the folder above the trail's own, so the `../flows/` of a
    loose folder of trails still resolve."""
    folder = Path(os.path.realpath(path)).parent
    for candidate in (folder, *folder.parents):
        if (candidate / "pyproject.toml").is_file() or (candidate / ".git").exists():
            return candidate
    return folder.parent


def inside_project(top: str | os.PathLike[str], target: str | os.PathLike[str]) -> bool:
    """Whether `target` (symlinks resolved) lies in the project of the outermost file `top`."""
    return Path(os.path.realpath(target)).is_relative_to(project_of(top))
