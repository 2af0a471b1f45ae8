"""Where the results store is: `--results`, the ini key `trailblaze_results`, `TRAILBLAZE_RESULTS`, or
`.trailblaze/results.db`; and its URL fit to print."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DEFAULT_PATH", "ENV_VAR", "OFF", "display_url", "resolve_location"]

DEFAULT_PATH = Path(".trailblaze") / "results.db"
ENV_VAR = "TRAILBLAZE_RESULTS"
OFF = "off"
"""`--results off` / `TRAILBLAZE_RESULTS=off`: this run is not stored."""


def resolve_location(given: str | None, ini: str | None = None) -> str | None:
    """Where results go: `--results`, else the ini key, else `TRAILBLAZE_RESULTS`, else the default file;
    None when any of them says `off`."""
    for value in (given, ini, os.environ.get(ENV_VAR)):
        if value and value.strip():
            return None if value.strip().lower() == OFF else value.strip()
    return str(DEFAULT_PATH)


def display_url(location: str) -> str:
    """`location` fit to print: a URL's password is `***`."""
    from urllib.parse import urlsplit, urlunsplit

    if "://" not in location:
        return location
    parts = urlsplit(location)
    if parts.password is None:
        return location
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
