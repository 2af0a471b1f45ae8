"""The package manager of a simulated Android phone: installs, uninstalls and runtime permissions.

The device's app spec is installed from the start. `pm install` of an APK file reads its package
name from the APK's `AndroidManifest.xml` (text or compiled binary XML) and records the package:
`pm list packages`, `pm path` and `dumpsys package` show it from then on. Such a package has no UI in
the simulator (only app specs do), so launching it finds no activity. Uninstalling the spec's own app
hides it until an APK with its package name is installed again (with fresh data).
`pm grant` / `pm revoke` are recorded per package and shown by `dumpsys package`.
"""

from __future__ import annotations

import io
import re
import struct
import threading
import zipfile
from dataclasses import dataclass, field

__all__ = ["InstallError", "PackageManager", "apk_package_name"]

_PACKAGE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")


class InstallError(Exception):
    """`pm install` failed; the message is pm's `Failure [...]` reason."""


@dataclass
class _Package:
    name: str
    path: str
    size: int
    requested: tuple[str, ...] = ()
    """`<uses-permission>` names of a text manifest (compiled manifests: not read)."""


@dataclass
class PackageManager:
    """Packages installed beyond the app spec, uninstalled spec apps, and granted permissions."""

    extra: dict[str, _Package] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    grants: dict[str, set[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def install(self, data: bytes, source: str) -> str:
        """Install an APK's bytes; returns its package name. Raises InstallError."""
        name = apk_package_name(data, source)
        with self._lock:
            self.removed.discard(name)
            self.extra[name] = _Package(
                name, f"/data/app/~~sim==/{name}-sim==/base.apk", len(data), _requested_permissions(data)
            )
        return name

    def uninstall(self, name: str, spec_apps: list[str]) -> bool:
        """Remove a package; False when it is not installed."""
        with self._lock:
            if name in self.extra:
                del self.extra[name]
            elif name in spec_apps and name not in self.removed:
                self.removed.add(name)
            else:
                return False
            self.grants.pop(name, None)
            return True

    def set_permission(self, name: str, permission: str, granted: bool) -> None:
        with self._lock:
            held = self.grants.setdefault(name, set())
            if granted:
                held.add(permission)
            else:
                held.discard(permission)

    def granted(self, name: str) -> list[str]:
        with self._lock:
            return sorted(self.grants.get(name, set()))

    def permissions(self, name: str) -> list[tuple[str, bool]]:
        """(permission, granted) for each permission the package requests or was granted."""
        with self._lock:
            held = self.grants.get(name, set())
            pkg = self.extra.get(name)
            requested = set(pkg.requested) if pkg is not None else set()
            return [(perm, perm in held) for perm in sorted(requested | held)]


def apk_package_name(data: bytes, source: str = "") -> str:
    """The `package` of an APK's manifest. Raises InstallError the way pm words it."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as apk:
            manifest = apk.read("AndroidManifest.xml")
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise InstallError(
            f"INSTALL_PARSE_FAILED_NOT_APK: Failed to parse {source}: not an APK with an AndroidManifest.xml ({exc})"
        ) from exc
    if manifest.lstrip().startswith(b"<"):
        m = re.search(rb'<manifest\b[^>]*?\bpackage\s*=\s*"([^"]+)"', manifest)
        name = m.group(1).decode("utf-8", "replace") if m else ""
    else:
        name = _binary_manifest_package(manifest) or ""
    if not _PACKAGE_NAME.match(name):
        raise InstallError(
            f"INSTALL_PARSE_FAILED_BAD_MANIFEST: Failed to parse {source}: <manifest> has no valid package name"
        )
    return name


def _requested_permissions(data: bytes) -> tuple[str, ...]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as apk:
            manifest = apk.read("AndroidManifest.xml")
    except (zipfile.BadZipFile, KeyError, OSError):
        return ()
    if not manifest.lstrip().startswith(b"<"):
        return ()
    found = re.findall(rb'<uses-permission\b[^>]*?\bandroid:name\s*=\s*"([^"]+)"', manifest)
    return tuple(dict.fromkeys(f.decode("utf-8", "replace") for f in found))


def _binary_manifest_package(data: bytes) -> str | None:
    """The `package` attribute of the `<manifest>` element of a compiled (AXML) manifest."""
    try:
        if struct.unpack_from("<H", data, 0)[0] != 0x0003:
            return None
        strings = _string_pool(data, 8)
        pos = 8
        while pos + 8 <= len(data):
            ctype, header_size, size = struct.unpack_from("<HHI", data, pos)
            if size <= 0:
                return None
            if ctype == 0x0102:  # XML start element
                name_idx = struct.unpack_from("<I", data, pos + 20)[0]
                attr_start, attr_size, attr_count = struct.unpack_from("<HHH", data, pos + 24)
                if strings[name_idx] == "manifest":
                    for k in range(attr_count):
                        at = pos + header_size + attr_start + k * attr_size
                        _ns, attr_name, raw = struct.unpack_from("<IIi", data, at)
                        if strings[attr_name] == "package" and raw >= 0:
                            return str(strings[raw])
                    return None
            pos += size
    except (struct.error, IndexError):
        return None
    return None


def _string_pool(data: bytes, at: int) -> list[str]:
    ctype, header_size, _size, count, _styles, flags, strings_start, _ = struct.unpack_from(
        "<HHIIIIII", data, at
    )
    if ctype != 0x0001:
        raise IndexError("no string pool")
    offsets = struct.unpack_from(f"<{count}I", data, at + header_size)
    base = at + strings_start
    utf8 = bool(flags & 0x100)
    out: list[str] = []
    for off in offsets:
        p = base + off
        if utf8:
            p += 2 if data[p] & 0x80 else 1  # UTF-16 length
            n = data[p]
            if n & 0x80:
                n = ((n & 0x7F) << 8) | data[p + 1]
                p += 1
            p += 1
            out.append(data[p : p + n].decode("utf-8", "replace"))
        else:
            n = struct.unpack_from("<H", data, p)[0]
            if n & 0x8000:
                n = ((n & 0x7FFF) << 16) | struct.unpack_from("<H", data, p + 2)[0]
                p += 2
            p += 2
            out.append(data[p : p + 2 * n].decode("utf-16-le", "replace"))
    return out
