"""Where secret values come from: `NAME=VALUE`, an environment variable, or a `.env` file.

`--secret NAME=VALUE` puts the value on the command line, where `/proc/*/cmdline`, `ps` and the
shell history show it. `--secret NAME` reads it from the environment variable
`TRAILBLAZE_SECRET_NAME` instead (CI secret stores export variables), and `--secret-file PATH`
from a `.env` file: `NAME=VALUE` lines, `#` comments, blank lines, an optional `export `, values
optionally in single quotes (taken literally) or double quotes (with `\\n`, `\\"`, `\\\\` escapes).
Error messages name the secret, the variable or `file:line`, never the value (nor anything else
of a line that does not parse: it may be a value). Lines end at `\n` only, so a form feed or
another Unicode line break inside a value stays in it. A file is at most `MAX_SECRET_FILE_BYTES`
and `MAX_SECRET_FILE_LINES`, and must be a regular file (`/dev/zero` or a FIFO is refused before
it is read).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping

from trailblaze.errors import UsageError

__all__ = [
    "ENV_PREFIX",
    "MAX_SECRET_FILE_BYTES",
    "MAX_SECRET_FILE_LINES",
    "collect_secrets",
    "env_var_for",
    "read_secret_file",
]

MAX_SECRET_FILE_BYTES = 1024 * 1024
"""A `.env` of secrets is a few kilobytes; a bigger file is a wrong path, not secrets."""
MAX_SECRET_FILE_LINES = 10_000

ENV_PREFIX = "TRAILBLAZE_SECRET_"
_NAME = re.compile(r"[A-Za-z_][\w-]*\Z")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "$": "$"}


def env_var_for(name: str) -> str:
    """The environment variable `--secret NAME` reads: `TRAILBLAZE_SECRET_` + NAME upper-cased, `-` as `_`."""
    return ENV_PREFIX + name.upper().replace("-", "_")


def _check_name(name: str, where: str, *, echo: bool = True) -> None:
    if not _NAME.match(name) and not echo:
        raise UsageError(
            f"{where}: the text before '=' is not a secret name; use letters, digits, '_' and '-' "
            "(starting with a letter or '_')"
        )
    if not _NAME.match(name):
        raise UsageError(
            f"{where}: {name!r} is not a secret name; use letters, digits, '_' and '-' "
            "(starting with a letter or '_'), as in {{password}}"
        )


def collect_secrets(
    values: Iterable[str],
    files: Iterable[str] = (),
    *,
    flag: str = "--secret",
    file_flag: str = "--secret-file",
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The secrets of a run: every `file_flag` file in order, then every `flag` value (later ones win).

    A `flag` value is `NAME=VALUE`, or `NAME` alone for the value of `env_var_for(NAME)`.

    Raises:
        UsageError: a malformed value, an unset variable or a bad file; one line, never the value.
    """
    env = os.environ if environ is None else environ
    out: dict[str, str] = {}
    for file in files:
        out.update(read_secret_file(file, file_flag))
    for value in values:
        name, sep, val = value.partition("=")
        name = name.strip()
        if not sep:
            _check_name(name, f"{flag} {name}")
            variable = env_var_for(name)
            if variable not in env:
                raise UsageError(
                    f"{flag} {name}: the environment variable {variable} is not set; export it (e.g. from "
                    f"your CI's secret store), or use {file_flag} FILE or {flag} {name}=VALUE"
                )
            out[name] = env[variable]
            continue
        if not name:
            # the text after '=' may be the secret: never echo it
            raise UsageError(f"'=…' is not KEY=VALUE (no name); write {flag} NAME=VALUE or {flag} NAME")
        _check_name(name, flag)
        out[name] = val
    return out


def read_secret_file(path: str | os.PathLike[str], flag: str = "--secret-file") -> dict[str, str]:
    """The `NAME=VALUE` pairs of a `.env` file.

    Raises:
        UsageError: the file cannot be read, or a line is malformed (`file:line: …`).
    """
    where = os.fspath(path)
    text = _read_bounded(path, where, flag)
    lines = text.split("\n")
    if len(lines) > MAX_SECRET_FILE_LINES:
        raise UsageError(
            f"{flag} {where}: more than {MAX_SECRET_FILE_LINES:,} lines; a .env of secrets is short — "
            "check the path"
        )
    out: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        stripped = line.removesuffix("\r").strip(" \t")
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export ") :].lstrip()
        name, sep, rest = stripped.partition("=")
        name = name.strip(" \t")
        here = f"{where}:{number}"
        if not sep:
            raise UsageError(f"{here}: expected NAME=VALUE (a secret per line; '#' starts a comment)")
        _check_name(name, here, echo=False)
        out[name] = _value(rest.strip(" \t"), here)
    return out


def _value(raw: str, here: str) -> str:
    if raw[:1] in ("'", '"'):
        quote = raw[0]
        end = _closing_quote(raw, quote)
        if end < 0:
            raise UsageError(f"{here}: the value's {quote} quote is not closed on this line; close it")
        trailing = raw[end + 1 :].strip()
        if trailing and not trailing.startswith("#"):
            raise UsageError(
                f"{here}: text after the closing {quote} quote; put a comment after '#' or quote all of it"
            )
        inner = raw[1:end]
        if quote == "'":
            return inner
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), inner)
    # unquoted: a '#' after whitespace starts a comment (as in shells and python-dotenv)
    return re.split(r"[ \t]+#", raw, maxsplit=1)[0].rstrip(" \t")


def _closing_quote(raw: str, quote: str) -> int:
    i = 1
    while i < len(raw):
        if raw[i] == "\\" and quote == '"':
            i += 2
            continue
        if raw[i] == quote:
            return i
        i += 1
    return -1


def _read_bounded(path: str | os.PathLike[str], where: str, flag: str) -> str:
    """The file's text, refusing what is not a regular file or is too big, before reading it."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UsageError(f"{flag} {where}: no such file; pass a .env file with NAME=VALUE lines") from None
    except IsADirectoryError:
        raise UsageError(f"{flag} {where}: is a directory, not a .env file") from None
    except OSError as exc:
        raise UsageError(f"{flag} {where}: cannot read ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{flag} {where}: is a directory, not a .env file")
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{flag} {where}: not a regular file (a device or a pipe); pass a .env file")
        if info.st_size > MAX_SECRET_FILE_BYTES:
            raise UsageError(
                f"{flag} {where}: {info.st_size:,} bytes, more than {MAX_SECRET_FILE_BYTES:,}; "
                "a .env of secrets is small — check the path"
            )
        try:
            data = handle.read(MAX_SECRET_FILE_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"{flag} {where}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_SECRET_FILE_BYTES:
        raise UsageError(f"{flag} {where}: more than {MAX_SECRET_FILE_BYTES:,} bytes; check the path")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{flag} {where}: not UTF-8 text; save the .env file as UTF-8") from None
