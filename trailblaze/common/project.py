"""The project a trail or flow file belongs to: files it names (sub-trails, sub-flows, custom tools)
must stay inside it."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

__all__ = ["inside_project", "project_of", "project_settings"]


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


def project_settings(start: Path) -> tuple[Path | None, dict[str, object]]:
    """The folder of the nearest `pyproject.toml` at or above `start`, and its `[tool.trailblaze]`
    (empty when the file does not parse: its own tools report that)."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text("utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                return folder, {}
            section = data.get("tool", {}).get("trailblaze", {})
            return folder, section if isinstance(section, dict) else {}
    return None, {}
