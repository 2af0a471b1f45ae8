"""A corpus of hostile trail files: what an attacker or a careless editor can hand to trailblaze.

`write_corpus(folder)` writes every case into `folder` and returns them with what each command must
answer. tests/testing/test_hostile_files.py runs them through `validate`, `replay` and pytest collection
under a memory limit; benchmarks/hostile_files.py prints time and peak memory per file.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Hostile", "write_corpus"]

_GO_BACK = "    recording:\n      android:\n        - pressBack\n"
_LAUNCH = "        - launchApp:\n            appId: dev.trailblaze.demo\n"


@dataclass(frozen=True)
class Hostile:
    """One hostile input and the exit codes it must get (0 passed, 1 trail failed, 2 file error)."""

    name: str
    path: Path
    validate: int
    replay: int
    says: str  # text the validate / replay output must contain ("" = nothing in particular)
    regular: bool = True  # a FIFO or a symlink loop is not


def _laughs(levels: int = 9) -> str:
    out = 'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    for i in range(1, levels):
        out += f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]\n"
    return out + f"trail:\n  - step: *l{levels - 1}\n"


def _texts() -> dict[str, tuple[str | bytes, int, int, str]]:
    """name -> (content, validate exit, replay exit, expected text)."""
    rng = random.Random(12)
    deep_map = (
        "trail:\n  - step: x\n    recording:\n      android:\n        - pressBack: "
        + "{a: " * 400
        + "1"
        + "}" * 400
    )
    return {
        "billion-laughs": (_laughs(), 2, 2, "aliases"),
        "alias-step": ("x: &s Tap sign in\ntrail:\n  - step: *s\n", 2, 2, "aliases"),
        "merge-key-alias": ("base: &b {step: go}\ntrail:\n  - <<: *b\n", 2, 2, "aliases"),
        "undefined-alias": ("trail:\n  - step: *nowhere\n", 2, 2, "aliases"),
        "deep-flow": (
            "trail:\n  - step: x\n    recording:\n      android: " + "[" * 5000 + "]" * 5000 + "\n",
            2,
            2,
            "nested",
        ),
        "deep-block": ("trail:\n" + "".join("  " * i + "- \n" for i in range(1, 600)), 2, 2, "nested"),
        "deep-map": (deep_map + "\n", 2, 2, "nested"),
        "many-nodes": ("trail:\n" + "  - step: x\n" * 60_000, 2, 2, "YAML values"),
        "huge-file": ("trail:\n  - step: " + "a" * (6 * 1024 * 1024) + "\n", 2, 2, "larger than"),
        "long-step": ("trail:\n  - step: " + "word " * 200_000 + "\n" + _GO_BACK, 0, 0, ""),
        "surrogate-step": ('trail:\n  - step: "go \\ud800 now"\n' + _GO_BACK, 2, 2, "surrogate"),
        "surrogate-key": ('"k\\udfff": 1\ntrail:\n  - step: go\n', 2, 2, "surrogate"),
        "surrogate-param": (
            "trail:\n  - step: type\n    recording:\n      android:\n        - inputText:\n"
            '            text: "\\udc00x"\n',
            2,
            2,
            "surrogate",
        ),
        "escape-codes": (
            'config:\n  id: "evil\\e]52;c;aGk=\\a\\e[2J"\n  title: "\\e[31mred"\n'
            'trail:\n  - step: "tap \\e]0;title\\a\\e[1A\\r\\u202eevil"\n' + _GO_BACK,
            0,
            0,
            "",
        ),
        "nul-char": ("trail:\n  - step: a\x00b\n", 2, 2, "not allowed"),
        "c1-control-raw": ("trail:\n  - step: a\x9bb\n", 2, 2, "not allowed"),
        "binary-junk": (bytes(rng.randrange(256) for _ in range(4096)), 2, 2, "UTF-8"),
        "utf16": ("trail:\n  - step: go\n".encode("utf-16"), 2, 2, ""),
        "bom-utf8": ("\ufefftrail:\n  - step: go back\n" + _GO_BACK, 0, 0, ""),
        "crlf": (
            "trail:\r\n  - step: go back\r\n    recording:\r\n      android:\r\n        - pressBack\r\n",
            0,
            0,
            "",
        ),
        "cr-only": (
            "trail:\r  - step: go back\r    recording:\r      android:\r        - pressBack\r",
            0,
            0,
            "",
        ),
        "python-tag": ("trail:\n  - step: !!python/object/apply:os.system [echo hi]\n", 2, 2, "tag"),
        "custom-tag": ("trail: !foo\n  - step: go\n", 2, 2, "tag"),
        "empty": ("", 2, 2, "empty"),
        "only-comment": ("# nothing\n", 2, 2, "empty"),
        "two-documents": ("trail:\n  - step: a\n---\ntrail:\n  - step: b\n", 2, 2, "document"),
        "scalar-root": ("just text\n", 2, 2, "mapping"),
        "weird-types": ("config: [1, 2]\ntrail: {a: 1}\n", 2, 2, ""),
        "weird-items": ("trail: [1, 2.5, null, true, [x], {}]\n", 2, 2, ""),
        "huge-int": ("trail:\n  - step: go\n    maxRetries: " + "9" * 5000 + "\n", 2, 2, ""),
        "inf-nan": (
            "trail:\n  - step: go\n    maxRetries: .inf\n  - step: x\n    maxRetries: .nan\n",
            2,
            2,
            "",
        ),
        "complex-key": ("? [a, b]\n: 1\ntrail:\n  - step: go\n", 2, 2, "keys"),
        "duplicate-keys": ("trail:\n  - step: a\n    step: b\n", 2, 2, "duplicate"),
        "tab-indent": ("trail:\n\t- step: a\n", 2, 2, "tab"),
        "unclosed-flow": ("trail: [ {step: a\n", 2, 2, "YAML"),
        "catastrophic-regex": (
            "trail:\n  - step: tap it\n    recording:\n      android:\n"
            + _LAUNCH
            + "        - tapOnElementBySelector:\n            nodeSelector:\n              androidAccessibility:\n"
            + "                resourceIdRegex: '(.|..|...)*d\\d'\n",
            0,
            1,
            "took too long",
        ),
        "nested-quantifier-regex": (
            "trail:\n  - step: tap it\n    recording:\n      android:\n"
            + _LAUNCH
            + "        - tapOnElementBySelector:\n            nodeSelector:\n              androidAccessibility:\n"
            + "                textRegex: '(a+)+b'\n",
            0,
            1,
            "",
        ),
        "invalid-regex": (
            "trail:\n  - step: tap it\n    recording:\n      android:\n"
            + _LAUNCH
            + "        - tapOnElementBySelector:\n            nodeSelector:\n              androidAccessibility:\n"
            + "                textRegex: '(unclosed[a-'\n",
            0,
            1,
            "",
        ),
        "unknown-tool": (
            "trail:\n  - step: go\n    recording:\n      android:\n        - rm_rf_slash\n",
            2,
            2,
            "unknown tool",
        ),
    }


def write_corpus(folder: Path) -> list[Hostile]:
    """Write every hostile case into `folder` (it must exist); FIFOs and symlinks where the OS allows."""
    cases: list[Hostile] = []
    for name, (content, validate, replay, says) in _texts().items():
        path = folder / f"{name}.trail.yaml"
        path.write_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content)
        cases.append(Hostile(name, path, validate, replay, says))
    fifo = folder / "fifo.trail.yaml"
    if hasattr(os, "mkfifo"):
        os.mkfifo(fifo)
        cases.append(Hostile("fifo", fifo, 2, 2, "not a regular file", regular=False))
    loop = folder / "symlink-loop.trail.yaml"
    loop.symlink_to(loop.name)
    cases.append(Hostile("symlink-loop", loop, 2, 2, "not a regular file", regular=False))
    device = folder / "device.trail.yaml"
    device.symlink_to(os.devnull)
    cases.append(Hostile("device", device, 2, 2, "not a regular file", regular=False))
    return cases
