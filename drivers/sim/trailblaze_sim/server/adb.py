"""A fake adb server carrying simulated Android devices, for the real `adb` and adbutils clients.

One listening socket speaks the adb host protocol (hex4-length requests, `OKAY`/`FAIL` replies):
`host:version` (41), `host:devices(-l)`, `host:track-devices`, `host:features`, transport switching
(`host:tport:serial:`, `host:tport:any`, legacy `host:transport:`/`transport-any`), `host-serial:`
device queries, forwards. Once a socket is switched to a device it carries one local service:
`shell:` (v1, output then close), `shell,v2,…:` (packets), `sync:` (an in-memory file system),
`tcp:9008` (the uiautomator2 server, `android.u2.U2Service`, served in-process on that socket) and
`tcp:6790` (Appium's UiAutomator2 server while `am instrument -w` runs it, `trailblaze_sim.appium`).

The u2 server is either already running (`u2_preinstalled=True`: `u2.jar` is on the device and
`/ping` answers) or the device is fresh: the client pushes the jar over `sync:` and launches it with
`app_process` over a shell stream, and `/ping` answers only while that stream stays open.

Usage::

    with AndroidSimServer(create_device("android")) as server:
        client = adbutils.AdbClient("127.0.0.1", server.port)
        d = uiautomator2.connect(client.device(server.serials[0]))
"""

from __future__ import annotations

import collections
import select
import socket
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Literal

from trailblaze_sim.access import from_this_process
from trailblaze_sim.android.logcat import LogcatRequest, format_entry, parse_logcat
from trailblaze_sim.android.shell import (
    U2_JAR_PATH,
    U2_MAIN_CLASS,
    AndroidShell,
    MemFS,
    split_command,
    u2_jar_bytes,
)
from trailblaze_sim.android.u2 import SocketReader, U2Service
from trailblaze_sim.appium.instrumentation import InstrumentationRun
from trailblaze_sim.appium.phone import AppiumPhone
from trailblaze_sim.faults import Conditions
from trailblaze_sim.model import SimDevice

__all__ = ["ADB_SERVER_VERSION", "DEVICE_FEATURES", "U2_PORT", "AndroidSimServer"]

Service = Callable[[SocketReader], None]
"""What serves one connection to a device-side port."""

ADB_SERVER_VERSION = 41
U2_PORT = 9008
# What an API-34 adbd advertises, minus the sync v2 variants (STA2/LST2/SND2) this server does not speak.
DEVICE_FEATURES = "shell_v2,cmd,fixed_push_mkdir,fixed_push_symlink_timestamp,apex,remount_shell,track_app"
_HOST_FEATURES = DEVICE_FEATURES + ",push_sync,devicetracker_proto_format"
_X4EXIT = "; echo X4EXIT:$?"
_SYNC_CHUNK = 64 * 1024


@dataclass
class _Forward:
    serial: str
    local: str
    remote: str
    listener: socket.socket
    thread: threading.Thread | None = None


@dataclass
class _DeviceState:
    """Everything the server keeps per device: its file system, shell and u2 server."""

    device: SimDevice
    conditions: Conditions
    """This device's latency and faults (an `offline` device leaves `host:devices`)."""
    transport_id: int
    fs: MemFS
    u2: U2Service
    shell: AndroidShell
    u2_resident: bool
    """The u2 server was already running before any client came (the preinstalled path)."""
    appium: AppiumPhone
    """Appium's helper apps and the UiAutomator2 server instrumentation (device port 6790)."""
    launches: int = 0
    """`app_process … com.wetest.uia2.Main` streams currently open."""
    kills: int = 0
    """How many times the u2 process was killed (`kill PID`): each kill ends the streams open then."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def serial(self) -> str:
        return self.device.serial

    @property
    def u2_alive(self) -> bool:
        return self.u2_resident or self.launches > 0


def _own_conditions(device: SimDevice) -> Conditions:
    own = getattr(device, "conditions", None)
    return own if isinstance(own, Conditions) else Conditions()


class _Closed(Exception):
    """The peer went away in the middle of a request."""


class AndroidSimServer:
    """A fake adb server (one TCP listener, a thread per connection) for a pool of simulated devices.

    Args:
        devices: One device or several (each needs a distinct `serial`, e.g. `emulator-5554`).
        conditions: One latency profile and fault set for every device, overriding their own. By
            default each device's own `conditions` apply to its requests only (zero latency and no
            faults for a device without one), so faulting one device leaves the others alone.
        host: Address to bind; keep it on loopback.
        port: Port to bind; 0 picks a free one (read it back from `.port`).
        u2_preinstalled: True: the uiautomator2 server is already running on each device. False: a
            fresh device, the client must push `u2.jar` and launch it.
        private: Serve only connections from this process, on the server's port and its forwards
            (an in-process replay: its clients run here; `trailblaze_sim.access`).
    """

    def __init__(
        self,
        devices: Sequence[SimDevice] | SimDevice,
        *,
        conditions: Conditions | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        u2_preinstalled: bool = True,
        private: bool = False,
    ) -> None:
        devs: list[SimDevice] = [devices] if not isinstance(devices, Sequence) else list(devices)
        if not devs:
            raise ValueError("AndroidSimServer needs at least one device")
        serials = [d.serial for d in devs]
        if len(set(serials)) != len(serials):
            raise ValueError(f"device serials must be distinct, got {serials}")
        own = [conditions or _own_conditions(d) for d in devs]
        self.conditions: Conditions = own[0]
        """The first device's conditions (all of them for a single device)."""
        self.host = host
        self._requested_port = port
        self.u2_preinstalled = u2_preinstalled
        self.private = private
        self._states: dict[str, _DeviceState] = {}
        for i, (dev, cond) in enumerate(zip(devs, own, strict=True), start=1):
            fs = MemFS()
            if u2_preinstalled:
                fs.write(U2_JAR_PATH, u2_jar_bytes(), 0o100644)
            u2 = U2Service(dev, cond)
            shell = AndroidShell(dev, fs, u2)
            state = _DeviceState(
                device=dev,
                conditions=cond,
                transport_id=i,
                fs=fs,
                u2=u2,
                shell=shell,
                u2_resident=u2_preinstalled,
                appium=AppiumPhone(dev, shell, u2, cond),
            )
            state.shell.processes.u2_alive = lambda st=state: st.u2_alive  # type: ignore[misc]
            state.shell.processes.kill_u2 = lambda st=state: self._kill_u2(st)  # type: ignore[misc]
            self._states[dev.serial] = state
        self.log: collections.deque[str] = collections.deque(maxlen=2000)
        """Every host request and local service asked for, oldest first (`serial|service` once switched)."""
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._conns: set[socket.socket] = set()
        self._threads: set[threading.Thread] = set()
        self._forwards: dict[str, _Forward] = {}
        self._lock = threading.Lock()

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (valid after `start()`)."""
        if self._listener is None:
            raise RuntimeError("AndroidSimServer is not started")
        return int(self._listener.getsockname()[1])

    @property
    def serials(self) -> list[str]:
        return list(self._states)

    def device(self, serial: str) -> SimDevice:
        return self._states[serial].device

    def u2_service(self, serial: str) -> U2Service:
        return self._states[serial].u2

    def filesystem(self, serial: str) -> MemFS:
        return self._states[serial].fs

    def u2_running(self, serial: str) -> bool:
        """Whether the device's uiautomator2 server answers `/ping` right now."""
        return self._states[serial].u2_alive

    def start(self) -> AndroidSimServer:
        """Bind and start accepting; returns self."""
        if self._listener is not None:
            return self
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((self.host, self._requested_port))
            listener.listen(64)
            listener.settimeout(0.2)
        except OSError:
            listener.close()
            raise
        self._listener = listener
        self._stopping.clear()
        self._accept_thread = threading.Thread(
            target=self._accept_loop, args=(listener, None), name=f"adb-sim:{self.port}", daemon=True
        )
        self._accept_thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, close every connection and forward, wait for the threads."""
        self._stopping.set()
        listener, self._listener = self._listener, None
        if self._accept_thread is not None:
            self._accept_thread.join(timeout=2)
            self._accept_thread = None
        if listener is not None:
            listener.close()
        with self._lock:
            forwards = list(self._forwards.values())
            self._forwards.clear()
            conns = list(self._conns)
            threads = list(self._threads)
        for fwd in forwards:
            self._close_forward(fwd)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in threads:
            t.join(timeout=2)

    def __enter__(self) -> AndroidSimServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # --- connections -----------------------------------------------------------------------

    def _accept_loop(self, listener: socket.socket, forward: _Forward | None) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            t = threading.Thread(target=self._serve_conn, args=(conn, forward), daemon=True)
            with self._lock:
                if self._stopping.is_set():
                    conn.close()
                    return
                self._conns.add(conn)
                self._threads.add(t)
            t.name = f"adb-sim-conn:{t.ident or id(t)}"
            t.start()

    def _serve_conn(self, conn: socket.socket, forward: _Forward | None) -> None:
        reader = SocketReader(conn)
        try:
            if self.private and not from_this_process(conn):
                return  # another process: closed before a byte is read or written
            if forward is None:
                self._host_conversation(reader)
            else:
                state = self._states.get(forward.serial)
                port = _tcp_port(forward.remote)
                serve = self._device_service(state, port) if state is not None and port is not None else None
                if serve is not None:
                    serve(reader)
        except (OSError, _Closed):
            pass
        finally:
            _close(conn)
            with self._lock:
                self._conns.discard(conn)
                self._threads.discard(threading.current_thread())

    def _host_conversation(self, reader: SocketReader) -> None:
        request = _read_request(reader)
        if request is None:
            return
        self.log.append(request)
        sock = reader.sock
        switched = self._switch(request, sock)
        if switched is None:
            self._host_service(request, reader)
            return
        if switched is False:
            return
        service = _read_request(reader)
        if service is None:
            return
        self.log.append(f"{switched.serial}|{service}")
        self._local_service(switched, service, reader)

    # --- host services ---------------------------------------------------------------------

    def _visible(self) -> list[_DeviceState]:
        return [s for s in self._states.values() if not s.conditions.offline]

    def _select(
        self, serial: str | None, sock: socket.socket, *, transport_id: int | None = None
    ) -> _DeviceState | None:
        """The device a request names (None = any), or None after sending the FAIL adb would."""
        if transport_id is not None:
            state = next((s for s in self._states.values() if s.transport_id == transport_id), None)
            if state is None:
                _fail(sock, f"no device with transport id '{transport_id}'")
                return None
        elif serial is None:
            visible = self._visible()
            if not visible:
                _fail(sock, "no devices/emulators found")
                return None
            if len(visible) > 1:
                _fail(sock, "more than one device/emulator")
                return None
            state = visible[0]
        else:
            found = self._states.get(serial)
            if found is None:
                _fail(sock, f"device '{serial}' not found")
                return None
            state = found
        if state.conditions.offline:
            _fail(sock, "device offline")
            return None
        return state

    def _switch(self, request: str, sock: socket.socket) -> _DeviceState | Literal[False] | None:
        """Handle a transport-switching request: the chosen device, False after a FAIL, None if
        `request` is not a switch."""
        tport = request.startswith("host:tport:")
        what = request[len("host:tport:") :] if tport else request.removeprefix("host:")
        if not tport and not request.startswith("host:transport"):
            return None
        serial: str | None = None
        transport_id: int | None = None
        if what.startswith("serial:"):
            serial = what[len("serial:") :]
        elif what.startswith("transport:"):
            serial = what[len("transport:") :]
        elif what.startswith("transport-id:") or what.startswith("id:"):
            try:
                transport_id = int(what.split(":", 1)[1])
            except ValueError:
                _fail(sock, f"invalid transport id '{what}'")
                return False
        elif what in ("any", "usb", "local", "transport-any", "transport-usb", "transport-local"):
            serial = None
        else:
            return None
        state = self._select(serial, sock, transport_id=transport_id)
        if state is None:
            return False
        if tport:
            sock.sendall(b"OKAY" + struct.pack("<Q", state.transport_id))
        else:
            sock.sendall(b"OKAY")
        return state

    def _devices_block(self, long: bool) -> str:
        lines = []
        for s in self._visible():
            if long:
                model = s.device.model.replace(" ", "_")
                lines.append(
                    f"{s.serial:<22} device product:sdk_gphone64_x86_64 model:{model} device:emu64xa "
                    f"transport_id:{s.transport_id}\n"
                )
            else:
                lines.append(f"{s.serial}\tdevice\n")
        return "".join(lines)

    def _host_service(self, request: str, reader: SocketReader) -> None:
        sock = reader.sock
        if request.startswith("host-serial:"):
            serial, cmd = self._split_serial(request[len("host-serial:") :])
            state = self._select(serial, sock)
            if state is not None:
                self._device_query(state, cmd, reader)
            return
        if request.startswith("host-transport-id:"):
            tid, _, cmd = request[len("host-transport-id:") :].partition(":")
            try:
                state = self._select(None, sock, transport_id=int(tid))
            except ValueError:
                _fail(sock, f"invalid transport id '{tid}'")
                return
            if state is not None:
                self._device_query(state, cmd, reader)
            return
        if request.startswith(("host-usb:", "host-local:")):
            state = self._select(None, sock)
            if state is not None:
                self._device_query(state, request.split(":", 1)[1], reader)
            return
        if not request.startswith("host:"):
            _fail(sock, f"unknown host service '{request}'")
            return
        cmd = request[len("host:") :]
        if cmd == "version":
            _okay(sock, f"{ADB_SERVER_VERSION:04x}")
        elif cmd in ("devices", "devices-l"):
            _okay(sock, self._devices_block(cmd == "devices-l"))
        elif cmd in ("track-devices", "track-devices-l"):
            self._track_devices(reader, cmd == "track-devices-l")
        elif cmd == "host-features":
            _okay(sock, _HOST_FEATURES)
        elif cmd == "kill":
            sock.sendall(b"OKAY")
            threading.Thread(target=self.stop, name="adb-sim-kill", daemon=True).start()
        elif cmd == "list-forward":
            _okay(sock, self._forward_list(None))
        elif cmd == "killforward-all":
            self._kill_forwards(None)
            sock.sendall(b"OKAYOKAY")
        elif cmd.startswith("connect:"):
            _okay(sock, f"failed to connect to '{cmd[len('connect:') :]}': Connection refused")
        elif cmd.startswith("disconnect:"):
            _okay(sock, f"error: no such device '{cmd[len('disconnect:') :]}'")
        elif cmd in ("features", "get-state", "get-serialno", "get-devpath") or cmd.startswith(
            ("wait-for-", "forward:", "killforward:")
        ):
            state = self._select(None, sock) if not cmd.startswith("wait-for-") else None
            if cmd.startswith("wait-for-"):
                self._wait_for(reader, None)
            elif state is not None:
                self._device_query(state, cmd, reader)
        else:
            _fail(sock, f"unknown host service '{request}'")

    def _split_serial(self, rest: str) -> tuple[str, str]:
        # serials can contain ':' (ip:port), so prefer a known serial over the first colon
        for serial in self._states:
            if rest.startswith(serial + ":"):
                return serial, rest[len(serial) + 1 :]
        serial, _, cmd = rest.partition(":")
        return serial, cmd

    def _device_query(self, state: _DeviceState, cmd: str, reader: SocketReader) -> None:
        sock = reader.sock
        if cmd == "features":
            _okay(sock, DEVICE_FEATURES)
        elif cmd == "get-state":
            _okay(sock, "device")
        elif cmd == "get-serialno":
            _okay(sock, state.serial)
        elif cmd == "get-devpath":
            _okay(sock, f"emulator:{state.serial.rsplit('-', 1)[-1]}")
        elif cmd.startswith("wait-for-"):
            self._wait_for(reader, state)
        elif cmd.startswith("forward:"):
            self._forward(state, cmd[len("forward:") :], sock)
        elif cmd.startswith("killforward:"):
            local = cmd[len("killforward:") :]
            with self._lock:
                fwd = self._forwards.pop(local, None)
            if fwd is None:
                _fail(sock, f"listener '{local}' not found")
                return
            self._close_forward(fwd)
            sock.sendall(b"OKAYOKAY")  # connect, then status (adb's client reads both)
        elif cmd == "list-forward":
            _okay(sock, self._forward_list(state.serial))
        elif cmd == "killforward-all":
            self._kill_forwards(state.serial)
            sock.sendall(b"OKAYOKAY")
        else:
            _fail(sock, f"unknown host service '{cmd}'")

    def _wait_for(self, reader: SocketReader, state: _DeviceState | None) -> None:
        """`wait-for-*`: OKAY now, a second OKAY once the device is online (until the client gives up)."""
        sock = reader.sock
        sock.sendall(b"OKAY")
        while not self._stopping.is_set():
            if self._visible() and (state is None or state in self._visible()):
                sock.sendall(b"OKAY")
                return
            if _peer_closed(sock, 0.1):
                return

    def _track_devices(self, reader: SocketReader, long: bool) -> None:
        sock = reader.sock
        sock.sendall(b"OKAY")
        last: str | None = None
        while not self._stopping.is_set():
            block = self._devices_block(long)
            if block != last:
                data = block.encode()
                sock.sendall(f"{len(data):04x}".encode() + data)
                last = block
            if _peer_closed(sock, 0.2):
                return

    # --- forwards --------------------------------------------------------------------------

    def _forward(self, state: _DeviceState, spec: str, sock: socket.socket) -> None:
        norebind = spec.startswith("norebind:")
        spec = spec.removeprefix("norebind:")
        local, _, remote = spec.partition(";")
        if not local.startswith("tcp:") or _tcp_port(remote) is None:
            _fail(sock, f"cannot bind listener: unsupported forward '{spec}' (only tcp:N;tcp:M)")
            return
        with self._lock:
            existing = self._forwards.get(local)
        if existing is not None:
            if norebind:
                _fail(sock, f"cannot rebind existing socket '{local}'")
                return
            with self._lock:
                self._forwards.pop(local, None)
            self._close_forward(existing)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((self.host, int(local[len("tcp:") :])))
            listener.listen(16)
            listener.settimeout(0.2)
        except (OSError, ValueError) as exc:
            listener.close()
            _fail(sock, f"cannot bind listener: {exc}")
            return
        bound = f"tcp:{listener.getsockname()[1]}"
        fwd = _Forward(state.serial, bound, remote, listener)
        fwd.thread = threading.Thread(
            target=self._accept_loop, args=(listener, fwd), name=f"adb-sim-fwd:{bound}", daemon=True
        )
        with self._lock:
            self._forwards[bound] = fwd
        fwd.thread.start()
        if local == "tcp:0":
            sock.sendall(b"OKAY")
            _okay(sock, bound[len("tcp:") :])
        else:
            sock.sendall(b"OKAYOKAY")

    def _forward_list(self, serial: str | None) -> str:
        with self._lock:
            fwds = list(self._forwards.values())
        return "".join(
            f"{f.serial} {f.local} {f.remote}\n" for f in fwds if serial is None or f.serial == serial
        )

    def _kill_forwards(self, serial: str | None) -> None:
        with self._lock:
            doomed = [k for k, f in self._forwards.items() if serial is None or f.serial == serial]
            fwds = [self._forwards.pop(k) for k in doomed]
        for fwd in fwds:
            self._close_forward(fwd)

    def _close_forward(self, fwd: _Forward) -> None:
        try:
            fwd.listener.shutdown(socket.SHUT_RDWR)  # wakes its accept() now rather than at its timeout
        except OSError:
            pass
        fwd.listener.close()
        if fwd.thread is not None and fwd.thread is not threading.current_thread():
            fwd.thread.join(timeout=1)

    # --- local services --------------------------------------------------------------------

    def _local_service(self, state: _DeviceState, service: str, reader: SocketReader) -> None:
        sock = reader.sock
        if state.conditions.offline:
            _fail(sock, "device offline")
            return
        if service.startswith(("shell:", "exec:")):
            self._shell_v1(state, service.split(":", 1)[1], reader)
        elif service.startswith("shell,"):
            options, _, command = service.partition(":")
            if "v2" not in options.split(","):
                self._shell_v1(state, command, reader)
            else:
                self._shell_v2(state, command, reader)
        elif service == "sync:":
            sock.sendall(b"OKAY")
            self._sync(state, reader)
        elif service.startswith("tcp:"):
            port = _tcp_port(service)
            serve = self._device_service(state, port) if port is not None else None
            if serve is None:
                # adbd could not connect to the device-side port: the stream closes at once
                _fail(sock, "closed")
                return
            sock.sendall(b"OKAY")
            serve(reader)
        elif service == "root:":
            sock.sendall(b"OKAY" + b"adbd is already running as root\n")
        elif service.startswith("host:"):
            # the adb client names the device first (`host:tport:any`), then asks e.g. `host:forward:`
            self._device_query(state, service[len("host:") :], reader)
        elif service.startswith("reverse:list-forward"):
            sock.sendall(b"OKAY")
            _okay(sock, "")
        else:
            _fail(sock, "closed")

    @staticmethod
    def _device_service(state: _DeviceState, port: int) -> Service | None:
        """What listens on device port `port`: u2's server on 9008, Appium's UiAutomator2 server on
        6790 while its instrumentation runs; None when the port is closed."""
        if state.conditions.offline:
            return None
        if port == U2_PORT and state.u2_alive:
            return state.u2.serve
        return state.appium.service(port)

    def _shell_v1(self, state: _DeviceState, command: str, reader: SocketReader) -> None:
        sock = reader.sock
        run = state.appium.instrument_stream(command)
        if run is not None:
            self._instrumentation(run, reader, v2=False)
            return
        if _is_u2_launch(command):
            self._u2_launch(state, command, reader)
            return
        follow = _logcat_follow(command)
        if follow is not None:
            self._logcat_follow(state, follow, reader)
            return
        size = _streamed_install_size(command)
        if size is not None:
            # `adb install` (streamed): once the stream is open the APK follows on it
            sock.sendall(b"OKAY")
            data = reader.read_exact(size)
            if data is None:
                return
            sock.sendall(state.shell.run(command, data).output)
            return
        result = state.shell.run(command)
        sock.sendall(b"OKAY" + result.output)

    def _logcat_follow(
        self, state: _DeviceState, req: LogcatRequest, reader: SocketReader, *, v2: bool = False
    ) -> None:
        """`logcat` without `-d`: what the buffer holds, then each new line until the client hangs up."""
        sock = reader.sock

        def out(text: str) -> bytes:
            data = text.encode()
            return struct.pack("<BI", 1, len(data)) + data if v2 and data else data

        log = state.shell.device_log()
        if log is None:
            sock.sendall(b"OKAY")
            return
        cursor = log.written
        sock.sendall(b"OKAY" + out(req.render(log)))
        while not self._stopping.is_set():
            entries, cursor = log.since(cursor)
            lines = "".join(format_entry(e, req.format) + "\n" for e in entries if req.wants(e))
            if lines:
                sock.sendall(out(lines))
            if _peer_closed(sock, 0.02):  # a phone's logcat prints a line as soon as it is written
                return

    def _shell_v2(self, state: _DeviceState, command: str, reader: SocketReader) -> None:
        sock = reader.sock
        run = state.appium.instrument_stream(command)
        if run is not None:
            self._instrumentation(run, reader, v2=True)
            return
        follow = _logcat_follow(command)
        if follow is not None:
            self._logcat_follow(state, follow, reader, v2=True)
            return
        result = state.shell.run(command)
        packets = bytearray(b"OKAY")
        for ident, data in ((1, result.stdout), (2, result.stderr)):
            for i in range(0, len(data), _SYNC_CHUNK):
                chunk = data[i : i + _SYNC_CHUNK]
                packets += struct.pack("<BI", ident, len(chunk)) + chunk
        packets += struct.pack("<BIB", 3, 1, result.rc & 0xFF)
        sock.sendall(packets)

    def _instrumentation(self, run: InstrumentationRun, reader: SocketReader, *, v2: bool) -> None:
        """`am instrument -w`: the stream stays open while the instrumentation runs, then carries
        am's last words and exit code; hanging up ends the instrumentation."""
        sock = reader.sock

        def out(text: str) -> bytes:
            data = text.encode()
            return struct.pack("<BI", 1, len(data)) + data if v2 and data else data

        sock.sendall(b"OKAY" + out(run.banner()))
        try:
            while not run.wait(0.02):
                if self._stopping.is_set() or _peer_closed(sock, 0.03):
                    return
        finally:
            run.finish(crashed=True)  # no-op when it ended on its own
        text, rc = run.result()
        sock.sendall(out(text) + (struct.pack("<BIB", 3, 1, rc & 0xFF) if v2 else b""))

    def _u2_launch(self, state: _DeviceState, command: str, reader: SocketReader) -> None:
        """`CLASSPATH=… app_process / com.wetest.uia2.Main`: the u2 server lives while this stream does."""
        sock = reader.sock
        words = split_command(command)
        env = dict(w.split("=", 1) for w in words if "=" in w and w.split("=", 1)[0].isidentifier())
        jar = env.get("CLASSPATH", "")
        data = state.fs.read(jar) if jar else None
        if data is None:
            sock.sendall(
                b"OKAY" + f"Error: Could not find class '{U2_MAIN_CLASS}' in CLASSPATH '{jar}'\n".encode()
            )
            return
        with state.lock:
            state.launches += 1
            generation = state.kills
        try:
            sock.sendall(b"OKAY" + b"[server] INFO: [UiAutomator2Server] Starting Server\n")
            while not self._stopping.is_set() and state.kills == generation:
                if _peer_closed(sock, 0.2):
                    return
        finally:
            with state.lock:
                state.launches -= 1

    @staticmethod
    def _kill_u2(state: _DeviceState) -> None:
        """`kill` of the u2 server's process: the resident server and every launch stream end."""
        with state.lock:
            state.u2_resident = False
            state.kills += 1

    def _sync(self, state: _DeviceState, reader: SocketReader) -> None:
        sock = reader.sock
        fs = state.fs
        while True:
            header = reader.read_exact(8)
            if header is None:
                return
            ident = header[:4]
            (length,) = struct.unpack("<I", header[4:])
            if ident == b"QUIT":
                return
            raw = reader.read_exact(length)
            if raw is None:
                return
            path = raw.decode("utf-8", errors="replace")
            if ident == b"STAT":
                st = fs.stat(path) or (0, 0, 0)
                sock.sendall(b"STAT" + struct.pack("<III", *st))
            elif ident == b"LIST":
                out = bytearray()
                for name, mode, size, mtime in fs.listdir(path) or []:
                    encoded = name.encode()
                    out += b"DENT" + struct.pack("<IIII", mode, size, mtime, len(encoded)) + encoded
                out += b"DONE" + struct.pack("<IIII", 0, 0, 0, 0)
                sock.sendall(out)
            elif ident == b"RECV":
                data = fs.read(path)
                if data is None:
                    msg = b"No such file or directory" if fs.stat(path) is None else b"Is a directory"
                    sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                    continue
                out = bytearray()
                for i in range(0, len(data), _SYNC_CHUNK):
                    chunk = data[i : i + _SYNC_CHUNK]
                    out += b"DATA" + struct.pack("<I", len(chunk)) + chunk
                out += b"DONE" + struct.pack("<I", 0)
                sock.sendall(out)
            elif ident == b"SEND":
                self._sync_send(fs, path, reader)
            else:
                msg = f"unknown sync request {ident!r}".encode()
                sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                return

    def _sync_send(self, fs: MemFS, spec: str, reader: SocketReader) -> None:
        path, _, mode_s = spec.rpartition(",")
        if not path:
            path, mode_s = spec, "33188"
        try:
            mode = int(mode_s)
        except ValueError:
            mode = 0o100644
        data = bytearray()
        mtime = 0
        while True:
            header = reader.read_exact(8)
            if header is None:
                raise _Closed
            ident = header[:4]
            (n,) = struct.unpack("<I", header[4:])
            if ident == b"DATA":
                chunk = reader.read_exact(n)
                if chunk is None:
                    raise _Closed
                data += chunk
            elif ident == b"DONE":
                mtime = n
                break
            else:
                raise _Closed
        fs.mkdir(fs.norm(path).rsplit("/", 1)[0] or "/", parents=True)  # adbd creates missing folders
        if fs.write(path, bytes(data), mode, mtime or None):
            reader.sock.sendall(b"OKAY" + struct.pack("<I", 0))
        else:
            msg = f"couldn't create file: {path}: No such file or directory".encode()
            reader.sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)

    def iter_states(self) -> Iterator[tuple[str, bool]]:
        """(serial, u2 running) for each device; for status displays."""
        for serial, state in self._states.items():
            yield serial, state.u2_alive


# --- wire helpers ---------------------------------------------------------------------------


def _read_request(reader: SocketReader) -> str | None:
    head = reader.read_exact(4)
    if head is None:
        return None
    try:
        n = int(head, 16)
    except ValueError:
        return None
    body = reader.read_exact(n)
    if body is None:
        return None
    return body.decode("utf-8", errors="replace")


def _okay(sock: socket.socket, payload: str) -> None:
    data = payload.encode()
    sock.sendall(b"OKAY" + f"{len(data):04x}".encode() + data)


def _fail(sock: socket.socket, message: str) -> None:
    data = message.encode()
    sock.sendall(b"FAIL" + f"{len(data):04x}".encode() + data)


def _tcp_port(spec: str) -> int | None:
    parts = spec.split(":")
    if len(parts) < 2 or parts[0] != "tcp":
        return None
    try:
        return int(parts[1])
    except ValueError:
        return None


def _words(command: str) -> list[str]:
    try:
        return split_command(command)
    except ValueError:
        return []


def _logcat_follow(command: str) -> LogcatRequest | None:
    """The request of a plain `logcat ...` command that follows the log (no -d, -c, -t)."""
    words = _words(command)
    if ";" in words and words[:1] == ["export"]:
        words = words[words.index(";") + 1 :]  # the adb client's `export ANDROID_LOG_TAGS=""; exec logcat`
    words = words[1:] if words[:1] == ["exec"] else words
    if words[:1] != ["logcat"] or any(w in (";", "&&", "||", "|", ">") for w in words):
        return None
    req = parse_logcat(words[1:])
    if isinstance(req, str) or req.dump or req.clear:
        return None
    return req


def _streamed_install_size(command: str) -> int | None:
    """N of `cmd package install -S N` / `pm install -S N` (adb's streamed install), else None."""
    words = _words(command)
    if words[:3] != ["cmd", "package", "install"] and words[:2] != ["pm", "install"]:
        return None
    if "-S" in words[:-1]:
        size = words[words.index("-S") + 1]
        return int(size) if size.isdigit() else None
    return None


def _is_u2_launch(command: str) -> bool:
    cmd = command.removesuffix(_X4EXIT)
    return "app_process" in cmd and U2_MAIN_CLASS in cmd


def _peer_closed(sock: socket.socket, timeout: float) -> bool:
    """Wait up to `timeout` for the peer; True once it closed (input it sends is discarded)."""
    try:
        ready, _, _ = select.select([sock], [], [], timeout)
        if not ready:
            return False
        return not sock.recv(65536)
    except (OSError, ValueError):
        return True


def _close(sock: socket.socket) -> None:
    """Half-close, let the client read to EOF and hang up, then close (avoids RST eating replies)."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(1.0)
        while sock.recv(65536):
            pass
    except OSError:
        pass
    finally:
        sock.close()
