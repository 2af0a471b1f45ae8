"""Where custom tools come from (docs/adr/0020-custom-tools.md).

For a trail, in this order:

1. `[tool.trailblaze] tools = [...]` in the nearest `pyproject.toml` above the trail: folders,
   `.py` / `.tool.yaml` files (relative to that file) or importable module names. When set, it
   replaces the default below.
2. Default: every `tools/` folder from the trail's folder up to the project root (the folder of
   the nearest `pyproject.toml`, else of `.git`, else the trail's own folder), e.g. `trails/tools/`
   for `trails/login.trail.yaml`.
3. Always: the `trailblaze.tools` entry-point group of installed packages (each entry point names a
   module, a decorated function or a list of them).

A folder contributes its `*.py` files (imported as one package, so relative imports work) and its
`*.tool.yaml` files (searched recursively). A name defined twice is an error naming both places.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from trailblaze.common.project import project_settings
from trailblaze.errors import TrailblazeError
from trailblaze.tools.tooldef import ToolDef
from trailblaze.tools.toolset import ToolSet

__all__ = ["ENTRY_POINT_GROUP", "Discovered", "clear_cache", "discover", "tool_sources", "tools_for"]

ENTRY_POINT_GROUP = "trailblaze.tools"
_PACKAGE_PREFIX = "_trailblaze_tools_"
_LOADING = threading.RLock()


@dataclass
class Discovered:
    """The tools found for a trail, and what was wrong on the way (`file:line:col: message` lines).

    `tools` is shared by the trails of a folder (cached): a run builds its own `ToolSet` from
    `tools.custom()` with what its trail offers the model."""

    tools: ToolSet
    problems: list[str] = field(default_factory=list)
    sources: tuple[str, ...] = ()


def tool_sources(trail_dir: Path) -> tuple[str, ...]:
    """Folders, files and module names to load tools from for trails in `trail_dir` (no entry points).

    A bad `[tool.trailblaze] tools` value comes back as a `!message` entry that `discover` reports.
    """
    start = trail_dir.resolve()
    root, section = project_settings(start)
    configured = section.get("tools")
    if configured is not None and root is not None:
        if not isinstance(configured, list) or not all(isinstance(x, str) for x in configured):
            return (
                f"!{root / 'pyproject.toml'}: [tool.trailblaze] tools must be a list of paths or module names",
            )
        out = []
        for entry in configured:
            path = root / entry
            out.append(
                str(path)
                if path.exists() or "/" in entry or entry.endswith((".py", ".yaml"))
                else f"module:{entry}"
            )
        return tuple(out)
    if root is None:  # no pyproject.toml: the repository's root, else only the trail's own folder
        root = next((f for f in (start, *start.parents) if (f / ".git").exists()), start)
    folders = []
    for folder in (start, *start.parents):
        if (folder / "tools").is_dir():
            folders.append(str(folder / "tools"))
        if folder == root:
            break
    return tuple(folders)


def tools_for(trail_path: str | Path | None, *, entry_points: bool = True) -> Discovered:
    """The custom tools for a trail file (or, with None, for the current folder: `./tools`, `./trails/tools`)."""
    if trail_path is None:
        here = Path.cwd()
        sources = tool_sources(here / "trails") if (here / "trails").is_dir() else tool_sources(here)
    else:
        sources = tool_sources(Path(trail_path).parent)
    return discover(sources, entry_points=entry_points)


def discover(sources: tuple[str, ...], *, entry_points: bool = True) -> Discovered:
    """Load the tools of `sources` (see `tool_sources`) and of the entry points; cached per sources.

    Trails replay in several threads at once (pytest-xdist aside, the tests' simulators do): one
    thread loads while the others wait, so none sees a tools module half imported.
    """
    with _LOADING:
        return _discover(sources, entry_points=entry_points)


@lru_cache(maxsize=32)
def _discover(sources: tuple[str, ...], *, entry_points: bool = True) -> Discovered:
    found: list[ToolDef] = []
    problems: list[str] = []
    for source in sources:
        if source.startswith("!"):
            problems.append(source[1:])
        elif source.startswith("module:"):
            found += _from_module_name(source[len("module:") :], problems)
        else:
            found += _from_path(_shown(source), problems)
    if entry_points:
        found += _from_entry_points(problems)
    tools = ToolSet()
    for custom in found:
        try:
            tools.add(custom)
        except TrailblazeError as exc:
            problems.append(exc.message)
    if found:  # the YAML tools' checker is imported when a project has tools
        from trailblaze.tools.yaml_tools import check_bodies

        problems += check_bodies(tools)
    return Discovered(tools, problems, sources)


def _shown(source: str) -> Path:
    """The path as messages show it: relative to the current folder when below it."""
    try:
        relative = os.path.relpath(source)
    except ValueError:
        return Path(source)
    return Path(source) if relative.startswith("..") else Path(relative)


def clear_cache() -> None:
    """Forget discovered tools (tests; a long-lived process whose tools changed)."""
    _discover.cache_clear()


def _from_path(path: Path, problems: list[str]) -> list[ToolDef]:
    from trailblaze.tools.custom import tools_in  # a project's tools: imported when it has some

    if not path.exists():
        problems.append(
            f"{path}: no such tools folder or file (from [tool.trailblaze] tools in pyproject.toml)"
        )
        return []
    if path.is_file():
        if path.name.endswith(".tool.yaml"):
            return _yaml_tool(path, problems)
        if path.suffix == ".py":
            module = _import_file(path, path.parent, problems)
            return tools_in(module) if module is not None else []
        problems.append(f"{path}: a tools entry is a folder, a .py file or a .tool.yaml file")
        return []
    out: list[ToolDef] = []
    for file in sorted(path.glob("*.py")):
        if file.name == "__init__.py":
            continue
        module = _import_file(file, path, problems)
        if module is not None:
            out += tools_in(module)
    for file in sorted(path.rglob("*.tool.yaml")):
        if not any(part.startswith(".") for part in file.relative_to(path).parts):
            out += _yaml_tool(file, problems)
    return out


def _yaml_tool(path: Path, problems: list[str]) -> list[ToolDef]:
    from trailblaze.tools.yaml_tools import load_yaml_tool  # a project's tools: imported when it has some

    tool, found = load_yaml_tool(path)
    problems += found
    return [tool] if tool is not None else []


def _package_for(folder: Path) -> str:
    """A private package name for a tools folder: its `.py` files import as its submodules."""
    import hashlib  # only for a project's tools folder

    digest = hashlib.sha1(str(folder.resolve()).encode()).hexdigest()[:12]
    name = _PACKAGE_PREFIX + digest
    if name not in sys.modules:
        spec = importlib.util.spec_from_loader(name, loader=None, is_package=True)
        assert spec is not None
        package = importlib.util.module_from_spec(spec)
        package.__path__ = [str(folder.resolve())]
        sys.modules[name] = package
    return name


def _import_file(file: Path, folder: Path, problems: list[str]) -> ModuleType | None:
    name = f"{_package_for(folder)}.{file.stem}"
    try:
        return importlib.import_module(name)
    except Exception as exc:  # the user's module: any error is theirs, reported where it is
        sys.modules.pop(name, None)
        problems.append(
            f"{file}{_line_of(exc, file)}: cannot import it: {type(exc).__name__}: {_first_line(exc)}"
        )
        return None


def _line_of(exc: BaseException, file: Path) -> str:
    tb = exc.__traceback__
    line = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == file.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return f":{line}" if line else ""


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[0]


def _from_module_name(name: str, problems: list[str]) -> list[ToolDef]:
    from trailblaze.tools.custom import tools_in  # a project's tools: imported when it has some

    try:
        return tools_in(importlib.import_module(name))
    except Exception as exc:
        problems.append(
            f"pyproject.toml: [tool.trailblaze] tools: cannot import `{name}`: {type(exc).__name__}: {_first_line(exc)}"
        )
        return []


def _from_entry_points(problems: list[str]) -> list[ToolDef]:
    out: list[ToolDef] = []
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = ep.load()
        except Exception as exc:
            problems.append(
                f"entry point `{ep.name} = {ep.value}` ({ENTRY_POINT_GROUP}): cannot load it: {type(exc).__name__}: {_first_line(exc)}"
            )
            continue
        from trailblaze.tools.custom import tools_in  # a project's tools: imported when it has some

        tools = tools_in(loaded)
        if not tools:
            problems.append(
                f"entry point `{ep.name} = {ep.value}` ({ENTRY_POINT_GROUP}): names no @trailblaze.tool"
            )
        out += tools
    return out
