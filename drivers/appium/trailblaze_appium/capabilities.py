"""Appium capabilities files (`--capabilities FILE`): W3C capabilities in YAML or JSON.

A file holds one device's capabilities (a mapping), several devices' (a list of mappings: a farm
matrix, one pytest pool device each), or the W3C request form `{alwaysMatch, firstMatch}` (optionally
under `capabilities`), where each `firstMatch` entry merged over `alwaysMatch` is one device.

Each set is normalised the way Appium expects it on the wire:
- every key that is neither a W3C capability nor already vendor-prefixed (`bstack:options`) gets the
  `appium:` prefix (`deviceName` → `appium:deviceName`), so a file copied from an older Appium
  example still works;
- `platformName` is required and picks the page-source parser: Android (UiAutomator2) or iOS
  (XCUITest); `appium:automationName` defaults to UiAutomator2 / XCUITest;
- `${NAME}` in a string value is replaced by the environment variable NAME, so a file can live in
  the repository without its credentials. Every value read that way is registered as a secret (named
  after its variable) and redacted everywhere, whatever key it sits under: a file can name any
  variable (`udid: ${AWS_SECRET_ACCESS_KEY}`), and the server may quote the capabilities back in an
  error, so no key name can tell a credential from a harmless value. It is still sent in the
  capability it was written in (that is what the file asks for). A value too short to redact is refused.

Problems are reported as `file:line:col: message` with the fix, like trail files.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from trailblaze.errors import Problem, TrailFileError, UsageError

__all__ = [
    "CapabilitySet",
    "load_capabilities",
    "normalise_capabilities",
    "select_capabilities",
]

W3C_KEYS = frozenset(
    {
        "acceptInsecureCerts", "browserName", "browserVersion", "pageLoadStrategy", "platformName",
        "proxy", "setWindowRect", "strictFileInteractability", "timeouts", "unhandledPromptBehavior",
        "webSocketUrl", "userAgent",
    }
)  # fmt: skip
_PLATFORMS: dict[str, tuple[Literal["android", "ios"], str]] = {
    "android": ("android", "UiAutomator2"),
    "ios": ("ios", "XCUITest"),
}
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_SUFFIX = re.compile(r"^(?P<path>.*)\[(?P<index>\d+)\]$")


@dataclass(frozen=True)
class CapabilitySet:
    """One device's capabilities, normalised; hashable, so a `DeviceSpec` can carry it."""

    source: str
    """Where it came from, as a person names it: `caps.yaml`, `matrix.yaml[2]`."""
    platform: Literal["android", "ios"]
    text: str
    """The capabilities as canonical JSON (sorted keys)."""

    def as_dict(self) -> dict[str, Any]:
        value = json.loads(self.text)
        assert isinstance(value, dict)
        return value

    @property
    def label(self) -> str:
        """A short name for listings: the device name and OS version when the file gives them."""
        caps = self.as_dict()
        name = caps.get("appium:deviceName") or caps.get("appium:udid") or ""
        version = caps.get("appium:platformVersion") or ""
        return " ".join(str(p) for p in (name, version) if p) or self.platform

    @property
    def driver(self) -> str:
        """The driver a `DeviceSpec` carrying these is opened with."""
        return "appium"

    def spec_text(self, target: str | None) -> str:
        return f"appium:{target}#{self.source}"

    def plugin_options(self) -> dict[str, str]:
        return {"capabilities": self.text, "capabilities_source": self.source}


def load_capabilities(path: str) -> list[CapabilitySet]:
    """Every capability set in the file at `path` (one per device), normalised.

    Raises:
        UsageError: no such file, or not a regular file.
        TrailFileError: not YAML/JSON, or a set that is not usable (`path:line:col: message`).
    """
    from trailblaze.common.text_files import read_trail_text
    from trailblaze.common.yaml_lines import YamlSyntaxError, parse_document

    text = read_trail_text(path, "capabilities file")
    try:
        doc = parse_document(text)
    except YamlSyntaxError as exc:
        raise TrailFileError(path, [Problem(p.line, p.column, p.message) for p in exc.problems]) from None
    data = doc.data

    def fail(where: tuple[Any, ...], message: str, key: bool = False) -> TrailFileError:
        line, column = doc.position(where, key=key)
        return TrailFileError(path, [Problem(line, column, message)])

    sets = _split(data, fail)
    out: list[CapabilitySet] = []
    for i, (where, raw) in enumerate(sets, start=1):
        source = path if len(sets) == 1 else f"{path}[{i}]"
        caps = _expand_env(raw, where, fail)
        chosen = normalise_capabilities(caps, source, lambda k, msg, at_key, w=where: fail((*w, k), msg, at_key))
        _warn_unknown(caps, chosen, lambda key, w=where: doc.position((*w, key), key=True), path)
        out.append(chosen)
    return out


def _warn_unknown(raw: Mapping[str, Any], chosen: CapabilitySet, position: Any, path: str) -> None:
    """A warning on stderr (`caps.yaml:3:3: 'appium:adbPrt' is not a capability …; did you mean …?`) for
    each `appium:` key the set's driver does not know: a typo would otherwise be sent and ignored."""
    from trailblaze_appium.capability_names import unknown_capabilities

    names = {key: key if key in W3C_KEYS or ":" in key else f"appium:{key}" for key in raw}
    automation = chosen.as_dict().get("appium:automationName")
    for key, why in unknown_capabilities(names, str(automation) if automation else None, chosen.platform):
        line, column = position(key)
        sys.stderr.write(f"warning: {path}:{line}:{column}: {why}\n")


def select_capabilities(reference: str) -> CapabilitySet:
    """The one capability set `reference` names: `FILE` (a file of one set) or `FILE[N]` (1-based).

    Raises:
        UsageError: the file holds several sets and no `[N]` picks one, or N is out of range.
    """
    match = _SUFFIX.match(reference)
    path, index = (match["path"], int(match["index"])) if match and not os.path.exists(reference) else (reference, 0)
    sets = load_capabilities(path)
    if index == 0:
        if len(sets) > 1:
            raise UsageError(
                f"{path} holds {len(sets)} capability sets (devices): pick one with {path}[N] (1-{len(sets)}), "
                "or run them all under pytest with --trailblaze-each-device"
            )
        return sets[0]
    if not 1 <= index <= len(sets):
        raise UsageError(f"{reference}: {path} holds {len(sets)} capability set(s); use {path}[1]..[{len(sets)}]")
    return sets[index - 1]


def normalise_capabilities(
    raw: Mapping[str, Any], source: str, fail: Any = None
) -> CapabilitySet:
    """Prefixes, defaults and the platform of one capability set (see the module docstring).

    `fail(key, message, at_key)` builds the error for a bad entry, pointing at its key or its value
    (default: a `UsageError` naming `source`).
    """

    def problem(key: str, message: str, at_key: bool = False) -> Exception:
        if fail is not None:
            err: Exception = fail(key, message, at_key)
            return err
        return UsageError(f"{source}: {message}")

    caps: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not key:
            raise problem(str(key), f"capability name {key!r} is not text; write `name: value`", True)
        name = key if key in W3C_KEYS or ":" in key else f"appium:{key}"
        if name in caps:
            raise problem(key, f"{key!r} is given twice (as {name!r}); keep one", True)
        caps[name] = value
    platform_raw = caps.get("platformName")
    if platform_raw is None:
        raise problem("platformName", "no platformName: add `platformName: Android` (or iOS)")
    chosen = _PLATFORMS.get(str(platform_raw).strip().lower())
    if chosen is None:
        raise problem(
            "platformName", f"platformName {platform_raw!r} is not a phone platform: use Android or iOS"
        )
    platform, automation = chosen
    caps.setdefault("appium:automationName", automation)
    return CapabilitySet(source=source, platform=platform, text=json.dumps(caps, sort_keys=True))


def _split(data: Any, fail: Any) -> list[tuple[tuple[Any, ...], Mapping[str, Any]]]:
    """(path in the document, raw mapping) of each device's capability set."""
    if isinstance(data, Mapping) and isinstance(data.get("capabilities"), Mapping):
        root: tuple[Any, ...] = ("capabilities",)
        data = data["capabilities"]
    else:
        root = ()
    if isinstance(data, Mapping) and ("alwaysMatch" in data or "firstMatch" in data):
        always = data.get("alwaysMatch") or {}
        first = data.get("firstMatch") or [{}]
        if not isinstance(always, Mapping):
            raise fail((*root, "alwaysMatch"), "alwaysMatch must be a mapping of capabilities")
        if not isinstance(first, list) or not all(isinstance(f, Mapping) for f in first):
            raise fail((*root, "firstMatch"), "firstMatch must be a list of mappings of capabilities")
        return [((*root, "firstMatch", i), {**always, **f}) for i, f in enumerate(first)]
    if isinstance(data, Mapping):
        if not data:
            raise fail(root, "no capabilities: add at least `platformName: Android` (or iOS)")
        return [(root, data)]
    if isinstance(data, list) and data:
        for i, item in enumerate(data):
            if not isinstance(item, Mapping):
                raise fail((*root, i), "each item of the list must be a mapping of one device's capabilities")
        return [((*root, i), item) for i, item in enumerate(data)]
    raise fail(
        root,
        "a capabilities file holds a mapping (one device), a list of mappings (several devices) or "
        "{alwaysMatch, firstMatch}; start with `platformName: Android`",
    )


def _expand_env(value: Any, where: tuple[Any, ...], fail: Any) -> Any:
    """`${NAME}` → the environment's NAME, in every string of `value`; each value read becomes a secret."""
    if isinstance(value, Mapping):
        return {k: _expand_env(v, (*where, k), fail) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand_env(v, (*where, i), fail) for i, v in enumerate(value)]
    if not isinstance(value, str) or "${" not in value:
        return value
    from trailblaze.common.redact import MIN_SECRET_LENGTH, register_secrets

    found: dict[str, str] = {}
    for name in _ENV_REF.findall(value):
        got = os.environ.get(name)
        if got is None:
            raise fail(where, f"${{{name}}} is not set in the environment: export {name}=... (or write the value)")
        if len(got) < MIN_SECRET_LENGTH:
            # never its value: it is a secret that cannot be hidden, or not a secret at all
            size = "is empty" if not got else f"holds fewer than {MIN_SECRET_LENGTH} characters"
            raise fail(
                where,
                f"${{{name}}} {size}: a value read from the environment is a secret, and one this short "
                f"cannot be redacted; export the real value, or write a value that is not secret in the file itself",
            )
        found[name] = got
    register_secrets(found, where="a capabilities file")
    return _ENV_REF.sub(lambda m: found[m[1]], value)
