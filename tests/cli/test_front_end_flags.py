"""Hints name the options of the front end they are shown in (issue 40, item 2; ADR 0055): pytest
spells the secret option `--trailblaze-secret` and refuses `--secret`, the MCP server takes secrets
when it starts, and the CLI keeps its own spelling."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pytester import FAST_SESSION
from trailblaze.common.flags import CLI, MCP, PYTEST, Flags
from trailblaze.engine.policy import HealPolicy, RecordPolicy, ReplayPolicy
from trailblaze.engine.preflight import validate_trails
from trailblaze.llm.models import build_llm, parse_model
from trailblaze.llm.openai import OpenAILLM
from trailblaze.mcp.confine import Confinement
from trailblaze.mcp.session import McpSession
from trailblaze.tools.memory import Memory
from trailblaze.trail.model import load_trail

pytest_plugins = ["pytester"]

TRAIL = """\
config:
  id: demo/needs-a-secret
trail:
  - verify: The password is not shown
    recording:
      android:
        - assertNotVisibleWithText:
            text: '{{password}}'
"""


def test_every_front_end_names_only_its_own_options() -> None:
    for flags, own, foreign in (
        (CLI, "--secret password=VALUE", "--trailblaze-"),
        (PYTEST, "--trailblaze-secret password=VALUE", "--secret "),
        (MCP, "`trailblaze mcp`", "--trailblaze-"),
    ):
        hint = flags.give("password")
        assert own in hint and foreign not in hint, (flags.front_end, hint)


def test_a_replay_failure_offers_self_heal_only_where_there_is_one() -> None:
    assert "run with --self-heal" in ReplayPolicy().failure_hint(2, PYTEST)
    assert ReplayPolicy().failure_hint(2, MCP) == "re-record this step"  # MCP has no self-heal
    assert HealPolicy().failure_hint(2, CLI).startswith("run with --self-heal")
    assert RecordPolicy().failure_hint(2, CLI) == "run with --rerecord to record this step again"
    assert "trail_runner.record(PATH, rerecord=True)" in RecordPolicy().failure_hint(2, PYTEST)


def test_the_model_errors_name_the_front_ends_model_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for flags, option in ((CLI, "point --llm-base-url at"), (PYTEST, "point --trailblaze-llm-base-url at")):
        with pytest.raises(Exception) as info:
            build_llm(parse_model("openai:gpt-4.1"), flags=flags)
        assert option in str(info.value), str(info.value)
    client = build_llm(parse_model("openai:gpt-4.1"), base_url="http://127.0.0.1:9/v1", flags=PYTEST)
    assert isinstance(client, OpenAILLM)
    assert client.endpoint_hint() == "--trailblaze-llm-base-url (or `OPENAI_BASE_URL`)"


def test_install_hints_name_pytests_install_options() -> None:
    from types import SimpleNamespace

    from trailblaze.device.install import install_apps
    from trailblaze.errors import UsageError

    phone = SimpleNamespace(driver=object(), info=SimpleNamespace(platform="ios"))
    with pytest.raises(UsageError) as info:
        install_apps(phone, [], reinstall=True, flags=PYTEST)  # type: ignore[arg-type]
    assert info.value.message == (
        "--trailblaze-reinstall reinstalls the apps of --trailblaze-install: add --trailblaze-install PATH"
    )
    with pytest.raises(UsageError) as info:
        install_apps(phone, ["App.ipa"], flags=PYTEST)  # type: ignore[arg-type]
    assert info.value.message.startswith("--trailblaze-install: this ios driver cannot install apps")


def test_mcp_validate_names_the_servers_option(tmp_path: Path) -> None:
    path = tmp_path / "t.trail.yaml"
    path.write_text(TRAIL)
    bench = McpSession(Memory(flags=MCP), confinement=Confinement(tmp_path))
    reply = bench.trail_validate(str(path))
    assert "pass --secret password=VALUE to `trailblaze mcp` (restart the server with it)" in reply.text, reply.text
    # the same file through the CLI's vocabulary
    (finding,) = validate_trails([(path, load_trail(path))], flags=CLI)
    assert finding.message.endswith("pass --secret password=VALUE (or --memory / --arg password=VALUE), or set it in config.memory")


def test_flags_are_plain_data() -> None:
    """A new front end is one more `Flags` value, not a branch in every hint."""
    custom = Flags("x", secret="-s {name}", other_values=None, memory=None, arg=None, model=None,
                   llm_base_url=None, llm_timeout=None, llm_retries=None, self_heal=None, rerecord=None)  # fmt: skip
    assert custom.give("k") == "pass -s k, or set it in config.memory"
    assert custom.passing("k", "args") is None


@pytest.mark.slow
def test_under_pytest_a_missing_secret_names_trailblaze_secret(pytester: pytest.Pytester) -> None:
    """The issue's case: the hint used to say `--secret`, which pytest refuses."""
    pytester.makefile(".ini", pytest="[pytest]\naddopts = -p no:cacheprovider\n")
    pytester.makeconftest(FAST_SESSION)
    (pytester.path / "trails").mkdir()
    (pytester.path / "trails" / "secret.trail.yaml").write_text(TRAIL)
    result = pytester.runpytest_subprocess("trails", "--device", "sim:android", "-p", "no:xdist")
    out = "\n".join(result.outlines)
    assert result.ret == 1, out
    assert "pass --trailblaze-secret password=VALUE" in out, out
    assert "--secret password" not in out.replace("--trailblaze-secret password", ""), out
    # and pytest takes what the hint says
    passed = pytester.runpytest_subprocess(
        "trails", "--device", "sim:android", "-p", "no:xdist", "--trailblaze-secret", "password=hunter2"
    )
    assert passed.ret == 0, "\n".join(passed.outlines)


def test_the_front_ends_take_the_run_options_names_from_one_table() -> None:
    """Issue 46 item 2: `--secret` / `--trailblaze-secret`, `--model`, … are spelled once
    (trailblaze.common.run_flags): no option declaration in the CLI or the pytest plugin writes one
    of them as a literal, and the hints' `Flags` start with the table's spelling."""
    import ast

    from tests.support.paths import ROOT
    from trailblaze.common.run_flags import OPTIONS, plugin_flag

    spelled = {f.cli for f in OPTIONS.values()} | {f.pytest for f in OPTIONS.values() if f.pytest}
    files = [*sorted((ROOT / "trailblaze" / "cli").glob("*.py")), ROOT / "trailblaze" / "pytest" / "plugin.py"]
    literal: list[str] = []
    declared = 0
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("option", "addoption") and node.args:
                declared += 1
                first = node.args[0]
                if isinstance(first, ast.Constant) and first.value in spelled:
                    literal.append(f"{path.name}:{node.lineno} {first.value}")
    assert declared > 50 and literal == []
    assert CLI.secret.startswith(OPTIONS["secret"].cli + " ") and PYTEST.secret.startswith(plugin_flag("secret") + " ")
    assert MCP.script_host.startswith(OPTIONS["script_host"].cli + " ") and PYTEST.model.startswith(plugin_flag("model"))
