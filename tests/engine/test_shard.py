"""Sharding a run over CI jobs and merging the shards' run directories (`trailblaze.engine.shard`, `trailblaze.output.merge`)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.cli import EXAMPLES_DIR, NO_LLM, copy_example, run_cli, trailblaze
from tests.support.paths import ROOT
from trailblaze.engine.shard import Shard, assign_shards, load_durations, parse_shard, select_shard
from trailblaze.errors import UsageError
from trailblaze.output.runlog import RunRecord, TrailRecord, write_run

pytest_plugins = ["pytester"]

EXAMPLES = sorted(p.name for p in EXAMPLES_DIR.glob("*.trail.yaml"))
REPO = ROOT
SUBSET = ["login.trail.yaml", "search.trail.yaml", "sign-out.trail.yaml"]


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "", "1/3/4"])
def test_a_bad_shard_is_a_usage_error_naming_the_form(text: str) -> None:
    with pytest.raises(UsageError, match=r"--shard .*use i/N with 1 <= i <= N"):
        parse_shard(text)


def test_shards_are_even_disjoint_and_stable() -> None:
    keys = [f"trails/t{i:02d}.trail.yaml" for i in range(23)]
    owner = assign_shards(keys, 4)
    assert sorted(Counter(owner.values()).values()) == [5, 6, 6, 6]  # sizes differ by at most one
    assert (
        assign_shards(list(reversed(keys)), 4) == owner
    )  # the order the files were found in does not matter
    chosen = [select_shard(keys, Shard(i, 4), str) for i in range(1, 5)]
    assert sorted(k for part in chosen for k in part) == sorted(keys)  # every key exactly once
    assert chosen[0] == [k for k in keys if owner[k] == 1]  # kept in their original order


def test_durations_balance_the_shards_longest_first() -> None:
    durations = {"a": 10.0, "b": 9.0, "c": 6.0, "d": 5.0, "e": 4.0, "f": 2.0}
    owner = assign_shards(list(durations), 2, durations)
    # longest first, each into the emptier shard (a tie goes to the lower one): 10+5+4 / 9+6+2
    assert owner == {"a": 1, "b": 2, "c": 2, "d": 1, "e": 1, "f": 2}
    assert Counter(assign_shards(list(durations), 2).values()) == {1: 3, 2: 3}  # without: by count only
    # a trail with no known duration counts as the median of the known ones
    with_new = assign_shards([*durations, "new"], 2, durations)
    assert set(with_new) == {*durations, "new"}


def test_durations_come_from_run_json_and_junit(tmp_path: Path) -> None:
    run = RunRecord(run_id="r", started_at="2026-01-01T00:00:00Z", device="sim:android")
    run.trails.append(
        TrailRecord(path="trails/login.trail.yaml", id="demo/login", device="sim:ios", duration_ms=2500)
    )
    write_run(run, tmp_path / "run")
    from_run = load_durations(tmp_path / "run" / "run.json")
    assert (
        from_run["trails/login.trail.yaml"]
        == from_run["demo/login"]
        == from_run["demo/login[sim:ios]"]
        == 2.5
    )
    junit = tmp_path / "junit.xml"
    junit.write_text(
        '<testsuites><testsuite><testcase classname="trails.login.trail.yaml" name="demo/login[sim:ios]" '
        'time="1.25"/></testsuite></testsuites>'
    )
    assert load_durations(junit)["trails.login.trail.yaml.demo/login[sim:ios]"] == 1.25
    junit.write_text("<testsuites><testcase")
    with pytest.raises(UsageError, match=r"junit.xml: not JUnit XML .*pass the run.json"):
        load_durations(junit)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shard", "4/3"], "error: --shard '4/3': use i/N with 1 <= i <= N"),
        (
            ["--shard", "1/3", "--shard-durations", "nope.xml"],
            "error: --shard-durations nope.xml: no such file",
        ),
        (["--shard-durations", "x.xml"], "error: --shard-durations balances shards: add --shard I/N"),
    ],
)
def test_bad_shard_options_are_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    result = trailblaze("replay", str(trail), "--device", "sim:android", *args)
    assert result.returncode == 2
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr


BROKEN = """\
config:
  id: demo/broken
trail:
  - step: Tap the button that is not there
    recording:
      android:
        - tapOnElementBySelector:
            nodeSelector: {androidAccessibility: {resourceIdRegex: '.*:id/no_such_button'}}
"""


def _readme_commands(marker: str) -> list[list[str]]:
    from tests.support.doc_examples import doc_section

    block = doc_section(marker)  # in docs/guides/sharding.md
    return [shlex.split(line) for line in block.splitlines() if line.startswith("trailblaze ")]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ANTHROPIC_BASE_URL": NO_LLM, "COLUMNS": "200"}
    env.pop("ANTHROPIC_API_KEY", None)
    return run_cli(*args[1:], env=env, cwd=cwd, timeout=300)


@pytest.mark.slow
def test_the_readme_shards_replay_every_trail_once_and_merge_into_one_report(tmp_path: Path) -> None:
    """The docs' CI recipe (docs/guides/sharding.md), run as written in a project whose `trails/` holds example trails plus
    one that fails (with `--element-timeout 0.5` added so it fails fast): the 3 shard jobs at the same
    time, as a CI matrix runs them, then `report --merge`. The merged results are the set one unsharded
    run gives. (That every example passes on both platforms is test_pytest_plugin's matrix test.)"""
    *shard_commands, merge_command = _readme_commands("ci-shards")
    assert [c[:2] for c in shard_commands] == [["trailblaze", "replay"]] * 3 and "--merge" in merge_command
    trails = tmp_path / "trails"
    trails.mkdir()
    for name in SUBSET:
        copy_example(name, trails)
    (trails / "broken.trail.yaml").write_text(BROKEN)

    with ThreadPoolExecutor(3) as pool:
        outcomes = list(pool.map(lambda c: _run([*c, "--element-timeout", "0.5"], tmp_path), shard_commands))
    runs = [json.loads((tmp_path / "shards" / str(i) / "run.json").read_text()) for i in (1, 2, 3)]
    per_shard = [[t["id"] for t in run["trails"]] for run in runs]
    expected = {
        **{f"demo/{n.removesuffix('.trail.yaml')}": "passed" for n in SUBSET},
        "demo/broken": "failed",
    }
    assert [run["shard"] for run in runs] == ["1/3", "2/3", "3/3"]
    assert sorted(i for ids in per_shard for i in ids) == sorted(expected)  # every trail exactly once
    assert sorted(len(ids) for ids in per_shard) == [1, 1, 2]  # 4 trails over 3 shards
    codes = sorted(r.returncode for r in outcomes)
    assert codes == [0, 0, 1], [r.stdout + r.stderr for r in outcomes]  # only the broken trail's shard fails

    merged = _run(merge_command, tmp_path)
    assert merged.returncode == 0, merged.stderr
    assert "merged 3 runs: 4 trails (" in merged.stdout
    suite = ET.parse(tmp_path / "junit.xml").getroot()
    cases = {c.get("classname"): c for c in suite.iter("testcase")}
    assert len(list(suite.iter("testcase"))) == len(cases) == 4
    statuses = {
        name: next(p.get("value") for p in case.iter("property") if p.get("name") == "trailblaze.status")
        for name, case in cases.items()
    }
    assert statuses == expected
    assert suite.get("tests") == "4" and suite.get("failures") == "1"
    html = (tmp_path / "report.html").read_text()
    assert "1/3, 2/3, 3/3" in html
    for trail_id in expected:
        assert f"<dd>{trail_id}</dd>" in html
    # screenshots from every shard's folder, put beside the report (the shards are not in its folder)
    shots = re.findall(r'<img src="(report_files/[^"]+)"', html)
    assert len({src.split("/")[1] for src in shots}) == 3 and all((tmp_path / src).is_file() for src in shots)

    # the next run balances its shards by this run's durations, found by the trails' paths
    durations = load_durations(tmp_path / "junit.xml")
    assert {f"trails/{n}" for n in [*SUBSET, "broken.trail.yaml"]} <= set(durations)


def test_merge_refuses_a_folder_without_runs(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = trailblaze("report", "--merge", str(tmp_path / "empty"))
    assert result.returncode == 2
    assert "no run.json in it or in its sub-folders" in result.stderr and "Traceback" not in result.stderr
    two = trailblaze("report", str(tmp_path / "a"), str(tmp_path / "b"))
    assert two.returncode == 2 and "add --merge" in two.stderr


def test_pytest_shards_cover_every_matrix_item_once(pytester: pytest.Pytester) -> None:
    """3 shards of the example trails in a matrix run: every (trail, device) item in exactly one."""
    shutil.copytree(EXAMPLES_DIR, pytester.path / "trails", ignore=shutil.ignore_patterns("__pycache__"))
    common = ["trails", "--collect-only", "-q", "-p", "no:cacheprovider", "--device", "sim:android",
              "--device", "sim:ios", "--trailblaze-each-device"]  # fmt: skip
    seen: list[str] = []
    total = 2 * len(list(EXAMPLES_DIR.rglob("*.trail.yaml")))  # the web trails are items too (skipped)
    for i in (1, 2, 3):
        result = pytester.runpytest_inprocess(*common, "--trailblaze-shard", f"{i}/3")
        ids = [line for line in result.outlines if "::" in line]
        assert total // 3 <= len(ids) <= -(-total // 3), result.outlines
        seen.extend(ids)
    assert len(seen) == len(set(seen)) == total
    assert {line.rsplit("[", 1)[1] for line in seen} == {"sim:android]", "sim:ios]"}
    bad = pytester.runpytest_inprocess(*common, "--trailblaze-shard", "0/3")
    assert bad.ret == 4 and "--trailblaze-shard '0/3': use i/N" in "\n".join(bad.errlines)


def test_a_shard_with_no_trail_passes_with_empty_reports_and_opens_no_device(tmp_path: Path) -> None:
    trail = copy_example("login.trail.yaml", tmp_path)
    owner = assign_shards([Path(os.path.relpath(trail.resolve())).as_posix()], 2)  # the key replay uses
    empty = 3 - next(iter(owner.values()))  # one trail, two shards: the other one is empty
    result = trailblaze(
        "replay", str(trail), "--device", "android@127.0.0.1:9", "--shard", f"{empty}/2",
        "--run-dir", str(tmp_path / "run"), "--junit", str(tmp_path / "junit.xml"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr  # the device (a closed port) was never opened
    assert f"shard {empty}/2: no trail falls in this shard" in result.stdout
    assert ET.parse(tmp_path / "junit.xml").getroot().get("tests") == "0"
    assert json.loads((tmp_path / "run" / "run.json").read_text())["shard"] == f"{empty}/2"
