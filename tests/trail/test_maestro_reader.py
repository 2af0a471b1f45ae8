"""Reading Maestro flows: what validates, what is refused (one line, `file:line:col`, exit 2), the trail
a flow becomes, `trailblaze import maestro`, and the Maestro corpus figures (issue 26)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import trailblaze
from tests.support.paths import DATA as _DATA
from tests.support.paths import ROOT
from trailblaze.errors import TrailFileError, UsageError
from trailblaze.maestro.commands import check, normalize
from trailblaze.maestro.select import text_pattern
from trailblaze.maestro.sniff import looks_like_flow
from trailblaze.screen.patterns import full_match
from trailblaze.trail.discovery import walk_trails
from trailblaze.trail.model import load_trail, loads_trail, save_trail

DATA = _DATA / "maestro"
HEAD = "appId: dev.trailblaze.demo\n---\n"


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return trailblaze(*args, cwd=cwd, timeout=120)


def _flow(tmp_path: Path, body: str, name: str = "flow.yaml") -> Path:
    path = tmp_path / name
    path.write_text(HEAD + body, encoding="utf-8")
    return path


# --- refusals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "col", "says"),
    [
        (
            "- launchApp\n- setLocation:\n    latitude: 1\n    longitude: 2\n",
            4,
            3,
            "Maestro command `setLocation` is not supported",
        ),
        ("- runScript: setup.js\n", 3, 14, "runScript file setup.js does not exist"),
        (
            "- repeat:\n    times: 100000000\n    commands: [back]\n",
            4,
            5,
            "repeat: times 100,000,000 is more than 1,000",
        ),
        ("- tapOn:\n    traits: text\n", 4, 5, "selecting by `traits` is not supported"),
        ("- tapOnn: Sign in\n", 3, 3, "unknown Maestro command `tapOnn`"),
        (
            "- inputRandomText:\n    length: 1000000\n",
            4,
            5,
            "inputRandomText: length 1,000,000 is more than 1,000",
        ),
        ("- pressKey: Volume Upp\n", 3, 13, "pressKey: 'Volume Upp' is not a key Maestro knows"),
        (
            "- runFlow:\n    commands:\n      - back\n      - travel:\n          points: []\n",
            6,
            9,
            "`travel`",
        ),
        ("- runFlow: missing.yaml\n", 3, 12, "runFlow file missing.yaml does not exist"),
    ],
)
def test_validate_refuses_with_one_line_naming_the_command(
    tmp_path: Path, body: str, line: int, col: int, says: str
) -> None:
    flow = _flow(tmp_path, body)
    ran = _cli("validate", str(flow), cwd=tmp_path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    first = ran.stdout.splitlines()[0]
    assert first.startswith(f"{flow}:{line}:{col}: ") and says in first, first
    assert "Traceback" not in ran.stdout + ran.stderr


def test_replay_refuses_an_unsupported_flow_before_the_device(tmp_path: Path) -> None:
    flow = _flow(tmp_path, "- launchApp\n- travel:\n    points: []\n")
    ran = _cli("replay", str(flow), "--device", "android:no-such-serial", cwd=tmp_path)
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert f"{flow}:4:3: Maestro command `travel` is not supported" in ran.stdout + ran.stderr
    assert "Traceback" not in ran.stdout + ran.stderr


def test_a_run_flow_loop_is_refused(tmp_path: Path) -> None:
    _flow(tmp_path, "- runFlow: b.yaml\n", "a.yaml")
    _flow(tmp_path, "- runFlow: a.yaml\n", "b.yaml")
    with pytest.raises(TrailFileError, match="a.yaml runs itself"):
        load_trail(tmp_path / "a.yaml")


def test_every_demo_flow_validates() -> None:
    ran = _cli("validate", str(DATA / "flows"), cwd=DATA)
    assert ran.returncode == 0, ran.stdout
    assert "6 files checked, all valid" in ran.stdout


# --- what a flow becomes -------------------------------------------------------------------------------


def test_a_flow_is_a_trail_of_mobile_maestro_steps_for_both_phones(tmp_path: Path) -> None:
    flow = _flow(
        tmp_path,
        "- launchApp:\n    clearState: true\n- tapOn: Sign in\n- back\n",
    )
    flow.write_text("name: Demo\ntags: [smoke]\nenv:\n  WHO: me\n" + flow.read_text(), encoding="utf-8")
    trail = load_trail(flow)
    assert trail.config is not None and trail.config.target == "dev.trailblaze.demo"
    assert trail.config.tags == ["smoke"] and trail.config.memory == {"WHO": "me"}
    assert [s.text for s in trail.steps] == ["launchApp clearState=True", "tapOn 'Sign in'", "back"]
    assert trail.steps[0].recording is not None
    for step in trail.steps:
        assert step.recording is not None and sorted(step.recording) == ["android", "ios"]
    launch = trail.steps[0].recording["android"][0]
    assert launch.name == "mobile_maestro"
    assert launch.params == {
        "commands": [{"launchApp": {"appId": "dev.trailblaze.demo", "clearState": True}}]
    }


def test_run_flow_files_are_read_inline_with_their_env_filled_in() -> None:
    trail = load_trail(DATA / "flows" / "inbox.yaml")
    first = trail.steps[0].recording["android"][0].params["commands"][0]  # type: ignore[index]
    inner = first["runFlow"]["commands"]
    assert first["runFlow"]["label"] == "subflows/sign_in.yaml" and "file" not in first["runFlow"]
    assert {"inputText": "reader@example.com"} in inner  # the runFlow's env wins over the sub-flow's
    assert {"inputText": "hunter2"} in inner  # the sub-flow's own env


def test_a_flow_is_never_saved_over(tmp_path: Path) -> None:
    flow = _flow(tmp_path, "- back\n")
    trail = load_trail(flow)
    with pytest.raises(UsageError, match="is a Maestro flow"):
        save_trail(trail)
    assert flow.read_text(encoding="utf-8") == HEAD + "- back\n"


def test_folders_hold_flows_but_not_other_yaml(tmp_path: Path) -> None:
    _flow(tmp_path, "- back\n", "flow.yml")
    (tmp_path / "config.yaml").write_text("flows:\n  - '*'\n", encoding="utf-8")
    (tmp_path / "other.yaml").write_text("name: x\n---\n- back\n", encoding="utf-8")
    assert [p.name for p in walk_trails(tmp_path, None)] == ["flow.yml"]


def test_mobile_maestro_in_a_trail_is_checked_when_it_loads() -> None:
    block = load_trail(DATA / "block" / "wait-for-content.trail.yaml")
    assert block.steps[2].recording["android-phone"][0].name == "mobile_maestro"  # type: ignore[index]
    bad = (
        "trail:\n  - step: x\n    recording:\n      android:\n        - mobile_maestro:\n"
        "            commands:\n              - startRecording: x\n"
    )
    with pytest.raises(TrailFileError, match="commands.0.startRecording: Maestro command `startRecording`"):
        loads_trail(bad, "t.trail.yaml")


# --- Maestro's forms and matching rules -------------------------------------------------------------


def test_command_forms() -> None:
    assert normalize("back") == ("back", {})
    assert normalize("hide keyboard") == ("hideKeyboard", {})
    assert normalize({"tapOn": "Sign in"}) == ("tapOn", {"text": "Sign in"})
    assert normalize({"launchApp": None}) == ("launchApp", {})
    assert normalize({"eraseText": 5}) == ("eraseText", {"charactersToErase": 5})
    assert check({"tapOn": {"id": "x", "index": "2", "enabled": "true"}}) == []
    assert check({"tapOn": "a", "back": None})[0][1].startswith("a Maestro command is one name")


@pytest.mark.parametrize(
    ("text", "value", "matches"),
    [
        ("sign in", "Sign In", True),  # any case
        ("Message \\d+", "Message 12", True),  # a regex, whole value
        ("Message", "Message 12", False),  # not a substring
        ("Sign in (beta)", "Sign in (beta)", True),  # the literal text of a regex-looking text
        ("[unclosed", "[unclosed", True),  # not a regex at all: literal
        ("a.b", "a\nb", True),  # `.` matches a newline
    ],
)
def test_text_matches_as_maestro_matches(text: str, value: str, matches: bool) -> None:
    assert full_match(text_pattern(text), value, "text") is matches


def test_sniffing() -> None:
    assert looks_like_flow(HEAD + "- back\n")
    assert looks_like_flow("# comment\nurl: https://x\n--- # commands\n- back\n")
    assert not looks_like_flow("config:\n  id: x\ntrail: []\n")
    assert not looks_like_flow("name: x\n---\n- back\n")


# --- import ------------------------------------------------------------------------------------------


def test_import_writes_trails_lists_what_it_left_and_never_overwrites(tmp_path: Path) -> None:
    flow = _flow(
        tmp_path, "- launchApp\n- setLocation:\n    latitude: 1\n    longitude: 2\n- tapOn: Sign in\n"
    )
    ran = _cli("import", "maestro", str(flow), cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    target = tmp_path / "flow.trail.yaml"
    assert f"wrote {target} (3 steps, 1 left for the agent)" in ran.stdout
    assert f"not converted: {flow}:4:3: Maestro command `setLocation` is not supported" in ran.stdout
    trail = load_trail(target)
    assert [(s.kind, s.text, s.recording is None) for s in trail.steps] == [
        ("step", "launchApp", False),
        ("step", "Maestro `setLocation`", True),
        ("step", "tapOn 'Sign in'", False),
    ]
    target.write_text("# mine\n", encoding="utf-8")
    again = _cli("import", "maestro", str(flow), cwd=tmp_path)
    assert again.returncode == 0 and "skipped" in again.stdout
    assert target.read_text(encoding="utf-8") == "# mine\n"
    forced = _cli("import", "maestro", str(flow), "--force", cwd=tmp_path)
    assert forced.returncode == 0 and load_trail(target).steps[0].text == "launchApp"


def test_import_of_something_that_is_no_flow_exits_2(tmp_path: Path) -> None:
    other = tmp_path / "x.yaml"
    other.write_text("a: 1\n", encoding="utf-8")
    ran = _cli("import", "maestro", str(other), str(tmp_path / "missing.yaml"), cwd=tmp_path)
    assert ran.returncode == 2
    assert f"{other}:1:1: not a Maestro flow" in ran.stdout
    assert "missing.yaml: no such file or directory" in ran.stdout
    assert "Traceback" not in ran.stdout + ran.stderr


# --- the corpus ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_maestro_corpus_validates_with_no_traceback(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "maestro_corpus", ROOT / "benchmarks" / "maestro_corpus.py"
    )
    assert spec is not None and spec.loader is not None
    maestro_corpus = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maestro_corpus)
    corpus = tmp_path / "corpus"
    shutil.copytree(DATA / "corpus", corpus)
    (corpus / ".git").mkdir()  # Maestro's checkout: the project its flows' files stay inside
    flows, refused, crashed = maestro_corpus.survey(corpus)
    assert crashed == {}
    assert len(flows) == 276
    assert len(flows) - len(refused) >= 242  # the figures reported in docs/guides/maestro.md
    valid = [p for p in flows if not maestro_corpus.maestro_refuses(p, refused.get(p))]
    kept = [p for p in valid if p not in refused]
    assert len(valid) == 248 and len(kept) >= 241  # ≥ 95 % of the flows Maestro considers valid
    assert all(message for message in refused.values())


def test_maestro_picks_the_deepest_match_then_index_else_the_clickable_one() -> None:
    from trailblaze.maestro.select import query
    from trailblaze.screen.hierarchy import Node

    row = Node(platform="android", class_name="android.widget.FrameLayout", clickable=True, label="Sign in")
    text = Node(platform="android", class_name="android.widget.TextView", text="Sign in", parent=row)
    other = Node(platform="android", class_name="android.widget.TextView", text="sign in")
    row.children = [text]
    assert query({"text": "Sign in"}, "android").pick([row, text, other]) is text  # deepest, first
    assert query({"text": "Sign in", "index": 1}, "android").pick([row, text, other]) is other
    assert query({"text": "Sign in", "index": 2}, "android").pick([row, text, other]) is None
    assert query({"enabled": True}, "android").pick([text, row]) is row  # no text / id: clickable first
    assert query({"text": "x"}, "ios").selector.iosMaestro is not None
