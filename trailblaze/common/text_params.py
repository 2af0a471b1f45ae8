"""A number where text is expected is that text: the rule Trailblaze's kaml decoding follows for a
`String` param (`text: 480` is "480"). Shared by the tool params (`trailblaze.tools.params`) and the
selector models, which are read from the same YAML.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from pydantic import BaseModel

__all__ = ["numbers_as_text", "takes_text_only"]


_CACHE: dict[tuple[type[BaseModel], str], bool] = {}


def takes_text_only(annotation: Any) -> bool:
    """True when a field annotated so accepts text but no number (`str`, `str | None`)."""
    args = typing.get_args(annotation) if _is_union(annotation) else (annotation,)
    return str in args and not any(a in (int, float) for a in args)


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def numbers_as_text(model: type[BaseModel], data: Any) -> Any:
    """`data` with every int / float (not bool) under a text-only field of `model` as its text."""
    if not isinstance(data, dict):
        return data
    out = data
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not isinstance(key, str):
            continue
        cached = _CACHE.get((model, key))
        if cached is None:
            field = model.model_fields.get(key)
            cached = _CACHE[(model, key)] = field is not None and takes_text_only(field.annotation)
        if cached:
            if out is data:
                out = dict(data)
            out[key] = str(value)
    return out
