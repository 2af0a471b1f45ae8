"""A JSON object read from a file one member at a time, one list of it one item at a time.

A run log of a thousand trails is megabytes of JSON; decoding it whole keeps every trail alive at once.
`iter_list` reads the file in chunks and yields each item of one list member (`trails`) as soon as
it is decoded, so at most one item (and one chunk of text) is held, whatever the file's size.
The decoding itself is the standard library's (`json.JSONDecoder.raw_decode`), so what it accepts
is exactly what `json.loads` accepts, and it fails with the same `json.JSONDecodeError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["iter_list"]

_CHUNK = 1 << 20
_BLANK = " \t\n\r"


class _Reader:
    """JSON text read through a window: values decoded at the window's start, refilled as needed."""

    def __init__(self, handle: TextIO) -> None:
        self._handle = handle
        self._text = ""
        self._at = 0
        self._eof = False
        self._decoder = json.JSONDecoder()

    def _refill(self) -> bool:
        """More text after the window (dropping what was read); False at the end of the file."""
        if self._eof:
            return False
        chunk = self._handle.read(_CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._text = self._text[self._at :] + chunk
        self._at = 0
        return True

    def peek(self) -> str:
        """The next character that is not blank, not consumed ('' at the end)."""
        while True:
            while self._at < len(self._text) and self._text[self._at] in _BLANK:
                self._at += 1
            if self._at < len(self._text):
                return self._text[self._at]
            if not self._refill():
                return ""

    def take(self, expected: str) -> str:
        """Consumes the next non-blank character, which must be one of `expected`."""
        char = self.peek()
        if not char or char not in expected:
            raise json.JSONDecodeError(f"Expecting one of {expected!r}", self._text, self._at)
        self._at += 1
        return char

    def value(self) -> Any:
        """The next JSON value, decoded."""
        self.peek()
        while True:
            try:
                value, end = self._decoder.raw_decode(self._text, self._at)
            except json.JSONDecodeError:
                if self._refill():
                    continue
                raise
            # a number cut by the window's end reads as a shorter number: only a value followed by
            # something (every value in an object is) or by the end of the file is whole
            if end == len(self._text) and self._refill():
                continue
            self._at = end
            return value


def iter_list(handle: TextIO, list_key: str, members: dict[str, Any]) -> Iterator[Any]:
    """Yields each item of the list under `list_key` of the JSON object in `handle`, as it is decoded.

    The object's other members go into `members` as they are read: those after the list only once
    the iteration has ended. The list itself is put there empty.

    Raises:
        json.JSONDecodeError: the text is not one JSON object (or `list_key` is not a list).
    """
    reader = _Reader(handle)
    reader.take("{")
    if reader.peek() == "}":
        reader.take("}")
    else:
        while True:
            key = reader.value()
            if not isinstance(key, str):
                raise json.JSONDecodeError("Expecting a member name", "", 0)
            reader.take(":")
            if key == list_key:
                members[key] = []
                yield from _items(reader)
            else:
                members[key] = reader.value()
            if reader.take(",}") == "}":
                break
    if reader.peek():
        raise json.JSONDecodeError("Extra data after the object", "", 0)


def _items(reader: _Reader) -> Iterator[Any]:
    reader.take("[")
    if reader.peek() == "]":
        reader.take("]")
        return
    while True:
        yield reader.value()
        if reader.take(",]") == "]":
            return
