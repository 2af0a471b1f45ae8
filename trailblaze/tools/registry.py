"""The built-in recorded tools by name, read off the generated index (`trailblaze.tools._index`) with
no tool's handler imported: their names, each one's params model (imported when asked for) and what
each counts as. The trail reader, the schema, preflight, YAML tools, the model's tools and mutation
testing all ask here; the definitions themselves (`ToolDef`) are `trailblaze.tools.builtin`'s.

Reading a trail builds the params of the tools it names and no more (start-up, issue 39;
docs/adr/0063-start-up.md).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from trailblaze.tools._index import TOOLS
from trailblaze.tools.kind import Kind

if TYPE_CHECKING:
    from trailblaze.tools.params import RecordedToolParams

__all__ = ["BUILTIN_NAMES", "RECORDED_TOOL_PARAMS", "TOOL_KINDS"]


BUILTIN_NAMES: tuple[str, ...] = tuple(name for name, _, _, _ in TOOLS)
"""Every built-in recorded tool's name, in the order `trailblaze schema` lists them."""

_PARAMS = {name: ref for name, _, ref, _ in TOOLS}

_V = TypeVar("_V")


def resolve_ref(ref: str) -> Any:
    """The object a "module:attribute" row of the index names (its module imported)."""
    module, attribute = ref.split(":")
    return getattr(importlib.import_module(module), attribute)


class _Lazy(Mapping[str, _V]):
    """A read-only table of the built-in tools by name whose values are made on first use: its keys
    are known without importing anything."""

    def __init__(self, load: Callable[[str], _V]) -> None:
        self._load = load
        self._made: dict[str, _V] = {}

    def __getitem__(self, name: str) -> _V:
        value = self._made.get(name)
        if value is None:
            if name not in _PARAMS:
                raise KeyError(name)
            value = self._made[name] = self._load(name)
        return value

    def __contains__(self, name: object) -> bool:
        return name in _PARAMS

    def __iter__(self) -> Iterator[str]:
        return iter(BUILTIN_NAMES)

    def __len__(self) -> int:
        return len(BUILTIN_NAMES)

    def __repr__(self) -> str:
        return f"<{len(self)} built-in tools>"


def _params(name: str) -> type[RecordedToolParams]:
    model: type[RecordedToolParams] = resolve_ref(_PARAMS[name])
    if model.tool_name != name:
        raise RuntimeError(f"trailblaze.tools.registry: {_PARAMS[name]} is the params of {model.tool_name}")
    return model


RECORDED_TOOL_PARAMS: Mapping[str, type[RecordedToolParams]] = _Lazy(_params)
"""Every tool name a trail may record, mapped to the model of its params (imported when asked)."""


TOOL_KINDS: Mapping[str, Kind] = {name: kind for name, kind, _, _ in TOOLS}
"""What each tool counts as for the agent's success validation, mutation testing and the facts."""
