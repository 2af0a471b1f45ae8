"""Redacting the values of a structured file before it is serialised, not the bytes after.

Replacing a secret in serialised text rewrites the format's own words when a secret happens to
equal one: `--secret word=status` turned run.json's `"status":` keys into `"{{word}}":` (a run log
no reader accepts) and `word=node` broke every `<node` tag of a hierarchy dump. So the structured
writers (run.json, step and LLM transcript JSON, hierarchy dumps, JUnit XML, the HTML report's
values) redact each value here and write the result as it is; plain-text files are still
scrubbed whole (`trailblaze.common.files.write_text`). Field names, dict keys, XML tag and attribute
names, and a model's fixed words (a `Literal` field such as `status: passed`) are the format, not
data, and are left alone.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any
from xml.etree import ElementTree as ET

from pydantic import BaseModel

from trailblaze.common.redact import scrub

__all__ = ["scrub_data", "scrub_dump", "scrub_model", "scrub_tree"]

Scrub = Callable[[str], str]


def scrub_data(value: Any, how: Scrub = scrub) -> Any:
    """A deep copy of JSON-like data with every string value redacted; keys stay as they are."""
    if isinstance(value, str):
        return how(value)
    if isinstance(value, Mapping):
        return {k: scrub_data(v, how) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_data(v, how) for v in value]
    return value


def scrub_model(model: BaseModel, how: Scrub = scrub, **dump: Any) -> dict[str, Any]:
    """`model.model_dump(mode="json", **dump)` with its free-text values redacted."""
    return _model_values(model, model.model_dump(mode="json", **dump), how)


def _model_values(model: BaseModel, dumped: dict[str, Any], how: Scrub) -> dict[str, Any]:
    fields = type(model).model_fields
    out: dict[str, Any] = {}
    for key, value in dumped.items():
        field = fields.get(key)
        if field is not None and _fixed_words(field.annotation):
            out[key] = value
            continue
        actual = getattr(model, key, None)
        if isinstance(actual, BaseModel) and isinstance(value, dict):
            out[key] = _model_values(actual, value, how)
        elif isinstance(actual, list) and isinstance(value, list) and len(actual) == len(value):
            out[key] = [
                _model_values(a, v, how)
                if isinstance(a, BaseModel) and isinstance(v, dict)
                else scrub_data(v, how)
                for a, v in zip(actual, value, strict=True)
            ]
        else:
            out[key] = scrub_data(value, how)
    return out


def _fixed_words(annotation: Any) -> bool:
    """Whether a field holds only the format's own words: `Literal[…]`, optionally `| None`."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        parts = [a for a in typing.get_args(annotation) if a is not type(None)]
        return bool(parts) and all(_fixed_words(a) for a in parts)
    return False


def scrub_tree(element: ET.Element, how: Scrub = scrub) -> None:
    """Redacts, in place, every text, tail and attribute value of an ElementTree element and below."""
    for node in element.iter():
        if node.text:
            node.text = how(node.text)
        if node.tail:
            node.tail = how(node.tail)
        for name, value in node.attrib.items():
            node.attrib[name] = how(value)


def scrub_dump(text: str, fmt: str, how: Scrub = scrub) -> str:
    """A screen dump (XML, or JSON for `wda-json` / `web-dom`) with its values redacted; text that
    does not parse as its format is scrubbed whole, as any plain text is."""
    if how(text) == text:  # the common case, one pass: no secret anywhere in it
        return text
    if fmt in ("wda-json", "web-dom", "json"):
        try:
            data = json.loads(text)
        except ValueError:
            return how(text)
        return json.dumps(scrub_data(data, how), ensure_ascii=False)
    try:
        from lxml import etree

        parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)
        root = etree.fromstring(text.encode("utf-8"), parser)
    except Exception:  # lxml raises several error types for a malformed or odd document
        return how(text)
    for node in root.iter():
        if isinstance(node.text, str) and node.text:
            node.text = how(node.text)
        if isinstance(node.tail, str) and node.tail:
            node.tail = how(node.tail)
        for name, value in node.attrib.items():
            node.attrib[name] = how(str(value))
    declared = text.lstrip().startswith("<?xml")
    body = etree.tostring(root, encoding="unicode")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' if declared else "") + body
