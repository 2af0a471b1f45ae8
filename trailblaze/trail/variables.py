"""A run's variables: the trail's `config.memory` / `config.args` with the command line's values on top."""

from __future__ import annotations

from collections.abc import Mapping

from trailblaze.common import yaml_lines as _yaml
from trailblaze.common.flags import CLI, Flags
from trailblaze.errors import UsageError
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import Trail

__all__ = ["build_memory", "declared_values"]


def build_memory(
    trail: Trail,
    memory: Mapping[str, str] | None = None,
    args: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
    *,
    flags: Flags = CLI,
) -> Memory:
    """The run's variables: `config.memory` / `config.args` overridden by the command line.

    A declared arg is either a plain value or Trailblaze's typed form `{type: string, default: …}`,
    where leaving out `default` makes the arg required.

    `flags` is how the front end spells the options its hints name (trailblaze.common.flags).

    Raises:
        UsageError: a required arg (declared without a default) was not passed with `--arg`.
    """
    given = dict(args or {})
    base_memory, base_args = declared_values(trail, given, flags)
    return Memory({**base_memory, **(memory or {})}, args={**base_args, **given}, secrets=secrets, flags=flags)


def declared_values(
    trail: Trail, given: Mapping[str, str], flags: Flags = CLI
) -> tuple[dict[str, str], dict[str, str]]:
    """The trail's `config.memory` and the defaults of its `config.args`.

    Raises:
        UsageError: a required arg (declared without a default) is not in `given`.
    """
    config = trail.config
    base_memory = dict(config.memory or {}) if config else {}
    base_args: dict[str, str] = {}
    for name, declared in ((config.args or {}) if config else {}).items():
        if not isinstance(declared, Mapping):
            base_args[name] = _arg_text(declared)
        elif declared.get("default") is not None:
            base_args[name] = _arg_text(declared["default"])
        elif name not in given:
            passing = flags.passing(name, "args")
            raise UsageError(
                f"{_arg_position(trail, name)}: config.args.{name} has no default and no value was given; "
                + (f"{passing} (or give it a `default:`)" if passing else "give it a `default:`")
            )
    return base_memory, base_args


def _arg_text(value: object) -> str:
    # YAML spelling, so `default: true` interpolates as `true` rather than Python's `True`.
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _arg_position(trail: Trail, name: str) -> str:
    where = trail.path or "<trail>"
    if trail.source_text is None:
        return where
    line, column = _yaml.parse_document(trail.source_text).position(("config", "args", name), key=True)
    return f"{where}:{line}:{column}"
