"""The JSON Schema printed by `trailblaze schema` agrees with the loader."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support.malformed_trails import MALFORMED, Case
from tests.support.paths import ROOT
from trailblaze.common.yaml_lines import YamlSyntaxError, parse_document
from trailblaze.tools.builtin import RECORDED_TOOL_PARAMS
from trailblaze.trail.schema import trail_json_schema

FILES = sorted((ROOT / "tests" / "data" / "trails").glob("*.trail.yaml")) + sorted(
    (ROOT / "trails").glob("*.trail.yaml")
)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = trail_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _data(text: str) -> Any:
    return parse_document(text).data


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_schema_accepts_every_example(validator: jsonschema.Draft202012Validator, path: Path) -> None:
    errors = [e.message for e in validator.iter_errors(_data(path.read_text()))]
    assert errors == []


_SCHEMA_CASES = [c for c in MALFORMED if c.schema_rejects]


def test_schema_covers_most_malformed_cases() -> None:
    assert len(_SCHEMA_CASES) >= 55


@pytest.mark.parametrize("case", _SCHEMA_CASES, ids=[c.name for c in _SCHEMA_CASES])
def test_schema_rejects_malformed(validator: jsonschema.Draft202012Validator, case: Case) -> None:
    try:
        data = _data(case.text)
    except YamlSyntaxError:  # pragma: no cover - schema cases are all well-formed YAML
        pytest.fail("schema cases must be valid YAML")
    assert not validator.is_valid(data), case.name


def test_schema_knows_tool_params_and_allows_custom_tools(validator: jsonschema.Draft202012Validator) -> None:
    schema = trail_json_schema()
    for model in RECORDED_TOOL_PARAMS.values():
        assert model.__name__ in schema["$defs"]
    base = "trail:\n  - step: a\n    recording:\n      android:\n"
    assert validator.is_valid(_data(base + "        - myCustomTool: {anything: [1, 2]}\n"))
    assert validator.is_valid(_data(base + "        - myCustomTool\n"))
    assert validator.is_valid(_data(base + "        - pressBack\n        - hideKeyboard:\n"))
    assert validator.is_valid(_data(base + "        - launchApp: {appId: x, launchMode: REINSTALL}\n"))
    assert validator.is_valid(_data(base + "        - inputText: {text: '{{email}}', reason: typing}\n"))
    assert not validator.is_valid(_data(base + "        - inputText\n"))
    assert not validator.is_valid(_data(base + "        - a: {}\n          b: {}\n"))


def test_schema_is_deterministic() -> None:
    assert trail_json_schema() == trail_json_schema()
