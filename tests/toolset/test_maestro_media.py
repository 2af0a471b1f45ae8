"""Maestro's `addMedia`: a flow's pictures and videos reach the phone's gallery through the real
uiautomator2 / adb clients (copied into shared storage, indexed by the media scanner), paths written
in a sub-flow are read from the sub-flow's folder, and what cannot be added says so at its line."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest
from PIL import Image

from tests.support.device import rig
from trailblaze.device.devices import open_device
from trailblaze.engine.replay import build_memory, replay_trail
from trailblaze.errors import TrailFileError
from trailblaze.maestro.importer import import_flow
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import load_trail, parse_tool
from trailblaze_sim import create_device
from trailblaze_sim.server.adb import AndroidSimServer

HEAD = "appId: dev.trailblaze.demo\n---\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "assets").mkdir()
    (tmp_path / "flows" / "sub").mkdir(parents=True)
    picture = io.BytesIO()
    Image.new("RGB", (8, 8), "red").save(picture, "PNG")
    (tmp_path / "assets" / "red.png").write_bytes(picture.getvalue())
    (tmp_path / "assets" / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)))
    (tmp_path / "flows" / "sub" / "video.yaml").write_text(HEAD + "- addMedia:\n  - ../../assets/clip.mp4\n")
    (tmp_path / "flows" / "flow.yaml").write_text(HEAD + "- addMedia: [../assets/red.png]\n- runFlow: sub/video.yaml\n")
    return tmp_path


@pytest.fixture
def server() -> Iterator[AndroidSimServer]:
    with AndroidSimServer([create_device("android")]) as srv:
        yield srv


@pytest.mark.slow  # replays on the simulated phone
def test_pictures_and_videos_reach_the_gallery(project: Path, server: AndroidSimServer) -> None:
    flow = project / "flows" / "flow.yaml"
    trail = load_trail(flow)
    env = {"ANDROID_ADB_SERVER_HOST": "127.0.0.1", "ANDROID_ADB_SERVER_PORT": str(server.port)}
    with open_device("android", env=env) as session:
        record = replay_trail(trail, session, memory=build_memory(trail))
    assert record.status == "passed", record.error
    messages = [t.message for s in record.steps for t in s.tools]
    assert messages[0] == "added 1 media file to the gallery: /sdcard/Pictures/red.png"
    assert messages[1].endswith("added 1 media file to the gallery: /sdcard/Movies/clip.mp4")

    phone = adbutils.AdbClient("127.0.0.1", server.port).device("emulator-5554")
    assert phone.sync.read_bytes("/sdcard/Pictures/red.png") == (project / "assets" / "red.png").read_bytes()
    assert phone.sync.read_bytes("/sdcard/Movies/clip.mp4") == (project / "assets" / "clip.mp4").read_bytes()
    # the media scanner indexed both: the gallery (and the system photo picker) list them
    assert phone.shell("content query --uri content://media/external/images/media") == (
        "Row: 0 _data=/storage/emulated/0/Pictures/red.png"
    )
    assert phone.shell("content query --uri content://media/external/video/media") == (
        "Row: 0 _data=/storage/emulated/0/Movies/clip.mp4"
    )


def test_a_sub_flows_media_is_read_from_its_folder_and_an_import_elsewhere_keeps_it(project: Path) -> None:
    trail = load_trail(project / "flows" / "flow.yaml")
    commands = trail.steps[1].recording_for("android")[0].params["commands"]  # type: ignore[index]
    assert commands[0]["runFlow"]["commands"] == [{"addMedia": {"files": ["../assets/clip.mp4"]}}]

    done = import_flow(project / "flows" / "flow.yaml", project / "trails" / "maestro")
    imported = load_trail(done.trail)
    first = imported.steps[0].recording_for("android")[0].params["commands"]  # type: ignore[index]
    assert first == [{"addMedia": {"files": ["../../assets/red.png"]}}]
    nested = imported.steps[1].recording_for("android")[0].params["commands"]  # type: ignore[index]
    assert nested[0]["runFlow"]["commands"] == [{"addMedia": ["../../assets/clip.mp4"]}]  # as written: the same


def test_what_cannot_be_added_is_a_problem_at_its_line(project: Path) -> None:
    bad = project / "flows" / "bad.yaml"
    bad.write_text(HEAD + "- launchApp\n- addMedia:\n  - ../assets/notes.txt\n")
    (project / "assets" / "notes.txt").write_text("not media")
    with pytest.raises(TrailFileError) as raised:
        load_trail(bad)
    assert raised.value.message.endswith(
        "bad.yaml:4:3: addMedia ../assets/notes.txt: .txt is not a media type Maestro adds; "
        "use one of .gif, .jpeg, .jpg, .mp4, .png"
    )
    bad.write_text(HEAD + "- launchApp\n- addMedia:\n  - ../assets/red.png\n  - ../assets/missing.png\n")
    with pytest.raises(TrailFileError) as raised:
        load_trail(bad)
    assert "bad.yaml:6:5: addMedia file ../assets/missing.png does not exist" in raised.value.message


def test_a_trail_reads_media_inside_its_project_only(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.png"
    outside.write_bytes(b"\x89PNG")
    (project / "assets" / "link.png").symlink_to(outside)
    (project / "trails").mkdir()
    with rig("android") as r:
        for written, says in (
            (f"{outside}", "outside this trail's project"),
            ("../assets/link.png", "outside this trail's project"),  # a link out is out
            ("../assets/none.png", "no such file"),
        ):
            call = parse_tool(f"mobile_maestro: {{commands: [{{addMedia: ['{written}']}}]}}")
            result = run_recorded_tool(r.session, call, Memory(), folder=project / "trails")
            assert result.status == "ERROR" and says in result.message, result
        ok = parse_tool("mobile_maestro: {commands: [{addMedia: ['../assets/red.png']}]}")
        result = run_recorded_tool(r.session, ok, Memory(), folder=project / "trails")
        assert result.ok and result.message.endswith("/sdcard/Pictures/red.png"), result
