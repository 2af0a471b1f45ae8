"""Telling a Maestro flow file from other YAML without parsing it.

A Maestro flow is a header document (a mapping with `appId:` or `url:`), a `---` line, then the
command list. Trail files are recognised by name; a flow may be named anything, so its text decides.
Windows line endings and a byte-order mark are read as plain `\\n` text is (Maestro reads them), so a
flow saved by a Windows editor is a flow, never a file skipped in silence.
"""

from __future__ import annotations

import codecs
import os
import re
from typing import Literal

__all__ = ["FLOW_SUFFIXES", "flow_file_kind", "flow_text", "is_flow_file", "looks_like_flow", "split_flow"]

FLOW_SUFFIXES = (".yaml", ".yml")
_SEPARATOR = re.compile(r"^---[ \t]*(?:#.*)?$", re.MULTILINE)
_HEADER_KEY = re.compile(r"""^(?:appId|url|"appId"|"url"|'appId'|'url')[ \t]*:""", re.MULTILINE)
_BLANK = re.compile(r"\s*(?:#[^\n]*\s*)*")
_SNIFF_BYTES = 65536
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def flow_text(text: str) -> str:
    """`text` with a leading byte-order mark dropped and `\\r\\n` / `\\r` line ends made `\\n`."""
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def split_flow(text: str) -> tuple[str, str] | None:
    """The header text and the command text of a flow (the separator line dropped), or None when
    `text` has no `---` line after a header naming `appId` / `url`. A `---` opening the file (YAML's
    document start, which Maestro allows) is part of the header."""
    text = flow_text(text)
    for match in _SEPARATOR.finditer(text):
        header = text[: match.start()]
        if _BLANK.fullmatch(header):
            continue  # `---` before the header starts its document
        if _HEADER_KEY.search(header):
            return header, text[match.end() :]
        return None  # the first separator decides: a header without appId / url is not a flow's
    return None


def looks_like_flow(text: str) -> bool:
    """Whether `text` is shaped like a Maestro flow (header with `appId` or `url`, `---`, commands)."""
    return split_flow(text) is not None


def flow_file_kind(path: str | os.PathLike[str]) -> Literal["flow", "other", "unreadable"]:
    """What the `.yaml` / `.yml` at `path` is: a Maestro flow, other YAML, or a file that cannot be
    read (a dangling symlink, no permission, a FIFO, text that is not UTF-8 or is UTF-16): such a file
    may be a flow, so a folder walk hands it to the loader, which says why it cannot be read."""
    name = os.fspath(path)
    if not name.endswith(FLOW_SUFFIXES) or os.path.isdir(name):
        return "other"
    if not os.path.isfile(name):
        return "unreadable"
    try:
        with open(name, "rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return "unreadable"
    if head.startswith(_WIDE_BOMS):
        return "unreadable"  # UTF-16 / UTF-32: the loader asks for UTF-8
    text = head.decode("utf-8", errors="replace")
    if not looks_like_flow(text):
        return "other"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the sniff limit
            return "unreadable"
    return "flow"


def is_flow_file(path: str | os.PathLike[str]) -> bool:
    """Whether the regular file at `path` (a `.yaml` / `.yml`) reads as a Maestro flow."""
    return flow_file_kind(path) == "flow"
