"""Maestro flow files as editors save them: Windows line ends, a byte-order mark, a leading `---`; and
folders where nothing is passed over in silence (issue 37, item 3)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cli import trailblaze
from tests.support.paths import DATA
from trailblaze.cli.main import cli
from trailblaze.maestro.sniff import flow_file_kind, looks_like_flow
from trailblaze.trail.discovery import walk_trails
from trailblaze.trail.model import load_trail

LF = "appId: dev.trailblaze.demo\nenv:\n  WHO: me\n---\n- launchApp\n- tapOn: Sign in\n- inputText: ${WHO}\n"
FAILING = "appId: dev.trailblaze.demo\n---\n- launchApp\n- assertVisible: Not on this screen\n"


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode("utf-8")


def _bom(text: str) -> bytes:
    return b"\xef\xbb\xbf" + text.encode("utf-8")


def _validate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["validate", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("encode", [_crlf, _bom, lambda t: _bom(t).replace(b"\n", b"\r\n")])
def test_crlf_and_a_bom_read_as_lf_does(tmp_path: Path, encode: object) -> None:
    plain = tmp_path / "plain.yaml"
    plain.write_text(LF, encoding="utf-8")
    odd = tmp_path / "odd.yaml"
    odd.write_bytes(encode(LF))  # type: ignore[operator]
    assert flow_file_kind(odd) == "flow"
    want, got = load_trail(plain), load_trail(odd)
    assert (
        [s.text for s in got.steps]
        == [s.text for s in want.steps]
        == ["launchApp", "tapOn 'Sign in'", "inputText '${WHO}'"]
    )
    assert got.config is not None and got.config.memory == {"WHO": "me"}
    assert [s.recording for s in got.steps] == [s.recording for s in want.steps]
    code, out = _validate(str(odd))
    assert code == 0 and "1 file checked, all valid" in out, out


def test_a_leading_document_start_is_part_of_the_header(tmp_path: Path) -> None:
    assert looks_like_flow("---\n# login\nappId: x\n---\n- back\n")
    flow = tmp_path / "flow.yaml"
    flow.write_text("---\nappId: dev.trailblaze.demo\n---\n- back\n", encoding="utf-8")
    assert [p.name for p in walk_trails(tmp_path, None)] == ["flow.yaml"]
    assert [s.text for s in load_trail(flow).steps] == ["back"]


def test_a_folder_holds_every_crlf_and_bom_flow(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_bytes(_crlf(FAILING))
    (tmp_path / "b.yaml").write_bytes(_bom(FAILING))
    (tmp_path / "c.yaml").write_text("appId: dev.trailblaze.demo\n---\n- launchApp\n", encoding="utf-8")
    assert [p.name for p in walk_trails(tmp_path, "android")] == ["a.yaml", "b.yaml", "c.yaml"]


@pytest.mark.slow  # replays three flows on the simulated phone
def test_a_folder_with_failing_crlf_and_bom_flows_exits_1(tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    (flows / "a.yaml").write_bytes(_crlf(FAILING))
    (flows / "b.yaml").write_bytes(_bom(FAILING))
    (flows / "c.yaml").write_text("appId: dev.trailblaze.demo\n---\n- launchApp\n", encoding="utf-8")
    ran = trailblaze(
        "replay", str(flows), "--device", "sim:android", "--element-timeout", "0.3", cwd=tmp_path
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "3 trails: 2 failed, 1 passed" in ran.stdout


def test_an_unreadable_yaml_in_a_folder_is_an_error_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text("appId: x\n---\n- back\n", encoding="utf-8")
    (tmp_path / "gone.yaml").symlink_to("nowhere.yaml")
    (tmp_path / "wide.yaml").write_bytes(b"\xff\xfe" + "appId: x\n---\n- back\n".encode("utf-16-le"))
    assert [p.name for p in walk_trails(tmp_path, None)] == ["gone.yaml", "ok.yaml", "wide.yaml"]
    code, out = _validate(str(tmp_path))
    assert code == 2, out
    assert (
        f"{tmp_path / 'gone.yaml'}: no such trail file: {tmp_path / 'gone.yaml'} is a symlink to a missing file"
        in out
    )
    assert f"{tmp_path / 'wide.yaml'}:1:1: not UTF-8 text" in out
    assert "3 files checked, 2 invalid" in out


def test_a_yaml_that_cannot_be_opened_is_an_error(tmp_path: Path) -> None:
    # A FIFO (opening it would block) cannot be read by anyone, root included (CI runs as root, for
    # whom a file without read permission is still readable).
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert flow_file_kind(fifo) == "unreadable"
    (tmp_path / "ok.yaml").write_text("appId: x\n---\n- back\n", encoding="utf-8")
    code, out = _validate(str(tmp_path))
    assert code == 2 and f"{fifo}: not a regular file: {fifo} is a FIFO (named pipe)" in out, out


def test_validate_of_a_folder_counts_every_file_it_looked_at(tmp_path: Path) -> None:
    (tmp_path / "flow.yaml").write_text("appId: x\n---\n- back\n", encoding="utf-8")
    for name in ("config.yaml", "other.yml", "notes.yaml", "more.yaml"):
        (tmp_path / name).write_text("name: x\n", encoding="utf-8")
    code, out = _validate(str(tmp_path))
    assert code == 0, out
    last = out.splitlines()[-1]
    assert last.startswith("1 file checked, all valid") and last.endswith(
        ", 4 other YAML files looked at and not a trail or a Maestro flow (config.yaml, more.yaml, notes.yaml and 1 more)"
    ), last


# --- locations (item 4) ---------------------------------------------------------------------------------


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text(
        "appId: x\n---\n- launchApp\n- runFlow: sub/s.yaml\n- setLocation: {latitude: 1}\n- runFlow: missing.yaml\n",
        encoding="utf-8",
    )
    (tmp_path / "sub" / "s.yaml").write_text(
        "appId: x\n---\n- back\n- tapOnn: x\n- inputText: ${NOPE}\n", encoding="utf-8"
    )
    (tmp_path / "sub" / "t.yaml").write_text(
        "appId: x\n---\n- back\n- inputText: ${NOPE}\n", encoding="utf-8"
    )
    (tmp_path / "b.yaml").write_text(
        "# b\nappId: x\n---\n- runFlow:\n    file: sub/t.yaml\n- inputText: ${Y}\n", encoding="utf-8"
    )
    return tmp_path


def test_every_problem_names_its_own_file_and_line(tmp_path: Path) -> None:
    _tree(tmp_path)
    a, s = tmp_path / "a.yaml", tmp_path / "sub" / "s.yaml"
    code, out = _validate(str(a))
    assert code == 2, out
    lines = out.splitlines()
    assert f"{s}:4:3: unknown Maestro command `tapOnn`" in lines[0]  # the sub-flow's own line, not a.yaml:4
    # the refused command does not hide the missing sub-flow after it
    assert any(line.startswith(f"{a}:6:12: runFlow file missing.yaml does not exist") for line in lines), out
    assert lines[-1].startswith("1 file checked, 1 invalid with 3 problems")


def test_a_value_note_points_into_the_sub_flow_and_names_env(tmp_path: Path) -> None:
    _tree(tmp_path)
    code, out = _validate(str(tmp_path / "b.yaml"))
    assert code == 0, out
    assert out.splitlines()[:2] == [
        f"{tmp_path / 'sub' / 't.yaml'}:4:14: note: ${{NOPE}} has no value; pass --env NOPE=VALUE, or set it in the flow's env:",
        f"{tmp_path / 'b.yaml'}:6:14: note: ${{Y}} has no value; pass --env Y=VALUE, or set it in the flow's env:",
    ]


@pytest.mark.slow
def test_every_location_in_the_corpus_lies_inside_the_file_it_names() -> None:
    import re

    from trailblaze.engine.preflight import validate_trails
    from trailblaze.errors import TrailblazeError, TrailFileError

    corpus = DATA / "maestro" / "corpus"
    checked = 0
    for path in sorted(corpus.rglob("*.y*ml")):
        if flow_file_kind(path) == "other":
            continue
        try:
            lines = [str(f) for f in validate_trails([(path, load_trail(path))])]
        except TrailFileError as exc:
            lines = exc.message.splitlines()
        except TrailblazeError:
            continue
        for line in lines:
            where = re.match(r"(.+?):(\d+):(\d+): ", line)
            if where:
                checked += 1
                named = Path(where.group(1)).read_text(encoding="utf-8").splitlines()
                assert int(where.group(2)) <= len(named), line
    assert checked >= 20
