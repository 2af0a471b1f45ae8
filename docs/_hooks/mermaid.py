"""MkDocs hook: the site ships its own copy of mermaid, so its diagrams draw offline.

Material for MkDocs draws ```mermaid blocks with mermaid from a CDN unless the page already has a
`mermaid` global. Offline, or in a firewalled CI's artefact, readers would see the diagram's source.
So the build adds the browser bundle of a pinned npm package (`mermaid@MERMAID`, checked against its
registry integrity) to the site as `javascripts/mermaid.min.js`, which mkdocs.yml loads on every page.
The bundle is fetched once with `npm pack` (npm, and the npm registry, only the first time) and kept
in `.cache/docs/` beside mkdocs.yml; `.ci/run` fetches it (`python3 docs/_hooks/mermaid.py`) before the
tests build the site.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

MERMAID = "11.17.2"
"""The major version Material for MkDocs 9 draws with (it would load mermaid@11 from unpkg)."""
INTEGRITY = "sha512-V6K3C8EBdEsPFZXSKMJe6ppQOENxuHARr9GvHX4hh47lAbhMRD9qf4oEK7LoaRQxULMa80/qt5gHO73aCleBBg=="
"""The registry's `dist.integrity` of that version's tarball: a different file is refused."""
SITE_PATH = "javascripts/mermaid.min.js"
_MEMBER = "package/dist/mermaid.min.js"


def mermaid_bundle(cache: Path) -> bytes:
    """The pinned mermaid browser bundle, from `cache` or fetched into it.

    Raises:
        RuntimeError: npm is missing or cannot fetch the package, or the tarball is not the pinned one.
    """
    target = cache / f"mermaid-{MERMAID}.min.js"
    if target.is_file():
        return target.read_bytes()
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError(
            f"the docs ship mermaid {MERMAID} so diagrams draw offline; fetching it once needs npm "
            f"(Debian: apt-get install npm), or put its dist/mermaid.min.js at {target}"
        )
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [npm, "pack", f"mermaid@{MERMAID}", "--pack-destination", tmp, "--silent"],
            capture_output=True, text=True, timeout=300, cwd=tmp,
        )  # fmt: skip
        tarballs = sorted(Path(tmp).glob("mermaid-*.tgz"))
        if done.returncode != 0 or not tarballs:
            raise RuntimeError(f"npm pack mermaid@{MERMAID} failed: {(done.stderr or done.stdout).strip()[-400:]}")
        data = tarballs[0].read_bytes()
        got = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")
        if got != INTEGRITY:
            raise RuntimeError(f"mermaid@{MERMAID} from npm is not the pinned tarball ({got}); refusing it")
        with tarfile.open(tarballs[0]) as archive:
            member = archive.extractfile(_MEMBER)
            if member is None:
                raise RuntimeError(f"mermaid@{MERMAID} has no {_MEMBER}")
            bundle = member.read()
    cache.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(bundle)
    partial.replace(target)
    return bundle


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    cache = Path(config.config_file_path).parent / ".cache" / "docs"
    try:
        bundle = mermaid_bundle(cache)
    except RuntimeError as exc:
        raise PluginError(str(exc)) from None
    files.append(File.generated(config, SITE_PATH, content=bundle))
    return files


if __name__ == "__main__":  # `.ci/run` fetches it before the tests, so no test touches the network
    print(f"{len(mermaid_bundle(Path(__file__).resolve().parents[2] / '.cache' / 'docs')):,} bytes of mermaid {MERMAID}")
