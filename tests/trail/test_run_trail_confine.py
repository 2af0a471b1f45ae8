"""`runTrail` stays inside the trail's project and `validate` never echoes a file that is not a trail
(issue 31, item 10): a trail from a pull request cannot run, print or load the tools beside a file
elsewhere on the machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import trailblaze

SHADOW = "root:$6$Xy9secrethash:19000:0:99999:7:::\nadmin: hunter2-shadow\n"
EVIL_TOOL = """\
from pathlib import Path
Path(__file__).with_name("IMPORTED").write_text("the outside tools folder was imported")
"""


def _caller(folder: Path, path: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    trail = folder / "main.trail.yaml"
    trail.write_text(
        "trail:\n  - step: Run the other trail\n    recording:\n      android:\n"
        f"        - runTrail: {{path: '{path}'}}\n",
        encoding="utf-8",
    )
    return trail


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    (folder / "tools").mkdir(parents=True)
    (folder / "tools" / "evil.py").write_text(EVIL_TOOL, encoding="utf-8")
    (folder / "other.trail.yaml").write_text(
        "trail:\n  - step: Back\n    recording:\n      android:\n        - pressBack\n", encoding="utf-8"
    )
    (folder / "shadow").write_text(SHADOW, encoding="utf-8")
    return folder


@pytest.mark.parametrize("how", ["absolute", "dotdot", "symlink", "symlink-to-shadow"])
def test_run_trail_outside_the_project_is_refused(how: str, tmp_path: Path, outside: Path) -> None:
    project = tmp_path / "project"
    (project / "trails").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (project / "trails" / "linked.trail.yaml").symlink_to(outside / "other.trail.yaml")
    (project / "trails" / "shadow.trail.yaml").symlink_to(outside / "shadow")
    path = {
        "absolute": str(outside / "other.trail.yaml"),
        "dotdot": "../../elsewhere/other.trail.yaml",
        "symlink": "linked.trail.yaml",
        "symlink-to-shadow": "shadow.trail.yaml",
    }[how]
    trail = _caller(project / "trails", path)
    for command in ("validate", "replay"):
        extra = ["--device", "sim:android", "--run-dir", str(tmp_path / "run")] if command == "replay" else []
        done = trailblaze(command, str(trail), *extra)
        out = done.stdout + done.stderr
        assert done.returncode == 2, out
        assert "outside this trail's project" in " ".join(out.split()), out
        assert "secrethash" not in out and "hunter2" not in out
    assert not (outside / "tools" / "IMPORTED").exists()
    assert not (tmp_path / "run").exists()


def test_run_trail_inside_the_project_still_runs_up_a_folder(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "back.trail.yaml").write_text(
        "trail:\n  - step: Back\n    recording:\n      android:\n        - pressBack\n", encoding="utf-8"
    )
    done = trailblaze("validate", str(_caller(tmp_path / "suite", "../flows/back.trail.yaml")))
    assert done.returncode == 0, done.stdout + done.stderr


def test_validate_never_echoes_a_file_that_is_not_a_trail(tmp_path: Path) -> None:
    files = {
        "shadow": SHADOW,
        "passwd": "root:x:0:0:root:/root:/bin/bash\n",
        ".env": "API_TOKEN=hunter2-env\n",
        "compose.yaml": "services:\n  db:\n    password: hunter2-compose\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    done = trailblaze("validate", *(str(tmp_path / name) for name in files))
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert out.count("not a trail file") == len(files), out
    for word in ("secrethash", "hunter2", "root:x", "services", "API_TOKEN", "bin/bash"):
        assert word not in out, out
