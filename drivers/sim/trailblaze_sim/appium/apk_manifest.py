"""What the package manager reads from an APK's compiled `AndroidManifest.xml` (Android binary XML):
the package, its version, its components and the instrumentations it declares.

appium-adb decides whether to (re)install Appium's helper APKs by comparing `versionCode` /
`versionName` from `dumpsys package` with the APK's own, and the UiAutomator2 driver looks for its
instrumentation in `pm list instrumentation`; both must come from the APK as on a phone. Attribute
values in binary XML are typed (a string, or a decimal / hex integer, or a boolean):
`trailblaze.device.apk.manifest_elements` keeps them, for compiled and text manifests alike.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass, field
from xml.etree import ElementTree

from trailblaze.device.apk import ManifestElement, manifest_elements

__all__ = ["Component", "Manifest", "read_apk_manifest"]


@dataclass(frozen=True)
class Component:
    """An `<activity>`, `<service>` or `<receiver>`: its full class name and intent-filter actions."""

    kind: str
    name: str
    actions: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()


@dataclass(frozen=True)
class Manifest:
    package: str
    version_code: int | None = None
    version_name: str | None = None
    components: tuple[Component, ...] = ()
    instrumentations: tuple[tuple[str, str], ...] = ()
    """(runner class, target package) of each `<instrumentation>`."""
    permissions: tuple[str, ...] = field(default=())
    """`<uses-permission>` names."""

    def component(self, kind: str, name: str) -> Component | None:
        """The component `name` names (`.Short`, `pkg/.Short`, or the full class), if declared."""
        cls = name.split("/", 1)[1] if "/" in name else name
        full = self.package + cls if cls.startswith(".") else cls
        return next((c for c in self.components if c.kind == kind and c.name == full), None)

    @property
    def launcher_activity(self) -> str | None:
        found = next(
            (
                c
                for c in self.components
                if c.kind == "activity"
                and "android.intent.action.MAIN" in c.actions
                and "android.intent.category.LAUNCHER" in c.categories
            ),
            None,
        )
        return found.name if found is not None else None


def read_apk_manifest(data: bytes) -> Manifest | None:
    """The manifest of APK bytes; None when it is not an APK this reader understands."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as apk:
            raw = apk.read("AndroidManifest.xml")
    except (zipfile.BadZipFile, KeyError, OSError):
        return None
    try:
        elements = list(manifest_elements(raw))
    except (struct.error, IndexError, UnicodeDecodeError, ElementTree.ParseError):
        return None
    return _manifest(elements)


def _manifest(elements: list[ManifestElement]) -> Manifest | None:
    package = ""
    version_code: int | None = None
    version_name: str | None = None
    components: list[Component] = []
    instrumentations: list[tuple[str, str]] = []
    permissions: list[str] = []
    current: tuple[str, str] | None = None
    actions: list[str] = []
    categories: list[str] = []
    for start, name, attrs in elements:
        if start and name == "manifest":
            package = str(attrs.get("package", ""))
            code = attrs.get("versionCode")
            version_code = (
                code if isinstance(code, int) else (int(str(code)) if str(code).isdigit() else None)
            )
            version_name = str(attrs["versionName"]) if "versionName" in attrs else None
        elif name in ("activity", "activity-alias", "service", "receiver"):
            if start:
                cls = str(attrs.get("name", ""))
                current = (name.removesuffix("-alias"), package + cls if cls.startswith(".") else cls)
                actions, categories = [], []
            elif current is not None:
                components.append(Component(current[0], current[1], tuple(actions), tuple(categories)))
                current = None
        elif start and name == "action" and current is not None:
            actions.append(str(attrs.get("name", "")))
        elif start and name == "category" and current is not None:
            categories.append(str(attrs.get("name", "")))
        elif start and name == "instrumentation":
            instrumentations.append((str(attrs.get("name", "")), str(attrs.get("targetPackage", ""))))
        elif start and name == "uses-permission":
            permissions.append(str(attrs.get("name", "")))
    if not package:
        return None
    return Manifest(
        package, version_code, version_name, tuple(components), tuple(instrumentations), tuple(permissions)
    )
