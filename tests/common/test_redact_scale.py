"""Redaction with many secrets (issue 31, item 8): one automaton finds all of them in one pass,
and each secret's exact pattern is built only when the text holds a candidate for it."""

from __future__ import annotations

import random
import string

import pytest

from tests.support.leak_scan import spellings
from trailblaze.common import redact_spellings
from trailblaze.common.redact import Redactor

_ALPHABET = string.ascii_letters + string.digits + "!#%&*+-_.@ <>\"'\\/=ÄßÅ😀"


def _secrets(count: int) -> dict[str, str]:
    rng = random.Random(31)
    return {f"S{i}": "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(10, 20))) for i in range(count)}


def test_a_thousand_secrets_are_each_redacted_in_every_spelling() -> None:
    secrets = _secrets(1000)
    redactor = Redactor(secrets)
    for name in ("S0", "S17", "S500", "S999"):
        for encoding, form in spellings(secrets[name]).items():
            text = form.decode("utf-8")
            assert redactor.scrub(f"<a>{text}</a>") == f"<a>{{{{{name}}}}}</a>", (name, encoding)
    prose = "The quick brown fox jumps over the lazy dog; status: passed, node 12 of 40."
    assert redactor.scrub(prose) == prose


def test_exact_patterns_are_built_only_for_secrets_the_text_may_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    real = redact_spellings._exact_pattern

    def counting(value: str) -> str:
        built.append(value)
        return real(value)

    monkeypatch.setattr(redact_spellings, "_exact_pattern", counting)
    secrets = {f"S{i}": f"secret-value-{i:04d}" for i in range(1000)}
    redactor = Redactor(secrets)
    text = '{"typed": "secret-value-0042", "other": "secret%2Dvalue%2D0999"}' * 50
    assert redactor.scrub(text) == '{"typed": "{{S42}}", "other": "{{S999}}"}' * 50
    assert sorted(built) == ["secret-value-0042", "secret-value-0999"]


def test_a_plus_is_a_candidate_for_a_space_but_only_redacted_where_it_spells_one() -> None:
    redactor = Redactor({"pw": "two words"})
    assert redactor.scrub("q=two+words&x=two words") == "q={{pw}}&x={{pw}}"
    plus = Redactor({"pw": "one+two!"})
    assert plus.scrub("one two! one+two! one%2Btwo%21") == "one two! {{pw}} {{pw}}"
