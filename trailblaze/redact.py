"""Secret values never leave the process: one redactor, applied where text leaves.

Every secret a run uses is registered here (`register_secrets`) for the rest of the process, and
every path by which text leaves the process calls `scrub` on it just before: the file writers
(`trailblaze._files.write_text` / `atomic_write_text`: run.json, hierarchy dumps, LLM transcripts,
the HTML report, JUnit XML, trail files), the console (`ScrubbingStream`, the CLI's error line),
the pytest failure text and captured output, and the body of every LLM request. A field that a
writer forgets is still covered, because the writer's output is scrubbed, not its fields.

A secret is matched in every spelling the written formats give it, and in mixtures of them: plain,
XML / HTML escaped (`&amp;`, `&#196;`, `&#xC4;`, `&Auml;`), JSON escaped (`\\"`, `\\u00c4`, surrogate
pairs, nested escaping), Python `\\x..` escapes, URL-encoded (`%C3%84`, `+`) and base64 (standard
and URL-safe, whole or inside a longer base64 run). It becomes `{{name}}`.

Secrets shorter than `MIN_SECRET_LENGTH` are refused: redacting `e` everywhere would rewrite
every `e` in every file and give the value away by the pattern of the holes (ADR 0017).
"""

from __future__ import annotations

import base64
import html.entities
import re
import threading
import unicodedata
from collections.abc import Mapping
from typing import Any, TextIO

from trailblaze.errors import UsageError

__all__ = [
    "MIN_SECRET_LENGTH",
    "Redactor",
    "ScrubbingStream",
    "check_secret",
    "forget_secrets",
    "has_secrets",
    "register_secrets",
    "scrub",
    "scrub_value",
]

MIN_SECRET_LENGTH = 4

_JSON_SHORT = {'"': '"', "\\": "\\", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}
_NAMED = {"&": ("amp",), "<": ("lt",), ">": ("gt",), '"': ("quot",), "'": ("apos",)}


def check_secret(name: str, value: str, where: str = "--secret") -> None:
    """Refuses a secret too short to redact without rewriting unrelated text.

    Raises:
        UsageError: one line naming the secret (never its value) and the fix.
    """
    if len(value) < MIN_SECRET_LENGTH:
        what = "is empty" if not value else f"is shorter than {MIN_SECRET_LENGTH} characters"
        raise UsageError(
            f"{where} {name}: the value {what}; secrets need at least {MIN_SECRET_LENGTH} characters, because "
            "a shorter one would be blanked out wherever it occurs (and so give itself away) — use the real "
            "value (a value that is not secret belongs in --memory or config.memory)"
        )


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


class Redactor:
    """Secrets by name, and the one regex that finds any of them in any spelling."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        self._secrets: dict[str, str] = {}
        self._regex: re.Pattern[str] | None = None
        self._names: list[str] = []
        self._lock = threading.Lock()
        for name, value in (secrets or {}).items():
            self.add(name, value)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def add(self, name: str, value: str, where: str = "--secret") -> None:
        check_secret(name, value, where)
        with self._lock:
            if self._secrets.get(name) == value:
                return
            key = name
            n = 1
            while key in self._secrets:  # the same name with another value (two runs): keep both
                n += 1
                key = f"{name}\0{n}"
            self._secrets[key] = value
            self._regex = None

    def _compiled(self) -> re.Pattern[str] | None:
        with self._lock:
            if self._regex is None and self._secrets:
                groups: list[str] = []
                names: list[str] = []
                # longest first, so a secret containing another one is replaced whole
                for key, value in sorted(self._secrets.items(), key=lambda kv: len(kv[1]), reverse=True):
                    forms = {unicodedata.normalize(f, value) for f in ("NFC", "NFD")} | {value}
                    spelled = ["".join(_char_pattern(c) for c in form) for form in sorted(forms)]
                    spelled += [re.escape(b) for b in sorted(_base64_spellings(value), key=len, reverse=True)]
                    groups.append("(" + "|".join(spelled) + ")")
                    names.append(key.split("\0")[0])
                self._regex = re.compile("|".join(groups))
                self._names = names
            return self._regex

    def scrub(self, text: str) -> str:
        """`text` with every spelling of every secret replaced by `{{name}}`."""
        regex = self._compiled()
        if regex is None or not text:
            return text
        names = self._names
        return regex.sub(lambda m: "{{" + names[(m.lastindex or 1) - 1] + "}}", text)

    def scrub_value(self, value: Any) -> Any:
        """A deep copy of a JSON-like value with every string (keys too) scrubbed; tuples become lists.

        Image payloads stay as they are (an `LLMRequest` image's `data_base64`, an Anthropic
        `{"type": "base64", …}` source): they are pictures, not text, and must stay decodable.
        """
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, Mapping):
            if value.get("type") == "base64":
                return value
            return {
                self.scrub_value(k): v if k == "data_base64" else self.scrub_value(v)
                for k, v in value.items()
            }
        if isinstance(value, (list, tuple)):
            return [self.scrub_value(v) for v in value]
        return value


_PROCESS = Redactor()


def register_secrets(secrets: Mapping[str, str], where: str = "--secret") -> None:
    """Adds secrets to the process's redactor (for the rest of the process).

    Raises:
        UsageError: a value is shorter than `MIN_SECRET_LENGTH`.
    """
    for name, value in secrets.items():
        check_secret(name, value, where)
    for name, value in secrets.items():
        _PROCESS.add(name, value, where)


def forget_secrets() -> None:
    """Drops every registered secret (tests use it between cases)."""
    global _PROCESS
    _PROCESS = Redactor()


def has_secrets() -> bool:
    """Whether any secret is registered in this process."""
    return bool(_PROCESS)


def scrub(text: str) -> str:
    """`text` with every registered secret, in any spelling, replaced by `{{name}}`."""
    return _PROCESS.scrub(text)


def scrub_value(value: Any) -> Any:
    """A deep copy of a JSON-like value with every registered secret redacted."""
    return _PROCESS.scrub_value(value)


class ScrubbingStream:
    """A text stream that scrubs what is written to it (the console of record / replay)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(scrub(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._stream, "encoding", "utf-8")
