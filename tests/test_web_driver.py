"""The web driver end to end: Debian's Chromium through Playwright on the vendored TodoMVC app
(tests/data/web/todomvc, from the npm registry) and a page of our own with a modal dialog, served
from a local http.server on 127.0.0.1."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.cli_support import trailblaze

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "web"
TRAIL = ROOT / "trails" / "web" / "todomvc-active-filter.trail.yaml"

pytest.importorskip("playwright", reason="the web driver needs `pip install -e ./drivers/web` (playwright)")
if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
    pytest.skip(
        "no browser: install Debian's `chromium` package for the web driver tests", allow_module_level=True
    )


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(DATA)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _trail(tmp_path: Path, base_url: str, text: str | None = None) -> Path:
    body = (text or TRAIL.read_text(encoding="utf-8")).replace("http://127.0.0.1:8765", base_url)
    path = tmp_path / "todomvc.trail.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def _replay(path: Path, tmp_path: Path, *extra: str) -> tuple[int, str]:
    result = trailblaze("replay", str(path), "--device", "web", "--run-dir", str(tmp_path / "run"), *extra)
    return result.returncode, result.stdout + result.stderr


def test_todomvc_trail_replays_with_no_llm(tmp_path: Path, base_url: str) -> None:
    code, out = _replay(_trail(tmp_path, base_url), tmp_path)
    assert code == 0, out
    assert "5/5" in out and "passed" in out


def test_renamed_button_fails_naming_the_step(tmp_path: Path, base_url: str) -> None:
    # The app renamed its "Active" filter: the recorded ARIA descriptor no longer matches.
    text = TRAIL.read_text(encoding="utf-8").replace('link "Active"', 'link "Open"')
    code, out = _replay(_trail(tmp_path, base_url, text), tmp_path, "--element-timeout", "1")
    assert code == 1, out
    assert "step 4 ('Show only the active todos')" in out
    assert "web_click failed: NOT_FOUND no element 'link \"Open\"'" in out


def test_hierarchy_roles_states_and_modal_dialog(base_url: str) -> None:
    from trailblaze.compact import compact_view
    from trailblaze.devices import open_device
    from trailblaze.occlusion import covers

    with open_device(f"web:{base_url}/dialog.html") as session:
        screen = session.settle()
        roles = {(n.class_name, n.label) for n in screen.visible_nodes()}
        assert ("button", "Delete account") in roles
        assert ("checkbox", "Remember me") in roles
        session.driver.tap(*next(n for n in screen.nodes if n.label == "Delete account").center)
        session.invalidate()
        screen = session.settle()
        found = covers(screen)
        assert found and found[0].kind == "dialog" and found[0].title == "Delete your account?"
        behind = next(n for n in screen.nodes if n.label == "Remember me")
        assert behind.covered_by is found[0]
        view = compact_view(screen).text
        assert 'behind the dialog "Delete your account?"' in view
        assert 'button "Cancel"' in view


def test_missing_browser_is_a_one_line_device_error(tmp_path: Path) -> None:
    import os

    os.environ["TRAILBLAZE_BROWSER_PATH"] = str(tmp_path / "no-such-chromium")
    try:
        result = trailblaze("snapshot", "--device", "web")
    finally:
        del os.environ["TRAILBLAZE_BROWSER_PATH"]
    out = result.stdout + result.stderr
    assert result.returncode == 3, out
    assert "no browser at TRAILBLAZE_BROWSER_PATH=" in out
    assert "Traceback" not in out


def test_web_trail_is_skipped_on_android() -> None:
    from trailblaze.preflight import may_be_skipped
    from trailblaze.trail import load_trail

    trail = load_trail(TRAIL)
    assert may_be_skipped(trail, "android") and may_be_skipped(trail, "ios")
    assert not may_be_skipped(trail, "web")
