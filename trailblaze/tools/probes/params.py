"""What the app-state probes' params share: the app they read (`AppTool`), a file name inside its data
dir (`FILE_NAME`) and the values they compare (`Scalar`). Each probe's own params sit beside its handler
(`handlers`, `logs`); their JSON schemas are also what the model and an MCP client see."""

from __future__ import annotations

from pydantic import Field

from trailblaze.tools.params import RecordedToolParams

__all__ = ["FILE_NAME", "AppTool", "Scalar"]

FILE_NAME = r"^[A-Za-z0-9_][A-Za-z0-9._-]*$"
"""A file name inside the app's data dir: no path, so nothing outside it can be named."""
_APP_ID = r"^[A-Za-z][\w]*(\.[A-Za-z][\w]*)+$"

Scalar = str | int | float | bool


class AppTool(RecordedToolParams):
    """A probe of one app's data."""

    appId: str | None = Field(
        default=None, pattern=_APP_ID, description="The app's package; omit for the app in the foreground."
    )


