"""The recorded tool `mobile_maestro {commands: [...]}`: Maestro commands inside a trail, as Block's
Trailblaze records them (its `MaestroTrailblazeTool`; values may be strings): its params and its
handler, one definition in the tool model (trailblaze.tools.toolset).

A trail that records it loads only when every command is one trailblaze runs (`check`) and every
script in them compiles, so `trailblaze validate` refuses either with the command named. Templates in the commands
(`${NAME}`, `{{name}}`) are replaced when each command runs, not when the tool is dispatched, so a
`runFlow`'s own `env` and `${maestro.copiedText}` work (`templates_at_run`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, field_validator

from trailblaze.maestro.commands import check
from trailblaze.maestro.script_check import command_errors
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.tooldef import ToolResult, defines

if TYPE_CHECKING:
    from trailblaze.tools.lookup import ToolContext

__all__ = ["MobileMaestro", "mobile_maestro"]


class MobileMaestro(RecordedToolParams):
    """Run Maestro commands (`tapOn`, `assertVisible`, `runFlow`, …) with Maestro's matching rules."""

    tool_name = "mobile_maestro"
    templates_at_run: ClassVar[bool] = True
    commands: list[Any] = Field(min_length=1)

    @field_validator("commands")
    @classmethod
    def _runnable(cls, value: list[Any]) -> list[Any]:
        for i, item in enumerate(value):
            problems = check(item) or list(command_errors(item))  # a script error found before the device
            if problems:
                path, message = problems[0]
                where = ".".join(str(p) for p in (i, *path))
                raise ValueError(f"commands.{where}: {message}")
        return value


@defines(MobileMaestro, "action", source="catalog", platforms=frozenset(("android", "ios")))
def mobile_maestro(run: ToolContext, p: MobileMaestro) -> ToolResult:
    from trailblaze.maestro.run import run_commands  # the runner: imported when the tool runs

    return run_commands(run, list(p.commands))
