"""Who may talk to the simulator's servers (issue 45, item 4; ADR 0069): every HTTP server answers
only loopback `Host` names (a DNS-rebound web page sends its own), and an in-process replay's
servers answer only its own process — another local process gets a closed connection."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator

import adbutils
import pytest

from tests.support.wda import get_with_host
from trailblaze.device.devices import open_device
from trailblaze_sim import runtime
from trailblaze_sim.access import can_check_peers
from trailblaze_sim.runtime import Simulator, simulator


def test_the_simulated_wda_answers_only_loopback_host_names() -> None:
    with simulator("ios") as sim:
        for host in ("evil.example", f"evil.example:{sim.port}", "localhost.evil.example", "10.0.0.1"):
            status, body = get_with_host(sim.port, "/source", host)
            assert status == 403 and b"only requests to localhost" in body, host
        for host in (f"localhost:{sim.port}", "127.0.0.2", f"[::1]:{sim.port}", "LOCALHOST", None):
            status, body = get_with_host(sim.port, "/source", host)
            assert status == 200 and b"XCUIElementTypeApplication" in body, host


def test_the_uiautomator2_server_answers_only_loopback_host_names() -> None:
    with simulator("android") as sim:
        device = adbutils.AdbClient("127.0.0.1", sim.port).device("emulator-5554")
        u2 = device.forward_port(9008)  # the uiautomator2 server, as the u2 client reaches it
        assert get_with_host(u2, "/ping", "evil.example") == (
            403,
            b"this server answers only requests to localhost, 127.0.0.1 or [::1]",
        )
        assert get_with_host(u2, "/ping", f"127.0.0.1:{u2}") == (200, b"pong")


# A process of its own: the in-process servers must not answer it.
_OTHER_PROCESS = """
import socket, sys
kind, port = sys.argv[1], int(sys.argv[2])
with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
    s.sendall(b"000chost:devices" if kind == "adb" else b"GET /source HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n")
    try:
        print(s.recv(4).decode("latin-1"), end="")
    except OSError:
        pass
"""


def _from_another_process(kind: str, port: int) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _OTHER_PROCESS, kind, str(port)], capture_output=True, text=True, timeout=20
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Simulator]]:
    """The simulators `open_device` starts (the plugin looks `start_simulator` up at call time)."""
    if not can_check_peers():
        pytest.skip("telling a connection's process apart needs Linux's /proc")
    sims: list[Simulator] = []
    real = runtime.start_simulator

    def spy(*args: object, **kwargs: object) -> Simulator:
        sims.append(real(*args, **kwargs))  # type: ignore[arg-type]
        return sims[-1]

    monkeypatch.setattr(runtime, "start_simulator", spy)
    yield sims


@pytest.mark.parametrize(
    ("platform", "kind", "answer"), [("android", "adb", "OKAY"), ("ios", "http", "HTTP")]
)
def test_an_in_process_device_answers_only_its_own_process(
    started: list[Simulator], platform: str, kind: str, answer: str
) -> None:
    with simulator(platform) as shared:  # a foreground-style simulator stays open to every process
        assert _from_another_process(kind, shared.port) == answer
    with open_device(f"sim:{platform}", settle_timeout=0.5) as session:
        port = started[-1].port
        assert _from_another_process(kind, port) == ""  # closed without a byte
        assert len(session.driver.screenshot()) > 1000  # the replay's own clients still work
        with socket.create_connection(("127.0.0.1", port), timeout=5) as own:
            own.sendall(
                b"000chost:devices" if kind == "adb" else b"GET /status HTTP/1.1\r\nHost: localhost\r\n\r\n"
            )
            assert own.recv(4).decode() == answer
