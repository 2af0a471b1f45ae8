"""Model choice (issue 17): `PROVIDER:MODEL` parsing, the CLI / env / pytest ways to pass it, the
per-provider price table and how an unknown price is shown."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from trailblaze.cli.main import main
from trailblaze.errors import UsageError
from trailblaze.llm.anthropic import AnthropicLLM, BedrockLLM, VertexLLM
from trailblaze.llm.client import LLMRequest, Message, Usage
from trailblaze.llm.models import ModelSpec, build_llm, parse_model, resolve_model
from trailblaze.llm.openai import OpenAILLM
from trailblaze.llm.pricing import PRICES, claude_model_id, cost_usd, price_for
from trailblaze.output._html import format_cost
from trailblaze.output.runlog import UsageTotals, usage_cost_text
from trailblaze.testing import FakeChatCompletionsAPI, chat_tool_call_response

pytest_plugins = ["pytester"]


@pytest.mark.parametrize(
    ("text", "provider", "model"),
    [
        ("claude-sonnet-5", "anthropic", "claude-sonnet-5"),  # a bare name keeps meaning Anthropic
        ("anthropic:claude-opus-5", "anthropic", "claude-opus-5"),
        (
            "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "bedrock",
            "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        ),
        ("vertex:claude-sonnet-4-5@20250929", "vertex", "claude-sonnet-4-5@20250929"),
        ("openai:qwen2.5vl:7b", "openai", "qwen2.5vl:7b"),  # only the first colon splits
    ],
)
def test_parse_model(text: str, provider: str, model: str) -> None:
    spec = parse_model(text)
    assert spec == ModelSpec(provider, model) and str(spec) == f"{provider}:{model}"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "mistral:large",
            "--model `mistral:large`: unknown provider `mistral`; use one of anthropic, bedrock, vertex, openai",
        ),
        ("openai", "--model `openai` names a provider but no model; use openai:MODEL"),
        ("openai:", "--model `openai:` has no model after `openai:`"),
    ],
)
def test_bad_model_specs(text: str, problem: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_model(text)
    assert info.value.message.startswith(problem)


def test_env_and_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_model(None) == ModelSpec("anthropic", "claude-sonnet-5")
    monkeypatch.setenv("TRAILBLAZE_MODEL", "openai:gpt-4.1")
    assert resolve_model(None) == ModelSpec("openai", "gpt-4.1")
    assert resolve_model("claude-opus-5") == ModelSpec("anthropic", "claude-opus-5")  # --model wins
    # an AnthropicLLM built without a model ignores another provider's TRAILBLAZE_MODEL
    assert AnthropicLLM(base_url="http://127.0.0.1:9").model == "claude-sonnet-5"
    monkeypatch.setenv("TRAILBLAZE_MODEL", "azure:gpt-4.1")
    with pytest.raises(UsageError, match="^TRAILBLAZE_MODEL `azure:gpt-4.1`: unknown provider `azure`"):
        resolve_model(None)


def test_build_llm_picks_the_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "p")
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    local = "http://127.0.0.1:9"
    built = {
        p: build_llm(parse_model(f"{p}:m1"), base_url=local + "/v1", timeout=3, retries=1)
        for p in ("anthropic", "bedrock", "vertex", "openai")
    }
    assert [type(c) for c in built.values()] == [AnthropicLLM, BedrockLLM, VertexLLM, OpenAILLM]
    for client in built.values():
        assert (client.model, client.timeout, client.max_retries) == ("m1", 3, 1)  # type: ignore[attr-defined]
        assert client.base_url == local + "/v1"  # type: ignore[attr-defined]
        client.close()  # type: ignore[attr-defined]


def test_unknown_provider_on_the_command_line_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["record", "x.trail.yaml"], ["replay", "x.trail.yaml", "--self-heal"]):
        with pytest.raises(SystemExit) as exc:
            main([*command, "--device", "sim:android", "--model", "llama:3"])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and len(err.strip().splitlines()) == 1, err
        assert (
            "Invalid value for '--model': `llama:3`: unknown provider `llama`" in err
            and "Traceback" not in err
        )


def test_pytest_options_reach_the_llm_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_model="""
def test_model(llm):
    from trailblaze.llm.openai import OpenAILLM
    assert isinstance(llm, OpenAILLM)
    assert (llm.model, llm.base_url) == ("qwen2.5vl:7b", "http://127.0.0.1:11434/v1")
"""
    )
    result = pytester.runpytest_inprocess(
        "test_model.py", "-p", "no:cacheprovider", "--trailblaze-model", "openai:qwen2.5vl:7b",
        "-o", "trailblaze_llm_base_url=http://127.0.0.1:11434/v1",
    )  # fmt: skip
    result.assert_outcomes(passed=1)
    bad = pytester.runpytest_inprocess(
        "test_model.py", "-p", "no:cacheprovider", "-o", "trailblaze_model=foo:bar"
    )
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    assert "trailblaze_model `foo:bar`: unknown provider `foo`" in "\n".join(bad.errlines)


# --- prices --------------------------------------------------------------------------------------------


def test_one_price_table_for_every_provider() -> None:
    providers = {provider for provider, _ in PRICES}
    assert providers == {"anthropic", "bedrock", "vertex", "openai", "demo"}
    free = cost_usd("trailblaze-demo", Usage(input_tokens=10**6, output_tokens=10**6), provider="demo")
    assert free == 0.0  # the keyless demo model (`trailblaze sim llm`) costs nothing
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000, cache_read_input_tokens=1_000_000)
    sonnet = cost_usd("claude-sonnet-4-5", usage)
    assert sonnet == pytest.approx(3 + 15 + 0.3)
    # Bedrock and Vertex ids are priced as the Claude model they serve
    assert claude_model_id("us.anthropic.claude-sonnet-4-5-20250929-v1:0") == "claude-sonnet-4-5-20250929"
    assert cost_usd("us.anthropic.claude-sonnet-4-5-20250929-v1:0", usage, provider="bedrock") == sonnet
    assert cost_usd("claude-sonnet-4-5@20250929", usage, provider="vertex") == sonnet
    assert cost_usd("gpt-4.1-2025-04-14", usage, provider="openai") == pytest.approx(2 + 8 + 0.5)
    # never guessed: a local model, another provider's model, a new release
    assert cost_usd("qwen2.5vl:7b", usage, provider="openai") is None
    assert cost_usd("gpt-4.1", usage) is None and price_for("claude-sonnet-4-5", "openai") is None
    assert cost_usd("claude-sonnet-9", usage) is None


def test_an_unknown_price_is_shown_as_unknown_not_zero() -> None:
    priced = UsageTotals(llm_calls=2, cost_usd=0.0123, models=["openai:gpt-4.1"])
    unpriced = UsageTotals(llm_calls=3, unpriced_calls=3, models=["openai:qwen2.5vl:7b"])
    assert usage_cost_text(priced, format_cost) == "$0.01"
    assert usage_cost_text(unpriced, format_cost) == "unknown"
    priced.add(unpriced)
    assert usage_cost_text(priced, format_cost) == "$0.01 + unknown"
    assert priced.models == ["openai:gpt-4.1", "openai:qwen2.5vl:7b"] and priced.unpriced_calls == 3


def test_the_tool_command_asks_the_chosen_model(capsys: pytest.CaptureFixture[str]) -> None:
    """`trailblaze tool` gives its AI tools the `--model` (here an OpenAI-compatible one); without it
    they answer UNSUPPORTED as before."""
    tool = "{assertWithAi: {prompt: 'A sign-in form is shown'}}"
    with FakeChatCompletionsAPI() as api:
        api.enqueue(
            chat_tool_call_response("verdict", {"passed": True, "explanation": "Email and Password fields"})
        )
        with pytest.raises(SystemExit) as exc:
            main(
                [
                    "tool",
                    tool,
                    "--device",
                    "sim:android",
                    "--model",
                    "openai:gpt-4.1",
                    "--llm-base-url",
                    api.url,
                ]
            )
        out = capsys.readouterr().out
        assert exc.value.code == 0 and "AI: Email and Password fields" in out, out
        (sent,) = api.bodies
        assert sent["model"] == "gpt-4.1"
        assert sent["tool_choice"] == {"type": "function", "function": {"name": "verdict"}}
        assert sent["messages"][1]["content"][0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
        with pytest.raises(SystemExit) as exc:
            main(["tool", tool, "--device", "sim:android"])
        assert exc.value.code == 1 and "UNSUPPORTED" in capsys.readouterr().out
        assert len(api.requests) == 1


@pytest.mark.parametrize(
    ("spec", "module", "extra"),
    [("openai:gpt-4.1", "openai", "openai"), ("bedrock:m", "boto3", "bedrock"), ("vertex:m", "google.auth", "vertex")],
)
def test_a_missing_optional_package_names_its_extra(
    monkeypatch: pytest.MonkeyPatch, spec: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: importing it raises ImportError
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "p")
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    with pytest.raises(UsageError, match=rf"needs the `.+` package: pip install 'trailblaze\[{extra}\]'"):
        build_llm(parse_model(spec), base_url="http://127.0.0.1:9")


def test_sim_openai_serves_the_scripted_model_as_an_openai_compatible_server() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "trailblaze", "sim", "openai", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        found = re.search(r"--model openai:demo --llm-base-url (http://127\.0\.0\.1:\d+/v1)", first)
        assert found, first
        with OpenAILLM("demo", base_url=found[1]) as llm:
            answer = llm.complete(LLMRequest(messages=(Message.user("hello"),)))
        assert answer.text == "OK" and answer.provider == "openai"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
