"""Real-device fidelity of the simulated adb side (issue 13, items 3 and 5): installs and
permissions, forwards, logcat with the demo app's own lines, dumpsys power/battery, `exec-out
uiautomator dump /dev/tty`, ps, and sh quoting/arithmetic — through the real `adb` binary and the
unmodified adbutils / uiautomator2 clients."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest

from tests.support.sim_android import PKG, AndroidRig, android_rig, rid, sign_in
from tests.support.sim_android import apk as _apk
from trailblaze_sim.android.pm import apk_package_name

ADB = shutil.which("adb") or str(Path(adbutils.__file__).parent / "binaries" / "adb")
_THREADTIME = re.compile(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +(\d+) +(\d+) ([VDIWEF]) (\S+) *: (.*)$")


@pytest.fixture(scope="module")
def rig() -> Iterator[AndroidRig]:
    with android_rig() as r:
        yield r


def _adb(rig: AndroidRig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ADB, "-P", str(rig.server.port), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )


def test_adb_install_and_uninstall_an_unknown_apk(rig: AndroidRig, tmp_path: Path) -> None:
    apk = tmp_path / "other.apk"
    apk.write_bytes(_apk("com.example.other"))
    res = _adb(rig, "install", str(apk))
    assert res.returncode == 0 and res.stdout.rstrip().endswith("Success"), res
    assert any(
        e.endswith("|exec:cmd package 'install' -S " + str(apk.stat().st_size)) for e in rig.server.log
    )
    dev = rig.client.device(rig.serial)
    assert "com.example.other" in dev.list_packages(["-3"])
    assert dev.app_info("com.example.other") is not None
    # an installed APK without an app spec has no UI in the simulator: nothing to launch
    assert "No activities found" in dev.shell("monkey -p com.example.other 1")
    res = _adb(rig, "uninstall", "com.example.other")
    assert (res.returncode, res.stdout) == (0, "Success\n")
    assert "com.example.other" not in dev.list_packages()
    assert _adb(rig, "uninstall", "com.example.other").stdout == "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"


def test_pm_install_from_a_pushed_file_and_bad_apks(rig: AndroidRig, tmp_path: Path) -> None:
    dev = rig.client.device(rig.serial)
    dev.sync.push(io.BytesIO(_apk("org.example.pushed")), "/data/local/tmp/pushed.apk")
    dev.install_remote("/data/local/tmp/pushed.apk", clean=True)  # adbutils: pm install -r -t PATH
    assert "org.example.pushed" in dev.list_packages()
    assert dev.shell("ls /data/local/tmp/pushed.apk").startswith("ls:")  # clean=True removed it
    dev.sync.push(io.BytesIO(b"not a zip"), "/data/local/tmp/bad.apk")
    out = dev.shell("pm install /data/local/tmp/bad.apk")
    assert out.startswith("Failure [INSTALL_PARSE_FAILED_NOT_APK")
    assert dev.shell("pm install /data/local/tmp/none.apk").startswith("Failure [INSTALL_FAILED_INVALID_URI")
    assert dev.shell2("pm uninstall org.example.pushed").output == "Success\n"


def test_uninstalling_the_app_hides_it_until_reinstalled(rig: AndroidRig, tmp_path: Path) -> None:
    dev = rig.client.device(rig.serial)
    try:
        assert dev.shell("pm uninstall " + PKG) == "Success"
        assert PKG not in dev.list_packages()
        assert "No activities found" in dev.shell(f"monkey -p {PKG} 1")
        apk = tmp_path / "demo.apk"
        apk.write_bytes(_apk(PKG))
        assert _adb(rig, "install", "-r", str(apk)).returncode == 0
        assert PKG in dev.list_packages()
    finally:
        if PKG not in dev.list_packages():
            dev.sync.push(io.BytesIO(_apk(PKG)), "/data/local/tmp/demo.apk")
            dev.shell("pm install /data/local/tmp/demo.apk")
        rig.d.app_start(PKG)
    assert rig.d(text="Welcome back").wait(timeout=2)


def test_pm_grant_and_revoke_are_recorded_per_package(rig: AndroidRig) -> None:
    dev = rig.client.device(rig.serial)
    assert dev.shell2(f"pm grant {PKG} android.permission.CAMERA").returncode == 0
    dev.shell(["pm", "grant", PKG, "android.permission.POST_NOTIFICATIONS"])
    granted = dev.shell(f"dumpsys package {PKG} | grep granted=true")
    assert "android.permission.CAMERA: granted=true" in granted
    assert "android.permission.POST_NOTIFICATIONS: granted=true" in granted
    dev.shell(f"pm revoke {PKG} android.permission.CAMERA")
    assert "CAMERA" not in dev.shell(f"dumpsys package {PKG}")
    bad = dev.shell2("pm grant com.nope.app android.permission.CAMERA")
    assert bad.returncode == 255 and "Unknown package: com.nope.app" in bad.output


def test_u2_app_install_auto_grant_and_uninstall(rig: AndroidRig, tmp_path: Path) -> None:
    d = rig.d
    apk = tmp_path / "camera.apk"
    apk.write_bytes(
        _apk("com.example.camera", "android.permission.CAMERA", "android.permission.RECORD_AUDIO")
    )
    d.app_install(str(apk))
    assert "com.example.camera" in d.app_list("-3")
    assert (
        "android.permission.CAMERA: granted=false"
        in d.shell(["dumpsys", "package", "com.example.camera"]).output
    )
    d.app_auto_grant_permissions("com.example.camera")  # greps granted=false, pm grants each
    perms = d.shell("dumpsys package com.example.camera | grep granted=").output
    assert perms.count("granted=true") == 2 and "granted=false" not in perms
    assert d.app_uninstall("com.example.camera") is True
    assert "com.example.camera" not in d.app_list()


def test_forward_list_and_remove_with_the_adb_binary_and_adbutils(rig: AndroidRig) -> None:
    res = _adb(rig, "forward", "tcp:0", "tcp:9008")
    assert res.returncode == 0 and res.stdout.strip().isdigit()
    port = res.stdout.strip()
    listed = _adb(rig, "forward", "--list").stdout
    assert f"{rig.serial} tcp:{port} tcp:9008" in listed
    dev = rig.client.device(rig.serial)
    assert any(f.local == f"tcp:{port}" for f in dev.forward_list())
    assert _adb(rig, "forward", "--remove", f"tcp:{port}").returncode == 0
    assert f"tcp:{port}" not in _adb(rig, "forward", "--list").stdout
    local = dev.forward_port(9008)  # adbutils: forward tcp:N, found again by forward_list
    assert any(f.local == f"tcp:{local}" for f in dev.forward_list())
    dev.forward_remove(f"tcp:{local}")
    assert not any(f.local == f"tcp:{local}" for f in dev.forward_list())
    dev.forward_port(9008)
    assert _adb(rig, "forward", "--remove-all").returncode == 0
    assert dev.forward_list() == []


def _lines(text: str) -> list[tuple[int, str, str, str]]:
    out = []
    for line in text.splitlines():
        m = _THREADTIME.match(line)
        if m:
            out.append((int(m.group(1)), m.group(3), m.group(4), m.group(5)))
    return out


def test_demo_app_logs_launch_sign_in_archive_and_errors_with_its_pid(rig: AndroidRig) -> None:
    d = rig.d
    dev = rig.client.device(rig.serial)
    d.app_stop(PKG)
    assert _adb(rig, "logcat", "-c").returncode == 0
    assert _adb(rig, "logcat", "-d").stdout == ""
    d.app_start(PKG)
    pid = d.app_current()["pid"] or int(dev.shell(f"pidof {PKG}"))
    d(resourceId=rid("email")).set_text("ada@example.com")
    d(resourceId=rid("password")).set_text("wrong")
    d(resourceId=rid("sign_in")).click()
    sign_in(rig)
    d(text="Message 2").click()
    d(resourceId=rid("archive")).click()
    text = _adb(rig, "logcat", "-d", "-v", "threadtime").stdout
    assert text.startswith("--------- beginning of main\n")
    lines = _lines(text)
    assert (
        601,
        "I",
        "ActivityManager",
        f"Start proc {pid}:{PKG}/u0a190 for top-activity {{{PKG}/{PKG}.MainActivity}}",
    ) in lines
    mine = [(lv, msg) for p, lv, tag, msg in lines if p == pid and tag == "Demo"]
    assert mine == [
        ("I", "Demo started (screen login)"),
        ("E", "Sign-in failed for ada@example.com: invalid email or password"),
        ("I", "Signed in as ada@example.com"),
        ("I", "Archived message 2"),
    ]
    assert "hunter2" not in text and "wrong" not in text.replace("Sign-in failed", "")
    # --pid keeps the app's own lines; -v brief / -s TAG:LEVEL filters as logcat does
    by_pid = dev.shell(f"logcat -d --pid={pid}")
    assert "ActivityManager" not in by_pid and "Archived message 2" in by_pid
    assert dev.shell("logcat -d -v brief -s Demo:E").splitlines()[-1] == (
        f"E/Demo    ({pid:5d}): Sign-in failed for ada@example.com: invalid email or password"
    )
    assert dev.shell("logcat -d -t 1 -v raw").splitlines()[-1] == "Archived message 2"
    d(resourceId=rid("compose")).click()
    d(resourceId=rid("send")).click()  # no recipient: the app logs the validation error
    assert "W Demo    : to: Recipient required" in dev.shell("logcat -d")


def test_logcat_follows_new_lines_until_the_client_stops(rig: AndroidRig, tmp_path: Path) -> None:
    dev = rig.client.device(rig.serial)
    out = tmp_path / "logcat.txt"
    event = dev.logcat(out, clear=True, command="logcat -v threadtime")  # adbutils' streaming logcat
    rig.d.app_stop(PKG)
    event.stop_nowait()
    rig.d.app_start(PKG)  # one more line, so the reader wakes up and sees the stop
    event.stop(timeout=10)
    assert "Force stopping dev.trailblaze.demo" in out.read_text()
    rig.d.app_start(PKG)  # the buffer is not empty: logcat prints it first, then follows
    proc = subprocess.Popen(
        [ADB, "-P", str(rig.server.port), "logcat", "-v", "brief", "Demo:I", "*:S"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "--------- beginning of main\n"  # connected and dumping
        d = rig.d
        d(resourceId=rid("email")).set_text("follow@example.com")
        d(resourceId=rid("password")).set_text("nope")
        d(resourceId=rid("sign_in")).click()
        line = ""
        while "follow@example.com" not in line:
            line = proc.stdout.readline()
            assert line, "logcat ended before the new line came"
        assert line.startswith("E/Demo    (") and "Sign-in failed for follow@example.com" in line
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_screen_power_battery_and_uiautomator_process(rig: AndroidRig) -> None:
    dev = rig.client.device(rig.serial)
    assert dev.is_screen_on() is True
    rig.d.screen_off()
    assert dev.is_screen_on() is False and "mWakefulness=Asleep" in dev.shell("dumpsys power")
    rig.d.screen_on()
    assert dev.is_screen_on() is True
    battery = dev.battery()
    assert (battery.level, battery.present, battery.usb_powered, battery.temperature) == (
        100,
        True,
        True,
        25.0,
    )
    ps = dev.shell("ps -A | grep app_process")
    assert ps.split()[0] == "shell" and ps.split()[-1] == "app_process"  # u2.jar runs in a bare app_process
    assert [line.split()[-1] for line in dev.shell("ps -u shell").splitlines()[1:]] == ["adbd", "app_process"]
    assert dev.shell(f"ps -A {PKG}").splitlines()[-1].endswith(PKG)


def test_exec_out_uiautomator_dump_to_tty(rig: AndroidRig) -> None:
    res = subprocess.run(
        [ADB, "-P", str(rig.server.port), "exec-out", "uiautomator", "dump", "/dev/tty"],
        capture_output=True, stdin=subprocess.DEVNULL, timeout=30,
    )  # fmt: skip
    assert res.returncode == 0
    xml, _, notice = res.stdout.decode().rpartition("</hierarchy>")
    assert xml.startswith("<?xml") and 'resource-id="android:id/content"' in xml
    assert notice == "UI hierchary dumped to: /dev/tty\n"


def test_shell_quoting_and_arithmetic_like_sh(rig: AndroidRig) -> None:
    dev = rig.client.device(rig.serial)
    assert dev.shell("echo $((6 * 7)) $((7 / 2)) $((-7 % 3)) $(( (1 + 2) << 2 ))") == "42 3 -1 12"
    assert dev.shell("X=5; Y=$((X * 2)); echo \"$X and $Y\" '$X'") == "5 and 10 $X"
    assert dev.shell(["echo", "two  spaces", "it's"]) == "two  spaces it's"  # adbutils quotes each word
    assert dev.shell("echo $(getprop ro.product.model)-$?") == "Pixel 7-0"
    assert dev.shell2("echo $((1 / 0))").returncode == 1
    assert dev.shell("echo ';' '&&' \"|\" x") == "; && | x"  # quoted operators are words
    assert dev.shell("echo 'unterminated") == "/system/bin/sh: syntax error: unterminated quoted string"
    res = _adb(rig, "shell", 'echo "a;b" && false || echo fallback')
    assert res.stdout == "a;b\nfallback\n"


def test_apk_package_name_reads_a_compiled_manifest() -> None:
    # A minimal binary AndroidManifest.xml (AXML): string pool + one <manifest package="..."> element.
    import struct

    strings = ["manifest", "package", "com.example.binary"]
    encoded = b"".join(struct.pack("<H", len(s)) + s.encode("utf-16-le") + b"\x00\x00" for s in strings)
    offsets, pos = [], 0
    for s in strings:
        offsets.append(pos)
        pos += 2 + 2 * len(s) + 2
    pool_header = 28
    strings_start = pool_header + 4 * len(strings)
    pool_size = strings_start + len(encoded)
    pool = struct.pack("<HHIIIIII", 1, pool_header, pool_size, len(strings), 0, 0, strings_start, 0)
    pool += struct.pack(f"<{len(strings)}I", *offsets) + encoded
    attr = struct.pack("<IIiHBBI", 0xFFFFFFFF, 1, 2, 8, 0, 3, 2)
    element = struct.pack("<HHIII", 0x0102, 16, 16 + 20 + len(attr), 1, 0xFFFFFFFF)
    element += struct.pack("<IIHHHHHH", 0xFFFFFFFF, 0, 20, 20, 1, 0, 0, 0) + attr
    body = pool + element
    manifest = struct.pack("<HHI", 3, 8, 8 + len(body)) + body
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("AndroidManifest.xml", manifest)
    assert apk_package_name(buf.getvalue(), "x.apk") == "com.example.binary"
