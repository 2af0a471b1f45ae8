"""Which URLs `web_navigate` opens: web pages, and files of the project — nothing of the browser's own.

A trail from a pull request is replayed on a CI machine with a real browser: `file:///etc/passwd`
or `view-source:file:///…` would put that machine's files in the screenshots, the hierarchy and the
trace, and `chrome://` pages reach the browser's settings. So a GOTO opens `http(s):`, `about:blank`
and `file:` URLs (or scheme-less paths) that resolve inside the project (the folder of the nearest
`pyproject.toml` or `.git` above the working directory, else the working directory), symlinks
resolved. `javascript:` is not a page: the step fails with a message (exit 1), as any refused URL does.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["project_folder", "url_to_open"]

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_PAGES = ("http", "https")


def project_folder(cwd: Path | None = None) -> Path:
    """The folder of the nearest `pyproject.toml` or `.git` at or above `cwd`, else `cwd` itself."""
    here = (cwd or Path.cwd()).resolve()
    return next(
        (f for f in (here, *here.parents) if (f / "pyproject.toml").is_file() or (f / ".git").exists()), here
    )


def url_to_open(url: str, *, project: Path | None = None) -> tuple[str | None, str]:
    """(the URL to open, "") or (None, why it is refused).

    A URL without a scheme is a file path from the working directory (as in Trailblaze); it and
    `file:` URLs must name an existing file inside the project.
    """
    match = _SCHEME.match(url.strip())
    scheme = match.group(1).lower() if match else ""
    if scheme in _PAGES or url.strip().lower() == "about:blank":
        return url, ""
    if scheme == "javascript":
        return None, "a javascript: URL is not a page to open; click the element that runs it (web_click)"
    if scheme and scheme != "file" and not _drive_letter(url):
        return None, (
            f"{scheme}: URLs are not opened (the browser's own pages and views are off limits); "
            "web_navigate opens http(s) pages and the project's files"
        )
    raw = unquote(urlsplit(url).path) if scheme == "file" else url
    path = Path(raw).expanduser()
    root = (project or project_folder()).resolve()
    target = path.resolve()
    if not target.is_relative_to(root):
        return None, f"{target} is outside the project {root}; web_navigate opens only the project's files"
    if not target.is_file():
        return None, f"no file {target} (a url without a scheme is a path from {Path.cwd()})"
    return target.as_uri(), ""


def _drive_letter(url: str) -> bool:
    return bool(re.match(r"^[a-zA-Z]:[\\/]", url))
