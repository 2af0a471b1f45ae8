from __future__ import annotations

import pytest

from trailblaze.errors import UsageError
from trailblaze.tools.memory import Memory


def test_interpolates_every_template_form() -> None:
    mem = Memory({"email": "a@b.c"}, args={"name": "Ann"}, secrets={"password": "hunter2"})
    params = {"text": "{{password}}", "list": ["{{ email }}", "${name}"], "n": 3,
              "scoped": "{{args.name}}/{{memory.email}}/{{secrets.password}}"}
    out = mem.interpolate(params)
    assert out == {"text": "hunter2", "list": ["a@b.c", "Ann"], "n": 3, "scoped": "Ann/a@b.c/hunter2"}
    assert params["text"] == "{{password}}"  # the recording keeps the template


def test_unknown_variable_is_a_usage_error_naming_the_fix() -> None:
    with pytest.raises(UsageError) as info:
        Memory().interpolate("{{missing}}", where="inputText.text")
    assert info.value.message == (
        "unknown variable {{missing}} in inputText.text: pass --secret missing=VALUE "
        "(or --memory / --arg missing=VALUE), or set it in config.memory"
    )


def test_the_fix_names_the_options_of_the_front_end_in_use() -> None:
    """pytest spells the secret option `--trailblaze-secret`; the MCP server takes it when it starts
    (issue 40): a hint never names an option the front end in use would refuse."""
    from trailblaze.common.flags import MCP, PYTEST

    def fix(memory: Memory, template: str) -> str:
        with pytest.raises(UsageError) as info:
            memory.interpolate(template, where="inputText.text")
        return info.value.message.split(": ", 1)[1]

    assert fix(Memory(flags=PYTEST), "{{password}}") == (
        "pass --trailblaze-secret password=VALUE (or password=VALUE to trail_runner.replay() in a Python test), "
        "or set it in config.memory"
    )
    assert fix(Memory(flags=PYTEST), "{{secrets.password}}") == "pass --trailblaze-secret password=VALUE"
    assert "--secret" not in fix(Memory(flags=PYTEST), "{{password}}").replace("--trailblaze-secret", "")
    assert fix(Memory(flags=MCP), "{{password}}") == (
        "pass --secret password=VALUE to `trailblaze mcp` (restart the server with it), or set it in config.memory"
    )
    assert fix(Memory(flags=MCP), "{{args.user}}") == "set it in config.args"
    # a sub-trail's variables keep the front end's spelling
    sub = Memory(flags=PYTEST).for_subtrail({}, {}, {})
    assert "--trailblaze-secret" in fix(sub, "{{password}}")


def test_scoped_lookup_does_not_fall_through() -> None:
    with pytest.raises(UsageError):
        Memory({"x": "1"}).interpolate("{{args.x}}")


def test_redact_replaces_secret_values_longest_first() -> None:
    mem = Memory(secrets={"short": "abcd", "long": "abcdefgh"})
    assert mem.redact({"a": ["xx abcdefgh yy abcd"]}) == {"a": ["xx {{long}} yy {{short}}"]}


def test_llm_description_never_contains_secret_values() -> None:
    mem = Memory({"note": "pw is hunter2"}, secrets={"password": "hunter2"})
    mem.remember("code", "42")
    text = "\n".join(mem.describe_for_llm())
    assert "hunter2" not in text
    assert "{{password}}" in text and "'42'" in text


def test_build_memory_reads_trailblaze_typed_args() -> None:
    from trailblaze.engine.replay import build_memory
    from trailblaze.trail.model import loads_trail

    trail = loads_trail(
        "config:\n  args:\n    name: {type: string, default: Jane Doe}\n    on: {type: boolean, default: true}\n"
        "    plain: 3\n    needed: {type: string}\ntrail:\n  - step: hi\n",
        path="a.trail.yaml",
    )
    mem = build_memory(trail, args={"needed": "x", "plain": "4"})
    assert [mem.lookup(n, "args") for n in ("name", "on", "plain", "needed")] == ["Jane Doe", "true", "4", "x"]
    with pytest.raises(UsageError, match=r"^a\.trail\.yaml:6:5: config\.args\.needed has no default"):
        build_memory(trail)
