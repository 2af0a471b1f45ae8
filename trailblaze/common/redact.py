"""Secret values never leave the process: one redactor, applied where text leaves.

Every secret a run uses is registered here (`register_secrets`) for the rest of the process, and
every path by which text leaves the process calls `scrub` on it just before: the file writers
(`trailblaze.common.files.write_text` / `atomic_write_text`: run.json, hierarchy dumps, LLM transcripts,
the HTML report, JUnit XML, trail files), the console (each value `record` / `replay` print, the
CLI's error line), the pytest failure text and captured output, and the body of every LLM request. A
field that a writer forgets is still covered, because the writer's output is scrubbed, not its fields.
The console is the exception: its values are scrubbed, not its own words (a table header, `error:`),
so a secret equal to one of them (`status`) does not point itself out.

A secret is matched in every spelling the written formats give it, and in mixtures of them: plain,
XML / HTML escaped (`&amp;`, `&#196;`, `&#xC4;`, `&Auml;`), JSON escaped (`\\"`, `\\u00c4`, surrogate
pairs, nested escaping), Python `\\x..` escapes, URL-encoded (`%C3%84`, `+`) and base64 (standard
and URL-safe, whole or inside a longer base64 run). It becomes `{{name}}`. One Aho–Corasick
automaton finds all secrets in one pass over the text (escapes decoded first), and each hit is
confirmed by that secret's exact pattern, so a thousand secrets cost about what one does. That
matching is `trailblaze.common.redact_spellings`, imported with the first secret (start-up).

Secrets shorter than `MIN_SECRET_LENGTH` are refused: redacting `e` everywhere would rewrite
every `e` in every file and give the value away by the pattern of the holes (ADR 0017).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from trailblaze.errors import UsageError

if TYPE_CHECKING:
    from trailblaze.common.redact_spellings import SecretIndex

__all__ = [
    "MIN_SECRET_LENGTH",
    "Redactor",
    "check_secret",
    "forget_secrets",
    "has_secrets",
    "register_secrets",
    "scrub",
    "scrub_value",
]

MIN_SECRET_LENGTH = 4


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


class Redactor:
    """Secrets by name, and the automaton that finds any of them in any spelling."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        self._secrets: dict[str, str] = {}
        self._index: SecretIndex | None = None
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
            self._index = None

    def _compiled(self) -> SecretIndex | None:
        with self._lock:
            if self._index is None and self._secrets:
                # the spellings' machinery (its patterns, html.entities, the automata) is imported
                # with the first secret: a process without one does not pay for it (start-up)
                from trailblaze.common.redact_spellings import SecretIndex

                self._index = SecretIndex(list(self._secrets.items()))
            return self._index

    def scrub(self, text: str) -> str:
        """`text` with every spelling of every secret replaced by `{{name}}`."""
        index = self._compiled()
        if index is None or not text:
            return text
        spans = index.spans(text)
        if not spans:
            return text
        # leftmost first, and at one start the longest (a secret containing another is replaced whole)
        spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        out: list[str] = []
        at = 0
        for start, end, owner in spans:
            if start < at:
                continue
            out += [text[at:start], "{{" + index.names[owner] + "}}"]
            at = end
        out.append(text[at:])
        return "".join(out)

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
