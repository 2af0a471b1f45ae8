"""A leak scanner: every spelling of a secret, searched for in files, folders, text and LLM requests.

The spellings are computed here, independently of `trailblaze.common.redact`, from the standard library's
own encoders: plain, XML / HTML escaped, JSON escaped (ASCII-only `\\u00c4` and UTF-8), Python's
`unicode_escape`, URL-encoded (`quote`, `quote_plus`) and base64 (standard and URL-safe, whole,
and the part that stays fixed inside a longer base64 run at each of the three byte offsets).

```python
scan = LeakScan({"password": 'p&<>"Äß%+/=x9'})
scan.path(run_dir); scan.text("stdout", out); scan.requests(api)
assert scan.occurrences == [], scan.report()
```
"""

from __future__ import annotations

import base64
import html
import json
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

__all__ = ["LeakScan", "Occurrence", "spellings"]


def _base64_forms(data: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    for label, encode in (("base64", base64.b64encode), ("base64url", base64.urlsafe_b64encode)):
        whole = encode(data).decode("ascii")
        out[label] = whole
        out[f"{label}-unpadded"] = whole.rstrip("=")
        for offset in (1, 2):
            text = encode(b"\0" * offset + data + b"\0\0").decode("ascii")
            core = text[-(-offset * 8 // 6) : (offset + len(data)) * 8 // 6]
            out[f"{label}-offset{offset}"] = core
    return out


def spellings(value: str) -> dict[str, bytes]:
    """Encoding name → the bytes that would give `value` away."""
    forms = {
        "plain": value,
        "xml": escape(value),
        "xml-attr": quoteattr(value)[1:-1],
        "xml-quot": escape(value, {'"': "&quot;"}),
        "html": html.escape(value),
        "json-ascii": json.dumps(value)[1:-1],
        "json-utf8": json.dumps(value, ensure_ascii=False)[1:-1],
        "json-in-json": json.dumps(json.dumps(value))[3:-3],
        "unicode-escape": value.encode("unicode_escape").decode("ascii"),
        "url": urllib.parse.quote(value, safe=""),
        "url-plus": urllib.parse.quote_plus(value),
        **_base64_forms(value.encode("utf-8")),
    }
    out: dict[str, bytes] = {}
    for name, form in forms.items():
        encoded = form.encode("utf-8")
        if encoded not in out.values():
            out[name] = encoded
    return out


@dataclass(frozen=True)
class Occurrence:
    where: str
    secret: str
    encoding: str


@dataclass
class LeakScan:
    """Counts scans (one per file / text / request) and every secret spelling found in them."""

    secrets: Mapping[str, str]
    scans: int = 0
    occurrences: list[Occurrence] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._forms = {name: spellings(value) for name, value in self.secrets.items()}

    def data(self, where: str, data: bytes | str) -> None:
        raw = data.encode("utf-8") if isinstance(data, str) else data
        self.scans += 1
        for name, forms in self._forms.items():
            for encoding, form in forms.items():
                if form in raw:
                    self.occurrences.append(Occurrence(where, name, encoding))

    text = data

    def path(self, path: Path) -> int:
        """Scans a file, or every file below a folder; returns how many files."""
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            self.data(str(file), file.read_bytes())
        return len(files)

    def requests(self, api: Any) -> int:
        """Scans every request `FakeMessagesAPI` received: raw bytes, headers and the parsed body."""
        for i, request in enumerate(api.requests):
            self.data(f"request {i} body", request.raw)
            self.data(f"request {i} headers", json.dumps([request.path, request.headers]))
            if request.body is not None:
                self.data(f"request {i} parsed", json.dumps(request.body, ensure_ascii=False))
        return len(api.requests)

    def report(self) -> str:
        return f"{len(self.occurrences)} occurrences in {self.scans} scans:\n" + "\n".join(
            f"  {o.where}: {o.secret} ({o.encoding})" for o in self.occurrences
        )
