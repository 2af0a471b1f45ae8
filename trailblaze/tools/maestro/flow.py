"""Reading a Maestro flow file: header, commands, sub-flows, every problem with its `file:line:col`.

`load_flow` checks every command (nested ones too) against `trailblaze.tools.maestro.commands` and reads
the files `runFlow` / `retry` name, relative to the flow's folder, so a flow that validates runs with
nothing left to find. The result holds each sub-flow inline (`runFlow: {commands: […]}`): a converted
trail is one self-contained file, and the flow's `appId` is written into every command that uses it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trailblaze.common import yaml_lines as _yaml
from trailblaze.common.text_files import read_trail_text
from trailblaze.errors import Problem, TrailFileError
from trailblaze.tools.maestro.commands import CONTAINERS, check, normalize
from trailblaze.tools.maestro.sniff import split_flow

__all__ = ["Flow", "load_flow", "read_flow"]

_APP_COMMANDS = frozenset({"launchApp", "stopApp", "killApp", "clearState"})
_HEADER_KEYS = frozenset(
    {"appId", "url", "name", "tags", "env", "onFlowStart", "onFlowComplete", "jsEngine", "properties", "ext"}
)
_MAX_DEPTH = 16


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


def load_flow(path: str | os.PathLike[str], *, _seen: tuple[str, ...] = ()) -> Flow:
    """Read and check the flow file at `path` and the sub-flows it names.

    Raises:
        UsageError: the file cannot be read.
        TrailFileError: the flow (or a sub-flow, named by its own path) has problems.
    """
    name = os.fspath(path)
    text = read_trail_text(name)
    return read_flow(text, name, _seen=(*_seen, os.path.abspath(name)))


def read_flow(text: str, path: str, *, lenient: bool = False, _seen: tuple[str, ...] = ()) -> Flow:
    """Parse and check flow text; `path` names it in problems and anchors relative sub-flow files.

    With `lenient`, a command that cannot run here (or whose sub-flow cannot) is kept as it was
    written and listed in `Flow.unconverted` instead of failing the flow.

    Raises:
        TrailFileError: every problem found, each with its position.
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
    problems: list[Problem] = []
    config = header.data if isinstance(header.data, dict) else {}
    if not isinstance(header.data, dict):
        problems.append(Problem(1, 1, "the flow's header is a mapping (`appId: com.example.app`)"))
    if "url" in config and "appId" not in config:
        problems.append(
            Problem(
                *header.position(("url",)),
                "Maestro web flows (`url:`) are not supported; trailblaze's web trails use web_* tools",
            )
        )
    for key in config:
        if key not in _HEADER_KEYS:
            problems.append(
                Problem(*header.position((key,), key=True), f"the flow header has no field `{key}`")
            )
    env = config.get("env") or {}
    if not isinstance(env, dict):
        problems.append(Problem(*header.position(("env",)), "env is a mapping of name → value"))
        env = {}
    app_id = config.get("appId")
    flow = Flow(
        path=path,
        app_id=str(app_id) if app_id is not None else None,
        name=str(config["name"]) if config.get("name") is not None else None,
        tags=[str(t) for t in config.get("tags") or []] if isinstance(config.get("tags"), list) else [],
        env={str(k): "" if v is None else str(v) for k, v in env.items()},
    )
    for key, target in (("onFlowStart", flow.on_start), ("onFlowComplete", flow.on_complete)):
        hook = config.get(key)
        if hook is None:
            continue
        if not isinstance(hook, list):
            problems.append(Problem(*header.position((key,)), f"{key} is a list of Maestro commands"))
            continue
        for i, item in enumerate(hook):
            problems += [Problem(*header.position((key, i, *p), key=True), m) for p, m in check(item)]
            target.append(item)
    if not isinstance(doc.data, list):
        problems.append(
            Problem(*doc.position(()), "after `---` a flow lists its commands, one `- ` item each")
        )
    else:
        for i, item in enumerate(doc.data):
            found = [Problem(*doc.position((i, *p), key=True), m) for p, m in check(item)]
            if lenient and found:
                flow.unconverted[i] = found[0].format(path)
            else:
                problems += found
            flow.commands.append(item)
            flow.written.append(item)
            flow.lines.append(doc.position((i,))[0])
        if not doc.data and not flow.on_start and not flow.on_complete:
            problems.append(Problem(*doc.position(()), "the flow has no commands; list them after `---`"))
    if problems:
        raise TrailFileError(path, problems)
    folder = Path(path).parent
    resolve = _Resolver(flow.app_id, folder, _seen or (os.path.abspath(path),))
    flow.on_start = [resolve.command(c) for c in flow.on_start]
    flow.on_complete = [resolve.command(c) for c in flow.on_complete]
    for i, item in enumerate(flow.commands):
        if i in flow.unconverted:
            continue
        try:
            flow.commands[i] = resolve.command(item, doc, (i,))
        except TrailFileError as exc:
            if not lenient:
                raise
            flow.unconverted[i] = exc.message.splitlines()[0]
    return flow


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


def _parse(text: str, path: str, offset: int) -> _yaml.YamlDocument:
    try:
        return _yaml.parse_document("\n" * offset + text)
    except _yaml.YamlSyntaxError as exc:
        raise TrailFileError(path, [Problem(p.line, p.column, p.message) for p in exc.problems]) from None


@dataclass
class _Resolver:
    """Fills in the flow's appId and reads sub-flow files into `commands:` lists."""

    app_id: str | None
    folder: Path
    seen: tuple[str, ...]

    def command(
        self, item: Any, doc: _yaml.YamlDocument | None = None, at: tuple[str | int, ...] = ()
    ) -> Any:
        name, fields = normalize(item)
        if name in _APP_COMMANDS and "appId" not in fields:
            if self.app_id is None:
                return item
            return {name: {"appId": self.app_id, **fields}}
        if name not in CONTAINERS:
            return item if isinstance(item, dict) else {name: {}}
        out = dict(fields)
        key = name if isinstance(item, dict) else None
        if isinstance(out.get("file"), str):
            sub = self._sub_flow(out.pop("file"), doc, (*at, key, "file") if key else at)
            out["commands"] = [*sub.on_start, *sub.commands, *sub.on_complete]
            out["env"] = {**sub.env, **{str(k): str(v) for k, v in (out.get("env") or {}).items()}}
            out.setdefault("label", f"{fields['file']}")
        elif isinstance(out.get("commands"), list):
            out["commands"] = [
                self.command(c, doc, (*at, key, "commands", i) if key else at)
                for i, c in enumerate(out["commands"])
            ]
        env = out.pop("env", None)
        if isinstance(env, dict) and env:
            # The values are fixed here: written into the commands, a converted trail shows them and
            # needs no variable scopes (inner runFlows were filled first, so their env wins).
            out["commands"] = _fill(out.get("commands") or [], {str(k): str(v) for k, v in env.items()})
        return {name: out}

    def _sub_flow(self, file: str, doc: _yaml.YamlDocument | None, at: tuple[str | int, ...]) -> Flow:
        target = (self.folder / file).resolve()
        where = doc.position(at) if doc is not None else (1, 1)
        parent = self.seen[-1]
        if str(target) in self.seen:
            raise TrailFileError(
                parent, [Problem(*where, f"{file} runs itself (a runFlow loop); remove the loop")]
            )
        if len(self.seen) > _MAX_DEPTH:
            raise TrailFileError(parent, [Problem(*where, f"runFlow nests deeper than {_MAX_DEPTH} files")])
        if not target.is_file():
            raise TrailFileError(
                parent, [Problem(*where, f"runFlow file {file} does not exist (looked in {self.folder})")]
            )
        return load_flow(target, _seen=(*self.seen, str(target)))
