"""Appium servers that misbehave, through the real Appium client over real sockets: a refusal that
quotes the capabilities back (with the values the capabilities file read from the environment), a
session request never answered, a 300 MB screenshot, a page source a thousand levels deep. Each is
one line and the right exit code, and no value read from the environment reaches a file or the
console."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import copy_example, trailblaze
from trailblaze.testing.farm_hub import FarmHub
from trailblaze_appium._answers import MAX_ANSWER_BYTES
from trailblaze_sim import create_device
from trailblaze_sim.server.wda import WdaSimServer

AWS = "aws-Secret-Value-0123456789"
FARM_KEY = "farm-Key-Value-9876543210"
_SOURCE = (
    '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0" width="1080" height="2400">'
    '<android.widget.FrameLayout class="android.widget.FrameLayout" package="dev.example" bounds="[0,0][1080,2400]">'
    '<android.widget.TextView class="android.widget.TextView" package="dev.example" text="Hello" '
    'bounds="[0,0][540,200]" clickable="true" enabled="true" displayed="true"/>'
    "</android.widget.FrameLayout></hierarchy>"
)


class FakeAppium:
    """An Appium server that answers one thing badly (`mode`) and the rest plainly."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.requests: Counter[str] = Counter()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeAppium:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, value: Any) -> None:
                data = json.dumps({"value": value}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                route = self.path.rsplit("/", 1)[-1]
                fake.requests[f"POST {route}"] += 1
                if self.path != "/session":
                    return self._send(200, None)
                caps = body["capabilities"]["alwaysMatch"]
                if fake.mode == "silent":
                    fake._stop.wait(30)  # takes the request, never answers
                    return
                if fake.mode == "refuse":  # Appium's words, quoting the capabilities it was given
                    message = (
                        f"Could not create session: cannot download app from URL {caps.get('appium:app')} "
                        f"for udid {caps.get('appium:udid')} ({caps.get('appium:deviceName')})"
                    )
                    return self._send(500, {"error": "session not created", "message": message, "stacktrace": ""})
                self._send(200, {"sessionId": "s1", "capabilities": {"platformName": "Android", "deviceName": "fake"}})

            def do_GET(self) -> None:
                route = self.path.rsplit("/", 1)[-1]
                fake.requests[f"GET {route}"] += 1
                if route == "rect":
                    return self._send(200, {"x": 0, "y": 0, "width": 1080, "height": 2400})
                if route == "source":
                    deep = "".join(f'<node class="android.view.View" bounds="[0,0][1080,{i + 1}]">' for i in range(1000))
                    return self._send(200, _SOURCE if fake.mode != "deep" else f"<hierarchy>{deep}{'</node>' * 1000}</hierarchy>")
                if route == "screenshot" and fake.mode == "huge":
                    return self._stream_huge()
                self._send(200, {} if route == "settings" else None)

            def _stream_huge(self) -> None:
                """300 MB of base64, made as it is sent, with no Content-Length: the client must stop reading."""
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                chunk = b"A" * (1024 * 1024)
                try:
                    self.wfile.write(b'{"value": "')
                    for _ in range(300):
                        self.wfile.write(chunk)
                    self.wfile.write(b'"}')
                except OSError:
                    pass  # the client hung up once it had read past its cap

            def do_DELETE(self) -> None:
                self._send(200, None)

        return Handler


def _caps(tmp_path: Path) -> None:
    (tmp_path / "caps.yaml").write_text(
        "platformName: Android\n"
        'udid: "${TB_TEST_AWS_SECRET}"\n'
        'deviceName: "pixel-${BROWSERSTACK_ACCESS_KEY}"\n'
        "app: https://example.invalid/app.apk\n",
        "utf-8",
    )


def _leaks(tmp_path: Path, result: subprocess.CompletedProcess[str]) -> list[str]:
    """Where either value read from the environment shows: the console or a file the run wrote."""
    found = [f"console: {v}" for v in (AWS, FARM_KEY) if v in result.stdout + result.stderr]
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".xml", ".json", ".txt"):
            text = path.read_text("utf-8", "replace")
            found += [f"{path.name}: {v}" for v in (AWS, FARM_KEY) if v in text]
    return found


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_TEST_AWS_SECRET", AWS)
    monkeypatch.setenv("BROWSERSTACK_USERNAME", "alice")
    monkeypatch.setenv("BROWSERSTACK_ACCESS_KEY", FARM_KEY)
    monkeypatch.setenv("TRAILBLAZE_APPIUM_QUEUE_TIMEOUT", "0")


def _replay(tmp_path: Path, target: str, *more: str) -> subprocess.CompletedProcess[str]:
    copy_example("login.trail.yaml", tmp_path)
    return trailblaze(
        "replay", "login.trail.yaml", "--device", target, "--capabilities", "caps.yaml", "--report", "report.html",
        "--junit", "junit.xml", "--run-dir", "run", "--secret", "password=hunter2", *more, cwd=tmp_path, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize("farm", [False, True], ids=["url", "browserstack"])
def test_values_read_from_the_environment_never_leave_even_when_the_server_quotes_them(
    tmp_path: Path, env: None, monkeypatch: pytest.MonkeyPatch, farm: bool
) -> None:
    _caps(tmp_path)
    with FakeAppium("refuse") as server:
        if farm:
            monkeypatch.setenv("TRAILBLAZE_APPIUM_HUB", server.url)
        result = _replay(tmp_path, "appium:browserstack" if farm else f"appium:{server.url}")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "cannot download app from URL https://example.invalid/app.apk for udid {{TB_TEST_AWS_SECRET}}" in result.stderr
    assert "(pixel-{{BROWSERSTACK_ACCESS_KEY}})" in result.stderr
    for artifact in ("run/run.json", "report.html", "junit.xml"):
        assert (tmp_path / artifact).is_file(), artifact
    assert _leaks(tmp_path, result) == []


@pytest.mark.slow
def test_a_farm_gets_the_values_where_the_file_put_them_and_nowhere_else(
    tmp_path: Path, env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "caps.yaml").write_text(
        'platformName: iOS\nlocale: "${TB_TEST_AWS_SECRET}"\ndeviceName: "iPhone ${BROWSERSTACK_ACCESS_KEY}"\n'
        "bundleId: dev.trailblaze.demo\n",
        "utf-8",
    )
    monkeypatch.setenv("TRAILBLAZE_BUILD", f"nightly {AWS}")  # a build name that happens to hold one
    with WdaSimServer(create_device("ios", app="demo")) as phone:
        with FarmHub("browserstack", backend=phone.url, user="alice", key=FARM_KEY) as hub:
            monkeypatch.setenv("TRAILBLAZE_APPIUM_HUB", hub.url)
            result = _replay(tmp_path, "appium:browserstack")
    assert result.returncode == 0, result.stdout + result.stderr
    (session,) = hub.sessions.values()
    assert session.capabilities["appium:locale"] == AWS  # sent in the capability it was written in
    assert session.build == "nightly {{TB_TEST_AWS_SECRET}}"
    assert all(AWS not in n and FARM_KEY not in n for n in [session.name, *session.names])
    assert _leaks(tmp_path, result) == []


def test_a_short_value_from_the_environment_is_refused_without_showing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from trailblaze.errors import TrailFileError
    from trailblaze_appium.capabilities import load_capabilities

    monkeypatch.setenv("TB_TEST_SHORT", "x9z")
    (tmp_path / "caps.yaml").write_text('platformName: Android\nudid: "${TB_TEST_SHORT}"\n', "utf-8")
    with pytest.raises(TrailFileError) as raised:
        load_capabilities(str(tmp_path / "caps.yaml"))
    line = raised.value.message
    assert line.startswith(f"{tmp_path / 'caps.yaml'}:2:7: ${{TB_TEST_SHORT}} holds fewer than 4 characters"), line
    assert "x9z" not in line and "\n" not in line


def test_a_session_request_never_answered_ends_at_the_connect_timeout(tmp_path: Path, env: None) -> None:
    _caps(tmp_path)
    with FakeAppium("silent") as server:
        result = _replay(tmp_path, f"appium:{server.url}", "--appium-connect-timeout", "0.5")
    assert result.returncode == 3, result.stdout + result.stderr
    (line,) = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    assert f"the Appium server at {server.url}: no answer within 0.5 s" in line
    assert "--appium-connect-timeout" in line and "Traceback" not in result.stderr
    assert server.requests["POST session"] == 1


@pytest.mark.slow
def test_pytest_takes_the_connect_timeout_from_its_option_or_ini_key(
    tmp_path: Path, env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _caps(tmp_path)
    copy_example("login.trail.yaml", tmp_path)
    (tmp_path / "pytest.ini").write_text("[pytest]\ntrailblaze_trail_paths = .\ntrailblaze_appium_connect_timeout = 0.5\n")
    monkeypatch.setenv("TRAILBLAZE_SECRET_PASSWORD", "hunter2")

    def pytest_run(*more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "login.trail.yaml", "--device",
             f"appium:{server.url}", "--trailblaze-capabilities", "caps.yaml", "--trailblaze-secret", "password", *more],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )  # fmt: skip

    with FakeAppium("silent") as server:
        result = pytest_run()
        bad = pytest_run("--trailblaze-appium-connect-timeout", "soon")
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]
    assert f"creating a session on the Appium server at {server.url}: no answer within 0.5 s" in result.stdout
    assert bad.returncode == 4 and "--trailblaze-appium-connect-timeout = 'soon': use a number of seconds" in bad.stderr
    assert server.requests["POST session"] == 1


def test_a_screenshot_past_the_cap_is_refused_once_without_reading_it_all(tmp_path: Path, env: None) -> None:
    _caps(tmp_path)
    with FakeAppium("huge") as server:
        result = trailblaze(
            "snapshot", "--device", f"appium:{server.url}", "--capabilities", "caps.yaml", "--screenshot", "shot.png",
            cwd=tmp_path, timeout=60,
        )  # fmt: skip
    assert result.returncode == 3, result.stdout + result.stderr
    cap = MAX_ANSWER_BYTES // (1024 * 1024)
    assert cap == 50
    assert f"taking a screenshot failed on the Appium server at {server.url}: the answer is over 50 MB" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert server.requests["GET screenshot"] == 1  # a bad answer is not a hiccup to retry
    assert not (tmp_path / "shot.png").exists()


def test_a_page_source_nested_a_thousand_deep_fails_the_step_in_one_line(tmp_path: Path, env: None) -> None:
    _caps(tmp_path)
    with FakeAppium("deep") as server:
        result = trailblaze("snapshot", "--device", f"appium:{server.url}", "--capabilities", "caps.yaml", cwd=tmp_path)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "RecursionError" not in result.stderr and "Traceback" not in result.stderr
    assert f"reading the page source failed on the Appium server at {server.url}: it is nested more than 200 levels deep" in result.stderr
    assert server.requests["GET source"] == 1
