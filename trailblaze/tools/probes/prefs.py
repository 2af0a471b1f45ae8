"""Reading Android SharedPreferences files (`XmlUtils.writeMapXml`'s format).

A file is `<map>` holding `<string name="k">text</string>`, `<boolean name="k" value="true" />`,
`<int>`, `<long>`, `<float>` (and `<double>` from some writers) with a `value` attribute,
`<set name="k"><string>…</string>…</set>` and `<null name="k" />`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

__all__ = ["PrefsError", "parse_prefs", "pref_text"]


class PrefsError(ValueError):
    """The file is not a SharedPreferences XML map."""


def parse_prefs(text: str) -> dict[str, Any]:
    """The preferences of one file: str, bool, int, float, a sorted list for a set, None for null.

    Raises:
        PrefsError: Not well-formed, not a `<map>`, or an entry that is not a preference.
    """
    if "<!DOCTYPE" in text.upper():  # entity tricks; Android never writes one
        raise PrefsError("a DOCTYPE is not allowed in a SharedPreferences file")
    try:
        root = ET.fromstring(text.strip().encode("utf-8"))  # bytes: the XML declaration names the encoding
    except ET.ParseError as exc:
        raise PrefsError(f"not well-formed XML ({exc})") from None
    if root.tag != "map":
        raise PrefsError(f"the root element is <{root.tag}>, not <map>")
    values: dict[str, Any] = {}
    for entry in root:
        name = entry.get("name")
        if name is None:
            raise PrefsError(f"a <{entry.tag}> entry has no name")
        values[name] = _value(entry)
    return values


def _value(entry: ET.Element) -> Any:
    tag, raw = entry.tag, entry.get("value")
    if tag == "string":
        return entry.text or ""
    if tag == "set":
        return sorted((child.text or "") for child in entry if child.tag == "string")
    if tag == "null":
        return None
    if raw is None:
        raise PrefsError(f'<{tag} name="{entry.get("name")}"> has no value')
    try:
        if tag == "boolean":
            if raw not in ("true", "false"):
                raise ValueError(raw)
            return raw == "true"
        if tag in ("int", "long"):
            return int(raw)
        if tag in ("float", "double"):
            return float(raw)
    except ValueError:
        raise PrefsError(f'<{tag} name="{entry.get("name")}"> has a bad value {raw!r}') from None
    raise PrefsError(f"unknown preference type <{tag}>")


def pref_text(value: Any) -> str:
    """A preference (or an expected value) as the text assertions compare."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)
