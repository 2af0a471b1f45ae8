"""What a first-time user meets when something is wrong: one line on stderr saying what, where and how
to fix, the documented exit code, no traceback, no secret — and the run stops before the device.

In process through `trailblaze.cli.main.main` (the console script's entry point, with its error mapping).
"Before the device" is proven by pointing `--device` at an adb server / WebDriverAgent that does not
exist: touching it would exit 3 with a connection error instead of the expected message.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import ROOT
from trailblaze.cli.main import cli, main
from trailblaze.cli.options import _LATENCIES
from trailblaze_sim.faults import LATENCY_PROFILES

LOGIN = ROOT / "trails" / "login.trail.yaml"
NO_DEVICE = "android"  # with ANDROID_ADB_SERVER_PORT=9 and no adb binary: unreachable

STEP = "config:\n  id: x\ntrail:\n  - step: hi\n    recording:\n      android:\n"


@pytest.fixture(autouse=True)
def _no_adb_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "9")
    monkeypatch.setenv("ADBUTILS_ADB_PATH", "/bin/false")
    monkeypatch.setenv("COLUMNS", "200")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    assert ("Traceback" in err) == ("--debug" in args)
    return int(exc.value.code or 0), out, err


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err


# --- usage ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["bogus"], "No such command 'bogus'; see 'trailblaze --help'"),
        (["replay", "--devce", "sim:android", "x"], "'--device'"),
        (["replay", str(LOGIN)], "Missing option '--device'; see 'trailblaze replay --help'"),
        (["replay", str(LOGIN), "--device", "sim:android", "--secret", "password"],
         "--secret password: the environment variable TRAILBLAZE_SECRET_PASSWORD is not set"),
        (["tool", "pressBack", "--device", "sim:android", "--memory", "=x"], "'=x' is not KEY=VALUE (no name); write --memory NAME=VALUE"),
        (["replay", str(LOGIN), "--device", NO_DEVICE, "--latency", "realistic"],
         "only a simulated device has a latency profile"),
        (["sim", "android", "--latency", "slow"], "'slow' is not one of 'zero', 'realistic'"),
        (["sim", "android", "--devices", "0"], "0 is not in the range x>=1"),
    ],
)  # fmt: skip
def test_usage_errors_are_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], expected: str
) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert expected in one_line(err)


def test_a_secret_with_no_name_is_not_echoed(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "replay", str(LOGIN), "--device", "sim:android", "--secret", "=hunter2")
    assert code == 2 and "'=…' is not KEY=VALUE (no name); write --secret NAME=VALUE" in one_line(err)
    assert "hunter2" not in err


def test_bare_trailblaze_prints_the_help_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert code == 2 and err == ""
    assert out.startswith("Usage: trailblaze") and "replay" in out


def test_help_lists_whole_sentences_and_every_device_command_has_examples_debug_and_latency() -> None:
    from click.testing import CliRunner

    top = CliRunner().invoke(cli, ["--help"], terminal_width=100).output
    for command in cli.commands.values():  # no one-line summary cut mid-sentence
        assert command.short_help and f"{command.short_help}\n" in top, command.name
    for name, command in cli.commands.items():
        text = CliRunner().invoke(cli, [name, "--help"], terminal_width=200).output
        assert "--debug" in text, name  # `--debug` is accepted after any command, as the README says
        if any(p.name == "device" for p in command.params):
            assert "Examples:" in text and "--latency [zero|realistic]" in text, name
            assert "demo@restyled" in text, name  # what APP in sim:android[:APP] may be
    assert set(_LATENCIES) == set(LATENCY_PROFILES)


def test_debug_after_the_command_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "tool", "pressBack", "--device", "sim:windows", "--debug")
    assert code == 2 and err.rstrip().endswith("error: unknown device 'sim:windows': use android[:SERIAL], "
                                               "android@HOST:PORT[:SERIAL], ios[:WDA_URL], ios@http://HOST:PORT, web[:URL], "
                                               "appium:URL or appium:browserstack|saucelabs|lambdatest (with "
                                               "--capabilities FILE), "
                                               "sim:android[:APP][+PROFILE] or sim:ios[:APP][+PROFILE] (PROFILE: small, large, tablet, with +landscape, "
                                               "+large-font, +dark)")


# --- paths and trail files ----------------------------------------------------------------------------


def test_missing_path_and_folder_without_trails_say_which(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "replay", str(tmp_path / "nope"), "--device", NO_DEVICE)
    assert code == 2 and f"no trail file at {tmp_path / 'nope'}: no such file or directory" in one_line(err)
    (tmp_path / "empty").mkdir()
    code, _, err = run(capsys, "record", str(tmp_path / "empty"), "--device", NO_DEVICE)
    assert code == 2 and "no *.trail.yaml, *.trail.md, trail.yaml or blaze.yaml below" in one_line(err)


def test_unknown_tool_fails_at_its_line_before_the_device(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trail = tmp_path / "typo.trail.yaml"
    trail.write_text(STEP + "        - pressBack\n        - tapOnElementBySelectr:\n            x: 1\n")
    code, out, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE)
    assert code == 2 and out == ""
    assert one_line(err) == (
        f"error: {trail}:8:11: unknown tool `tapOnElementBySelectr`: trailblaze has no implementation for it; "
        "did you mean `tapOnElementBySelector`?\n"
    )
    # recordings of the other platform are not this run's business
    ios = trail.read_text().replace("android:", "ios:")
    trail.write_text(ios + "      android: []\n")
    code, _, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE)
    assert code == 3 and "no adb server at 127.0.0.1:9" in err


def test_unknown_tool_in_the_tool_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "tool", "{tapOnFoo: {x: 1}}", "--device", NO_DEVICE)
    assert code == 2 and out == "" and "<tool>: unknown tool `tapOnFoo`" in one_line(err)


def test_a_template_with_no_value_is_named_with_its_line_before_the_device(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "replay", str(ROOT / "trails"), "--device", NO_DEVICE)
    assert code == 2 and out == ""
    line = one_line(err)
    assert line.startswith(f"error: {ROOT / 'trails'}/archive-message.trail.yaml:")
    assert "{{password}} has no value (and " in line and "pass --secret password=VALUE" in line
    where = line.split(": ")[1].split(":")
    text = (ROOT / "trails" / "archive-message.trail.yaml").read_text().splitlines()[int(where[1]) - 1]
    assert text[int(where[2]) - 1 :].startswith("'{{password}}'")


def test_a_misspelt_secret_is_named_next_to_the_one_the_trail_needs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trail = str(ROOT / "trails" / "login.trail.yaml")
    code, out, err = run(capsys, "replay", trail, "--device", NO_DEVICE, "--secret", "pasword=hunter2")
    assert code == 2 and out == ""
    line = one_line(err)
    assert "{{password}} has no value" in line and "pass --secret password=VALUE" in line
    assert "; --secret pasword was given but is used nowhere (a typo of password?)" in line
    assert "hunter2" not in err


@pytest.mark.parametrize(
    ("device", "guess"),
    [("sim:andriod", "sim:android"), ("iphone", "ios"), ("sim:iphone", "sim:ios"), ("andorid", "android")],
)
def test_a_misspelt_device_gets_a_did_you_mean(capsys: pytest.CaptureFixture[str], device: str, guess: str) -> None:
    code, out, err = run(capsys, "snapshot", "--device", device)
    assert code == 2 and out == ""
    assert one_line(err).startswith(f"error: unknown device '{device}': did you mean `{guess}`? use android"), err


def test_templates_a_trail_remembers_or_is_given_pass_the_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trail = tmp_path / "t.trail.yaml"
    trail.write_text(
        "config:\n  memory: {who: me}\n"
        "trail:\n  - step: hi\n    recording:\n      android:\n"
        "        - rememberTextBySelector:\n"
        "            nodeSelector: {androidAccessibility: {resourceIdRegex: x}}\n"
        "            variable: seen\n"
        "        - inputText: {text: '{{seen}} {{who}} {{args.n}} ${pw}'}\n"
    )
    code, _, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE, "--arg", "n=1", "--secret", "pw=s3cr")
    assert code == 3 and "no adb server" in err  # got as far as the device
    code, _, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE, "--secret", "pw=s3cr")
    assert code == 2 and one_line(err) == (
        f"error: {trail}:10:29: {{{{args.n}}}} has no value; pass --arg n=VALUE, or set it in config.args\n"
    )


def test_typed_args_use_their_default_and_a_required_one_stops_before_the_device(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trail = tmp_path / "t.trail.yaml"
    trail.write_text(
        "config:\n  args:\n    name:\n      type: string\n      default: Jane Doe\n"
        "    email:\n      type: string\n"
        "trail:\n  - step: hi\n    recording:\n      android:\n"
        "        - inputText: {text: '{{args.name}} {{args.email}}'}\n"
    )
    code, _, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE)
    assert code == 2 and one_line(err) == (
        f"error: {trail}:6:5: config.args.email has no default and no value was given; "
        "pass --arg email=VALUE (or give it a `default:`)\n"
    )
    code, _, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE, "--arg", "email=j@x.org")
    assert code == 3 and "no adb server" in err  # got as far as the device


def test_v1_trailhead_and_skipped_trails(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    trail = tmp_path / "v1.trail.yaml"
    trail.write_text(
        "- trailhead:\n    step: Launch\n    recording:\n      tools:\n        - launchApp: {appId: '{{app}}'}\n"
        "- tools:\n    - presBack\n"
    )
    code, _, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE)
    assert code == 2
    assert err.splitlines() == [
        f"{trail}:7:7: unknown tool `presBack`: trailblaze has no implementation for it; did you mean `pressBack`?",
        f"{trail}:5:30: {{{{app}}}} has no value; pass --secret app=VALUE (or --memory / --arg app=VALUE), "
        "or set it in config.memory",
    ]
    trail.write_text("- config: {skip: {android-tablet: later}}\n" + trail.read_text())
    code, _, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE)
    assert code == 3 and "no adb server" in err  # the device decides whether the trail is skipped


# --- the agent ----------------------------------------------------------------------------------------


@pytest.fixture
def no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A non-loopback endpoint with no key: the client refuses to be built (no request is ever sent)."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://anthropic.invalid")


@pytest.mark.usefixtures("no_api_key")
@pytest.mark.slow
def test_no_api_key_is_checked_before_the_device(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An unrecorded step with no model is the trail's problem (exit 2, issue 40); a record that needs
    the model and has no key is the endpoint's (exit 3)."""
    trail = tmp_path / "t.trail.yaml"
    trail.write_text(STEP + "        - pressBack\n  - verify: the inbox is shown\n")
    code, _, err = run(capsys, "replay", str(trail), "--device", NO_DEVICE, "--run-dir", str(tmp_path / "run"))
    assert code == 2
    assert one_line(err).startswith(
        f"error: {trail} step 2 has no android recording, and no model is configured to solve it (no API key"
    )
    assert f"record it: trailblaze record {trail} --device {NO_DEVICE}, or pass a key: set `ANTHROPIC_API_KEY`" in err
    assert not (tmp_path / "run").exists()
    code, _, err = run(capsys, "record", str(LOGIN), "--device", NO_DEVICE, "--rerecord", "--secret", "password=xxxx")
    assert code == 3 and "--rerecord solves every step, so the agent must run: no API key" in one_line(err)


@pytest.mark.usefixtures("no_api_key")
def test_a_fully_recorded_trail_needs_no_key(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "replay", str(LOGIN), "--device", NO_DEVICE, "--secret", "password=hunter2",
                       "--run-dir", str(tmp_path / "run"))  # fmt: skip
    assert code == 3 and "no adb server at 127.0.0.1:9" in one_line(err) and "hunter2" not in err
    assert not (tmp_path / "run").exists()  # nothing ran: no empty run directory is left behind


# --- outputs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--report", "--junit", "--run-dir"])
def test_unwritable_outputs_fail_before_the_device(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flag: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")  # a folder cannot be made inside a file, even by root
    target = blocker / "out" / ("r.html" if flag == "--report" else "j.xml")
    code, out, err = run(capsys, "replay", str(LOGIN), "--device", NO_DEVICE, "--secret", "password=pppp",
                         flag, str(target))  # fmt: skip
    assert code == 2 and out == ""
    line = one_line(err)
    assert (f"{flag} {target}: cannot write in" in line) if flag != "--run-dir" else (
        f"cannot create {target}" in line and "pass --run-dir with a writable folder" in line
    )


def test_a_run_folder_linked_outside_the_project_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / ".trailblaze").symlink_to(elsewhere)  # as a clone checks a committed link out
    monkeypatch.chdir(project)
    code, out, err = run(capsys, "replay", str(LOGIN), "--device", NO_DEVICE, "--secret", "password=pppp")
    assert code == 2 and out == "" and list(elsewhere.iterdir()) == []
    assert one_line(err).strip() == (
        f"error: the run folder .trailblaze/runs resolves to {elsewhere.resolve() / 'runs'}, outside the project "
        f"{project.resolve()} (a symlink in its path); remove the link, or pass --run-dir "
        f"{elsewhere.resolve() / 'runs'} to write there on purpose"
    )
    code, _, err = run(capsys, "replay", str(LOGIN), "--device", NO_DEVICE, "--secret", "password=pppp",
                       "--run-dir", str(elsewhere / "runs" / "one"))  # fmt: skip
    assert code == 3 and "no adb server" in err  # named explicitly: written there, up to the device


def test_snapshot_screenshot_path_is_checked_before_the_device(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "a-file").write_text("")
    target = tmp_path / "a-file" / "s.png"
    code, _, err = run(capsys, "snapshot", "--device", NO_DEVICE, "--screenshot", str(target))
    assert code == 2 and f"--screenshot {target}: cannot write in" in one_line(err)
    code, _, err = run(capsys, "snapshot", "--device", NO_DEVICE, "--set-of-mark")
    assert code == 2 and "add --screenshot FILE.png" in one_line(err)


def test_sim_on_a_busy_port_says_how_to_fix(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, _, err = run(capsys, "sim", "android", "--port", str(port))
    assert code == 2 and f"127.0.0.1:{port}" in one_line(err) and "pick another --port (0 picks a free one)" in err


@pytest.mark.parametrize(
    ("text", "where", "hint"),
    [
        ("trail:\n  - step: hi\n   recording:\n", ":3:4:", "check the indentation: this line must line up"),
        ("trail:\n  - step: hi\n    recording: {android: [pressBack}\n", ":3:", "close every `[` with a `]`"),
    ],
)
def test_yaml_syntax_errors_say_how_to_fix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, where: str, hint: str
) -> None:
    trail = tmp_path / "t.trail.yaml"
    trail.write_text(text)
    code, out, _ = run(capsys, "validate", str(trail))
    assert code == 2 and out.startswith(f"{trail}{where}") and hint in out.splitlines()[0]


def test_report_on_a_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "report", str(LOGIN))
    assert code == 2 and f"{LOGIN}: not a directory; pass a run directory" in one_line(err)


# --- on the simulator -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_one_trail_on_a_realistic_sim_and_the_summary_says_trail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trail = tmp_path / "t.trail.yaml"
    trail.write_text(STEP + "        - pressBack\n")
    code, out, err = run(capsys, "replay", str(trail), "--device", "sim:android", "--latency", "realistic",
                         "--run-dir", str(tmp_path / "run"))  # fmt: skip
    assert code == 0 and err == "", out
    assert f"1 trail: 1 passed — run directory {tmp_path / 'run'}" in out
    run_log = (tmp_path / "run" / "run.json").read_text()
    assert '"status": "passed"' in run_log


@pytest.mark.slow
def test_a_template_missing_at_run_time_names_the_trail_and_step(tmp_path: Path) -> None:
    from trailblaze.device.devices import open_device
    from trailblaze.engine.replay import replay_trail
    from trailblaze.errors import UsageError
    from trailblaze.tools.memory import Memory

    trail = tmp_path / "t.trail.yaml"
    trail.write_text(STEP + "        - pressBack\n  - step: type\n    recording:\n      android:\n"
                     "        - inputText: {text: '{{later}}'}\n")  # fmt: skip
    with open_device("sim:android", latency="zero") as session:
        with pytest.raises(UsageError) as exc:
            replay_trail(trail, session, memory=Memory({}, secrets={"pw": "hunter2"}))
    assert exc.value.message.startswith("t.trail.yaml:8 step 2 ('type'): unknown variable {{later}} in inputText")
