"""Text from trail files, devices and run logs, made safe to print on a terminal.

A step text, a `config.id` or an on-screen label can hold ESC / OSC sequences (`\\x1b]52;…` writes
the clipboard, `\\x1b[2J` clears the screen) or bidirectional overrides that reorder what is shown.
Everything trailblaze prints passes through `printable`, which writes such characters as visible
escapes (`\\x1b`, `\\u202e`) instead; line breaks and tabs stay.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

# C0 controls but tab and newline, DEL, C1 controls, and the bidi embeddings / overrides / isolates
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """`text` with every terminal control character written as a visible escape."""
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
