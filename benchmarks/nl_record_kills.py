"""Issue 24's "done when": trails recorded from natural language only kill every mutant that
contradicts them.

Every example trail (`trails/*.trail.yaml`, with `trails/tools/` for its custom tools) is copied into a
temporary folder with every recording stripped (a step that only runs another trail keeps its
`runTrail`) — only the natural-language steps, which quote text
("Message archived") and name switch states ("is on") — and recorded with `trailblaze record` on
`sim:android`, then on `sim:ios`, as a user would: a subprocess, the real `anthropic` SDK talking to
the local Messages-API fake that answers with the keyless demo model (what `trailblaze sim llm` serves).
Then `benchmarks/mutant_kills.py --trail <the recorded copies>` replays them on every app mutant and
on `demo@restyled`, and prints the kill table.

Run: python benchmarks/nl_record_kills.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def nl_copies(into: Path) -> list[Path]:
    shutil.copytree(ROOT / "trails" / "tools", into / "tools")
    out = []
    for src in sorted((ROOT / "trails").glob("*.trail.yaml")):
        data = yaml.safe_load(src.read_text())
        for step in data["trail"]:
            calls = [c for tools in (step.get("recording") or {}).values() for c in tools]
            if calls and all("runTrail" in c for c in calls):
                continue  # "sign in with the shared trail" is structure, not a recording of the UI
            step.pop("recording", None)
        copy = into / src.name
        copy.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
        out.append(copy)
    return out


def main(argv: list[str] | None = None) -> int:
    from trailblaze.testing import FakeMessagesAPI
    from trailblaze.testing.demo_policy import demo_policy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--keep", type=Path, default=None, help="record into this folder and keep it")
    args = parser.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="nl-trails-"))
    folder.mkdir(parents=True, exist_ok=True)
    trails = nl_copies(folder)
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    failures = 0
    with FakeMessagesAPI(policy=demo_policy) as api:
        env["ANTHROPIC_BASE_URL"] = api.url
        for platform in ("android", "ios"):
            for trail in trails:
                done = subprocess.run(
                    [sys.executable, "-m", "trailblaze", "record", str(trail), "--device", f"sim:{platform}",
                     "--secret", "password=hunter2", "--run-dir", str(folder / "runs" / f"{trail.stem}-{platform}")],
                    env=env, capture_output=True, text=True, timeout=300, cwd=folder,
                )  # fmt: skip
                summary = [ln.strip() for ln in done.stdout.splitlines() if "verified" in ln or "NOT" in ln]
                print(f"record {platform:<7} {trail.name:<32} exit {done.returncode}  {summary[-1] if summary else ''}")
                failures += done.returncode != 0
    print()
    from benchmarks.mutant_kills import main as kills

    status = kills(["--trail", *map(str, trails)])
    if args.keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failures else status


if __name__ == "__main__":
    sys.exit(main())
