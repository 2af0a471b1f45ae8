"""The fake adb server's wire protocol (host services, shell v1/v2, sync, forwards) and the pieces
behind it (hierarchy XML, UiSelector matching, shell commands), without the u2 layer."""

from __future__ import annotations

import http.client
import re
import socket
import struct
from collections.abc import Iterator

import adbutils
import pytest
import uiautomator2 as u2

from tests.support.sim_android import PKG
from trailblaze_sim import create_device
from trailblaze_sim.android.hierarchy import AxNode, build_windows, render_hierarchy
from trailblaze_sim.android.shell import AndroidShell, MemFS
from trailblaze_sim.android.u2 import find_nodes
from trailblaze_sim.model import Frame, ManualClock, SimNode
from trailblaze_sim.server.adb import AndroidSimServer


def _raw(port: int, *requests: str) -> bytes:
    """Send adb requests on one socket and return everything the server wrote until it closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        for r in requests:
            data = r.encode()
            s.sendall(f"{len(data):04x}".encode() + data)
        s.shutdown(socket.SHUT_WR)
        out = bytearray()
        while chunk := s.recv(65536):
            out += chunk
        return bytes(out)


@pytest.fixture
def server() -> Iterator[AndroidSimServer]:
    dev = create_device("android", clock=ManualClock())
    with AndroidSimServer(dev) as srv:
        yield srv


def test_host_version_devices_and_features(server: AndroidSimServer) -> None:
    assert _raw(server.port, "host:version") == b"OKAY00040029"
    assert _raw(server.port, "host:devices") == b"OKAY0015emulator-5554\tdevice\n"
    long = _raw(server.port, "host:devices-l")
    assert b"model:Pixel_7" in long and b"transport_id:1" in long
    assert b"shell_v2" in _raw(server.port, "host-serial:emulator-5554:features")
    assert _raw(server.port, "host-serial:emulator-5554:get-state") == b"OKAY0006device"
    assert _raw(server.port, "host:get-serialno") == b"OKAY000demulator-5554"


def test_transport_switching_and_failures(server: AndroidSimServer) -> None:
    reply = _raw(server.port, "host:tport:serial:emulator-5554", "shell:echo hi")
    assert reply[:4] == b"OKAY" and struct.unpack("<Q", reply[4:12])[0] == 1
    assert reply[12:] == b"OKAYhi\n"
    assert _raw(server.port, "host:transport:emulator-5554", "shell:echo a") == b"OKAYOKAYa\n"
    assert _raw(server.port, "host:transport-any", "shell:echo b") == b"OKAYOKAYb\n"
    assert _raw(server.port, "host:tport:serial:nope") == b"FAIL0017device 'nope' not found"
    assert _raw(server.port, "host:frobnicate").startswith(b"FAIL")
    assert (
        _raw(server.port, "host:tport:serial:emulator-5554", "tcp:1234")
        == b"OKAY" + b"\x01" + 7 * b"\0" + b"FAIL0006closed"
    )


def test_device_pool_on_one_server() -> None:
    clock = ManualClock()
    devs = [create_device("android", clock=clock, serial=f"emulator-{5554 + 2 * i}") for i in range(3)]
    with AndroidSimServer(devs) as srv:
        assert srv.serials == ["emulator-5554", "emulator-5556", "emulator-5558"]
        assert _raw(srv.port, "host:transport-any").startswith(b"FAIL") and b"more than one" in _raw(
            srv.port, "host:tport:any"
        )
        client = adbutils.AdbClient("127.0.0.1", srv.port)
        assert [d.serial for d in client.device_list()] == srv.serials
        d1 = u2.connect(client.device("emulator-5556"))
        d2 = u2.connect(client.device("emulator-5558"))
        try:
            d1.app_stop(PKG)
            assert d1.app_current()["package"] != PKG and d2.app_current()["package"] == PKG
            assert d2.shell("getprop ro.serialno").output.strip() == "emulator-5558"
        finally:
            d1.stop_uiautomator(wait=False)
            d2.stop_uiautomator(wait=False)


def test_shell_v1_and_v2_through_adbutils(server: AndroidSimServer) -> None:
    dev = adbutils.AdbClient("127.0.0.1", server.port).device("emulator-5554")
    r1 = dev.shell2("echo out; nosuch")
    assert r1.returncode == 127 and r1.output.startswith("out\n")
    r2 = dev.shell2("echo out; md5sum /nope", v2=True)
    assert (r2.stdout, r2.returncode) == ("out\n", 1)
    assert r2.stderr == "md5sum: /nope: No such file or directory\n"
    assert dev.getprop("ro.build.version.sdk") == "34"


def test_sync_push_stat_list_pull(server: AndroidSimServer) -> None:
    dev = adbutils.AdbClient("127.0.0.1", server.port).device("emulator-5554")
    payload = bytes(range(256)) * 1000
    assert dev.sync.push(payload, "/data/local/tmp/blob.bin", check=True) == len(payload)
    st = dev.sync.stat("/data/local/tmp/blob.bin")
    assert st.size == len(payload) and st.mode & 0o100000
    assert dev.sync.stat("/data/local/tmp/missing").mtime is None
    assert {"blob.bin", "u2.jar"} <= {f.path for f in dev.sync.list("/data/local/tmp")}
    assert dev.sync.read_bytes("/data/local/tmp/blob.bin") == payload
    with pytest.raises(adbutils.AdbError):
        dev.sync.read_bytes("/data/local/tmp/missing")


def test_forward_to_u2_port_and_list(server: AndroidSimServer) -> None:
    dev = adbutils.AdbClient("127.0.0.1", server.port).device("emulator-5554")
    local = dev.forward_port(9008)
    assert any(f.remote == "tcp:9008" for f in dev.forward_list())
    conn = http.client.HTTPConnection("127.0.0.1", local, timeout=5)
    try:
        conn.request("GET", "/ping")
        assert conn.getresponse().read() == b"pong"
    finally:
        conn.close()
    assert _raw(server.port, f"host-serial:emulator-5554:killforward:tcp:{local}") == b"OKAYOKAY"  # connect, then status
    assert dev.forward_list() == []


def _demo_windows() -> list[AxNode]:
    return build_windows(create_device("android", clock=ManualClock()))


def test_hierarchy_clips_hides_and_escapes() -> None:
    class Tiny:
        platform = "android"
        serial = "emulator-5554"
        model = "Tiny"
        screen_width, screen_height, scale = 100, 200, 2.0
        clipboard = ""

        def tree(self) -> SimNode:
            root = SimNode("screen", "android.widget.FrameLayout", "", Frame(0, 0, 100, 200))
            root.children = [
                SimNode("text", "android.widget.TextView", "", Frame(10, 30, 50, 10), text='a<b>&"c"'),
                SimNode("text", "android.widget.TextView", "", Frame(0, 190, 100, 40), text="clipped"),
                SimNode(
                    "text", "android.widget.TextView", "", Frame(0, 50, 10, 10), text="gone", visible=False
                ),
                SimNode(
                    "icon_button", "android.widget.ImageButton", "", Frame(0, 60, 10, 10), clickable=True
                ),
            ]
            return root

        def current_app(self) -> None:
            return None

    xml = render_hierarchy(build_windows(Tiny()))  # type: ignore[arg-type]
    assert 'text="a&lt;b&gt;&amp;&quot;c&quot;"' in xml
    assert 'text="clipped"' in xml and 'bounds="[0,380][200,400]"' in xml
    assert "gone" not in xml
    assert '<node NAF="true" index="3"' in xml  # clickable, no text or description anywhere
    assert 'index="3"' in xml  # indexes count the hidden sibling


def test_selector_matching_semantics() -> None:
    windows = _demo_windows()
    sel = {"mask": 0x10 | 0x8000, "className": "android.widget.EditText", "enabled": True,
           "childOrSibling": [], "childOrSiblingSelector": []}  # fmt: skip
    assert [n.resource_id.rsplit("/", 1)[-1] for n in find_nodes(windows, sel)] == ["email", "password"]
    # fields outside the mask are ignored, as on the device
    assert len(find_nodes(windows, {**sel, "text": "nothing like it"})) == 2
    sel = {"mask": 0x04, "textMatches": "Sign.*", "childOrSibling": [], "childOrSiblingSelector": []}
    assert [n.text for n in find_nodes(windows, sel)] == ["Sign in"]
    sel = {"mask": 0x04, "textMatches": "Sign", "childOrSibling": [], "childOrSiblingSelector": []}
    assert find_nodes(windows, sel) == []  # Java matches() is a full match
    sel = {"mask": 0x800000, "index": 3, "childOrSibling": ["child"],
           "childOrSiblingSelector": [{"mask": 0x40, "description": "Overview", "childOrSibling": [], "childOrSiblingSelector": []}]}  # fmt: skip
    assert find_nodes(windows, sel) == []
    sel = {"mask": 0x80000, "packageName": "com.android.systemui", "childOrSibling": ["child"],
           "childOrSiblingSelector": [{"mask": 0x1000, "clickable": True, "childOrSibling": [], "childOrSiblingSelector": []}]}  # fmt: skip
    assert sorted(n.content_desc for n in find_nodes(windows, sel)) == ["Back", "Home", "Overview"]


def test_shell_interpreter_and_commands() -> None:
    dev = create_device("android", clock=ManualClock())
    sh = AndroidShell(dev, MemFS())
    assert sh.run("echo a && false && echo b; echo c || echo d; echo $?").stdout == b"a\nc\n0\n"
    assert sh.run("getprop | grep ro.product.model").stdout == b"[ro.product.model]: [Pixel 7]\n"
    assert sh.run("echo hi > /sdcard/x.txt; cat /sdcard/x.txt").stdout == b"hi\n"
    assert re.search(rb"mCurrentFocus=Window\{\S+ u0 dev\.trailblaze\.demo/dev\.trailblaze\.demo\.MainActivity\}",
                     sh.run("dumpsys window").stdout)  # fmt: skip
    assert b"mCurrentFocus" not in sh.run("dumpsys window windows").stdout  # as since Android 10
    assert re.search(rb"orientation=0", sh.run("dumpsys display").stdout.splitlines()[4])
    rows = [ln.split() for ln in sh.run("ps -A").stdout.decode().splitlines()[1:]]
    assert all(len(r) >= 9 for r in rows) and rows[-1][-1] == PKG
    assert sh.run("pidof " + PKG).stdout.strip() == str(dev.current_app().pid).encode()  # type: ignore[union-attr]
    assert sh.run("ime list -s").stdout == b"com.android.inputmethod.latin/.LatinIME\n"
    assert (
        sh.run("settings get secure default_input_method").stdout
        == b"com.android.inputmethod.latin/.LatinIME\n"
    )
    res = sh.run("frob")
    assert (res.rc, res.stderr) == (127, b"/system/bin/sh: frob: inaccessible or not found\n")
    sh.run("input tap 540 519")  # the email field (px)
    sh.run("input text ada%sL")
    assert sh.run("uiautomator dump /sdcard/d.xml").stdout == b"UI hierchary dumped to: /sdcard/d.xml\n"
    dump = MemFS.read(sh.fs, "/sdcard/d.xml") or b""
    assert b'text="ada L"' in dump and b"\n" not in dump
    sh.run("input keyevent KEYCODE_HOME")
    assert dev.current_app() is None
    assert sh.run("monkey -p " + PKG + " -c android.intent.category.LAUNCHER 1").rc == 0
    assert dev.current_app() is not None
    assert sh.run("monkey -p com.nope -c android.intent.category.LAUNCHER 1").rc != 0
