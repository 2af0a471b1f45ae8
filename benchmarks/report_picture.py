"""Regenerates docs/images/report.png, the picture of the HTML report on the README and the docs' home.

Replays the example trails on a simulated phone as the README's first command does (`--report`), has
headless Chromium (Debian's `chromium`) photograph the report, and saves it as a small palette PNG
(under 300 KB). Run it after a change to the report's look: `python benchmarks/report_picture.py`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "images" / "report.png"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write the PNG (default {OUT})")
    parser.add_argument("--width", type=int, default=1100, help="browser window width in CSS pixels")
    parser.add_argument("--height", type=int, default=900, help="browser window height in CSS pixels")
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("needs Chromium: apt-get install chromium", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "trails", work / "trails", ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run(
            ["trailblaze", "replay", "trails/", "--device", "sim:android", "--secret", "password=hunter2",
             "--report", "report.html"],
            cwd=work, check=True, capture_output=True, text=True,
        )  # fmt: skip
        shot = work / "shot.png"
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={work / 'profile'}", f"--window-size={args.width},{args.height}",
             f"--screenshot={shot}", (work / "report.html").as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        image = Image.open(shot).convert("RGB")
        small = image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.Resampling.LANCZOS)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        small.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(args.out, optimize=True)
    print(f"{args.out}: {args.out.stat().st_size // 1024} KB, {small.width}x{small.height}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
