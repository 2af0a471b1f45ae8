"""Your own tools (docs/adr/0020-custom-tools.md): Python `@trailblaze.tool` functions and YAML composed
tools, discovered from the tools folder, `[tool.trailblaze] tools` and the `trailblaze.tools` entry
points; recorded by name through the agent, replayed with no LLM, checked by `validate`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import trailblaze
from tests.support.cli import run_cli
from tests.support.paths import ROOT
from trailblaze.device.devices import open_device
from trailblaze.device.session import DeviceSession
from trailblaze.testing import FakeMessagesAPI
from trailblaze.testing.demo_policy import demo_policy
from trailblaze.tools.custom import python_tool
from trailblaze.tools.discovery import clear_cache, tools_for
from trailblaze.tools.execute import run_recorded_tool
from trailblaze.tools.memory import Memory
from trailblaze.tools.tooldef import ToolDef
from trailblaze.tools.toolset import ToolSet
from trailblaze.trail.model import ToolCall, load_trail, loads_trail

DEMO_TOOLS = ROOT / "trails" / "tools"


@pytest.fixture(autouse=True)
def _fresh_discovery() -> Iterator[None]:
    clear_cache()
    yield
    clear_cache()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def trailblaze_cli(
    *args: str, cwd: Path | None = None, base_url: str = "http://127.0.0.1:9", **env: str
) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "ANTHROPIC_BASE_URL": base_url, "COLUMNS": "200", **env}
    environ.pop("ANTHROPIC_API_KEY", None)
    return run_cli(*args, env=environ, cwd=cwd, timeout=180)


def demo_project(tmp_path: Path) -> Path:
    """A folder with the demo's tools next to where the trails go."""
    shutil.copytree(DEMO_TOOLS, tmp_path / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


# --- the decorator --------------------------------------------------------------------------------


def test_the_decorator_builds_params_from_the_signature_and_the_description_from_the_docstring() -> None:
    @trailblaze.tool
    def shop_addToCart(ctx: trailblaze.ToolContext, item: str, count: int = 1) -> None:
        """Add an item to the cart.

        Args:
            item: What to add, as the shop lists it.
            count: How many.
        """

    made = shop_addToCart.__trailblaze_tool__  # type: ignore[attr-defined]
    assert isinstance(made, ToolDef) and (made.name, made.source) == ("shop_addToCart", "python")
    assert made.description == "Add an item to the cart."
    schema = made.params.model_json_schema()
    assert schema["required"] == ["item"] and schema["additionalProperties"] is False
    assert schema["properties"]["item"]["description"] == "What to add, as the shop lists it."
    # Trailblaze reads `item: 480` as text and `count: "2"` as a number
    assert made.params.model_validate({"item": 480, "count": "2"}).model_dump() == {"item": "480", "count": 2}
    with pytest.raises(TypeError, match="needs a type annotation"):
        python_tool(lambda ctx, x: None, name="untyped")


def test_a_custom_tool_cannot_take_a_built_in_name() -> None:
    def inputText(ctx: trailblaze.ToolContext, text: str) -> None: ...

    with pytest.raises(trailblaze.UsageError, match="`inputText` is a built-in tool"):
        ToolSet([python_tool(inputText)])


# --- discovery ------------------------------------------------------------------------------------


def test_the_tools_folder_next_to_the_trails_is_found(tmp_path: Path) -> None:
    project = demo_project(tmp_path)
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    nested = write(project / "flows" / "login" / "a.trail.yaml", "trail:\n  - step: x\n")
    found = tools_for(nested)
    assert found.problems == []
    assert found.tools.names() == ["demo_openTab", "demo_signIn"]
    assert found.sources == (str((project / "tools").resolve()),)


def test_pyproject_names_the_tools_instead_of_the_default_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo_project(tmp_path / "trails")  # the default folder, which the configuration replaces
    write(
        tmp_path / "pyproject.toml",
        '[tool.trailblaze]\ntools = ["qa/steps", "qa/extra.tool.yaml", "acme_more"]\n',
    )
    write(
        tmp_path / "site" / "acme_more.py",
        """
        import trailblaze

        @trailblaze.tool
        def acme_more(ctx: trailblaze.ToolContext) -> None:
            '''An installed module named in pyproject.toml.'''
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    write(
        tmp_path / "qa" / "steps" / "shop.py",
        """
        import trailblaze
        from .helpers import SHOP

        @trailblaze.tool
        def shop_open(ctx: trailblaze.ToolContext) -> str:
            '''Open the shop.'''
            return SHOP
        """,
    )
    write(tmp_path / "qa" / "steps" / "helpers.py", "SHOP = 'shop opened'\n")
    write(
        tmp_path / "qa" / "extra.tool.yaml",
        "id: extra\ndescription: Press back twice.\ntools:\n  - pressBack\n  - pressBack\n",
    )
    trail = write(tmp_path / "trails" / "t.trail.yaml", "trail:\n  - step: x\n")
    found = tools_for(trail)
    assert found.problems == []
    assert found.tools.names() == ["acme_more", "extra", "shop_open"]  # relative imports work in a tools folder


def test_an_installed_package_adds_tools_through_the_entry_point_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    write(
        site / "acme_tools.py",
        """
        import trailblaze

        @trailblaze.tool
        def acme_ping(ctx: trailblaze.ToolContext, times: int = 1) -> str:
            '''Ping the acme backend.'''
            return f"pinged {times}x"
        """,
    )
    write(
        site / "acme_tools-1.0.dist-info" / "METADATA",
        "Metadata-Version: 2.1\nName: acme-tools\nVersion: 1.0\n",
    )
    write(site / "acme_tools-1.0.dist-info" / "entry_points.txt", "[trailblaze.tools]\nacme = acme_tools\n")
    monkeypatch.syspath_prepend(str(site))
    trail = write(tmp_path / "trails" / "t.trail.yaml", "trail:\n  - step: x\n")
    found = tools_for(trail)
    assert found.problems == []
    assert "acme_ping" in found.tools
    assert "acme_ping" not in tools_for(trail, entry_points=False).tools


def test_a_tools_module_that_does_not_import_is_a_located_problem(tmp_path: Path) -> None:
    write(tmp_path / "tools" / "broken.py", "import trailblaze\n\nx = 1 / 0\n")
    found = tools_for(tmp_path / "t.trail.yaml")
    [problem] = found.problems
    assert problem.endswith("broken.py:3: cannot import it: ZeroDivisionError: division by zero")


# --- replay, errors ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def android() -> Iterator[DeviceSession]:
    with open_device("sim:android", latency="zero", resolve_timeout=0.5) as session:
        yield session


@pytest.mark.slow
def test_python_and_yaml_tools_run_by_name_with_templates_from_memory(android: DeviceSession) -> None:
    box = tools_for(ROOT / "trails" / "login.trail.yaml").tools
    mem = Memory(secrets={"password": "hunter2"})
    assert run_recorded_tool(
        android,
        ToolCall(name="launchApp", params={"appId": "dev.trailblaze.demo", "launchMode": "CLEAR_STATE"}),
        mem,
    ).ok
    signed = box.run(
        android,
        ToolCall(name="demo_signIn", params={"email": "user@example.com", "password": "{{password}}"}),
        mem,
    )
    assert str(signed) == "OK signed in as user@example.com"
    opened = box.run(android, ToolCall(name="demo_openTab", params={"tab": "Settings"}), mem)
    assert str(opened) == "OK demo_openTab: ran tapOnElementWithText"
    assert run_recorded_tool(
        android, ToolCall(name="assertVisibleWithText", params={"text": "Dark mode"}), mem
    ).ok
    bad = box.run(android, ToolCall(name="demo_openTab", params={"tab": "Settings", "extra": 1}), mem)
    assert (
        bad.status == "ERROR"
        and "bad params for demo_openTab: extra: Extra inputs are not permitted" in bad.message
    )
    # a failing inner tool fails the tool with its status, naming both
    missing = box.run(android, ToolCall(name="demo_openTab", params={"tab": "Nowhere"}), mem)
    assert missing.status == "NOT_FOUND" and missing.message.startswith(
        "demo_openTab: tool 1 tapOnElementWithText: no element"
    )


@pytest.mark.slow
def test_a_yaml_tool_composes_a_python_tool_with_its_params_and_the_runs_memory(
    tmp_path: Path, android: DeviceSession
) -> None:
    project = demo_project(tmp_path)
    write(
        project / "tools" / "demo_start.tool.yaml",
        """
        id: demo_start
        description: Launch the demo app clean and sign in.
        parameters:
          - {name: email, type: string}
        tools:
          - launchApp: {appId: dev.trailblaze.demo, launchMode: CLEAR_STATE}
          - demo_signIn: {email: "{{params.email}}", password: "{{password}}"}
          - assertVisibleWithText: {text: Inbox}
        """,
    )
    found = tools_for(project / "t.trail.yaml")
    assert found.problems == []
    mem = Memory(secrets={"password": "hunter2"})
    call = ToolCall(name="demo_start", params={"email": "user@example.com"})
    started = found.tools.run(android, call, mem)
    assert str(started) == "OK demo_start: ran launchApp, demo_signIn, assertVisibleWithText"


@pytest.mark.slow
def test_an_exception_in_a_tool_is_that_tools_one_line_error_with_the_traceback_only_under_debug(
    tmp_path: Path,
) -> None:
    write(
        tmp_path / "trails" / "tools" / "faulty.py",
        """
        import trailblaze

        @trailblaze.tool
        def faulty_step(ctx: trailblaze.ToolContext, what: str) -> None:
            '''Always breaks.'''
            raise ValueError(f"cannot {what}\\nsecond line")

        @trailblaze.tool
        def faulty_tap(ctx: trailblaze.ToolContext) -> None:
            '''Taps what is not there.'''
            ctx.run("tapOnElementWithText", text="No such button")
        """,
    )
    device = ["--device", "sim:android", "--element-timeout", "0.5"]
    done = trailblaze_cli("tool", "{faulty_step: {what: fly}}", *device, cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.strip() == "ERROR faulty_step raised ValueError: cannot fly"
    assert "Traceback" not in done.stdout + done.stderr
    debug = trailblaze_cli(
        "tool", "{faulty_step: {what: fly}}", *device, "--debug", cwd=tmp_path, TRAILBLAZE_DEBUG="1"
    )
    assert debug.returncode == 1 and "Traceback" in debug.stderr and "faulty.py" in debug.stderr
    nested = trailblaze_cli("tool", "faulty_tap", *device, cwd=tmp_path)
    assert nested.returncode == 1
    assert nested.stdout.startswith("NOT_FOUND faulty_tap: tapOnElementWithText: no element matches")
    unknown = trailblaze_cli("tool", "faulty_stepp", *device, cwd=tmp_path)
    assert unknown.returncode == 2 and "did you mean `faulty_step`?" in unknown.stderr


# --- validate ---------------------------------------------------------------------------------------


def test_validate_checks_yaml_tools_and_the_calls_of_custom_tools(tmp_path: Path) -> None:
    project = demo_project(tmp_path)
    write(
        project / "tools" / "shop_search.tool.yaml",
        """
        id: shop_search
        description: Search the shop.
        parameters:
          - name: query
            type: string
        tools:
          - tapOnElementBySelektor:
              nodeSelector: {androidAccessibility: {textRegex: Search}}
          - inputText:
              text: "{{params.qeury}}"
          - swipe:
              direction: "{{params.query}}"
              speed: 3
        """,
    )
    write(
        project / "t.trail.yaml",
        """
        config:
          tools: [demo_signIn, demo_openTabs]
        trail:
          - step: Sign in
            recording:
              android:
                - demo_signIn: {email: a@b.c, password: '{{password}}', remember: true}
        """,
    )
    done = trailblaze_cli("validate", "t.trail.yaml", cwd=project)
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    tool_file = os.path.join("tools", "shop_search.tool.yaml")
    assert lines[:3] == [
        f"{tool_file}:10:13: `{{{{params.qeury}}}}` names no parameter of `shop_search`; declare it under `parameters:`",
        "t.trail.yaml:2:24: config.tools: unknown tool `demo_openTabs`: trailblaze has no implementation for it; "
        "did you mean `demo_openTab`?",
        "t.trail.yaml:7:65: bad params for `demo_signIn`: remember: Extra inputs are not permitted",
    ]
    assert lines[-1].startswith("1 file checked, 1 invalid with 3 problems, 1 in custom tools")
    # once the file loads, its body is checked against every tool known
    path = project / "tools" / "shop_search.tool.yaml"
    path.write_text(path.read_text().replace("qeury", "query"))
    again = trailblaze_cli("validate", "t.trail.yaml", cwd=project)
    assert again.returncode == 2
    assert again.stdout.splitlines()[:2] == [
        f"{tool_file}:7:5: unknown tool `tapOnElementBySelektor`: trailblaze has no implementation for it; "
        "did you mean `tapOnElementBySelector`?",
        f"{tool_file}:12:18: bad params for `swipe`: direction: Input should be 'UP', 'DOWN', 'LEFT' or 'RIGHT'",
    ]


def test_the_example_trails_and_their_tools_validate() -> None:
    done = trailblaze_cli("validate", str(ROOT / "trails"))
    assert done.returncode == 0, done.stdout
    assert "all valid" in done.stdout.splitlines()[-1]


# --- the trail file ---------------------------------------------------------------------------------


def test_a_trail_using_custom_tools_round_trips_through_load_and_save(tmp_path: Path) -> None:
    text = (ROOT / "trails" / "settings-dark-mode.trail.yaml").read_text()
    trail = loads_trail(text)
    assert trail.config is not None and trail.config.tools == ["demo_signIn", "demo_openTab"]
    [launch, sign_in] = trail.steps[0].recording_for("ios-iphone") or []
    assert sign_in.to_data() == {"demo_signIn": {"email": "user@example.com", "password": "{{password}}"}}
    trail.save(tmp_path / "copy.trail.yaml")
    assert (tmp_path / "copy.trail.yaml").read_text() == text
    trail.steps[1].recordable = False  # out of sync: rendered fresh, still equal when read back
    assert (
        loads_trail(trail.to_yaml()).steps[1].recording
        == load_trail(ROOT / "trails" / "settings-dark-mode.trail.yaml").steps[1].recording
    )


# --- recorded through the model, replayed with none -------------------------------------------------------


@pytest.mark.slow
def test_a_step_solved_with_a_python_tool_is_recorded_by_name_and_replays_with_no_llm(tmp_path: Path) -> None:
    project = demo_project(tmp_path)
    data = yaml.safe_load((ROOT / "trails" / "settings-dark-mode.trail.yaml").read_text())
    for step in data["trail"]:
        step.pop("recording", None)
    trail = project / "dark.trail.yaml"
    trail.write_text(yaml.safe_dump(data, sort_keys=False))
    with FakeMessagesAPI(policy=demo_policy) as api:
        for platform in ("android", "ios"):
            done = trailblaze_cli(
                "record", str(trail), "--device", f"sim:{platform}", "--secret", "password=hunter2",
                "--run-dir", str(tmp_path / f"run-{platform}"), base_url=api.url,
            )  # fmt: skip
            assert done.returncode == 0, done.stdout + done.stderr
        offered = {t["name"] for body in api.bodies for t in body["tools"]}
        assert {"demo_signIn", "demo_openTab"} <= offered
        assert "hunter2" not in str(api.bodies)
    recorded = load_trail(trail)
    for classifier in ("android", "ios"):
        assert (recorded.steps[0].recording or {})[classifier][1].to_data() == {
            "demo_signIn": {"email": "user@example.com", "password": "{{password}}"}
        }
        assert [c.to_data() for c in (recorded.steps[1].recording or {})[classifier]] == [
            {"demo_openTab": {"tab": "Settings"}}
        ]
    assert "hunter2" not in trail.read_text()
    before = trail.read_bytes()
    for platform in ("android", "ios"):  # no model reachable: the recording replays on its own
        done = trailblaze_cli("replay", str(trail), "--device", f"sim:{platform}", "--secret", "password=hunter2",
                              "--run-dir", str(tmp_path / f"replay-{platform}"))  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        run = json.loads((tmp_path / f"replay-{platform}" / "run.json").read_text())
        assert run["usage"]["llm_calls"] == 0
        assert [s["mode"] for s in run["trails"][0]["steps"]] == ["replay"] * 5
    assert trail.read_bytes() == before


def test_the_schema_knows_the_params_of_the_projects_tools() -> None:
    import jsonschema

    from trailblaze.trail.schema import trail_json_schema

    box = tools_for(ROOT / "trails" / "login.trail.yaml").tools
    validator = jsonschema.Draft202012Validator(trail_json_schema(box))
    good = yaml.safe_load((ROOT / "trails" / "settings-dark-mode.trail.yaml").read_text())
    assert list(validator.iter_errors(good)) == []
    good["trail"][1]["recording"]["android"] = [{"demo_openTab": {"tabb": "Settings"}}]
    assert list(validator.iter_errors(good))
    # without the project's tools, any params pass for an unknown name (ADR 0002)
    assert list(jsonschema.Draft202012Validator(trail_json_schema()).iter_errors(good)) == []


def test_the_agent_is_offered_the_listed_tools_with_reasoning_and_never_a_hidden_one(tmp_path: Path) -> None:
    project = demo_project(tmp_path)
    write(
        project / "tools" / "demo_reset.tool.yaml",
        "id: demo_reset\nsurface_to_llm: false\ntools:\n  - pressBack\n",
    )
    found = tools_for(project / "t.trail.yaml").tools
    tools = ToolSet(found.custom(), offer=["demo_signIn", "demo_reset", "demo_nothing"])
    specs = {s.name: s for s in tools.specs()}
    assert "demo_reset" not in specs and "demo_nothing" not in specs and "demo_openTab" not in specs
    schema = specs["demo_signIn"].input_schema
    assert set(schema["properties"]) == {"email", "password", "reasoning"}
    assert schema["required"] == ["email", "password"]
    assert specs["demo_signIn"].description.startswith("Sign in on the demo app's login screen")
    assert "demo_signIn" not in tools.model_names(verify=True)  # an action, not offered on verify steps
