"""Finding trail files in folders the way Trailblaze does (ADR 0021).

A folder holding a classifier-named trail (`android-phone.trail.yaml`, `ios.trail.yaml`, …), a
`trail.yaml` or a `blaze.yaml` is ONE trail: a device runs the file for its classifier, closest
first (`android-phone` → `android`), else `trail.yaml`, else `blaze.yaml`; the folder's name is the
trail's id when `config.id` is absent. Any other `*.trail.yaml` (and a `*.trail.md` with no sibling
`.trail.yaml`) is a trail of its own, and so is a Maestro flow (any other `.yaml` / `.yml` whose text
is a flow's: an `appId:` header, `---`, commands). Walking skips hidden folders and build output (`build/`,
`node_modules/`, …) at any depth, and follows no symlinked folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from trailblaze.maestro.sniff import FLOW_SUFFIXES, flow_file_kind
from trailblaze.trail._parts import CLASSIFIER_RE, classifier_lineage

__all__ = [
    "MARKDOWN_SUFFIX",
    "SKIPPED_DIRS",
    "YAML_SUFFIX",
    "file_classifier",
    "folder_trail_id",
    "is_folder_trail_name",
    "is_trail_name",
    "pick_folder_trail",
    "recordings_file",
    "walk_trails",
]

SKIPPED_DIRS = frozenset({"build", "node_modules"})
"""Folders never searched (besides hidden ones such as `.git`, `.gradle`, `.trailblaze`)."""
_FAMILIES = ("android", "ios", "web")
_FOLDER_FILES = ("trail.yaml", "blaze.yaml")
YAML_SUFFIX = ".trail.yaml"
_TOOL_SUFFIXES = (".tool.yaml", ".tool.yml")  # a project's YAML tools: known, not passed over
MARKDOWN_SUFFIX = ".trail.md"


def file_classifier(name: str) -> str | None:
    """`android-phone` for `android-phone.trail.yaml`; None for a file not named by a device classifier."""
    if not name.endswith(YAML_SUFFIX):
        return None
    stem = name.removesuffix(YAML_SUFFIX)
    if not CLASSIFIER_RE.match(stem) or stem.split("-")[0] not in _FAMILIES:
        return None
    return stem


def is_folder_trail_name(name: str) -> bool:
    """A name that makes its folder one trail: `trail.yaml`, `blaze.yaml` or `<classifier>.trail.yaml`."""
    return name in _FOLDER_FILES or file_classifier(name) is not None


def is_trail_name(name: str) -> bool:
    """Any trail file name: `*.trail.yaml`, `*.trail.md`, `trail.yaml` or `blaze.yaml`."""
    return name in _FOLDER_FILES or name.endswith((YAML_SUFFIX, MARKDOWN_SUFFIX))


def pick_folder_trail(names: Iterable[str], classifier: str | None) -> list[str]:
    """Which of a folder's files is its trail on a device with `classifier` (all of them when None).

    With a platform only (`android`, before the device is open) and no `android.trail.yaml`,
    the folder's first more specific file (`android-phone.trail.yaml`) stands for it.
    """
    folder = sorted(n for n in names if is_folder_trail_name(n))
    if classifier is None:
        return folder
    for candidate in classifier_lineage(classifier):
        if f"{candidate}{YAML_SUFFIX}" in folder:
            return [f"{candidate}{YAML_SUFFIX}"]
    narrower = [n for n in folder if (file_classifier(n) or "").startswith(f"{classifier}-")]
    if narrower:
        return narrower[:1]
    return [n for n in _FOLDER_FILES if n in folder][:1]


def recordings_file(path: str | os.PathLike[str]) -> Path:
    """The file a trail's recordings are written to: a `*.trail.md`'s sibling `.trail.yaml`, else itself."""
    name = os.fspath(path)
    return Path(name.removesuffix(MARKDOWN_SUFFIX) + YAML_SUFFIX if name.endswith(MARKDOWN_SUFFIX) else name)


def folder_trail_id(path: Path) -> str | None:
    """The folder's name for a folder trail's file (its id when `config.id` is absent), else None."""
    if not is_folder_trail_name(path.name):
        return None
    return path.resolve().parent.name or None


def walk_trails(root: Path, classifier: str | None, *, passed_over: list[Path] | None = None) -> list[Path]:
    """The trail files below `root`, sorted, one per folder trail (see the module docstring).

    A `.yaml` that cannot be read (no permission, a dangling symlink, not UTF-8) may be a flow, so it
    is returned for the loader to say why; it is never passed over in silence. The other `.yaml` /
    `.yml` files looked at and found to be neither trail nor flow are added to `passed_over`, so
    `validate` can count and name them.
    """
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        here = Path(folder)
        names = set(files)
        chosen = pick_folder_trail(names, classifier)
        for name in sorted(names):
            if name.endswith(FLOW_SUFFIXES) and not is_trail_name(name):
                if flow_file_kind(here / name) != "other":
                    found.append(here / name)  # a Maestro flow (docs/adr/0049-maestro-flows.md)
                elif passed_over is not None and not name.endswith(_TOOL_SUFFIXES):
                    passed_over.append(here / name)
                continue
            if not is_trail_name(name) or (here / name).is_dir():
                continue
            if is_folder_trail_name(name):
                if name in chosen:
                    found.append(here / name)
            elif name.endswith(MARKDOWN_SUFFIX):
                if name.removesuffix(MARKDOWN_SUFFIX) + YAML_SUFFIX not in names:  # the .yaml wins
                    found.append(here / name)
            else:
                found.append(here / name)
    return sorted(found)
