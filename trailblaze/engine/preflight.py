"""What `trailblaze replay` / `record` check before they touch a device.

A trail that will certainly stop at its third step — a recorded tool trailblaze has no
implementation for (usually a typo), or a `{{template}}` with no value (usually a forgotten
`--secret`) — should fail in a second with `file:line:col`, not after the app has been launched and
two steps replayed. Only the recordings the device's platform replays are looked at (`android`,
`android-*`, the v1 `tools` of every platform); names a trail remembers at run time
(`rememberTextBySelector`'s `variable`) count as given, and a trail with a step the agent solves is
not checked for templates (the agent may remember names too).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from trailblaze.common import yaml_lines as _yaml
from trailblaze.common.flags import CLI, Flags
from trailblaze.common.limits import MAX_EXPANDED_STEPS, MAX_RUNTRAIL_DEPTH
from trailblaze.errors import TrailFileError, UsageError
from trailblaze.tools.discovery import Discovered, tools_for
from trailblaze.tools.memory import TEMPLATE_RE
from trailblaze.tools.registry import RECORDED_TOOL_PARAMS
from trailblaze.tools.toolset import ToolSet
from trailblaze.trail.model import ANY_CLASSIFIER, Trail, load_trail
from trailblaze.trail.subtrail import cycle_text, outside_project, resolve_subtrail_path, trail_key
from trailblaze.trail.variables import build_memory

__all__ = [
    "PLATFORMS",
    "Finding",
    "agent_anywhere",
    "agent_step",
    "check_trails",
    "find_problems",
    "may_be_skipped",
    "recorded_platforms",
    "unrecorded",
    "uses_custom_tools",
    "validate_trails",
]

PLATFORMS = ("android", "ios", "web")

_YPath = tuple[str | int, ...]
_Missing = dict[str, tuple[str, set[str]]]
"""Template with no value -> (the first place it is used, every place), places as `file:line:col`."""


@dataclass(frozen=True)
class _RecordedCall:
    """A tool call as the trail file records it, and where (for messages); not a tool."""

    path: _YPath
    name: str
    params: Any


@dataclass(frozen=True)
class Finding:
    """One thing that would stop a run: where (`file:line:col`), what, and whether a value fixes it.

    `needs_value` findings are fixed on the command line (`--secret`, `--arg`, `--memory`), so
    `trailblaze validate`, which runs without them, shows them as notes rather than errors.
    """

    where: str
    message: str
    needs_value: bool = False

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


def check_trails(
    trails: Sequence[tuple[Path, Trail]],
    *,
    platform: str,
    memory: Mapping[str, str],
    args: Mapping[str, str],
    secrets: Mapping[str, str],
    tools: bool = True,
    flags: Flags = CLI,
) -> None:
    """Raises `UsageError` listing, one `file:line:col: message` line each, what would stop the run.

    Args:
        trails: The loaded trails with the path to show for each.
        platform: `android` or `ios`: whose recordings will run.
        memory: `--memory` values (the trail's `config.memory` / `config.args` are added here).
        args: `--arg` values.
        secrets: `--secret` values (only their names are used).
        tools: Also flag tools with no implementation (off under self-heal, which repairs such a step).
        flags: How the front end spells the options the hints name (trailblaze.common.flags).
    """
    found = find_problems(
        trails, platform=platform, memory=memory, args=args, secrets=secrets, tools=tools, flags=flags
    )
    if found:
        raise UsageError("\n".join(str(f) for f in found))


def validate_trails(
    trails: Sequence[tuple[Path, Trail]], *, platforms: Sequence[str] = PLATFORMS, flags: Flags = CLI
) -> list[Finding]:
    """What `replay` / `record` would refuse before the device, on `platforms`, with no values given.

    `trailblaze validate` runs this: the same checks as `check_trails`, for every platform (or the
    one asked for), with no `--secret` / `--arg` / `--memory`, so a template those give is a
    `needs_value` finding.
    """
    seen: dict[str, Finding] = {}
    for found in _problems(trails, platforms, memory={}, args={}, secrets={}, tools=True, flags=flags):
        for finding in found:
            # a v1 `tools:` list runs on both platforms, a missing value is missing on both: say it once
            seen.setdefault(finding.message if finding.needs_value else str(finding), finding)
    return list(seen.values())


def find_problems(
    trails: Sequence[tuple[Path, Trail]],
    *,
    platform: str,
    memory: Mapping[str, str],
    args: Mapping[str, str],
    secrets: Mapping[str, str],
    tools: bool = True,
    flags: Flags = CLI,
) -> list[Finding]:
    """Everything `check_trails` reports, as findings (see `check_trails` for the arguments)."""
    return _problems(trails, [platform], memory=memory, args=args, secrets=secrets, tools=tools, flags=flags)[0]


def _problems(
    trails: Sequence[tuple[Path, Trail]],
    platforms: Sequence[str],
    *,
    memory: Mapping[str, str],
    args: Mapping[str, str],
    secrets: Mapping[str, str],
    tools: bool,
    flags: Flags,
) -> list[list[Finding]]:
    """`find_problems` on each of `platforms`, in order: each trail is parsed once for all of them."""
    scans = [_Scan(platform, memory, args, secrets, tools, flags) for platform in platforms]
    for file, trail in trails:
        for scan in scans:
            scan.add(file, trail)
    return [scan.findings() for scan in scans]


class _Scan:
    """`find_problems` on one platform, one trail at a time; what is missing is said once at the end."""

    def __init__(
        self,
        platform: str,
        memory: Mapping[str, str],
        args: Mapping[str, str],
        secrets: Mapping[str, str],
        tools: bool,
        flags: Flags,
    ) -> None:
        self.platform, self.memory, self.args, self.secrets = platform, memory, args, secrets
        self.tools, self.flags = tools, flags
        self.found: list[Finding] = []
        self.missing: _Missing = {}
        self.reported: set[str] = set()
        self.used: set[str] = set()  # every template name the recordings use
        self.flow_missing: _Missing = {}  # a Maestro flow's `${NAME}`: given by `--env` or the flow's `env:`

    def add(self, file: Path, trail: Trail) -> None:
        platform, found, missing = self.platform, self.found, self.missing
        text = trail.source_text
        if text is None:
            return
        if may_be_skipped(trail, platform):
            return
        doc = _parsed(text)
        recorded = list(_recorded_tools(doc.data, platform))
        custom = _tools_for(trail.path or file, recorded, trail)
        for problem in custom.problems:  # a broken tool file: once, however many trails use the folder
            if problem not in self.reported:
                self.reported.add(problem)
                where, _, message = _split_location(problem)
                found.append(Finding(where, message))
        for i, name in enumerate(trail.config.tools or [] if trail.config else []):
            if name not in custom.tools.names():
                hint = custom.tools.unknown_hint(name) or f"`{name}` is a built-in tool, always offered"
                found.append(Finding(_at(file, doc, ("config", "tools", i)), f"config.tools: {hint}"))
        if self.tools:
            found += _unknown_tools(file, doc, recorded, custom.tools)
        sub_found = _subtrail_problems(
            file, doc, recorded, platform, self.tools, self.secrets, missing, len(trail.steps)
        )
        found += [f for f in sub_found if f not in found]
        try:
            mem = build_memory(trail, self.memory, self.args, self.secrets, flags=self.flags)
        except UsageError as exc:  # a required `config.args` entry with no --arg
            where, _, message = exc.message.partition(": config.args.")
            found.append(Finding(where, f"config.args.{message}", needs_value=True))
            return
        if _agent_may_run(trail, platform):
            return
        if trail.flow_templates is not None:  # a Maestro flow: located in the flow or sub-flow itself
            for name, where in trail.flow_templates:
                self.used.add(name)
                if mem.lookup(name, None) is None:
                    _note_missing(self.flow_missing, f"${{{name}}}", where)
            return
        remembered = {t.params.get("variable") for t in recorded if isinstance(t.params, dict)}
        for tool in recorded:
            for path, value in _yaml.strings((*tool.path, tool.name), tool.params):
                for match in TEMPLATE_RE.finditer(value):
                    scope, name = (
                        (match.group(1), match.group(2)) if match.group(2) else (None, match.group(3))
                    )
                    self.used.add(name)
                    if mem.lookup(name, scope) is not None or name in remembered:
                        continue
                    _note_missing(missing, match.group(0), _at(file, doc, path))

    def findings(self) -> list[Finding]:
        found = list(self.found)
        memory, args, secrets = self.memory, self.args, self.secrets
        given = {**{n: "--memory" for n in memory}, **{n: "--arg" for n in args}, **{n: "--secret" for n in secrets}}
        for template, (where, places) in self.missing.items():
            count = len(places)
            how = _how_to_give(template, self.flags) + _unused_hint(template, given, self.used)
            found.append(Finding(where, f"{template} has no value{_more(count)}; {how}", needs_value=True))
        for template, (where, places) in self.flow_missing.items():
            how = f"pass --env {template[2:-1]}=VALUE, or set it in the flow's env:"
            found.append(Finding(where, f"{template} has no value{_more(len(places))}; {how}", needs_value=True))
        return found


def uses_custom_tools(trail: Trail) -> bool:
    """Whether the trail names a tool trailblaze does not have built in, on any platform (or lists
    `config.tools`): only then are the custom tools' Python files imported."""
    if trail.config is not None and trail.config.tools:
        return True
    if trail.source_text is None:
        return False
    data = _parsed(trail.source_text).data
    return any(t.name not in RECORDED_TOOL_PARAMS for p in PLATFORMS for t in _recorded_tools(data, p))


def _tools_for(path: str | Path, recorded: list[_RecordedCall], trail: Trail) -> Discovered:
    """The trail's custom tools, found (their `.py` files imported: code that runs) only when a
    recorded tool or `config.tools` names one that is not built in."""
    configured = trail.config is not None and bool(trail.config.tools)
    if configured or any(t.name not in RECORDED_TOOL_PARAMS for t in recorded):
        return tools_for(path)
    return Discovered(ToolSet())


def _unused_hint(template: str, given: Mapping[str, str], used: set[str]) -> str:
    """`; --secret pasword was given but is used nowhere (a typo of password?)`: the usual cause."""
    match = TEMPLATE_RE.fullmatch(template)
    assert match is not None
    name = match.group(2) or match.group(3)
    unused = [n for n in given if n not in used]
    if not unused:
        return ""
    import difflib  # for a did-you-mean only: not imported at start-up

    close = difflib.get_close_matches(name, unused, n=1, cutoff=0.6)
    if close:
        return f"; {given[close[0]]} {close[0]} was given but is used nowhere (a typo of {name}?)"
    return "; given but used nowhere: " + ", ".join(f"{given[n]} {n}" for n in unused)


def _split_location(problem: str) -> tuple[str, str, str]:
    """`file:line:col: message` → (`file:line:col`, `: `, message); a problem without one stays whole."""
    head, sep, message = problem.partition(": ")
    return (head, sep, message) if sep and ":" in head else ("", "", problem)


def _custom_params_problem(custom: Any, params: Any) -> tuple[_YPath, str] | None:
    """The first param of a custom tool call its params model refuses (templates count as text)."""
    if custom is None or not isinstance(params, dict):
        return None
    from pydantic import ValidationError

    given = {k: v for k, v in params.items() if k not in ("reason", "reasoning")}
    fields = custom.params.model_fields
    for key, value in given.items():  # a `{{template}}` in a typed param is only known at run time
        if key in fields and isinstance(value, str) and TEMPLATE_RE.search(value):
            given[key] = _sample(fields[key].annotation)
    try:
        custom.params.model_validate(given)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        loc = tuple(first["loc"])
        return loc, f"bad params for `{custom.name}`: {'.'.join(str(p) for p in loc) or custom.name}: {first['msg']}"
    return None


def _sample(annotation: Any) -> Any:
    for kind, value in ((bool, False), (int, 0), (float, 0.0)):
        if annotation is kind or kind in getattr(annotation, "__args__", ()):
            return value
    return "text"


def _unknown_tools(file: Path, doc: _yaml.YamlDocument, recorded: list[_RecordedCall], tools: ToolSet) -> list[Finding]:
    """Recorded tools that neither trailblaze nor the trail's own tools can run, and custom tool
    calls whose params the tool refuses."""
    found = []
    custom = {t.name: t for t in tools.custom()}
    for tool in recorded:
        unknown = tools.unknown_hint(tool.name)
        if unknown is not None:
            found.append(Finding(_at(file, doc, (*tool.path, tool.name), key=True), unknown))
            continue
        refused = _custom_params_problem(custom.get(tool.name), tool.params)
        if refused is not None:
            found.append(Finding(_at(file, doc, (*tool.path, tool.name, *refused[0]), key=True), refused[1]))
    return found


def _subtrail_problems(
    file: Path,
    doc: _yaml.YamlDocument,
    recorded: list[_RecordedCall],
    platform: str,
    tools: bool,
    secrets: Mapping[str, str],
    missing: _Missing,
    steps: int = 1,
) -> list[Finding]:
    """`runTrail` calls that cannot run: a missing or invalid file, a cycle, a required arg not given,
    nesting deeper than `MAX_RUNTRAIL_DEPTH`, more than `MAX_EXPANDED_STEPS` steps once every
    `runTrail` is expanded; followed through every sub-trail (their unknown tools too; templates with
    no value go to `missing`, as the trail's own do).

    Each sub-trail file is loaded and walked once however many calls reach it (a trail that calls
    the next one twice, 22 deep, is four million calls but 22 files), and its expanded step count
    is remembered for the next call.
    """
    found: list[Finding] = []
    opened: dict[str, tuple[Trail, _yaml.YamlDocument | None, list[_RecordedCall]] | Finding] = {}
    # a file walked to the end: its steps with every runTrail expanded, and how many trails deep it nests
    expanded: dict[str, tuple[int, int]] = {}
    templates_done: set[tuple[str, frozenset[str]]] = set()

    def walk(
        file: Path, doc: _yaml.YamlDocument, recorded: list[_RecordedCall], chain: tuple[str, ...], own: int
    ) -> tuple[int, int]:
        total, height = own, 1
        for tool in recorded:
            written = (
                tool.params.get("path") if tool.name == "runTrail" and isinstance(tool.params, dict) else None
            )
            if not isinstance(written, str):
                continue
            where = _at(file, doc, (*tool.path, tool.name, "path"))
            target = resolve_subtrail_path(file, written)
            if not target.is_file():
                found.append(
                    Finding(
                        where,
                        f"runTrail {written}: no trail file at {target}; the path is relative to this trail's folder",
                    )
                )
                continue
            refused = outside_project(chain[0], written, target)
            if refused is not None:
                found.append(Finding(where, refused))
                continue
            key = trail_key(target)
            if key in chain:
                found.append(
                    Finding(
                        where,
                        f"runTrail {written}: a cycle ({cycle_text(chain, key)}); a trail cannot run itself, directly or through others",
                    )
                )
                continue
            deep = len(chain) + (expanded[key][1] if key in expanded else 1)
            if deep > MAX_RUNTRAIL_DEPTH:
                found.append(
                    Finding(
                        where,
                        f"runTrail {written}: trails nested more than {MAX_RUNTRAIL_DEPTH} deep (from {Path(chain[0]).name}); run fewer trails inside each other",
                    )
                )
                continue
            if key not in opened:
                opened[key] = _open_sub(target, where, written, platform)
            loaded = opened[key]
            if isinstance(loaded, Finding):
                found.append(Finding(where, loaded.message))
                continue
            sub, sub_doc, sub_tools = loaded
            given = tool.params.get("args")
            for name in _required_args(sub, given if isinstance(given, dict) else {}):
                found.append(
                    Finding(
                        where,
                        f"runTrail {written}: its config.args.{name} has no default; give `{name}: VALUE` under this runTrail's `args:`",
                    )
                )
            if sub_doc is None:
                total += len(sub.steps)
                height = max(height, 2)
                continue
            given_args = frozenset(given) if isinstance(given, dict) else frozenset()
            if not _agent_may_run(sub, platform) and (key, given_args) not in templates_done:
                templates_done.add((key, given_args))
                _sub_templates(target, sub_doc, sub, sub_tools, set(given_args), secrets, missing)
            if key not in expanded:
                if tools:
                    found.extend(_unknown_tools(target, sub_doc, sub_tools, _tools_for(target, sub_tools, sub).tools))
                expanded[key] = walk(target, sub_doc, sub_tools, (*chain, key), len(sub.steps))
            sub_steps, sub_height = expanded[key]
            total = min(total + sub_steps, MAX_EXPANDED_STEPS + 1)
            height = max(height, sub_height + 1)
        return total, height

    total, _ = walk(file, doc, recorded, (trail_key(file),), steps)
    if total > MAX_EXPANDED_STEPS:
        found.append(
            Finding(
                f"{file}",
                f"with every runTrail expanded this trail has more than {MAX_EXPANDED_STEPS:,} steps; call fewer trails (a trail that runs the next one twice doubles at every level)",
            )
        )
    return found


def _open_sub(
    target: Path, where: str, written: str, platform: str
) -> tuple[Trail, _yaml.YamlDocument | None, list[_RecordedCall]] | Finding:
    """A sub-trail, its parsed text and recorded tools (no text: nothing to walk), or why it does not load."""
    try:
        sub = load_trail(target)
    except (TrailFileError, UsageError) as exc:
        return Finding(where, f"runTrail {written}: {exc.message.splitlines()[0]}")
    if sub.source_text is None or may_be_skipped(sub, platform):
        return sub, None, []
    sub_doc = _parsed(sub.source_text)
    return sub, sub_doc, list(_recorded_tools(sub_doc.data, platform))


def _sub_templates(
    file: Path,
    doc: _yaml.YamlDocument,
    sub: Trail,
    recorded: list[_RecordedCall],
    given_args: set[str],
    secrets: Mapping[str, str],
    missing: _Missing,
) -> None:
    """Add to `missing` the templates in a sub-trail's recordings that nothing fills: a sub-trail sees
    its own memory and args, the `runTrail` args and the run's secrets (trailblaze.trail.subtrail)."""
    config = sub.config
    tables = {
        "memory": set((config.memory if config else None) or {}),
        "args": set((config.args if config else None) or {}) | given_args,
        "secrets": set(secrets),
    }
    remembered = {t.params.get("variable") for t in recorded if isinstance(t.params, dict)}
    for tool in recorded:
        for path, value in _yaml.strings((*tool.path, tool.name), tool.params):
            for match in TEMPLATE_RE.finditer(value):
                scope, name = (match.group(1), match.group(2)) if match.group(2) else (None, match.group(3))
                known = any(name in tables[s] for s in ([scope] if scope else tables))
                if not known and name not in remembered:
                    _note_missing(missing, match.group(0), _at(file, doc, path))


def _note_missing(missing: _Missing, template: str, where: str) -> None:
    """One more place (`file:line:col`) where `template` has no value; a place is counted once."""
    _, places = missing.setdefault(template, (where, set()))
    places.add(where)


def _more(count: int) -> str:
    return f" (and {count - 1} more place{'s' * (count != 2)})" if count > 1 else ""


def _required_args(trail: Trail, given: Mapping[str, Any]) -> list[str]:
    """The trail's `config.args` declared without a default (Trailblaze's typed form) and not in `given`."""
    declared = (trail.config.args if trail.config else None) or {}
    return [
        str(name)
        for name, value in declared.items()
        if isinstance(value, Mapping) and value.get("default") is None and name not in given
    ]


@lru_cache(maxsize=8)
def _parsed(text: str) -> _yaml.YamlDocument:
    # validate checks android and ios: one parse, not two (a large file takes seconds to parse)
    return _yaml.parse_document(text)


def _how_to_give(template: str, flags: Flags) -> str:
    match = TEMPLATE_RE.fullmatch(template)
    assert match is not None
    return flags.give(match.group(2) or match.group(3), match.group(1))


def _at(file: Path, doc: _yaml.YamlDocument, path: _YPath, *, key: bool = False) -> str:
    line, column = doc.position(path, key=key)
    return f"{file}:{line}:{column}"


def _applies(classifier: Any, platform: str) -> bool:
    return isinstance(classifier, str) and (
        classifier in (platform, ANY_CLASSIFIER) or classifier.startswith(f"{platform}-")
    )


def _recorded_tools(data: Any, platform: str) -> Iterator[_RecordedCall]:
    """Every tool the platform may replay, in a unified or a v1 (list) trail that already loaded."""
    if isinstance(data, list):  # v1: `- tools: [...]`, `- prompts: [...]`, `- trailhead: {...}`
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                continue
            for key, value in item.items():
                if key == "tools":
                    yield from _tool_list((i, key), value)
                elif key == "prompts" and isinstance(value, list):
                    for j, step in enumerate(value):
                        yield from _step_tools((i, key, j), step, platform)
                elif key == "trailhead":
                    yield from _step_tools((i, key), value, platform)
        return
    if not isinstance(data, dict):
        return
    yield from _step_tools(("trailhead",), data.get("trailhead"), platform)
    steps = data.get("trail")
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        yield from _step_tools(("trail", i), step, platform)


def _step_tools(path: _YPath, step: Any, platform: str) -> Iterator[_RecordedCall]:
    recording = step.get("recording") if isinstance(step, dict) else None
    if not isinstance(recording, dict):
        return
    for classifier, value in recording.items():
        here = (*path, "recording", classifier)
        if classifier == "tools":  # v1
            yield from _tool_list(here, value)
        elif _applies(classifier, platform):
            if isinstance(value, list):
                yield from _tool_list(here, value)
            else:  # a trailhead records one tool per classifier, as a map
                yield from _tool_at(here, value)


def _tool_list(path: _YPath, value: Any) -> Iterator[_RecordedCall]:
    for i, item in enumerate(value if isinstance(value, list) else []):
        yield from _tool_at((*path, i), item)


def _tool_at(path: _YPath, item: Any) -> Iterator[_RecordedCall]:
    """The tool written at `path`: `- pressBack` or `- name: {params}`."""
    if isinstance(item, str):
        yield _RecordedCall(path, item, {})
    elif isinstance(item, dict) and len(item) == 1:
        name, params = next(iter(item.items()))
        yield _RecordedCall(path, str(name), params if params is not None else {})


def _agent_may_run(trail: Trail, platform: str) -> bool:
    """A step the agent solves on this platform (it may remember names the recordings then use)."""
    return agent_step(trail, platform) is not None


def may_be_skipped(trail: Trail, platform: str) -> bool:
    """`config.skip` may skip the trail on this platform (a classifier is only known on the device)."""
    skip = trail.config.skip if trail.config else None
    if skip is None or skip is False:
        return False
    if not isinstance(skip, dict):
        return True
    return any(_applies(key, platform) for key in skip)


def agent_step(trail: Trail, platform: str) -> str | None:
    """Why the agent will be needed on `platform` (`step 3 has no ios recording`), or None."""
    if may_be_skipped(trail, platform):
        return None
    for i, step in enumerate(trail.steps):
        if step.static:
            continue
        if not step.recordable:
            return f"step {i + 1} is `recordable: false`"
        if step.recording_for(platform) is None:
            return f"step {i + 1} has no {platform} recording"
    return None


def agent_anywhere(trail: Trail, platform: str, seen: frozenset[str] = frozenset()) -> bool:
    """A step the agent solves on `platform` in the trail or in a `runTrail` trail it runs: a record
    of it has work to do."""
    if agent_step(trail, platform) is not None:
        return True
    if trail.source_text is None or trail.path is None:
        return False
    for tool in _recorded_tools(_parsed(trail.source_text).data, platform):
        written = tool.params.get("path") if tool.name == "runTrail" and isinstance(tool.params, dict) else None
        if not isinstance(written, str):
            continue
        target = resolve_subtrail_path(trail.path, written)
        key = trail_key(target)
        if key in seen or not target.is_file():
            continue
        try:
            sub = load_trail(target)
        except (TrailFileError, UsageError):
            return True  # the record says what is wrong with it
        if agent_anywhere(sub, platform, seen | {key}):
            return True
    return False


def unrecorded(trails: Sequence[tuple[Path, Trail]], platform: str, flags: Flags = CLI) -> list[Finding]:
    """`FILE: step 3 has no ios recording; record it: …` for every trail a replay on `platform` would
    hand to the agent for want of a recording (`validate --platform`): with no model configured,
    that replay stops with exit 2."""
    found = []
    for file, trail in trails:
        why = agent_step(trail, platform)
        if why is not None and why.endswith(f"has no {platform} recording"):
            found.append(Finding(str(file), f"{why}; record it: {flags.record_trail(str(file), platform)}"))
    return found


def recorded_platforms(trails: Sequence[tuple[Path, Trail]]) -> str:
    """`recorded for android and ios`, or `recorded for android (2), ios (1)` when the trails differ;
    empty when none has a recording (a v1 `tools:` recording, for any platform, counts as none)."""
    counts: dict[str, int] = {}
    for _, trail in trails:
        keys = {k for s in trail.steps for k in (s.recording or {})}
        if trail.trailhead is not None:
            keys |= set(trail.trailhead.recording or {})
        for platform in {k.split("-")[0] for k in keys} & set(PLATFORMS):
            counts[platform] = counts.get(platform, 0) + 1
    if not counts:
        return ""
    names = [p for p in PLATFORMS if p in counts]
    if all(counts[p] == len(trails) for p in names):
        return "recorded for " + " and ".join(names)
    return "recorded for " + ", ".join(f"{p} ({counts[p]})" for p in names)
