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
import threading
import zipfile
from dataclasses import dataclass, field

from trailblaze.device.apk import manifest_package, read_manifest

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
    spec_requests: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """`<uses-permission>`s of an APK installed over a spec app (the spec itself declares none)."""
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
            requested = set(pkg.requested) if pkg is not None else set(self.spec_requests.get(name, ()))
            return [(perm, perm in held) for perm in sorted(requested | held)]


def apk_package_name(data: bytes, source: str = "") -> str:
    """The `package` of an APK's manifest. Raises InstallError the way pm words it."""
    try:
        manifest = read_manifest(data)
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise InstallError(
            f"INSTALL_PARSE_FAILED_NOT_APK: Failed to parse {source}: not an APK with an AndroidManifest.xml ({exc})"
        ) from exc
    name = manifest_package(manifest)
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
