"""The HTML report's pictures: a run's stored screenshots and storyboards, beside the page or inside it.

Both forms read only the files run.json names as pictures, only inside the run directory
(`artifact_path`), and only when they are images (JPEG, PNG, WebP or GIF). Those files were written with
every secret on screen blacked out (`trailblaze.screen.mask`), so neither form shows one, and neither
takes a picture of its own.

- `LinkedPictures` (the default): the page loads the run's own files, never re-encoded. When the page
  is in the run directory they are linked where they are; otherwise each one the page shows is
  hard-linked (copied where a link cannot be made) into the folder `<page name>_files/` beside it, so
  the page and that folder are the whole report, whatever happens to the run directory (a CI artifact).
- `EmbeddedPictures` (`--report-single-file`): each screenshot is downscaled to `THUMBNAIL_WIDTH` pixels
  and embedded as a data URI, storyboards as they are; one file to attach or mail, megabytes per trail.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple, Protocol
from urllib.parse import quote

__all__ = [
    "THUMBNAIL_WIDTH",
    "EmbeddedPictures",
    "LinkedPictures",
    "Picture",
    "Pictures",
    "artifact_path",
    "drop_files_folder",
    "files_folder",
    "pictures_folder",
]

THUMBNAIL_WIDTH = 360
"""Width in pixels of the embedded screenshots (shown at 240 CSS pixels, so sharp on 1.5x screens)."""

MAX_EMBEDDED_STORYBOARD = 8_000_000
"""Bytes: a storyboard larger than this is linked, not embedded (a report stays one file a browser opens)."""

_FORMATS = frozenset({"JPEG", "PNG", "WEBP", "GIF"})
_MARK = ".trailblaze-report"
"""The file that says a `_files` folder is a report's own, so writing the report again may empty it."""


class Picture(NamedTuple):
    src: str
    """The `src` of the `<img>`: a relative URL (percent-encoded) or a data URI."""
    width: int
    height: int
    href: str | None
    """Where the full-size file opens from the page (None: the picture is embedded; link the run's file)."""


class Pictures(Protocol):
    """What the page asks for a picture; None when it is missing, unreadable or not an image."""

    def screenshot(self, rel: str) -> Picture | None: ...

    def storyboard(self, rel: str) -> Picture | None: ...

    def file(self, rel: str) -> str | None:
        """The URL a raw artifact (a hierarchy dump, a transcript) is linked from the page, or None:
        link the run directory's own file."""

    def next_trail(self) -> None:
        """The page moves to the next trail: what was cached for the last one may go."""


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def artifact_path(run_dir: Path, rel: str) -> Path | None:
    """The file an artifact path of run.json names, or None unless it is a relative path inside `run_dir`.

    run.json may be edited by hand (or come from someone else): an absolute path, a URL
    (`javascript:…`) or a `../` path out of the run directory is never linked, read or embedded.
    """
    if not rel or "\x00" in rel or "\\" in rel or os.path.isabs(rel) or _SCHEME.match(rel):
        return None
    root = run_dir.resolve()
    target = (root / rel).resolve()
    if target != root and root not in target.parents:
        return None
    return run_dir / rel


def files_folder(page: Path) -> Path:
    """The folder beside a report page that holds its pictures: `report.html` → `report_files/`."""
    return page.with_name(f"{page.stem}_files")


def _image_size(path: Path) -> tuple[int, int] | None:
    """(width, height) from the file's header, or None when it is not a JPEG, PNG, WebP or GIF."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as img:
            return img.size if img.format in _FORMATS else None
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None


class LinkedPictures:
    """Pictures as the run's own files, loaded by the page from beside it (see the module's text)."""

    def __init__(self, run_dir: Path, page_dir: Path, folder: Path | None = None) -> None:
        self.run_dir = run_dir
        self.page_dir = page_dir
        self.folder = folder
        """Where the pictures the page shows are put, or None: linked where they are. What an earlier
        report left there goes now; the folder is made for the first picture (none: no folder)."""
        self._seen: dict[str, Picture | None] = {}
        if folder is not None:
            _clear(folder)

    @classmethod
    def beside(cls, run_dir: Path, page: Path) -> LinkedPictures:
        """The pictures of a page written at `page`: where they are when the page is in the run
        directory (which travels whole), else in `<page name>_files/` beside it."""
        inside = _is_within(page.parent, run_dir)
        return cls(run_dir, page.parent, None if inside else files_folder(page))

    def screenshot(self, rel: str) -> Picture | None:
        return self._picture(rel)

    def storyboard(self, rel: str) -> Picture | None:
        return self._picture(rel)

    def next_trail(self) -> None:
        self._seen.clear()  # a step's "before" is the last one's "after", never another trail's

    def _picture(self, rel: str) -> Picture | None:
        if rel not in self._seen:
            self._seen[rel] = self._place(rel)
        return self._seen[rel]

    def file(self, rel: str) -> str | None:
        """Beside a page outside the run directory, the raw file goes into the `_files` folder too, so
        a copied report has no dead links (issue 48 item 7)."""
        source = artifact_path(self.run_dir, rel)
        if self.folder is None or source is None or not source.is_file():
            return None
        return _url(self._copy(source, rel), self.page_dir)

    def _place(self, rel: str) -> Picture | None:
        source = artifact_path(self.run_dir, rel)
        if source is None or not source.is_file():
            return None
        size = _image_size(source)
        if size is None:
            return None
        url = _url(source if self.folder is None else self._copy(source, rel), self.page_dir)
        return Picture(url, size[0], size[1], url)

    def _copy(self, source: Path, rel: str) -> Path:
        """The run's file at `rel`, put in the `_files` folder (made for the first one)."""
        assert self.folder is not None
        if not self.folder.exists():
            self.folder.mkdir(parents=True)
            (self.folder / _MARK).write_text("the pictures of the HTML report beside this folder (trailblaze)\n")
        shown = self.folder / os.path.normpath(rel)
        if not shown.exists():
            shown.parent.mkdir(parents=True, exist_ok=True)
            _link_or_copy(source.resolve(), shown)
        return shown


def _is_within(folder: Path, root: Path) -> bool:
    folder, root = folder.resolve(), root.resolve()
    return folder == root or root in folder.parents


def _clear(folder: Path) -> None:
    """No `_files` folder: one a report wrote before goes, anything else of that name is refused."""
    from trailblaze.errors import UsageError

    if folder.is_symlink() or (folder.exists() and not (folder / _MARK).is_file()):
        raise UsageError(
            f"{folder}: the folder for the report's pictures exists and is not one trailblaze wrote; "
            "move it away or pick another report file name"
        )
    if folder.exists():
        shutil.rmtree(folder)


def drop_files_folder(page: Path) -> None:
    """Removes the `_files` folder an earlier report at `page` left (the page is now one file)."""
    folder = files_folder(page)
    if not folder.is_symlink() and (folder / _MARK).is_file():
        shutil.rmtree(folder)


def pictures_folder(page: Path) -> Path | None:
    """The folder beside `page` that holds its pictures, when it has one."""
    folder = files_folder(page)
    return folder if not folder.is_symlink() and (folder / _MARK).is_file() else None


def _link_or_copy(source: Path, target: Path) -> None:
    try:
        os.link(source, target)  # the same bytes, no space taken: the run's file is never re-encoded
    except OSError:  # another file system, or one without hard links
        shutil.copyfile(source, target)


def _url(target: Path, page_dir: Path) -> str:
    try:
        link = os.path.relpath(target, page_dir)
    except ValueError:  # another drive on Windows
        link = str(target.resolve())
    # percent-encoded, so no part of a file name can read as a scheme (`javascript:`) or a query
    return quote(Path(link).as_posix(), safe="/")


class EmbeddedPictures:
    """Screenshots downscaled and embedded as data URIs, storyboards embedded as they are.

    Each distinct picture is encoded once: a step's "after" is usually the next step's "before", and
    the launch screen of many trails is the same bytes. Only the last few encodings are kept, so the
    memory a page of a thousand trails takes is one trail's, not the whole run's.
    """

    _KEEP = 64

    def __init__(self, run_dir: Path) -> None:
        from PIL import features

        self.run_dir = run_dir
        self.format, self.mime = ("WEBP", "image/webp") if features.check("webp") else ("JPEG", "image/jpeg")
        self._by_path: dict[str, Picture | None] = {}
        self._by_digest: OrderedDict[bytes, Picture | None] = OrderedDict()

    def next_trail(self) -> None:
        self._by_path.clear()

    def file(self, rel: str) -> str | None:
        return None  # one file: a raw artifact stays linked in the run directory

    def screenshot(self, rel: str) -> Picture | None:
        if rel not in self._by_path:
            data = self._read(rel)
            picture = None
            if data is not None:
                digest = hashlib.blake2b(data, digest_size=16).digest()
                if digest not in self._by_digest:
                    self._by_digest[digest] = self._encode(data)
                    if len(self._by_digest) > self._KEEP:
                        self._by_digest.popitem(last=False)
                picture = self._by_digest[digest]
            self._by_path[rel] = picture
        return self._by_path[rel]

    def storyboard(self, rel: str) -> Picture | None:
        path = artifact_path(self.run_dir, rel)
        try:
            if path is None or path.stat().st_size > MAX_EMBEDDED_STORYBOARD:
                return None
            data = path.read_bytes()
        except OSError:
            return None
        size = _image_size(path)
        if size is None:
            return None
        mime = "image/webp" if data[:4] == b"RIFF" else "image/gif"
        return Picture(f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}", size[0], size[1], None)

    def _read(self, rel: str) -> bytes | None:
        path = artifact_path(self.run_dir, rel)
        try:
            return path.read_bytes() if path is not None else None
        except OSError:
            return None

    def _encode(self, data: bytes) -> Picture | None:
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(io.BytesIO(data)) as img:
                if img.format == "JPEG" and img.width > THUMBNAIL_WIDTH:
                    # libjpeg decodes straight at 1/2, 1/4 … scale, never below the thumbnail's size; the
                    # resize below then starts from a quarter of the pixels of a full phone screenshot
                    img.draft("RGB", (THUMBNAIL_WIDTH, img.height * THUMBNAIL_WIDTH // img.width))
                rgb = img.convert("RGB")
        except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
            return None
        if rgb.width > THUMBNAIL_WIDTH:
            height = max(1, round(rgb.height * THUMBNAIL_WIDTH / rgb.width))
            # reducing_gap: a fast box reduction first, then Lanczos; same look, a third of the time
            rgb = rgb.resize((THUMBNAIL_WIDTH, height), Image.Resampling.LANCZOS, reducing_gap=2.0)
        buf = io.BytesIO()
        if self.format == "WEBP":
            rgb.save(buf, "WEBP", quality=70, method=3)
        else:
            rgb.save(buf, "JPEG", quality=72, optimize=True)
        encoded = base64.b64encode(buf.getvalue()).decode("ascii")
        return Picture(f"data:{self.mime};base64,{encoded}", rgb.width, rgb.height, None)
