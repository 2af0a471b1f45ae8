"""`report --merge` confines each run directory's artifact paths to that directory (issue 31, item 12):
a shard's run.json naming `../other-shard/…` shows nothing from the other shard, nor from the folder
that holds them all."""

from __future__ import annotations

from pathlib import Path

from trailblaze.output.merge import merge_runs
from trailblaze.output.report import write_html_report
from trailblaze.output.runlog import RunRecord, StepRecord, TrailRecord, write_run

SECRET_LOG = "PRIVATE-LOG-LINE-of-shard-b"


def _run(directory: Path, step: StepRecord) -> None:
    trail = TrailRecord(path="login.trail.yaml", status="failed", directory="login", steps=[step])
    write_run(RunRecord(run_id=directory.name, started_at="2026-01-01T00:00:00Z", trails=[trail]), directory)


def test_a_shard_cannot_reference_another_shards_files(tmp_path: Path) -> None:
    a, b = tmp_path / "shard-a", tmp_path / "shard-b"
    (b / "login").mkdir(parents=True)
    (b / "login" / "device.log").write_text(SECRET_LOG + "\n", encoding="utf-8")
    (tmp_path / "top.log").write_text(SECRET_LOG + "\n", encoding="utf-8")
    a.mkdir()
    (a / "escape").symlink_to(b / "login")
    _run(
        a,
        StepRecord(
            index=0, kind="step", text="Sign in", status="failed",
            device_log="../shard-b/login/device.log",
            hierarchy_before="../top.log",
            hierarchy_after="escape/device.log",
        ),
    )  # fmt: skip
    _run(b, StepRecord(index=0, kind="step", text="Sign in", status="passed", device_log="login/device.log"))
    merged = merge_runs([a, b])
    step_a = merged.run.trails[0].steps[0]
    assert (step_a.device_log, step_a.hierarchy_before, step_a.hierarchy_after) == (None, None, None)
    assert merged.run.trails[1].steps[0].device_log == "login/device.log"  # b's own file stays
    html = write_html_report(merged.root, tmp_path / "report.html", run=merged.run).read_text(
        encoding="utf-8"
    )
    assert html.count(SECRET_LOG) <= 1  # only shard b's own step may show its own log
