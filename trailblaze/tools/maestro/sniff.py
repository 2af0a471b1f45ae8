"""Telling a Maestro flow file from other YAML without parsing it.

A Maestro flow is a header document (a mapping with `appId:` or `url:`), a `---` line, then the
command list. Trail files are recognised by name; a flow may be named anything, so its text decides.
"""

from __future__ import annotations

import os
import re

__all__ = ["FLOW_SUFFIXES", "is_flow_file", "looks_like_flow", "split_flow"]

FLOW_SUFFIXES = (".yaml", ".yml")
_SEPARATOR = re.compile(r"^---[ \t]*(?:#.*)?$", re.MULTILINE)
_HEADER_KEY = re.compile(r"^(?:appId|url)[ \t]*:", re.MULTILINE)
_SNIFF_BYTES = 65536


def split_flow(text: str) -> tuple[str, str] | None:
    """The header text and the command text of a flow (the separator line dropped), or None when
    `text` has no `---` line after a header naming `appId` / `url`."""
    for match in _SEPARATOR.finditer(text):
        header = text[: match.start()]
        if _HEADER_KEY.search(header):
            return header, text[match.end() :]
        return None  # the first separator decides: a header without appId / url is not a flow's
    return None


def looks_like_flow(text: str) -> bool:
    """Whether `text` is shaped like a Maestro flow (header with `appId` or `url`, `---`, commands)."""
    return split_flow(text) is not None


def is_flow_file(path: str | os.PathLike[str]) -> bool:
    """Whether the regular file at `path` (a `.yaml` / `.yml`) reads as a Maestro flow."""
    name = os.fspath(path)
    if not name.endswith(FLOW_SUFFIXES) or not os.path.isfile(name):
        return False
    try:
        with open(name, "rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    return looks_like_flow(head.decode("utf-8", errors="replace"))
