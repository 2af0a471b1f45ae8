"""Maestro flows as teams write them (issue 37): JavaScript in a sandboxed QuickJS, what Maestro
accepts, budgets for hostile flows, and the regex hint of a failing text selector (issue 40, item 7)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.cli import trailblaze
from tests.support.paths import DATA as _DATA
from trailblaze.cli.main import cli
from trailblaze.errors import TrailFileError
from trailblaze.maestro import scripts as scripts_module
from trailblaze.maestro.commands import check, normalize
from trailblaze.maestro.scripts import ScriptError, Scripts, truthy
from trailblaze.maestro.select import regex_hint
from trailblaze.trail.model import load_trail

DATA = _DATA / "maestro"
HEAD = "appId: dev.trailblaze.demo\n---\n"


def _validate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["validate", *args])
    return result.exit_code, result.output


def _values(**given: str) -> object:
    return given.get


# --- the JavaScript context ----------------------------------------------------------------------------


def test_scripts_see_output_env_and_json_as_maestro_gives_them() -> None:
    js = Scripts(seed=7)
    env = _values(A="1", B="2")
    assert js.evaluate("A + B", "f.yaml", env) == "12"  # env values are text, as in Maestro
    assert js.evaluate("parseInt(A) + parseInt(B)", "f.yaml", env) == "3"
    assert js.evaluate("output.n = json('{\"x\": [1, 2]}').x.length", "f.yaml", env) == "2"
    assert js.evaluate("output.n", "f.yaml", env) == "2"  # kept for the rest of the run
    assert js.evaluate("null ?? 'foo'", "f.yaml", env) == "foo"
    assert [js.evaluate(v, "f", env) for v in ("undefined", "null", "true", "1.5")] == [
        "undefined",
        "null",
        "true",
        "1.5",
    ]
    js.set_copied_text("Hello")
    assert js.evaluate("'Hi, ' + maestro.copiedText", "f.yaml", env) == "Hi, Hello"
    assert js.evaluate(" console.log('on start', {a: 1}); ", "f.yaml", env) == "undefined"
    assert js.drain() == ['on start {"a":1}']


def test_the_sandbox_has_no_file_network_or_process_access() -> None:
    js = Scripts(seed=1)
    for name in ("require", "std", "os", "fetch", "process", "XMLHttpRequest"):
        assert js.evaluate(f"typeof {name}", "f", _values()) == "undefined"


def test_randomness_is_seeded_per_run() -> None:
    first, again, other = Scripts(seed=42), Scripts(seed=42), Scripts(seed=43)
    script = "[Math.random(), faker.name().fullName(), faker.internet().emailAddress()].join(' ')"
    assert first.evaluate(script, "f", _values()) == again.evaluate(script, "f", _values())
    assert first.evaluate(script, "f", _values()) != other.evaluate(script, "f", _values())
    assert first.rng.random() == again.rng.random()  # inputRandom* draw from the same seed


def test_a_script_error_names_the_file_line_column_and_message() -> None:
    js = Scripts(seed=1)
    with pytest.raises(ScriptError) as raised:
        js.evaluate("var a = 1;\n\n  a.b.c = 2", "setup.js", _values())
    assert raised.value.message == "setup.js:3:3: TypeError: cannot set property 'c' of undefined"
    with pytest.raises(ScriptError, match=r"^login.yaml:1:\d+: SyntaxError"):
        js.evaluate("output.x = ", "login.yaml", _values())


def test_an_inline_expression_is_named_whole_and_a_longer_one_at_its_line() -> None:
    js = Scripts(seed=1)
    with pytest.raises(ScriptError) as raised:
        js.evaluate("output.a.b", "`${output.a.b}`", _values())
    assert raised.value.message == "`${output.a.b}`: TypeError: cannot read property 'b' of undefined"
    with pytest.raises(ScriptError, match=r"^`\$\{…\}`:2:\d+: TypeError"):
        js.evaluate("1 +\n output.a.b", "`${…}`", _values())


def test_time_and_memory_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scripts_module, "TIME_LIMIT_S", 0.2)
    js = Scripts(seed=1)
    js.evaluate("output.kept = 1", "f", _values())
    start = time.monotonic()
    with pytest.raises(ScriptError, match=r"^loop.js: the script ran longer than 0.2 s"):
        js.evaluate("while (true) {}", "loop.js", _values())
    assert time.monotonic() - start < 3
    # the memory limit on its own: on a loaded machine filling 64 MB can take more than 0.2 s of CPU
    monkeypatch.setattr(scripts_module, "TIME_LIMIT_S", 60.0)
    with pytest.raises(ScriptError, match=r"^big.js: the script used more than 64 MB of memory"):
        js.evaluate("var a = []; while (true) { a.push('x' + a.length); }", "big.js", _values())
    assert js.evaluate("1 + 1", "f", _values()) == "2"  # the run goes on


@pytest.mark.parametrize(
    ("script", "then"),
    [
        # what the runner needs it took before any script ran: these no longer reach it
        ("JSON.stringify = function () { return 1 }; 'kept'", "kept"),
        ("JSON = 5; String = null; eval = null; 'kept'", "kept"),
        ("output = undefined; maestro = null; console.log('x'); 'kept'", "kept"),
        ("Symbol('odd')", "Symbol(odd)"),
        # what it cannot get around is the step's error, one line
        ("Object.prototype.toJSON = function () { return 7 }; 1", "the runner could not read the script's result"),
        ("Array.prototype.toJSON = function () { return 7 }; console.log('x'); 1", "the runner could not read"),
        ("({ toString: function () { throw new Error('no text') } })", "odd.js:1:38: Error: no text"),
        ("Object.defineProperty(globalThis, '__tb_run', { value: 1 })", "TypeError: property is not configurable"),
    ],
)
def test_a_script_cannot_break_what_the_runner_reads_back(script: str, then: str) -> None:
    js = Scripts(seed=1)
    try:
        value = js.evaluate(script, "odd.js", _values())
    except ScriptError as exc:
        assert then in exc.message and "\n" not in exc.message and exc.exit_code == 1
        return
    assert value == then
    js.set_copied_text("copied")
    assert js.evaluate("maestro === null ? 'gone' : maestro.copiedText", "f", _values()) in ("copied", "gone")
    assert js.evaluate("A + 1", "f", _values(A="2")) == "21"  # the next script still runs


def test_a_read_only_global_does_not_stop_the_next_script_getting_its_values() -> None:
    js = Scripts(seed=1)
    js.evaluate("Object.defineProperty(globalThis, 'USER', { value: 'mine', writable: false }); 1", "f", _values())
    assert js.evaluate("USER", "f", _values(USER="given")) == "mine"  # the script's own doing, not a crash


def test_truthiness_is_maestros() -> None:
    assert [truthy(v) for v in ("", " ", "false", "FALSE", "undefined", "null", "0", "0.0")] == [False] * 8
    assert [truthy(v) for v in ("true", "1", "323", "yes", "[object Object]")] == [True] * 5


# --- http through a real client --------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._answer(200 if self.path.startswith("/user") else 404, {"name": "reader", "path": self.path})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(length).decode()
            self._answer(201, {"got": body, "auth": self.headers.get("Authorization")})

        def _answer(self, status: int, data: object) -> None:
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_http_calls_go_through_a_real_client_and_are_logged(server: str) -> None:
    js = Scripts(seed=1)
    script = f"""
        output.count = (output.count || 0) + 1;
        var user = json(http.get('{server}/user/1').body);
        var made = http.post('{server}/users', {{ body: JSON.stringify({{ n: user.name }}), headers: {{ Authorization: 'Bearer t' }} }});
        var missing = http.request('{server}/nope', {{ method: 'get' }});
        output.result = [user.name, made.status, json(made.body).got, json(made.body).auth, missing.status, missing.ok].join(',');
    """
    js.evaluate(script, "api.js", _values())
    assert js.evaluate("output.result", "f", _values()) == 'reader,201,{"n":"reader"},Bearer t,404,false'
    assert js.evaluate("output.count", "f", _values()) == "1"  # re-run for each response, state put back
    lines = js.drain()
    assert [line.split(" in ")[0] for line in lines] == [
        f"GET {server}/user/1 → 200",
        f"POST {server}/users → 201",
        f"GET {server}/nope → 404",
    ]
    assert all(line.endswith(" s") for line in lines)


def test_an_unreachable_url_fails_the_script_with_its_reason() -> None:
    js = Scripts(seed=1)
    with pytest.raises(ScriptError, match=r"^http.get http://127.0.0.1:9/x: "):
        js.evaluate("http.get('http://127.0.0.1:9/x')", "f", _values())
    with pytest.raises(ScriptError, match="only http:// and https:// URLs"):
        js.evaluate("http.get('file:///etc/passwd')", "f", _values())


# --- what Maestro accepts ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        {"action": "back"},
        {"pressKey": "Remote Dpad Down"},
        {"pressKey": "volume up"},
        {"setPermissions": {"permissions": {"all": "allow"}}},
        {"inputText": {"text": "x", "id": "email"}},
        {"runFlow": {"when": {"true": "${IS_CI}"}, "commands": ["back"]}},
        {"runFlow": {"when": {"true": "yes"}, "commands": ["back"]}},
        {"evalScript": "${output.x = 1}"},
        {"evalScript": 2},
        {"assertTrue": "${output.x == 1}"},
        {"assertWithAI": {"assertion": "A login form"}},
        "assertNoDefectsWithAI",
        {"extractTextWithAI": {"query": "the total", "outputVariable": "total"}},
        "clearKeychain",
        {"tapOn": "${'Sign ' + 'in'}"},
    ],
)
def test_maestro_forms_are_accepted(command: object) -> None:
    assert check(command) == []


def test_the_action_form_is_the_command() -> None:
    assert normalize({"action": "hideKeyboard"}) == ("hideKeyboard", {})


def test_unknown_header_keys_and_an_ignored_id_are_notes(tmp_path: Path) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text(
        "appId: x\nandroidWebViewHierarchy: devtools\nonFlowEnd: []\n---\n- inputText:\n    text: hi\n    id: email\n",
        encoding="utf-8",
    )
    trail = load_trail(flow)
    assert trail.flow_notes == [
        f"{flow}:2:1: note: the flow header field `androidWebViewHierarchy` is not used by trailblaze",
        f"{flow}:3:1: note: the flow header field `onFlowEnd` is not used by trailblaze",
        f"{flow}:7:5: note: inputText `id` is ignored (as Maestro ignores it); the text goes to the focused field",
    ]
    assert _validate(str(flow))[0] == 0


def test_runscript_files_are_read_into_the_flow_and_confined(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "setup.js").write_text("output.ok = true\n", encoding="utf-8")
    flow = tmp_path / "flow.yaml"
    flow.write_text(HEAD + "- runScript: setup.js\n- runScript: ../outside.js\n", encoding="utf-8")
    (tmp_path.parent / "outside.js").write_text("output.x = 1\n", encoding="utf-8")
    with pytest.raises(TrailFileError) as raised:
        load_trail(flow)
    assert raised.value.message == (
        f"{flow}:4:14: runScript ../outside.js: outside this flow's project {tmp_path}; it must live in the "
        "same project (the folder of the nearest pyproject.toml or .git)"
    )
    flow.write_text(HEAD + "- runScript: setup.js\n", encoding="utf-8")
    recorded = load_trail(flow).steps[0].recording["android"][0].params  # type: ignore[index]
    assert recorded["commands"] == [{"runScript": {"file": "setup.js", "source": "output.ok = true\n"}}]


# --- budgets for hostile flows -----------------------------------------------------------------------------


def test_a_hostile_fan_out_fails_fast_with_one_line(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    for i in range(12):
        body = "".join(f"- runFlow: f{i + 1:02d}.yaml\n" for _ in range(25)) if i < 11 else "- back\n"
        (tmp_path / f"f{i:02d}.yaml").write_text("appId: x\n---\n" + body, encoding="utf-8")
    start = time.monotonic()
    with pytest.raises(TrailFileError) as raised:
        load_trail(tmp_path / "f00.yaml")
    assert time.monotonic() - start < 2
    assert raised.value.message == (
        f"{tmp_path / 'f00.yaml'}:3:3: with every runFlow file read in, the flow has more than 10,000 commands; "
        "run fewer sub-flows (a flow running the next one twice doubles at every level)"
    )


def test_depth_counts_each_file_once(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    for i in range(18):
        body = f"- runFlow: c{i + 1:02d}.yaml\n" if i < 17 else "- back\n"
        (tmp_path / f"c{i:02d}.yaml").write_text("appId: x\n---\n" + body, encoding="utf-8")
    assert [s.text for s in load_trail(tmp_path / "c07.yaml").steps] == ["runFlow c08.yaml"]  # 11 files deep
    with pytest.raises(TrailFileError, match="runFlow nests deeper than 16 files"):
        load_trail(tmp_path / "c00.yaml")


def test_a_run_flow_outside_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "app"
    (project / ".git").mkdir(parents=True)
    (tmp_path / "other.yaml").write_text(HEAD + "- back\n", encoding="utf-8")
    flow = project / "flow.yaml"
    flow.write_text(HEAD + "- runFlow: ../other.yaml\n", encoding="utf-8")
    with pytest.raises(
        TrailFileError, match=r"flow.yaml:3:12: runFlow ../other.yaml: outside this flow's project"
    ):
        load_trail(flow)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            "- repeat:\n    times: 1000001\n    commands: [back]\n",
            "repeat: times 1,000,001 is more than 1,000",
        ),
        ("- inputRandomNumber:\n    length: 5000\n", "inputRandomNumber: length 5,000 is more than 1,000"),
        ("- eraseText: 99999999\n", "eraseText 99,999,999 is more than 10,000"),
        ("- tapOn:\n    text: x\n    repeat: 1000\n", "tapOn: repeat 1,000 is more than 100"),
    ],
)
def test_caps_are_one_line_errors(tmp_path: Path, body: str, says: str) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text(HEAD + body, encoding="utf-8")
    code, out = _validate(str(flow))
    assert code == 2 and out.splitlines()[0].startswith(f"{flow}:") and says in out.splitlines()[0], out


def test_import_keeps_sub_folders_escapes_names_and_refuses_a_dangling_link(tmp_path: Path) -> None:
    flows = tmp_path / "flows"
    for sub in ("a", "b"):
        (flows / sub).mkdir(parents=True)
        (flows / sub / "login.yaml").write_text(HEAD + "- back\n", encoding="utf-8")
    odd = flows / "a" / "x\nconfig: {id: evil}\n#.yaml"
    odd.write_text(HEAD + "- back\n", encoding="utf-8")
    out = tmp_path / "out"
    (out / "b").mkdir(parents=True)
    (out / "b" / "login.trail.yaml").symlink_to(tmp_path / "nowhere" / "x.yaml")
    result = CliRunner().invoke(cli, ["import", "maestro", str(flows), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert (out / "a" / "login.trail.yaml").is_file()
    assert "which does not exist; writing the trail would create that file" in result.output
    written = (out / "a" / "x\nconfig: {id: evil}\n#.trail.yaml").read_text(encoding="utf-8")
    assert (
        written.splitlines()[0]
        == '# Converted from the Maestro flow "x\\nconfig: {id: evil}\\n#.yaml" by `trailblaze import maestro`.'
    )
    trail = load_trail(out / "a" / "x\nconfig: {id: evil}\n#.trail.yaml")  # the name is data, not YAML
    assert trail.config is not None and trail.config.id == "x\nconfig: {id: evil}\n#"
    forced = CliRunner().invoke(cli, ["import", "maestro", str(flows), "--out", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert (out / "b" / "login.trail.yaml").is_file()


# --- regular expressions (issue 40, item 7) ---------------------------------------------------------------


def test_a_failing_regex_text_says_so() -> None:
    assert regex_hint("Sign out?") == (
        "'Sign out?' is a regular expression (Maestro matches text as one): `?` makes the `t` optional; "
        "write `Sign out\\?` to match it literally"
    )
    assert regex_hint("Sign out") is None
    assert regex_hint("[unclosed") is None  # not a regex: matched as written


# --- on the simulated phones ---------------------------------------------------------------------------------


@pytest.mark.slow  # replays a flow on both simulated phones
@pytest.mark.parametrize("platform", ["android", "ios"])
def test_script_flows_replay_on_the_simulators(platform: str, tmp_path: Path) -> None:
    shutil.copytree(DATA / "scripts", tmp_path / "scripts")
    ran = trailblaze(
        "replay", str(tmp_path / "scripts" / "scripts.yaml"), "--device", f"sim:{platform}", cwd=tmp_path
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    (run_json,) = (tmp_path / ".trailblaze" / "runs").glob("*/run.json")
    assert "random values seeded with " not in run_json.read_text(encoding="utf-8")  # it draws none
    imported = trailblaze(
        "import", "maestro", str(tmp_path / "scripts"), "--out", str(tmp_path / "trails"), cwd=tmp_path
    )
    assert imported.returncode == 0 and "not converted" not in imported.stdout, imported.stdout
    again = trailblaze(
        "replay", str(tmp_path / "trails" / "scripts.trail.yaml"), "--device", f"sim:{platform}", cwd=tmp_path
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "LLM calls" in again.stdout and "│         0 │" in again.stdout


@pytest.mark.slow
def test_a_script_that_breaks_json_fails_its_step_with_exit_1(tmp_path: Path) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text(
        HEAD + "- evalScript: ${JSON.stringify = function () { return 1 }; 'still fine'}\n"
        "- evalScript: ${Object.prototype.toJSON = function () { return 7 }; 1}\n",
        encoding="utf-8",
    )
    ran = trailblaze("replay", str(flow), "--device", "sim:android", cwd=tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    out = " ".join(ran.stdout.split())
    assert "internal error" not in out + ran.stderr and "Traceback" not in ran.stderr
    assert "flow.yaml:4 step 2" in out and "the runner could not read the script's result" in out


@pytest.mark.slow
def test_a_false_assert_true_names_its_expression_and_value_and_nothing_else(tmp_path: Path) -> None:
    ran = trailblaze(
        "replay", str(DATA / "scripts" / "false.yaml"), "--device", "sim:android", "--self-heal",
        "--element-timeout", "0.5", "--run-dir", "run", cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 1, ran.stdout + ran.stderr
    out = " ".join(ran.stdout.split())
    said = "recorded tool 1 of 1 mobile_maestro failed: ERROR assertTrue ${output.count > 5} is false (it evaluated to false)"
    assert said in out
    # the trail's own assertion: no screen candidates, no self-heal, no fix hint, no seed (none drawn)
    for other in ("closest on screen", "self-heal", "fix it in the trail", "seeded", "no API key"):
        assert other not in out
    (trail,) = json.loads((tmp_path / "run" / "run.json").read_text())["trails"]
    step = trail["steps"][1]
    assert step["error"].endswith(said) and step["candidates"] == [] and step["mode"] == "replay"


@pytest.mark.slow  # replays on the simulated phone
def test_a_script_that_throws_fails_at_the_flows_line_and_is_never_healed(tmp_path: Path) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text(HEAD + "- launchApp\n\n- inputText: ${output.a.b}\n", encoding="utf-8")
    ran = trailblaze("replay", str(flow), "--device", "sim:android", "--self-heal", "--run-dir", "run", cwd=tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    out = " ".join(ran.stdout.split())
    assert "flow.yaml:5 step 2 (\"inputText '${output.a.b}'\"): recorded tool 1 of 1 mobile_maestro failed: " in out
    # no screen candidates and no self-heal: the flow is wrong; no seed: it drew no random values
    assert "ERROR `${output.a.b}`: TypeError: cannot read property 'b' of undefined; fix it in the trail" in out
    assert "seeded" not in out
    assert out.count("fix it in the trail (re-recording or self-heal would not)") == 1
    assert "closest on screen" not in out and "no API key" not in out
    (trail,) = json.loads((tmp_path / "run" / "run.json").read_text())["trails"]
    assert [s["mode"] for s in trail["steps"]] == ["replay", "replay"]

    # a script that failed optionally leaves the list's later, screen-side failure as it is
    flow.write_text(
        HEAD + "- launchApp\n- runFlow:\n    commands:\n      - inputText: {text: '${output.a.b}', optional: true}\n"
        "      - tapOn: Nowhere\n",
        encoding="utf-8",
    )
    ran = trailblaze("replay", str(flow), "--device", "sim:android", "--element-timeout", "0.3", cwd=tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    out = " ".join(ran.stdout.split())
    assert "flow.yaml:4 step 2" in out and "closest on screen" in out and "to let the agent repair this step" in out
    assert "fix it in the trail" not in out


@pytest.mark.slow  # replays on the simulated phone
def test_ai_commands_without_a_model_fail_with_one_line_and_regex_texts_say_so(tmp_path: Path) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text(HEAD + "- launchApp\n- assertNotVisible: Sign in?\n", encoding="utf-8")
    ran = trailblaze("replay", str(flow), "--device", "sim:android", "--element-timeout", "0.3", cwd=tmp_path)
    assert ran.returncode == 1
    assert (
        "'Sign in?' is a regular expression (Maestro matches text as one): `?` makes the `n` optional; write `Sign in\\?` to match it literally"
        in ran.stdout
    )
    flow.write_text(HEAD + "- launchApp\n- assertWithAI:\n    assertion: A login form\n", encoding="utf-8")
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "TRAILBLAZE_MODEL"))
    }
    ran = subprocess.run(
        [sys.executable, "-m", "trailblaze", "replay", str(flow), "--device", "sim:android"],
        env={**env, "COLUMNS": "200"}, cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode != 0, ran.stdout + ran.stderr
    assert "assertWithAI assertion='A login form'\"): no API key for https://api.anthropic.com" in ran.stdout


# --- a script error is found before the device (issue 48, item 5) -------------------------------------------


def test_validate_compiles_every_script_without_running_it(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "ok.js").write_text("while (true) {}  // compiled, never run\n", encoding="utf-8")
    (tmp_path / "broken.js").write_text("// a helper\noutput.a = 1;\nvar b = ;\n", encoding="utf-8")
    flow = tmp_path / "flow.yaml"
    flow.write_text(
        HEAD
        + "- runScript: ok.js\n"
        "- runScript: broken.js\n"
        "- evalScript: ${output.count = 2}\n"
        "- assertTrue: ${output.count >}\n"
        '- inputText: "Hi ${output.a b} there"\n'
        "- runFlow:\n    when:\n      true: ${output.x ==== 1}\n    env:\n      Y: ${(}\n"
        "    commands:\n      - tapOn:\n          text: ${foo(}\n"
        "- evalScript: output.q = (\n"
        "- inputText: \\${not JavaScript (}\n",
        encoding="utf-8",
    )
    code, out = _validate(str(flow))
    assert code == 2, out
    assert out.splitlines()[:-1] == [
        f"{tmp_path / 'broken.js'}:3:9: SyntaxError: unexpected token in expression: ';' (run by {flow})",
        f"{flow}:6:15: `${{output.count >}}` does not compile: SyntaxError: the script ends too soon",
        f"{flow}:7:18: `${{output.a b}}` does not compile: SyntaxError: expecting ';'",
        f"{flow}:10:13: `${{output.x ==== 1}}` does not compile: SyntaxError: unexpected token in expression: '='",
        f"{flow}:12:10: `${{(}}` does not compile: SyntaxError: the script ends too soon",
        f"{flow}:15:17: `${{foo(}}` does not compile: SyntaxError: the script ends too soon",
        f"{flow}:16:15: evalScript does not compile (its line 1, column 13): SyntaxError: the script ends too soon",
    ]
    # replay says the same before it opens a device
    ran = trailblaze("replay", str(flow), "--device", "sim:android", cwd=tmp_path)
    assert ran.returncode == 2 and "broken.js:3:9: SyntaxError" in ran.stdout + ran.stderr, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr


def test_validate_compiles_the_scripts_a_trail_records(tmp_path: Path) -> None:
    trail = tmp_path / "t.trail.yaml"
    head = "config:\n  id: t\ntrail:\n  - step: check\n    recording:\n      android:\n        - mobile_maestro:\n"
    trail.write_text(
        head + "            commands:\n              - runFlow:\n                  commands:\n"
        '                    - runScript: {file: x.js, source: "a = 1;\\nb = ;"}\n',
        encoding="utf-8",
    )
    code, out = _validate(str(trail))
    assert code == 2 and out.splitlines()[0] == (
        f"{trail}:9:15: `commands` in `mobile_maestro`: commands.0.runFlow.commands.0.runScript.source: "
        "runScript x.js does not compile (its line 2, column 5): SyntaxError: unexpected token in expression: ';'"
    ), out


def test_a_script_notes_whether_it_drew_random_values() -> None:
    js = Scripts(seed=3)
    js.evaluate("output.n = 1", "f", _values())
    assert not js.drew
    with pytest.raises(ScriptError):
        js.evaluate("faker.name().firstName() + output.a.b", "f", _values())
    assert js.drew  # a script that threw after drawing drew all the same


@pytest.mark.slow
def test_the_seed_is_said_only_when_random_values_were_drawn(tmp_path: Path) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text(HEAD + "- evalScript: ${output.n = 1}\n- inputText: ${output.a.b}\n", encoding="utf-8")
    ran = trailblaze("replay", str(flow), "--device", "sim:android", "--run-dir", "plain", cwd=tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "TypeError: cannot read property 'b' of undefined" in ran.stdout
    assert "seeded" not in ran.stdout + (tmp_path / "plain" / "run.json").read_text(encoding="utf-8")

    flow.write_text(
        HEAD + "- evalScript: ${output.n = 1}\n- inputText: ${faker.name().firstName() + output.a.b}\n",
        encoding="utf-8",
    )
    ran = trailblaze("replay", str(flow), "--device", "sim:android", cwd=tmp_path)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    out = " ".join(ran.stdout.split())
    assert "TypeError: cannot read property 'b' of undefined; random values seeded with " in out
    assert out.count("TRAILBLAZE_SEED=") == 1
