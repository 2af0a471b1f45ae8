"""Reading a Maestro flow file: header, commands, sub-flows, every problem at its own `file:line:col`.

`load_flow` checks every command (nested ones too) against `trailblaze.maestro.commands` and reads
the files `runFlow` / `retry` name, relative to the flow's folder, so a flow that validates runs with
nothing left to find. The result holds each sub-flow inline (`runFlow: {commands: […]}`): a converted
trail is one self-contained file, and the flow's `appId` is written into every command that uses it.

Every problem names the file that holds it (a sub-flow's own path, line and column, not its caller's),
and every problem of every file is reported, not only the first. A hostile tree of files is bounded
while it is read: each file is parsed once, nesting counts each file once, the commands produced by
reading sub-flows in are counted as they are produced, and a sub-flow stays inside the project of the
flow that runs it (docs/adr/0049-maestro-flows.md).
"""

from __future__ import annotations

import copy
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailblaze.common import yaml_lines as _yaml
from trailblaze.common.limits import MAX_FLOW_COMMANDS, MAX_FLOW_DEPTH, MAX_REPEAT_ROUNDS
from trailblaze.common.project import inside_project, project_of
from trailblaze.common.text_files import read_trail_text
from trailblaze.errors import Problem, TrailblazeError, TrailFileError
from trailblaze.maestro.commands import CONTAINERS, check, normalize, repeat_rounds
from trailblaze.maestro.script_check import inline_errors, syntax_error, whole_error
from trailblaze.maestro.sniff import flow_text, split_flow

__all__ = ["Flow", "load_flow", "read_flow"]

_APP_COMMANDS = frozenset({"launchApp", "stopApp", "killApp", "clearState"})
_HEADER_KEYS = frozenset(
    {"appId", "url", "name", "tags", "env", "onFlowStart", "onFlowComplete", "jsEngine", "properties", "ext"}
)
_YPath = tuple[str | int, ...]


@dataclass
class Flow:
    """One Maestro flow: its header and its commands (sub-flows inline, appId filled in)."""

    path: str
    app_id: str | None
    name: str | None = None
    tags: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    on_start: list[Any] = field(default_factory=list)
    on_complete: list[Any] = field(default_factory=list)
    commands: list[Any] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    """The line of each of `commands` in the file."""
    written: list[Any] = field(default_factory=list)
    """`commands` as the file writes them (sub-flows by name), for step texts."""
    unconverted: dict[int, str] = field(default_factory=dict)
    """Read leniently (`trailblaze import maestro`): the index of each command that cannot run here,
    with its problem as `file:line:col: message`."""
    templates: list[tuple[str, str]] = field(default_factory=list)
    """Each `${NAME}` no enclosing `env:` gives, with the `file:line:col` that uses it: the flow's own
    `env:` or the command line (`--env NAME=VALUE`) must."""
    notes: list[str] = field(default_factory=list)
    """`file:line:col: what trailblaze does not act on` (an unknown header key, an ignored field)."""
    web: bool = False
    """A Maestro web flow (`url:` and no `appId:`): it runs in a browser (`--device web`), and its
    `launchApp` opens the URL."""


def load_flow(path: str | os.PathLike[str], *, top: str | os.PathLike[str] | None = None) -> Flow:
    """Read and check the flow file at `path` and the sub-flows it names (inside the project of
    `top`, the outermost file, by default `path` itself).

    Raises:
        UsageError: the file cannot be read.
        TrailFileError: the flow or a sub-flow has problems (each names its own file).
    """
    name = os.fspath(path)
    if top is not None and not inside_project(top, name):
        raise TrailFileError(name, [Problem(1, 1, f"runFlow {name}: outside the project {project_of(top)}")])
    return read_flow(read_trail_text(name), name, top=os.fspath(top) if top is not None else None)


def read_flow(
    text: str, path: str, *, lenient: bool = False, top: str | None = None, media_base: str | None = None
) -> Flow:
    """Parse and check flow text; `path` names it in problems and anchors relative sub-flow files.

    With `lenient`, a command that cannot run here (or whose sub-flow cannot) is kept as it was
    written and listed in `Flow.unconverted` instead of failing the flow. `top` is the outermost file
    of the run (a trail's `mobile_maestro` reading a flow at run time): sub-flows stay in its project.
    `addMedia` paths are rewritten to be read from `media_base` (default: the folder of `top`, or of
    `path`), where the trail that runs them lives.

    Raises:
        TrailFileError: every problem found, each with its own file and position.
    """
    reader = _Reader(top or path, media_base)
    flow = reader.read(flow_text(text), path, lenient)
    if reader.problems:
        raise TrailFileError(path, reader.problems)
    return flow


@dataclass
class _File:
    """One flow file parsed and checked (once however often it is run)."""

    path: str
    header: _yaml.YamlDocument
    doc: _yaml.YamlDocument
    config: dict[str, Any]
    own: list[Problem] = field(default_factory=list)
    """Problems outside the command list (header, hooks, the list's shape)."""
    per_command: dict[int, list[Problem]] = field(default_factory=dict)
    """Problems of each command, by index."""
    notes: list[str] = field(default_factory=list)

    @property
    def commands(self) -> list[Any]:
        return self.doc.data if isinstance(self.doc.data, list) else []

    @property
    def problems(self) -> list[Problem]:
        return [*self.own, *(p for i in sorted(self.per_command) for p in self.per_command[i])]

    def at(self, path: _YPath, *, header: bool = False, key: bool = False) -> tuple[int, int]:
        return (self.header if header else self.doc).position(path, key=key)

    def problem(self, path: _YPath, message: str, *, header: bool = False, key: bool = False) -> Problem:
        return Problem(*self.at(path, header=header, key=key), message, file=self.path)

    def at_inline(self, path: _YPath, nth: int, *, header: bool = False) -> tuple[int, int]:
        """Where the `nth` `${` of the text at `path` is written; the text's start when the file
        spells it otherwise (an escape in a quoted string)."""
        doc = self.header if header else self.doc
        node = doc.node(path)
        if node is None:
            return self.at(path, header=header)
        raw = doc.text[node.start_mark.index : node.end_mark.index]
        i = -1
        for _ in range(nth + 1):
            i = raw.find("${", i + 1)
            if i < 0:
                return self.at(path, header=header)
        before = raw[:i]
        if "\n" not in before:
            return node.start_mark.line + 1, node.start_mark.column + 1 + i
        return node.start_mark.line + 1 + before.count("\n"), i - before.rfind("\n")


class _Budget(Exception):
    """More commands than `MAX_FLOW_COMMANDS` with every sub-flow read in: stop reading."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


@dataclass
class _Reader:
    top: str
    media_base: str | None = None
    """The folder `addMedia` paths are written from (default: the top file's)."""
    files: dict[str, _File | Problem] = field(default_factory=dict)
    """Every file read, by real path: the parsed file, or why it could not be read."""
    problems: list[Problem] = field(default_factory=list)
    expanded: int = 0
    _targets: dict[tuple[str, str], tuple[str, str | None]] = field(default_factory=dict)
    _root: Path | None = None

    def target(self, folder: str, written: str, what: str) -> tuple[str, str | None]:
        """The real path of the file `written` names from `folder`, and why it cannot be used (it does
        not exist, or lies outside the top flow's project) or None; worked out once per name."""
        known = self._targets.get((folder, written))
        if known is not None:
            return known
        target = Path(folder) / written
        key = os.path.realpath(target)
        if self._root is None:
            self._root = project_of(self.top)
        why: str | None = None
        if not os.path.lexists(target):
            why = f"{what} file {written} does not exist (looked in {folder})"
        elif not Path(key).is_relative_to(self._root):
            why = (
                f"{what} {written}: outside this flow's project {self._root}; it must live in the same "
                "project (the folder of the nearest pyproject.toml or .git)"
            )
        self._targets[(folder, written)] = (key, why)
        return key, why

    def from_base(self, target: Path) -> str:
        """`target` as a path from the folder media paths are written from, in `/` form."""
        base = self.media_base or os.path.dirname(os.path.abspath(self.top))
        return Path(os.path.relpath(os.path.abspath(target), base)).as_posix()

    def read(self, text: str, path: str, lenient: bool) -> Flow:
        file = _parse_file(text, path)
        self.files[os.path.realpath(path)] = file
        config = file.config
        env = _env(config)
        flow = Flow(
            path=path,
            # a web flow's `url:` is its app: `launchApp` opens it (the web driver launches URLs)
            app_id=str(config["appId"]) if config.get("appId") is not None
            else str(config["url"]) if config.get("url") is not None else None,
            name=str(config["name"]) if config.get("name") is not None else None,
            tags=[str(t) for t in config.get("tags") or []] if isinstance(config.get("tags"), list) else [],
            env=env,
            web=config.get("url") is not None and config.get("appId") is None,
        )
        self._add(file.own)
        chain = (os.path.realpath(path),)
        expand = _Expander(self, flow.app_id, chain)
        try:
            for key, target in (("onFlowStart", flow.on_start), ("onFlowComplete", flow.on_complete)):
                hook = config.get(key)
                for i, item in enumerate(hook if isinstance(hook, list) else []):
                    target.append(expand.command(file, item, (key, i), {}, header=True, found=self.problems))
            for i, item in enumerate(file.commands):
                flow.written.append(item)
                flow.lines.append(file.at((i,))[0])
                found = list(file.per_command.get(i, []))
                expanded = item
                if not found:
                    try:
                        expanded = expand.command(file, item, (i,), {}, found=found)
                    except _Budget as exc:  # said at the top flow's command that set it off
                        raise _Budget(file.problem((i,), exc.problem.message)) from None
                if found and lenient:
                    flow.unconverted[i] = found[0].format(path)
                    expanded = item
                else:
                    self._add(found)
                flow.commands.append(expanded)
        except _Budget as exc:
            self._add([exc.problem])
        flow.templates = expand.templates
        flow.notes = [n for f in self.files.values() if isinstance(f, _File) for n in f.notes]
        return flow

    def _add(self, problems: list[Problem]) -> None:
        for problem in problems:
            if problem not in self.problems:
                self.problems.append(problem)

    def sub_file(self, target: Path) -> _File | Problem:
        """The flow file at `target`, parsed and checked once; a Problem when it does not read."""
        key = os.path.realpath(target)
        known = self.files.get(key)
        if known is not None:
            return known
        shown = os.fspath(target)
        try:
            file: _File | Problem = _parse_file(flow_text(read_trail_text(shown)), shown)
        except TrailFileError as exc:
            file = exc.problems[0] if exc.problems[0].file else Problem(*_first(exc), file=shown)
        except TrailblazeError as exc:
            file = Problem(1, 1, exc.message, file=shown)
        self.files[key] = file
        return file


def _first(exc: TrailFileError) -> tuple[int, int, str]:
    problem = exc.problems[0]
    return problem.line, problem.column, problem.message


def _env(config: dict[str, Any]) -> dict[str, str]:
    env = config.get("env")
    if not isinstance(env, dict):
        return {}
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def _parse_file(text: str, path: str) -> _File:
    """The flow at `path` parsed, its header and every command checked (problems kept, not raised).

    Raises:
        TrailFileError: not a flow, or YAML that does not parse.
    """
    parts = split_flow(text)
    if parts is None:
        raise TrailFileError(
            path,
            [
                Problem(
                    1, 1, "not a Maestro flow: it needs an `appId:` header, a `---` line, then the commands"
                )
            ],
        )
    header_text, body = parts
    header = _parse(header_text, path, 0)
    doc = _parse(body, path, header_text.count("\n"))
    config = header.data if isinstance(header.data, dict) else {}
    file = _File(path, header, doc, config)
    if not isinstance(header.data, dict):
        file.own.append(
            file.problem((), "the flow's header is a mapping (`appId: com.example.app`)", header=True)
        )
    for key in config:
        if key not in _HEADER_KEYS:
            line, col = file.at((key,), header=True, key=True)
            file.notes.append(
                f"{path}:{line}:{col}: note: the flow header field `{key}` is not used by trailblaze"
            )
    if "env" in config and config["env"] is not None and not isinstance(config["env"], dict):
        file.own.append(file.problem(("env",), "env is a mapping of name → value", header=True))
    for key in ("onFlowStart", "onFlowComplete"):
        hook = config.get(key)
        if hook is None:
            continue
        if not isinstance(hook, list):
            file.own.append(file.problem((key,), f"{key} is a list of Maestro commands", header=True))
            continue
        for i, item in enumerate(hook):
            file.own += [file.problem((key, i, *p), m, header=True, key=True) for p, m in check(item)]
    if not isinstance(doc.data, list):
        file.own.append(file.problem((), "after `---` a flow lists its commands, one `- ` item each"))
    else:
        for i, item in enumerate(doc.data):
            found = [file.problem((i, *p), m, key=True) for p, m in check(item)]
            if found:
                file.per_command[i] = found
            for p in _ignored_ids((i,), item):
                line, col = file.at(p, key=True)
                file.notes.append(
                    f"{path}:{line}:{col}: note: inputText `id` is ignored (as Maestro ignores it); "
                    "the text goes to the focused field"
                )
        if not doc.data and not config.get("onFlowStart") and not config.get("onFlowComplete"):
            file.own.append(file.problem((), "the flow has no commands; list them after `---`"))
    return file


def _ignored_ids(at: _YPath, item: Any) -> list[_YPath]:
    """Where `inputText` commands (nested ones too) write an `id:`."""
    if not isinstance(item, dict) or len(item) != 1:
        return []
    ((name, value),) = item.items()
    if not isinstance(value, dict):
        return []
    if name == "inputText":
        return [(*at, name, "id")] if "id" in value else []
    inner = value.get("commands")
    found: list[_YPath] = []
    for i, sub in enumerate(inner if isinstance(inner, list) else []):
        found += _ignored_ids((*at, name, "commands", i), sub)
    return found


def _parse(text: str, path: str, offset: int) -> _yaml.YamlDocument:
    try:
        return _yaml.parse_document("\n" * offset + text)
    except _yaml.YamlSyntaxError as exc:
        raise TrailFileError(path, [Problem(p.line, p.column, p.message) for p in exc.problems]) from None


_VAR = re.compile(r"\$\{\s*([A-Za-z_][\w-]*)\s*\}")


def _fill(value: Any, env: dict[str, str]) -> Any:
    """`value` with every `${NAME}` whose NAME is in `env` replaced by its value."""
    if isinstance(value, str):
        return _VAR.sub(lambda m: env.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {k: _fill(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, env) for v in value]
    return value


@dataclass
class _Expander:
    """Fills in the flow's appId and reads sub-flow files into `commands:` lists, counting as it goes."""

    reader: _Reader
    app_id: str | None
    chain: tuple[str, ...]
    templates: list[tuple[str, str]] = field(default_factory=list)
    outer: int = 1
    """The rounds of the repeats (in the files that run this one) around this file's commands: a
    product past the bound that only they make is this expander's to say (`check` sees one file)."""

    def command(
        self,
        file: _File,
        item: Any,
        at: _YPath,
        scope: dict[str, str],
        *,
        found: list[Problem],
        header: bool = False,
        rounds: tuple[int, ...] = (),
    ) -> Any:
        """`item` (at `at` in `file`) with its sub-flows read in; problems met are added to `found`.

        `scope` holds the names the enclosing `env:` lists give (filled in later, not run values);
        `rounds` the `times` of the repeats around `item`, in this file and in those that run it."""
        self.reader.expanded += 1
        if self.reader.expanded > MAX_FLOW_COMMANDS:
            raise _Budget(
                file.problem(
                    at,
                    f"with every runFlow file read in, the flow has more than {MAX_FLOW_COMMANDS:,} commands; "
                    "run fewer sub-flows (a flow running the next one twice doubles at every level)",
                    header=header,
                )
            )
        # A file is parsed once however often it runs: each use gets its own copy of a command, so
        # no object is shared between two places in the flow (written out, one would be an alias).
        item = copy.deepcopy(item)
        name, fields = normalize(item)
        key = name if isinstance(item, dict) else None
        if name not in CONTAINERS:
            self._note_templates(file, item, at, scope, header)
            # runScript's file is a path, read as written; its text is compiled when it is read in
            shown = {k: v for k, v in fields.items() if k not in ("file", "source")} if name == "runScript" else item
            self._compile(file, shown, at if shown is item else (*at, name), header, found)
            if name == "evalScript" and isinstance(fields.get("script"), str) and "${" not in fields["script"]:
                self._compile_whole(file, fields["script"], (*at, name, "script") if key else at, header, found)
            if name in _APP_COMMANDS and "appId" not in fields and self.app_id is not None:
                return {name: {"appId": self.app_id, **fields}}
            if name == "runScript" and "source" not in fields:
                source = self._script(
                    file, str(fields["file"]), (*at, name, "file") if key else at, header, found
                )
                return {name: {**fields, "source": source}} if source is not None else item
            if name == "addMedia":
                return self._media(file, item, fields, at, header, found)
            return item if isinstance(item, dict) else {name: {}}
        around = " (with the repeats around the runFlow of this file)" if self.outer > 1 else ""
        inner_rounds, too_many = repeat_rounds(name, fields, rounds, around)
        if too_many is not None and math.prod(inner_rounds) // self.outer <= MAX_REPEAT_ROUNDS:
            # only the files that run this one make it too many: said here, where the loop is
            found.append(file.problem((*at, key, "times") if key else at, too_many, header=header))
        out = dict(fields)
        own = (
            {str(k): str(v) for k, v in (out.get("env") or {}).items()}
            if isinstance(out.get("env"), dict)
            else {}
        )
        inner_scope = {**scope, **own}
        self._note_templates(
            file,
            {k: v for k, v in fields.items() if k not in ("commands", "env")},
            (*at, key) if key else at,
            scope,
            header,
        )
        self._compile(
            file, {k: v for k, v in fields.items() if k not in ("commands", "file")}, (*at, key) if key else at,
            header, found,
        )  # fmt: skip
        if isinstance(out.get("file"), str):
            sub = self._sub_flow(file, str(out["file"]), (*at, key, "file") if key else at, header, found)
            if sub is None:
                return item
            sub_file, chain = sub
            inner_scope = {**_env(sub_file.config), **inner_scope}
            expander = _Expander(self.reader, self.app_id, chain, self.templates, math.prod(inner_rounds))
            commands: list[Any] = []
            for hook in ("onFlowStart",):
                for i, c in enumerate(sub_file.config.get(hook) or []):
                    commands.append(
                        expander.command(
                            sub_file, c, (hook, i), inner_scope, found=found, header=True, rounds=inner_rounds
                        )
                    )
            for i, c in enumerate(sub_file.commands):
                commands.append(
                    expander.command(sub_file, c, (i,), inner_scope, found=found, rounds=inner_rounds)
                )
            for i, c in enumerate(sub_file.config.get("onFlowComplete") or []):
                commands.append(
                    expander.command(
                        sub_file, c, ("onFlowComplete", i), inner_scope, found=found, header=True,
                        rounds=inner_rounds,
                    )
                )
            written = out.pop("file")
            out["commands"] = commands
            out["env"] = {**_env(sub_file.config), **own}
            out.setdefault("label", f"{written}")
        elif isinstance(out.get("commands"), list):
            out["commands"] = [
                self.command(
                    file, c, (*at, key, "commands", i) if key else at, inner_scope, found=found, header=header,
                    rounds=inner_rounds,
                )
                for i, c in enumerate(out["commands"])
            ]
        env = out.get("env")
        if isinstance(env, dict) and env:
            # The values are fixed here: written into the commands, a converted trail shows them
            # (inner runFlows were filled first, so their env wins); `env` stays for scripts to read.
            out["commands"] = _fill(out.get("commands") or [], {str(k): str(v) for k, v in env.items()})
        return {name: out}

    def _note_templates(
        self, file: _File, value: Any, at: _YPath, scope: dict[str, str], header: bool
    ) -> None:
        for path, text in _yaml.strings(at, value):
            for match in _VAR.finditer(text):
                if match.group(1) not in scope:
                    line, col = file.at(path, header=header)
                    self.templates.append((match.group(1), f"{file.path}:{line}:{col}"))

    def _compile(self, file: _File, value: Any, at: _YPath, header: bool, found: list[Problem]) -> None:
        """A problem for each `${…}` in `value`'s texts that does not compile, at its `${`."""
        for path, text in _yaml.strings(at, value):
            for nth, message in inline_errors(text):
                found.append(Problem(*file.at_inline(path, nth, header=header), message, file=file.path))

    def _compile_whole(self, file: _File, source: str, at: _YPath, header: bool, found: list[Problem]) -> None:
        """A problem when `evalScript`'s script (no `${…}`: the whole text is the script) does not compile."""
        problem = whole_error(source, "evalScript")
        if problem is not None:
            found.append(file.problem(at, problem, header=header))

    def _project_file(
        self, file: _File, written: str, at: _YPath, header: bool, found: list[Problem], what: str
    ) -> Path | None:
        """The file `written` names beside `file`, when it exists inside the project (else a problem)."""
        folder = os.fspath(Path(file.path).parent)
        _, why = self.reader.target(folder, written, what)
        if why is not None:
            found.append(file.problem(at, why, header=header))
            return None
        return Path(folder) / written

    def _media(
        self, file: _File, item: Any, fields: dict[str, Any], at: _YPath, header: bool, found: list[Problem]
    ) -> Any:
        """`addMedia` with each file as a path from the folder the run reads it from (the top flow's,
        or `media_base`'s): a sub-flow's `photo.png` lies beside the sub-flow, not the flow that runs it."""
        rebased: list[str] = []
        for i, media in enumerate(fields["files"]):
            where = (*at, "addMedia", *(("files",) if isinstance(item["addMedia"], dict) else ()), i)
            target = self._project_file(file, str(media), where, header, found, "addMedia")
            rebased.append(str(media) if target is None else self.reader.from_base(target))
        if rebased == [str(m) for m in fields["files"]]:
            return item
        return {"addMedia": {**fields, "files": rebased}}

    def _script(
        self, file: _File, written: str, at: _YPath, header: bool, found: list[Problem]
    ) -> str | None:
        """The text of the script `runScript` names (kept in the command: a converted trail is one
        self-contained file); None with a problem when it cannot be read."""
        target = self._project_file(file, written, at, header, found, "runScript")
        if target is None:
            return None
        try:
            source = flow_text(read_trail_text(os.fspath(target)))
        except TrailblazeError as exc:
            found.append(
                file.problem(at, f"runScript {written}: {exc.message.splitlines()[0]}", header=header)
            )
            return None
        error = syntax_error(source)
        if error is not None:  # said in the script's own file, where it is fixed
            line, col, message = error
            found.append(Problem(line, col, f"{message} (run by {file.path})", file=os.fspath(target)))
        return source

    def _sub_flow(
        self, file: _File, written: str, at: _YPath, header: bool, found: list[Problem]
    ) -> tuple[_File, tuple[str, ...]] | None:
        """The sub-flow `written` names from `file`, and the chain of files it runs in; None (a
        problem added to `found`) when it cannot run."""
        folder = os.fspath(Path(file.path).parent)
        key, why = self.reader.target(folder, written, "runFlow")

        def refuse(message: str) -> None:
            found.append(file.problem(at, message, header=header))

        if key in self.chain:
            names = [Path(p).name for p in self.chain[self.chain.index(key) :]]
            refuse(
                f"{written} runs itself ({' → '.join([*names, Path(key).name])}, a runFlow loop); remove the loop"
            )
            return None
        if len(self.chain) >= MAX_FLOW_DEPTH:
            refuse(f"runFlow nests deeper than {MAX_FLOW_DEPTH} files; run fewer flows inside each other")
            return None
        if why is not None:
            refuse(why)
            return None
        sub = self.reader.sub_file(Path(folder) / written)
        if isinstance(sub, Problem):
            found.append(sub)
            return None
        if sub.problems:
            found.extend(sub.problems)
            return None
        return sub, (*self.chain, key)
