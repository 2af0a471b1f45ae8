"""Reading tool params the way Trailblaze does: a number where text is expected is that text.

Trailblaze decodes a class-backed tool's params with kaml (YAML 1.2), so a `String` param receives
the raw scalar: `text: 480` is "480", `text: 8:00` is "8:00". Our YAML layer keeps 1.1-only number
forms such as `8:00` as text (`trailblaze.common.yaml_lines`); this turns the remaining numbers into text for the
params whose type is text, before strict validation.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trailblaze.common.text_params import numbers_as_text, takes_text_only

__all__ = ["WRITTEN", "RecordedToolParams", "numbers_as_text", "takes_text_only"]

WRITTEN = "written"
"""Validation context key: the params are as a trail file writes them, `{{templates}}` and all."""


class RecordedToolParams(BaseModel):
    """Base of every recorded tool's params: strict types, no unknown keys, optional `reason` and
    `reasoning`; a number written where text is expected is read as its text (`text: 480` is "480",
    as Trailblaze reads it)."""

    # defer_build: of a catalog of ~70 tools, a run builds only the models of the tools it uses (start-up)
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)

    tool_name: ClassVar[str]
    reason: str | None = Field(default=None, description="Why the tool was called; ignored on replay.")
    reasoning: str | None = Field(default=None, description="Trailblaze's note on why; ignored on replay.")

    @model_validator(mode="before")
    @classmethod
    def _numbers_as_text(cls, data: Any) -> Any:
        return numbers_as_text(cls, data)

    def to_params(self) -> dict[str, Any]:
        """The params as they are written into a recording (defaults and unset fields omitted)."""
        return self.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
