"""A folder served over http on 127.0.0.1 for the web driver tests (the browser loads pages from it), and
the skip of a web test module when no browser is installed."""

from __future__ import annotations

import contextlib
import functools
import shutil
import threading
import time
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.paths import DATA

WEB_DATA = DATA / "web"
"""The vendored TodoMVC app (tests/data/web/todomvc, from the npm registry) and our own pages."""


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves files without logging every request to stderr."""

    def log_message(self, format: str, *args: object) -> None:
        return None


@contextlib.contextmanager
def serve_folder(directory: Path, handler: type[SimpleHTTPRequestHandler] = QuietHandler) -> Iterator[str]:
    """Serves `directory` on a free port; yields its base URL and stops the server after."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


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
