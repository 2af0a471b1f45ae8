"""One recorded tool call, `{name: params}`: the unit a trail's recordings are made of.

It lives with the tool set rather than with the trail file because a call is validated against its
tool's params model (`RECORDED_TOOL_PARAMS`) and the tools that run calls (YAML tools, the agent's
ref tools) need it without the trail reader; `trailblaze.trail.model` re-exports it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from trailblaze.common import yaml_lines as _yaml
from trailblaze.tools.params import RecordedToolParams
from trailblaze.tools.registry import RECORDED_TOOL_PARAMS

__all__ = ["ToolCall"]


class ToolCall(BaseModel):
    """One recorded tool: `{name: params}` in the file.

    `params` is kept exactly as written (templates such as `{{email}}` included). A built-in tool's
    params are validated once, against its `ToolDef`'s model, when the call is read or made; the
    typed params are kept (`validated_as`), so running the call validates again only when a
    template changed them (docs/adr/0050-one-tool-model.md).
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)
    _validated: RecordedToolParams | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _known_params(self) -> ToolCall:
        known = RECORDED_TOOL_PARAMS.get(self.name)
        if known is not None:
            self._validated = known.model_validate(self.params, strict=True)
        return self

    @classmethod
    def read(cls, name: str, params: dict[str, Any], validated: RecordedToolParams | None) -> ToolCall:
        """A call the trail reader has validated already (`validated`: its typed params, if built in)."""
        call = cls.model_construct(name=name, params=params)
        call._validated = validated
        return call

    def validated_as(self, params: Mapping[str, Any]) -> RecordedToolParams | None:
        """The typed params validated when the call was read or made, if `params` (its params with
        the templates filled in) are still the params as written; else None: validate them."""
        return self._validated if params == self.params else None

    def __eq__(self, other: object) -> bool:
        # two calls are the same when they record the same thing; the kept typed params don't count
        if not isinstance(other, ToolCall):
            return NotImplemented
        return self.name == other.name and self.params == other.params

    __hash__ = None  # type: ignore[assignment]  # params is a dict: a call was never hashable

    @property
    def model(self) -> RecordedToolParams | None:
        """The typed params for a known tool, None for a custom tool."""
        if self._validated is not None:
            return self._validated
        known = RECORDED_TOOL_PARAMS.get(self.name)
        return None if known is None else known.model_validate(self.params, strict=True)

    @classmethod
    def from_params(cls, params: RecordedToolParams) -> ToolCall:
        """The call for typed params, written without defaults (what the recorder stores)."""
        return cls(name=params.tool_name, params=params.to_params())

    def to_data(self) -> dict[str, Any]:
        """The single-key map written into a recording."""
        return {self.name: copy.deepcopy(self.params)}

    def to_yaml(self) -> str:
        """The tool as block YAML (`name:` then its params), e.g. for logs or `trailblaze tool`."""
        return _yaml.dump_block(self.to_data())

    def __str__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params.items() if k != "reason")
        return f"{self.name}({inner})"
