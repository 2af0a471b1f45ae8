"""Every spelling of a secret: how a `trailblaze.common.redact.Redactor` finds its secrets in a text
(the spellings are listed there). The redactor imports this module with its first secret, so a
process that has none (a `validate`, most runs) does not build the patterns, the entity table or
the automata.
"""

from __future__ import annotations

import base64
import bisect
import html.entities
import re
import threading
import unicodedata
from typing import NamedTuple

import ahocorasick

__all__ = ["SecretIndex"]

_JSON_SHORT = {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}
_NAMED = {"&": ("amp",), "<": ("lt",), ">": ("gt",), '"': ("quot",), "'": ("apos",)}


def _char_pattern(char: str) -> str:
    """Every way `char` can be spelled in the formats trailblaze writes, as a regex alternation."""
    code = ord(char)
    alts = [re.escape(char)]
    # XML / HTML character references (decimal, hex, named)
    alts.append(f"&#0*{code};")
    alts.append(f"(?i:&#x0*{code:x};)")
    names = set(_NAMED.get(char, ()))
    if code in html.entities.codepoint2name:
        names.add(html.entities.codepoint2name[code])
    alts += [f"&{n};" for n in sorted(names)]
    # JSON / Python escapes, also when the JSON was itself escaped again (`\\\"`)
    if char in _JSON_SHORT:
        alts.append(r"\\+" + re.escape(_JSON_SHORT[char]))
    if code < 0x10000:
        alts.append(rf"(?i:\\+u{code:04x})")
    else:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        alts.append(rf"(?i:\\+u{high:04x}\\+u{low:04x})")
    if code < 0x100:
        alts.append(rf"(?i:\\+x{code:02x})")
    if code > 0xFFFF:
        alts.append(rf"(?i:\\+U{code:08x})")
    # URL encoding of the UTF-8 bytes (and `+` for a space in a query string)
    alts.append("(?i:" + "".join(f"%{b:02x}" for b in char.encode("utf-8")) + ")")
    if char == " ":
        alts.append(r"\+")
    return "(?:" + "|".join(alts) + ")"


def _base64_spellings(value: str) -> set[str]:
    """The base64 text of the value alone, and the part of it that is fixed whatever bytes surround it."""
    data = value.encode("utf-8")
    out: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(data).decode("ascii")
        out |= {whole, whole.rstrip("=")}
        for offset in range(3):  # inside a longer base64 run the value can start at any byte of a group
            text = encode(b"\0" * offset + data + b"\0\0").decode("ascii")
            first = -(-offset * 8 // 6)
            last = (offset + len(data)) * 8 // 6
            core = text[first:last]
            if len(core) >= 8:  # shorter cores would match random base64 (images) by chance
                out.add(core)
    return out


class _Unit(NamedTuple):
    """One character of the folded view that an escape sequence spelled (literal text maps 1:1)."""

    view: int
    start: int
    end: int


class _Folded(NamedTuple):
    """`text` with every escape sequence decoded to its character and `+` read as a space."""

    view: str
    units: list[_Unit]
    views: list[int]

    def span(self, first: int, last: int) -> tuple[int, int]:
        """The span of the original text that view characters `first`..`last` (inclusive) came from."""
        return self._at(first)[0], self._at(last)[1]

    def _at(self, index: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.views, index) - 1
        if i < 0:
            return index, index + 1
        unit = self.units[i]
        if unit.view == index:
            return unit.start, unit.end
        start = unit.end + (index - unit.view - 1)
        return start, start + 1


_NAME_TO_CHAR = {name: chr(code) for name, code in html.entities.name2codepoint.items()} | {"apos": "'"}
_SHORT_TO_CHAR = {v: k for k, v in _JSON_SHORT.items()}
_ESCAPE = re.compile(
    r"&\#[xX]0*(?P<hexref>[0-9a-fA-F]{1,6});|&\#0*(?P<decref>[0-9]{1,7});|&(?P<named>[A-Za-z][A-Za-z0-9]{1,31});"
    r"|\\+(?:[uU](?P<high>[dD][89abAB][0-9a-fA-F]{2})\\+[uU](?P<low>[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|U(?P<u8>[0-9a-fA-F]{8})|[uU](?P<u4>[0-9a-fA-F]{4})|[xX](?P<x2>[0-9a-fA-F]{2})|(?P<short>[\"\\/bfnrt]))"
    r"|(?P<url>(?:%[0-9a-fA-F]{2})+)"
)


def _decoded(match: re.Match[str]) -> list[tuple[str, int, int]]:
    """The characters an escape sequence spells, each with its span; [] when it spells none."""
    start, end = match.span()
    group = match.lastgroup
    if group == "url":
        out: list[tuple[str, int, int]] = []
        data = bytes.fromhex(match.group().replace("%", ""))
        try:
            chars = data.decode("utf-8")
        except UnicodeDecodeError:
            return []
        at = start
        for char in chars:
            width = 3 * len(char.encode("utf-8"))
            out.append((char, at, at + width))
            at += width
        return out
    if group == "named":
        named = _NAME_TO_CHAR.get(match.group("named"))
        return [(named, start, end)] if named else []
    if group == "short":
        return [(_SHORT_TO_CHAR[match.group("short")], start, end)]
    if group == "low":
        high, low = int(match.group("high"), 16), int(match.group("low"), 16)
        return [(chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)), start, end)]
    code = int(match.group(group or "x2"), 10 if group == "decref" else 16)
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return []
    return [(chr(code), start, end)]


def _fold(text: str) -> _Folded:
    """The view the automaton reads: escapes decoded, `+` as a space (a URL's space)."""
    parts: list[str] = []
    units: list[_Unit] = []
    at = 0
    size = 0
    for match in _ESCAPE.finditer(text):
        chars = _decoded(match)
        if not chars:
            continue
        literal = text[at : match.start()]
        parts.append(literal)
        size += len(literal)
        for char, start, end in chars:
            units.append(_Unit(size, start, end))
            parts.append(char)
            size += 1
        at = match.end()
    parts.append(text[at:])
    view = "".join(parts).replace("+", " ")
    return _Folded(view, units, [u.view for u in units])


class SecretIndex:
    """The automata that find candidate matches, and each secret's exact pattern that confirms one.

    Every secret's spellings are an unbounded family (escapes mix freely, `\\\\` nests), so they
    cannot all be listed for an automaton. Instead the text is folded once (escapes decoded) and
    one Aho–Corasick automaton finds every secret's folded form in it in a single pass; base64
    spellings, which are fixed strings, go into a second automaton over the raw text. A candidate
    is then confirmed by that one secret's exact regex on just its span, so the cost grows with
    the text and the number of hits, not with the number of secrets.
    """

    def __init__(self, secrets: list[tuple[str, str]]) -> None:
        self.names = [key.split("\0")[0] for key, _ in secrets]
        self.values = [value for _, value in secrets]
        self._exact: dict[int, re.Pattern[str]] = {}
        self._lock = threading.Lock()
        self.folded = ahocorasick.Automaton()
        self.raw = ahocorasick.Automaton()
        folded_keys: dict[str, set[int]] = {}
        raw_keys: dict[str, set[int]] = {}
        for index, value in enumerate(self.values):
            for form in _forms(value):
                for key in {_fold(form).view, form.replace("+", " ")}:
                    folded_keys.setdefault(key, set()).add(index)
            for spelled in _base64_spellings(value):
                raw_keys.setdefault(spelled, set()).add(index)
        for key, owners in folded_keys.items():
            self.folded.add_word(key, (len(key), tuple(sorted(owners))))
        for key, owners in raw_keys.items():
            self.raw.add_word(key, (len(key), tuple(sorted(owners))))
        self.folded.make_automaton()
        if raw_keys:
            self.raw.make_automaton()
        self._has_raw = bool(raw_keys)

    def exact(self, index: int) -> re.Pattern[str]:
        with self._lock:
            pattern = self._exact.get(index)
            if pattern is None:
                pattern = self._exact[index] = re.compile(_exact_pattern(self.values[index]))
            return pattern

    def spans(self, text: str) -> list[tuple[int, int, int]]:
        """Every confirmed `(start, end, secret)` in `text`, overlapping ones included."""
        found: list[tuple[int, int, int]] = []
        folded = _fold(text)
        for last, (length, owners) in self.folded.iter(folded.view):
            start, end = folded.span(last - length + 1, last)
            for owner in owners:
                hit = self._confirm(text, start, end, owner)
                if hit is not None:
                    found.append((*hit, owner))
        if self._has_raw:
            for last, (length, owners) in self.raw.iter(text):
                found += [(last - length + 1, last + 1, owner) for owner in owners]
        return found

    def _confirm(self, text: str, start: int, end: int, owner: int) -> tuple[int, int] | None:
        pattern = self.exact(owner)
        if pattern.fullmatch(text, start, end):
            return start, end
        # a run of backslashes or a nested escape may be read a little differently by the fold
        near = pattern.search(text, max(0, start - 16), min(len(text), end + 16))
        return near.span() if near else None


def _forms(value: str) -> set[str]:
    return {unicodedata.normalize(f, value) for f in ("NFC", "NFD")} | {value}


def _exact_pattern(value: str) -> str:
    spelled = ["".join(_char_pattern(c) for c in form) for form in sorted(_forms(value))]
    spelled += [re.escape(b) for b in sorted(_base64_spellings(value), key=len, reverse=True)]
    return "|".join(spelled)
