"""What an APK file says about itself: the package name in its `AndroidManifest.xml`, plain text
or compiled (AXML), and the input methods it declares. Used by `--install` (which package to
reinstall) and the Android simulator's package manager and input-method registry.

`manifest_elements` walks either form as (is_start, element, attributes by local name); a compiled
manifest's attribute values keep their types (text, an integer such as `versionCode`, a boolean)."""

from __future__ import annotations

import io
import re
import struct
import zipfile
from collections.abc import Iterator
from xml.etree import ElementTree

__all__ = ["ManifestElement", "input_method_services", "manifest_elements", "manifest_package", "read_manifest"]

_ANDROID_NS = "{http://schemas.android.com/apk/res/android}"
_INPUT_METHOD_ACTION = "android.view.InputMethod"
_TYPE_STRING, _TYPE_INT_DEC, _TYPE_INT_HEX, _TYPE_BOOLEAN = 0x03, 0x10, 0x11, 0x12

ManifestElement = tuple[bool, str, dict[str, object]]
"""(is_start, element name, attributes by local name) of one start or end element."""


def read_manifest(data: bytes) -> bytes:
    """The `AndroidManifest.xml` of APK bytes. Raises zipfile.BadZipFile / KeyError / OSError."""
    with zipfile.ZipFile(io.BytesIO(data)) as apk:
        return apk.read("AndroidManifest.xml")


def manifest_package(manifest: bytes) -> str:
    """The `package` attribute of a manifest's `<manifest>` element ("" when there is none)."""
    if manifest.lstrip().startswith(b"<"):
        m = re.search(rb'<manifest\b[^>]*?\bpackage\s*=\s*"([^"]+)"', manifest)
        return m.group(1).decode("utf-8", "replace") if m else ""
    return _binary_manifest_package(manifest) or ""


def input_method_services(manifest: bytes) -> list[str]:
    """Class names (as written, often `.Name`) of the `<service>`s whose intent filter has the
    `android.view.InputMethod` action: what the system lists as the package's input methods."""
    if manifest.lstrip().startswith(b"<"):
        return _text_input_methods(manifest)
    found: list[str] = []
    service: object = None
    try:
        for start, name, attrs in _binary_elements(manifest):
            if name == "service":
                service = attrs.get("name") if start else None
            elif start and name == "action" and service and attrs.get("name") == _INPUT_METHOD_ACTION:
                found.append(str(service))
    except (struct.error, IndexError):
        return found
    return list(dict.fromkeys(found))


def _text_input_methods(manifest: bytes) -> list[str]:
    try:
        root = ElementTree.fromstring(manifest)
    except ElementTree.ParseError:
        return []
    found: list[str] = []
    for service in root.iter("service"):
        actions = {a.get(_ANDROID_NS + "name") for a in service.iter("action")}
        name = service.get(_ANDROID_NS + "name")
        if name and _INPUT_METHOD_ACTION in actions:
            found.append(name)
    return found


def manifest_elements(manifest: bytes) -> Iterator[ManifestElement]:
    """Every start and end element of a manifest, text or compiled, in document order.

    Raises:
        struct.error / IndexError: a compiled manifest that is cut short or malformed.
        ElementTree.ParseError: a text manifest that is not XML.
    """
    if not manifest.lstrip().startswith(b"<"):
        yield from _binary_elements(manifest)
        return

    def walk(node: ElementTree.Element) -> Iterator[ManifestElement]:
        yield True, node.tag, {k.removeprefix(_ANDROID_NS): v for k, v in node.attrib.items()}
        for child in node:
            yield from walk(child)
        yield False, node.tag, {}

    yield from walk(ElementTree.fromstring(manifest))


def _binary_elements(data: bytes) -> Iterator[ManifestElement]:
    """(is_start, element name, attributes by local name with typed values) of each start / end
    element of a compiled manifest, in document order."""
    if struct.unpack_from("<H", data, 0)[0] != 0x0003:
        return
    strings = _string_pool(data, 8)
    pos = 8
    while pos + 8 <= len(data):
        ctype, header_size, size = struct.unpack_from("<HHI", data, pos)
        if size <= 0:
            return
        if ctype == 0x0102:  # XML start element
            name_idx = struct.unpack_from("<I", data, pos + 20)[0]
            attr_start, attr_size, attr_count = struct.unpack_from("<HHH", data, pos + 24)
            attrs: dict[str, object] = {}
            for k in range(attr_count):
                at = pos + header_size + attr_start + k * attr_size
                _ns, attr_name, raw = struct.unpack_from("<IIi", data, at)
                value_type, value = struct.unpack_from("<BI", data, at + 15)
                if raw >= 0:
                    attrs[strings[attr_name]] = strings[raw]
                elif value_type == _TYPE_STRING:
                    attrs[strings[attr_name]] = strings[value]
                elif value_type in (_TYPE_INT_DEC, _TYPE_INT_HEX):
                    attrs[strings[attr_name]] = value
                elif value_type == _TYPE_BOOLEAN:
                    attrs[strings[attr_name]] = value != 0
            yield True, strings[name_idx], attrs
        elif ctype == 0x0103:  # XML end element
            yield False, strings[struct.unpack_from("<I", data, pos + 20)[0]], {}
        pos += size


def _binary_manifest_package(data: bytes) -> str | None:
    """The `package` attribute of the `<manifest>` element of a compiled (AXML) manifest."""
    try:
        for start, name, attrs in _binary_elements(data):
            if start and name == "manifest":
                package = attrs.get("package")
                return str(package) if package is not None else None
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
