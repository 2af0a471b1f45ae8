"""The web test site (tests/data/web) served with a slow backend, and the skip of a web test module
when no browser is installed."""

from __future__ import annotations

import contextlib
import shutil
import time
from pathlib import Path

import pytest

from tests.support.paths import DATA
from tests.support.web import QuietHandler, serve_folder

WEB_DATA = DATA / "web"
"""The vendored TodoMVC app (tests/data/web/todomvc, from the npm registry) and our own pages."""


def require_browser() -> None:
    """Skips the calling test module without Playwright (drivers/web) or Debian's Chromium."""
    pytest.importorskip("playwright", reason="the web driver needs `pip install -e ./drivers/web` (playwright)")
    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
        pytest.skip("no browser: install Debian's `chromium` package for the web driver tests", allow_module_level=True)


class _SlowBackend(QuietHandler):
    """Files, and `…/slow`: a backend that answers after 0.4 s."""

    def do_GET(self) -> None:
        if not self.path.endswith("/slow"):
            super().do_GET()
            return
        time.sleep(0.4)  # a slow backend (not a wait of the test): settling must outlast it
        body = b"Data loaded"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_site(directory: Path) -> contextlib.AbstractContextManager[str]:
    """`directory` served with a slow backend at `/slow`; the context yields its base URL."""
    return serve_folder(directory, _SlowBackend)
